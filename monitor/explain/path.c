/* path.c - a domain's path below its guest, from the layers and rules the tracer charged
 * its bytes to; and how a claim's direction was decided. See explain.h. */
#include <string.h>

#include "explain/explain.h"

static const char *const path_names[] = {
    [EXP_PHY] = "phy",
    [EXP_PHY_PART] = "phy partition",
    [EXP_PHY_DM] = "phy dm",
    [EXP_FILE] = "file via loop",
    [EXP_FILE_PART] = "file via loop, partition",
    [EXP_QEMU] = "qemu",
    [EXP_DOM0] = "dom0",
};

static const char *const direction_from_names[] = {
    [EXD_TOOL] = "the tool",
    [EXD_TIMELINE] = "the timeline",
    [EXD_LARGER] = "the larger direction",
};

static const char *const sureness_names[] = {
    [EXS_NOT_PLACED] = "not placed",
    [EXS_LIKELY] = "likely",
    [EXS_SURE] = "sure",
};

/* in the order of the EXPE_* bits */
static const char *const evidence_names[] = {
    "guest_marks", "dom0_marks", "wrap", "clock", "bytes", "duration", "order", "taken",
};

const char *ex_sureness_name(enum ex_sureness s)
{
	return sureness_names[s];
}

const char *ex_place_evidence_name(unsigned bit)
{
	for (unsigned i = 0; i < sizeof(evidence_names) / sizeof(evidence_names[0]); i++)
		if (bit == 1u << i)
			return evidence_names[i];
	return "?";
}

const char *ex_path_name(enum ex_path p)
{
	return path_names[p];
}

const char *ex_direction_from_name(enum ex_direction_from f)
{
	return direction_from_names[f];
}

static bool has_loop_layer(const struct ex_domain *d)
{
	for (size_t i = 0; i < d->n_layers; i++)
		if (!strncmp(d->layers[i].name, "loop", 4))
			return true;
	return false;
}

enum ex_path ex_path_of(const struct ex_domain *d)
{
	if (d->dom0_subject)
		return EXP_DOM0;
	if (d->via_wr[XIOTOP_VIA_FILEIO] + d->via_rd[XIOTOP_VIA_FILEIO] ||
	    d->cpu_ns_by_role[XIO_CPU_DEVICE_MODEL] || !strcmp(d->kind, "qdisk"))
		return EXP_QEMU;
	bool file = d->via_wr[XIOTOP_VIA_INODE] + d->via_wr[XIOTOP_VIA_LOOPWORK] +
	                d->via_rd[XIOTOP_VIA_LOOPWORK] ||
	            has_loop_layer(d);
	bool part = d->via_wr[XIOTOP_VIA_PART] + d->via_rd[XIOTOP_VIA_PART] > 0;
	bool dm = d->via_wr[XIOTOP_VIA_REMAP] + d->via_rd[XIOTOP_VIA_REMAP] > 0;
	if (file)
		return part ? EXP_FILE_PART : EXP_FILE;
	if (part)
		return EXP_PHY_PART;
	return dm ? EXP_PHY_DM : EXP_PHY;
}
