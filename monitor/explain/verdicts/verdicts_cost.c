/* verdicts_cost.c - the verdicts about what a path costs and how the test was sized: dom0
 * CPU per GiB by role, test size against dom0's memory and dirty limits, and the path
 * itself (what each layer adds). See verdicts.h for shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/figures.h"
#include "core/sanitize.h"
#include "explain/verdicts/verdicts.h"

/* The smallest dom0 CPU per GiB among the judged domains (0 if none has CPU). */
static const struct ex_domain *cheapest(const struct explain *ex)
{
	const struct ex_domain *best = NULL;
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		if (d->io.guest_wr_bytes + d->io.guest_rd_bytes < EX_ACTIVE_BYTES ||
		    !(d->cpu_ns + d->after_cpu_ns))
			continue;
		if (!best || ex_cpu_s_per_gib(d) < ex_cpu_s_per_gib(best))
			best = d;
	}
	return best;
}

void verdict_dom0_cpu_cost(struct explain *ex, const struct ex_domain *d)
{
	if (!ex->host.has_cpu || !(d->cpu_ns + d->after_cpu_ns))
		return;
	struct ex_verdict *v = ex_verdict_new(ex, EXV_DOM0_CPU_COST, d->domid);
	if (!v)
		return;
	double gib = (double)(d->io.guest_wr_bytes + d->io.guest_rd_bytes) / EX_GIB;
	double per_gib = ex_cpu_s_per_gib(d);
	const struct ex_domain *low = cheapest(ex);
	double low_per_gib = low ? ex_cpu_s_per_gib(low) : per_gib;
	v->share = per_gib > 0 && low_per_gib < per_gib ? 1 - low_per_gib / per_gib : 0;
	ex_fig(v, "dom0_cpu_s", ex_dom0_cpu_s(d));
	ex_fig(v, "dom0_cpu_s_drain", (double)d->after_cpu_ns / 1e9);
	ex_fig(v, "guest_gib", gib);
	ex_fig(v, "dom0_cpu_s_per_gib", per_gib);
	char who[160], other[160];
	ex_dom_label(d, who, sizeof(who));
	ex_say(v, "dom0 spent %.2f s of CPU for %s (%.2f s per GiB it moved:", ex_dom0_cpu_s(d),
	       who, per_gib);
	for (int r = 0; r < XIO_CPU_ROLES; r++) {
		char key[48];
		double s = (double)(d->cpu_ns_by_role[r] + d->after_cpu_ns_by_role[r]) / 1e9;
		snprintf(key, sizeof(key), "%s_s_per_gib",
		         figure_cpu_role_key((enum xio_cpu_role)r));
		ex_fig(v, key, gib > 0 ? s / gib : 0);
		if (s > 0)
			ex_say(v, " %s %.2f", figure_cpu_role_key((enum xio_cpu_role)r),
			       gib > 0 ? s / gib : 0);
	}
	ex_say(v, "). ");
	if (low && low != d && low_per_gib > 0) {
		ex_fig(v, "cheapest_domid", low->domid);
		ex_fig(v, "cheapest_s_per_gib", low_per_gib);
		ex_fig(v, "ratio_to_cheapest", per_gib / low_per_gib);
		ex_say(v, "That is %.1fx what %s cost per GiB (%.2f s). ", per_gib / low_per_gib,
		       ex_dom_label(low, other, sizeof(other)), low_per_gib);
	}
	/* a device model's image is written back by the flusher too, with no loop device */
	if (d->cpu_ns_by_role[XIO_CPU_LOOP])
		ex_say(v, "The loop device's kworkers and the flusher copy and write back every "
		          "byte a second time; a phy: backend has only blkback's share. ");
	else if (d->cpu_ns_by_role[XIO_CPU_WRITEBACK])
		ex_say(v, "The flusher writes back what dom0's page cache held of the guest's "
		          "writes; a phy: backend has only blkback's share. ");
	if (d->cpu_ns_by_role[XIO_CPU_DEVICE_MODEL])
		ex_say(v, "qemu emulates the disk in dom0: each request is a trap, a copy and a "
		          "syscall; PV drivers (blkfront/blkback) avoid most of it. ");
	ex_say(v, "xentop's dom0 CPU shows this cost, not the guest's.");
	ex_evidence(v, "dom0_cpu_ns_by_role");
	ex_evidence(v, "guest_wr_bytes");
	ex_evidence(v, "guest_rd_bytes");
}

/* vm.dirty_bytes when set, else vm.dirty_ratio % of dom0's memory (the kernel takes it
 * of available memory: an upper bound). 0 unknown (a sysctl not recorded is not 0). */
static double dirty_limit(const struct ex_host *h, const char *bytes, const char *ratio)
{
	double b = atof(bytes), r = atof(ratio);
	if (b > 0)
		return b;
	return ratio[0] && h->mem_total_kb ? r / 100 * (double)h->mem_total_kb * 1024 : 0;
}

/* Whether dom0's page cache sits on d's path: its writes were dirtied in dom0 (a file
 * without direct I/O, a device model with a writeback cache), or a file or device model
 * path whose reads no disk served. phy: (an LV, a partition) never: blkback submits the
 * guest's bios to the device. Unknown on an import (no tracer): false. */
static bool dom0_caches(const struct ex_domain *d)
{
	enum ex_path path = ex_path_of(d);
	bool file = ex_path_is_file(path) || path == EXP_QEMU;
	return d->dirtied > 0 || (file && d->io.guest_rd_bytes >= EX_ACTIVE_BYTES &&
	                          d->io.phys_rd_bytes * EX_CACHED_PART_DEN <
	                              d->io.guest_rd_bytes * EX_CACHED_PART_NUM);
}

static void say_size(struct ex_verdict *v, const struct explain *ex, const struct ex_domain *d,
                     double test, const char *tool, double limit, bool dom0)
{
	const struct ex_host *h = &ex->host;
	char who[160], b1[32], b2[32], b3[32], name[32];
	if (tool) {
		sanitize_text(tool, name, sizeof(name));
		ex_say(v, "%s's test file was %s (%s's own file size, from its output); ",
		       ex_dom_label(d, who, sizeof(who)), ex_bytes(test, b1, sizeof(b1)), name);
	} else {
		ex_say(v,
		       "%s's test file was about %s (the larger of what it wrote and read: no "
		       "claim gives the file's size); ",
		       ex_dom_label(d, who, sizeof(who)), ex_bytes(test, b1, sizeof(b1)));
	}
	if (d->dom0_subject)
		ex_say(v, "it ran in dom0");
	else if (d->mem_bytes)
		ex_say(v, "the guest's own page cache can hold up to its memory, %s",
		       ex_bytes((double)d->mem_bytes, b2, sizeof(b2)));
	else
		ex_say(v, "the guest's memory is not in the recording");
	if (dom0 && limit > 0)
		ex_say(v,
		       ", and dom0's cache is on its path: %s of memory, %s of it dirty before "
		       "writers are throttled (vm.dirty_ratio %s, vm.dirty_bytes %s). ",
		       ex_bytes((double)h->mem_total_kb * 1024, b2, sizeof(b2)),
		       ex_bytes(limit, b3, sizeof(b3)), h->dirty_ratio[0] ? h->dirty_ratio : "-",
		       h->dirty_bytes[0] ? h->dirty_bytes : "-");
	else if (dom0)
		ex_say(v,
		       ", and dom0's cache is on its path: %s of memory (its dirty limits are "
		       "not in the recording). ",
		       ex_bytes((double)h->mem_total_kb * 1024, b2, sizeof(b2)));
	else if (h->absent)
		ex_say(v,
		       ". If its disk is a file in dom0 without direct I/O, dom0's %s caches it "
		       "too; these logs do not show its path. ",
		       ex_bytes((double)h->mem_total_kb * 1024, b2, sizeof(b2)));
	else
		ex_say(v, "; dom0 does not cache this path (nothing of it was dirty in dom0). ");
	if (h->has_dirty && d->backlog_peak)
		ex_say(v, "Up to %s of its writes sat in dom0's cache at once. ",
		       ex_bytes((double)d->backlog_peak, b1, sizeof(b1)));
	ex_say(v,
	       "A benchmark sizes its file at %.0fx the memory of the caches on its way (bonnie++ "
	       "by default) so that they cannot hold it; this one is smaller, so it measures the "
	       "caches, not the disk.",
	       EX_TEST_TO_CACHE_RULE);
}

/* The benchmark's own rule (bonnie++'s default file size, 2x RAM): the test file against
 * the guest's memory (its own cache) and, where dom0 caches the path, dom0's: its memory
 * when the test reads, its dirty limit when it only writes (the memory when the limit is
 * unknown). */
/* The largest test file the claims set against d give (bonnie's -s, iozone's file size,
 * dd's bs x count, fio's size=), and the tool that gave it; 0 when none gives one. */
static double claimed_file(const struct explain *ex, const struct ex_domain *d, const char **tool)
{
	double file = 0;
	for (size_t i = 0; i < ex->n_claims; i++) {
		const struct ex_claim *c = &ex->claims[i];
		if (c->domid != d->domid || (double)c->fig.file_bytes <= file)
			continue;
		file = (double)c->fig.file_bytes;
		*tool = c->fig.tool;
	}
	return file;
}

void verdict_test_size_vs_memory(struct explain *ex, const struct ex_domain *d)
{
	const struct ex_host *h = &ex->host;
	const char *tool = NULL;
	/* the benchmark's own file when its output gives it; else what the guest moved */
	double test = claimed_file(ex, d, &tool);
	if (test <= 0)
		test = (double)(d->io.guest_wr_bytes > d->io.guest_rd_bytes ? d->io.guest_wr_bytes
		                                                            : d->io.guest_rd_bytes);
	double mem = (double)h->mem_total_kb * 1024;
	double limit = dirty_limit(h, h->dirty_bytes, h->dirty_ratio);
	/* dom0's own file system is in dom0's page cache (its direct I/O does not show here) */
	bool dom0 = (d->dom0_subject || dom0_caches(d)) && mem > 0;
	/* a test that only writes is held by dom0 up to its dirty limit (then throttled); one
	 * that reads can be served from all of dom0's memory */
	bool writes_only = d->io.guest_rd_bytes < EX_ACTIVE_BYTES;
	double dom0_cache = !dom0 ? 0 : writes_only && limit > 0 ? limit : mem;
	double cache = (double)d->mem_bytes + dom0_cache;
	if (cache <= 0 || test >= EX_TEST_TO_CACHE_RULE * cache)
		return;
	struct ex_verdict *v = ex_verdict_new(ex, EXV_TEST_SIZE_VS_MEMORY, d->domid);
	if (!v)
		return;
	/* the test's size is why a cache could hide that much: the part of the cache's effect
	 * (inflated writes, cached reads) the caches' size accounts for */
	double held = test > 0 && cache < test ? cache / test : 1;
	double rate = ex_guest_wr_rate(ex, d), e2e = ex_end_to_end_wr_rate(ex, d);
	/* an import has no physical bytes per domain: what its caches hid is unknown */
	double hidden_wr = !h->absent && rate > 0 && e2e < rate ? 1 - e2e / rate : 0;
	double hidden_rd =
	    !h->absent && d->io.guest_rd_bytes > d->io.phys_rd_bytes && d->io.guest_rd_bytes
	        ? (double)(d->io.guest_rd_bytes - d->io.phys_rd_bytes) /
	              (double)d->io.guest_rd_bytes
	        : 0;
	v->share = held * (hidden_wr > hidden_rd ? hidden_wr : hidden_rd);
	ex_fig(v, "test_bytes", test);
	ex_fig_str(v, "test_bytes_from", tool ? "claim" : "guest bytes");
	ex_fig(v, "guest_mem_bytes", (double)d->mem_bytes);
	if (mem > 0)
		ex_fig(v, "dom0_mem_bytes", mem);
	else
		ex_fig_null(v, "dom0_mem_bytes");
	if (!figure_held(FIG_PHYS_WR_BYTES, h->absent)) { /* an import: no path in the logs */
		ex_fig_null(v, "dom0_caches_path");
		ex_fig_null(v, "dom0_cache_bytes");
	} else {
		ex_fig(v, "dom0_caches_path", dom0);
		ex_fig(v, "dom0_cache_bytes", dom0_cache);
	}
	ex_fig(v, "cache_bytes", cache);
	ex_fig(v, "test_to_cache", test / cache);
	ex_fig(v, "rule_times_cache", EX_TEST_TO_CACHE_RULE);
	double bg = dirty_limit(h, h->dirty_background_bytes, h->dirty_background_ratio);
	if (limit > 0)
		ex_fig(v, "dirty_limit_bytes", limit);
	else
		ex_fig_null(v, "dirty_limit_bytes");
	if (bg > 0)
		ex_fig(v, "dirty_background_bytes", bg);
	else
		ex_fig_null(v, "dirty_background_bytes");
	if (h->has_dirty && !d->dom0_subject)
		ex_fig(v, "dirty_backlog_peak_bytes", (double)d->backlog_peak);
	else
		ex_fig_null(v, "dirty_backlog_peak_bytes");
	ex_evidence(v, "guest_mem_bytes");
	/* an import holds neither the sysctls nor dirty pages: not evidence it used */
	if (h->absent)
		ex_evidence(v, "host facts: dom0_mem_kb");
	else
		ex_evidence(v, "host facts: dom0_mem_kb, vm.dirty_*");
	if (h->has_dirty && !d->dom0_subject)
		ex_evidence(v, "dirtied_bytes");
	ex_evidence(v, "guest_wr_bytes");
	ex_evidence(v, "guest_rd_bytes");
	say_size(v, ex, d, test, tool, limit, dom0);
}

static void say_path(struct ex_verdict *v, const struct ex_domain *d, enum ex_path path)
{
	char file[XIO_PATH_MAX * 4], leaves[256];
	sanitize_text(d->file, file, sizeof(file));
	ex_leaf_names(d, leaves, sizeof(leaves));
	if (path == EXP_QEMU)
		ex_say(v,
		       "emulated by qemu in dom0 on the image %s, down to %s: every request is "
		       "trapped, emulated and turned into a read or write of the file; ",
		       file[0] ? file : "(unknown)", leaves);
	else if (ex_path_is_file(path))
		ex_say(v,
		       "a file (%s) on a loop device, down to %s: loop adds a second submission "
		       "of every byte (vmstat counts it twice) and, without direct I/O, dom0's "
		       "page cache between the guest and the disk; ",
		       file[0] ? file : "backing file", leaves);
	else
		ex_say(v, "phy: straight onto %s%s: counted once, no dom0 page cache; ", leaves,
		       path == EXP_PHY_PART ? " through a partition (iostat shows it twice)"
		       : path == EXP_PHY_DM ? " through device-mapper"
		                            : "");
}

void verdict_path(struct explain *ex, const struct ex_domain *d)
{
	struct ex_verdict *v = ex_verdict_new(ex, EXV_PATH, d->domid);
	if (!v)
		return;
	enum ex_path path = ex_path_of(d);
	bool buffered = d->dirtied > 0;
	v->share = 0;
	ex_fig_str(v, "path", ex_path_name(path));
	ex_fig(v, "layers", (double)d->n_layers);
	ex_fig(v, "buffered_in_dom0", buffered);
	ex_fig(v, "dirtied_bytes", (double)d->dirtied);
	ex_fig(v, "via_loop_bytes",
	       (double)(d->via_wr[XIOTOP_VIA_INODE] + d->via_wr[XIOTOP_VIA_LOOPWORK]));
	ex_fig(v, "via_qemu_file_bytes",
	       (double)(d->via_wr[XIOTOP_VIA_FILEIO] + d->via_rd[XIOTOP_VIA_FILEIO]));
	ex_evidence(v, "layers (role, device)");
	ex_evidence(v, "attribution rule of each layer");
	ex_evidence(v, "dirtied_bytes");
	char who[160];
	ex_say(v, "%s: ", ex_dom_label(d, who, sizeof(who)));
	say_path(v, d, path);
	ex_say(v, "%s.",
	       buffered ? "its writes were buffered in dom0's page cache"
	                : "its writes were not buffered in dom0");
}
