/* dom0_subject.c - dom0's own I/O as explain's subject "dom0 (CMD)"; see dom0_subject.h. */
#include "explain/dom0_subject.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrays.h"

/* dom0 writing less than this to its disks in an interval is quiet (its journal, the
 * recorder's own file), not a run's writeback. */
#define DOM0_ACTIVE_WR_BYTES (1024 * 1024)
/* The kernel's defaults of vm.dirty_expire_centisecs (3000) and
 * vm.dirty_writeback_centisecs (500), for a recording without them. */
#define DOM0_DEFAULT_QUIET_S 35.0

void ex_dom0_begin(struct ex_dom0_interval *d0)
{
	memset(&d0->md, 0, sizeof(d0->md));
	d0->md.domid = EX_DOM0_ID;
	d0->md.guest_cpu_ns = -1;
	d0->md.layers = d0->layers;
	d0->any = false;
}

static struct model_layer *layer_of(struct ex_dom0_interval *d0, enum model_role role,
                                    const struct xio_dev *dev, uint32_t devno)
{
	struct model_domain *md = &d0->md;
	for (size_t i = 0; i < md->n_layers; i++)
		if (d0->layers[i].dev == devno && d0->layers[i].role == role)
			return &d0->layers[i];
	struct model_layer layer = {.role = role, .dev = devno, .is_leaf = dev && dev->is_leaf};
	if (dev)
		memcpy(layer.name, dev->name, sizeof(layer.name));
	return arrays_put(d0->layers, &md->n_layers, EX_MAX_LAYERS, &layer, sizeof(layer));
}

void ex_dom0_add(struct ex_dom0_interval *d0, const struct xio_sample *s, const struct xio_layer *l,
                 const struct xiotop_io *io)
{
	if (!(io->wr_bytes + io->rd_bytes) || l->via == XIOTOP_VIA_FILEIO)
		return;
	const struct xio_dev *dev = sample_dev(s, l->dev);
	bool leaf = dev && dev->is_leaf;
	bool submitted = l->via == XIOTOP_VIA_NONE; /* dom0's own submit_bio: vmstat's count */
	struct model_domain *md = &d0->md;
	d0->any = true;
	model_domain_add_io(md, io, submitted, leaf, submitted);
	md->double_counted_bytes =
	    md->vmstat_wr_bytes > md->phys_wr_bytes ? md->vmstat_wr_bytes - md->phys_wr_bytes : 0;
	enum model_role role = leaf ? ROLE_LEAF : submitted ? ROLE_BACKEND : ROLE_STACKED;
	struct model_layer *ml = layer_of(d0, role, dev, l->dev);
	if (ml)
		model_layer_add_io(ml, io);
}

const struct model_domain *ex_dom0_merge(const struct model_domain *md,
                                         const struct ex_dom0_interval *d0,
                                         struct model_domain *out, struct model_layer *buf)
{
	*out = md ? *md : d0->md;
	if (!md)
		return out;
	const struct model_domain *b = &d0->md;
	out->guest_wr_bytes += b->guest_wr_bytes;
	out->guest_rd_bytes += b->guest_rd_bytes;
	out->guest_wr_ios += b->guest_wr_ios;
	out->guest_rd_ios += b->guest_rd_ios;
	out->phys_wr_bytes += b->phys_wr_bytes;
	out->phys_rd_bytes += b->phys_rd_bytes;
	out->vmstat_wr_bytes += b->vmstat_wr_bytes;
	out->double_counted_bytes += b->double_counted_bytes;
	size_t n = 0;
	for (size_t i = 0; i < md->n_layers && n < 2 * EX_MAX_LAYERS; i++)
		buf[n++] = md->layers[i];
	for (size_t i = 0; i < b->n_layers && n < 2 * EX_MAX_LAYERS; i++)
		buf[n++] = b->layers[i];
	out->layers = buf;
	out->n_layers = n;
	return out;
}

double ex_dom0_quiet_limit_s(const struct ex_host *h)
{
	if (!h->dirty_expire_cs[0] || !h->dirty_writeback_cs[0])
		return DOM0_DEFAULT_QUIET_S;
	double s = (atof(h->dirty_expire_cs) + atof(h->dirty_writeback_cs)) / 100;
	return s > 0 ? s : DOM0_DEFAULT_QUIET_S;
}

/* The slot of dev among the window's leaf devices, or -1. */
static int slot_of(const struct ex_dom0_tail *t, uint32_t dev)
{
	for (size_t i = 0; i < t->n_run_devs; i++)
		if (t->run_devs[i] == dev)
			return (int)i;
	return -1;
}

void ex_dom0_window(struct ex_dom0_tail *t, const struct model_domain *md)
{
	for (size_t i = 0; i < md->n_layers; i++) {
		const struct model_layer *l = &md->layers[i];
		if (!l->is_leaf || !l->wr_bytes)
			continue;
		int k = slot_of(t, l->dev);
		if (k < 0 && t->n_run_devs == EX_DOM0_RUN_DEVS) {
			t->all_devs = true;
			continue;
		}
		if (k < 0) {
			k = (int)t->n_run_devs++;
			t->run_devs[k] = l->dev;
			t->run_dev_wr[k] = 0;
		}
		t->run_dev_wr[k] += l->wr_bytes;
	}
}

/* Whether the window's slot k is a disk of the run (see ex_dom0_tail); most: the busiest
 * slot's window writes. */
static bool run_disk(const struct ex_dom0_tail *t, size_t k, uint64_t most)
{
	return t->run_dev_wr[k] >= DOM0_ACTIVE_WR_BYTES &&
	       t->run_dev_wr[k] >= most / EX_DOM0_RUN_DEV_DEN;
}

/* What dom0 wrote this interval to the run's disks (none known: to every leaf). */
static uint64_t run_wr(const struct ex_dom0_tail *t, const struct model_domain *md)
{
	uint64_t most = 0;
	for (size_t i = 0; i < t->n_run_devs; i++)
		most = t->run_dev_wr[i] > most ? t->run_dev_wr[i] : most;
	bool known = false;
	for (size_t k = 0; k < t->n_run_devs && !known; k++)
		known = run_disk(t, k, most);
	if (!known || t->all_devs)
		return md->phys_wr_bytes;
	uint64_t n = 0;
	for (size_t i = 0; i < md->n_layers; i++) {
		int k = md->layers[i].is_leaf ? slot_of(t, md->layers[i].dev) : -1;
		if (k >= 0 && run_disk(t, (size_t)k, most))
			n += md->layers[i].wr_bytes;
	}
	return n;
}

void ex_dom0_after(const struct explain *ex, struct ex_domain *d, struct ex_dom0_tail *t,
                   const struct model_domain *md, double interval_s, double end_s)
{
	if (d->drained)
		return;
	t->guest_wr += md->guest_wr_bytes;
	t->guest_wr_ios += md->guest_wr_ios;
	t->phys_wr += md->phys_wr_bytes;
	t->vmstat_wr += md->vmstat_wr_bytes;
	t->double_counted += md->double_counted_bytes;
	if (run_wr(t, md) < DOM0_ACTIVE_WR_BYTES) {
		t->quiet_s += interval_s;
		if (t->quiet_s >= ex_dom0_quiet_limit_s(&ex->host))
			d->drained = true; /* drain_s: the last active interval's end */
		return;
	}
	/* dom0 still writing back: everything since the window is the run's drain */
	d->guest_wr += t->guest_wr;
	d->guest_wr_ios += t->guest_wr_ios;
	d->after_phys_wr += t->phys_wr;
	d->after_vmstat_wr += t->vmstat_wr;
	d->after_double_counted += t->double_counted;
	t->guest_wr = t->guest_wr_ios = t->phys_wr = t->vmstat_wr = t->double_counted = 0;
	t->quiet_s = 0;
	d->drain_s = end_s > 0 ? end_s : 0;
}

/* The program of a wrap mark's command line ("start: /bin/dd if=... " -> "dd"). */
static void program_of(const char *label, char *out, size_t len)
{
	const char *cmd = label + strlen("start: ");
	size_t n = strcspn(cmd, " \t");
	const char *base = cmd;
	for (const char *p = cmd; p < cmd + n; p++)
		if (*p == '/' && p + 1 < cmd + n)
			base = p + 1;
	snprintf(out, len, "%.*s", (int)(cmd + n - base), base);
}

/* A subject that moved nothing is no subject: domain 0 is left as the recording has it
 * (Domain-0's own counters), or dropped when it was made for the subject alone. */
static bool drop_idle(struct explain *ex, size_t i)
{
	struct ex_domain *d = &ex->doms[i];
	if (d->guest_wr + d->guest_rd + d->phys_wr + d->phys_rd + d->after_phys_wr)
		return false;
	d->dom0_subject = false;
	if (d->name[0] || d->guest_cpu_known || d->cpu_ns + d->after_cpu_ns)
		return false;
	free(d->series);
	memmove(d, d + 1, (ex->n_doms - i - 1) * sizeof(*d));
	ex->n_doms--;
	return true;
}

void ex_dom0_name(struct explain *ex)
{
	for (size_t i = 0; i < ex->n_doms; i++) {
		struct ex_domain *d = &ex->doms[i];
		if (!d->dom0_subject || drop_idle(ex, i))
			continue;
		char prog[40] = "";
		if (!strncmp(ex->win.from_label, "start: ", 7))
			program_of(ex->win.from_label, prog, sizeof(prog));
		if (prog[0])
			snprintf(d->name, sizeof(d->name), "dom0 (%s)", prog);
		else
			snprintf(d->name, sizeof(d->name), "dom0");
		snprintf(d->kind, sizeof(d->kind), "dom0");
		d->mem_bytes = 0; /* its cache is dom0's memory (host facts), not a guest's */
	}
}
