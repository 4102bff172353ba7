/* prose_cost.c - the words of the verdicts about what a path costs and how the test was
 * sized: dom0 CPU per GiB by role, test size against the caches' memory, the path itself
 * (verdicts/verdicts_cost.c). */
#include <math.h>
#include <stdio.h>

#include "core/figures.h"
#include "core/sanitize.h"
#include "explain/report/prose.h"
#include "explain/verdicts/verdicts.h"

void prose_dom0_cpu_cost(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                         const struct ex_domain *d)
{
	if (!d) { /* an import: host-wide */
		prose_import_dom0_cpu(p, ex, v, d);
		return;
	}
	char who[160], other[160];
	ex_dom_label(d, who, sizeof(who));
	say(p, "dom0 spent %.2f s of CPU for %s (%.2f s per GiB it moved:", fig(v, EXK_DOM0_CPU_S),
	    who, fig(v, EXK_DOM0_CPU_S_PER_GIB));
	for (int r = 0; r < XIO_CPU_ROLES; r++) {
		double per_gib = fig(v, (enum ex_key)(EXK_ROLE_S_PER_GIB + r));
		if (per_gib > 0)
			say(p, " %s %.2f", figure_cpu_role_key((enum xio_cpu_role)r), per_gib);
	}
	say(p, "). ");
	const struct ex_domain *low = fig_null(v, EXK_CHEAPEST_DOMID)
	                                  ? NULL
	                                  : prose_domain(ex, (uint32_t)fig(v, EXK_CHEAPEST_DOMID));
	if (low)
		say(p, "That is %.1fx what %s cost per GiB (%.2f s). ",
		    fig(v, EXK_RATIO_TO_CHEAPEST), ex_dom_label(low, other, sizeof(other)),
		    fig(v, EXK_CHEAPEST_S_PER_GIB));
	/* a device model's image is written back by the flusher too, with no loop device */
	if (d->cpu_ns_by_role[XIO_CPU_LOOP])
		say(p, "The loop device's kworkers and the flusher copy and write back every "
		       "byte a second time; a phy: backend has only blkback's share. ");
	else if (d->cpu_ns_by_role[XIO_CPU_WRITEBACK])
		say(p, "The flusher writes back what dom0's page cache held of the guest's "
		       "writes; a phy: backend has only blkback's share. ");
	if (d->cpu_ns_by_role[XIO_CPU_DEVICE_MODEL])
		say(p, "qemu emulates the disk in dom0: each request is a trap, a copy and a "
		       "syscall; PV drivers (blkfront/blkback) avoid most of it. ");
	say(p, "xentop's dom0 CPU shows this cost, not the guest's.");
}

/* Which caches are on the test's path: the guest's own memory, dom0's (its memory and
 * dirty limit) where it caches the path. */
static void say_caches(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                       const struct ex_domain *d)
{
	const struct ex_host *h = &ex->host;
	double limit = fig_null(v, EXK_DIRTY_LIMIT_BYTES) ? 0 : fig(v, EXK_DIRTY_LIMIT_BYTES);
	bool dom0 = (v->reasons & EXR_SIZE_DOM0_CACHES) != 0;
	char b2[32], b3[32];
	if (d->dom0_subject)
		say(p, "it ran in dom0");
	else if (d->mem_bytes)
		say(p, "the guest's own page cache can hold up to its memory, %s",
		    ex_bytes((double)d->mem_bytes, b2, sizeof(b2)));
	else
		say(p, "the guest's memory is not in the recording");
	if (dom0 && limit > 0)
		say(p,
		    ", and dom0's cache is on its path: %s of memory, %s of it dirty before "
		    "writers are throttled (vm.dirty_ratio %s, vm.dirty_bytes %s). ",
		    ex_bytes((double)h->mem_total_kb * 1024, b2, sizeof(b2)),
		    ex_bytes(limit, b3, sizeof(b3)), h->dirty_ratio[0] ? h->dirty_ratio : "-",
		    h->dirty_bytes[0] ? h->dirty_bytes : "-");
	else if (dom0)
		say(p,
		    ", and dom0's cache is on its path: %s of memory (its dirty limits are "
		    "not in the recording). ",
		    ex_bytes((double)h->mem_total_kb * 1024, b2, sizeof(b2)));
	else if (h->absent)
		say(p,
		    ". If its disk is a file in dom0 without direct I/O, dom0's %s caches it "
		    "too; these logs do not show its path. ",
		    ex_bytes((double)h->mem_total_kb * 1024, b2, sizeof(b2)));
	else
		say(p, "; dom0 does not cache this path (nothing of it was dirty in dom0). ");
}

void prose_test_size_vs_memory(struct prose *p, const struct explain *ex,
                               const struct ex_verdict *v, const struct ex_domain *d)
{
	const struct ex_host *h = &ex->host;
	char who[160], b1[32], name[32];
	double test = fig(v, EXK_TEST_BYTES);
	if (v->claim != EX_NO_CLAIM) {
		sanitize_text(ex->claims[v->claim].fig.tool, name, sizeof(name));
		say(p, "%s's test file was %s (%s's own file size, from its output); ",
		    ex_dom_label(d, who, sizeof(who)), ex_bytes(test, b1, sizeof(b1)), name);
	} else {
		say(p,
		    "%s's test file was about %s (the larger of what it wrote and read: no "
		    "claim gives the file's size); ",
		    ex_dom_label(d, who, sizeof(who)), ex_bytes(test, b1, sizeof(b1)));
	}
	say_caches(p, ex, v, d);
	if (h->has_dirty && d->backlog_peak)
		say(p, "Up to %s of its writes sat in dom0's cache at once. ",
		    ex_bytes((double)d->backlog_peak, b1, sizeof(b1)));
	say(p,
	    "A benchmark sizes its file at %.0fx the memory of the caches on its way (bonnie++ "
	    "by default) so that they cannot hold it; this one is smaller, so it measures the "
	    "caches, not the disk.",
	    EX_TEST_TO_CACHE_RULE);
}

static void say_path(struct prose *p, const struct ex_domain *d, enum ex_path path)
{
	char file[XIO_PATH_MAX * 4], leaves[256];
	sanitize_text(d->file, file, sizeof(file));
	ex_leaf_names(d, leaves, sizeof(leaves));
	if (path == EXP_QEMU)
		say(p,
		    "emulated by qemu in dom0 on the image %s, down to %s: every request is "
		    "trapped, emulated and turned into a read or write of the file; ",
		    file[0] ? file : "(unknown)", leaves);
	else if (ex_path_is_file(path))
		say(p,
		    "a file (%s) on a loop device, down to %s: loop adds a second submission "
		    "of every byte (vmstat counts it twice) and, without direct I/O, dom0's "
		    "page cache between the guest and the disk; ",
		    file[0] ? file : "backing file", leaves);
	else
		say(p, "phy: straight onto %s%s: counted once, no dom0 page cache; ", leaves,
		    path == EXP_PHY_PART ? " through a partition (iostat shows it twice)"
		    : path == EXP_PHY_DM ? " through device-mapper"
		                         : "");
}

void prose_path(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                const struct ex_domain *d)
{
	(void)ex;
	char who[160];
	say(p, "%s: ", ex_dom_label(d, who, sizeof(who)));
	say_path(p, d, ex_path_of(d));
	say(p, "%s.",
	    fig(v, EXK_BUFFERED_IN_DOM0) > 0 ? "its writes were buffered in dom0's page cache"
	                                     : "its writes were not buffered in dom0");
}
