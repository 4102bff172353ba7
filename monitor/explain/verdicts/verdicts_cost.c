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
	ex_fig(v, EXK_DOM0_CPU_S, ex_dom0_cpu_s(d));
	ex_fig(v, EXK_DOM0_CPU_S_DRAIN, (double)d->after_cpu_ns / 1e9);
	ex_fig(v, EXK_GUEST_GIB, gib);
	ex_fig(v, EXK_DOM0_CPU_S_PER_GIB, per_gib);
	for (int r = 0; r < XIO_CPU_ROLES; r++) {
		double s = (double)(d->cpu_ns_by_role[r] + d->after_cpu_ns_by_role[r]) / 1e9;
		ex_fig(v, (enum ex_key)(EXK_ROLE_S_PER_GIB + r), gib > 0 ? s / gib : 0);
	}
	if (low && low != d && low_per_gib > 0) {
		ex_fig(v, EXK_CHEAPEST_DOMID, low->domid);
		ex_fig(v, EXK_CHEAPEST_S_PER_GIB, low_per_gib);
		ex_fig(v, EXK_RATIO_TO_CHEAPEST, per_gib / low_per_gib);
	}
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

/* The benchmark's own rule (bonnie++'s default file size, 2x RAM): the test file against
 * the guest's memory (its own cache) and, where dom0 caches the path, dom0's: its memory
 * when the test reads, its dirty limit when it only writes (the memory when the limit is
 * unknown). */
/* The largest test file the claims set against d give (bonnie's -s, iozone's file size,
 * dd's bs x count, fio's size=), and the claims[] row that gave it; 0 when none gives one. */
static double claimed_file(const struct explain *ex, const struct ex_domain *d, size_t *row)
{
	double file = 0;
	for (size_t i = 0; i < ex->n_claims; i++) {
		const struct ex_claim *c = &ex->claims[i];
		if (c->domid != d->domid || (double)c->fig.file_bytes <= file)
			continue;
		file = (double)c->fig.file_bytes;
		*row = i;
	}
	return file;
}

void ex_test_and_caches(const struct explain *ex, const struct ex_domain *d, struct ex_test_size *t)
{
	const struct ex_host *h = &ex->host;
	t->row = EX_NO_CLAIM;
	/* the benchmark's own file when its output gives it; else what the guest moved */
	t->test = claimed_file(ex, d, &t->row);
	if (t->test <= 0)
		t->test =
		    (double)(d->io.guest_wr_bytes > d->io.guest_rd_bytes ? d->io.guest_wr_bytes
		                                                         : d->io.guest_rd_bytes);
	double mem = (double)h->mem_total_kb * 1024;
	t->limit = dirty_limit(h, h->dirty_bytes, h->dirty_ratio);
	/* dom0's own file system is in dom0's page cache (its direct I/O does not show here) */
	t->dom0 = (d->dom0_subject || dom0_caches(d)) && mem > 0;
	/* a test that only writes is held by dom0 up to its dirty limit (then throttled); one
	 * that reads can be served from all of dom0's memory */
	bool writes_only = d->io.guest_rd_bytes < EX_ACTIVE_BYTES;
	t->dom0_cache = !t->dom0 ? 0 : writes_only && t->limit > 0 ? t->limit : mem;
	t->cache = (double)d->mem_bytes + t->dom0_cache;
}

void verdict_test_size_vs_memory(struct explain *ex, const struct ex_domain *d)
{
	const struct ex_host *h = &ex->host;
	struct ex_test_size t;
	ex_test_and_caches(ex, d, &t);
	double test = t.test, cache = t.cache, limit = t.limit, dom0_cache = t.dom0_cache;
	double mem = (double)h->mem_total_kb * 1024;
	size_t row = t.row;
	bool dom0 = t.dom0;
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
	v->claim = row;
	if (dom0)
		v->reasons |= EXR_SIZE_DOM0_CACHES;
	ex_fig(v, EXK_TEST_BYTES, test);
	ex_fig_str(v, EXK_TEST_BYTES_FROM, row != EX_NO_CLAIM ? "claim" : "guest bytes");
	if (d->mem_bytes)
		ex_fig(v, EXK_GUEST_MEM_BYTES, (double)d->mem_bytes);
	else /* the recording does not hold it (xenstore, xentop MEM(k)) */
		ex_fig_null(v, EXK_GUEST_MEM_BYTES);
	if (mem > 0)
		ex_fig(v, EXK_DOM0_MEM_BYTES, mem);
	else
		ex_fig_null(v, EXK_DOM0_MEM_BYTES);
	if (!figure_held(FIG_PHYS_WR_BYTES, h->absent)) { /* an import: no path in the logs */
		ex_fig_null(v, EXK_DOM0_CACHES_PATH);
		ex_fig_null(v, EXK_DOM0_CACHE_BYTES);
	} else {
		ex_fig(v, EXK_DOM0_CACHES_PATH, dom0);
		ex_fig(v, EXK_DOM0_CACHE_BYTES, dom0_cache);
	}
	ex_fig(v, EXK_CACHE_BYTES, cache);
	ex_fig(v, EXK_TEST_TO_CACHE, test / cache);
	ex_fig(v, EXK_RULE_TIMES_CACHE, EX_TEST_TO_CACHE_RULE);
	double bg = dirty_limit(h, h->dirty_background_bytes, h->dirty_background_ratio);
	if (limit > 0)
		ex_fig(v, EXK_DIRTY_LIMIT_BYTES, limit);
	else
		ex_fig_null(v, EXK_DIRTY_LIMIT_BYTES);
	if (bg > 0)
		ex_fig(v, EXK_DIRTY_BACKGROUND_BYTES, bg);
	else
		ex_fig_null(v, EXK_DIRTY_BACKGROUND_BYTES);
	if (h->has_dirty && !d->dom0_subject)
		ex_fig(v, EXK_DIRTY_BACKLOG_PEAK, (double)d->backlog_peak);
	else
		ex_fig_null(v, EXK_DIRTY_BACKLOG_PEAK);
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
}

void verdict_path(struct explain *ex, const struct ex_domain *d)
{
	struct ex_verdict *v = ex_verdict_new(ex, EXV_PATH, d->domid);
	if (!v)
		return;
	enum ex_path path = ex_path_of(d);
	bool buffered = d->dirtied > 0;
	v->share = 0;
	ex_fig_str(v, EXK_PATH, ex_path_name(path));
	ex_fig(v, EXK_LAYERS, (double)d->n_layers);
	ex_fig(v, EXK_BUFFERED_IN_DOM0, buffered);
	ex_fig(v, EXK_DIRTIED_BYTES, (double)d->dirtied);
	ex_fig(v, EXK_VIA_LOOP_BYTES,
	       (double)(d->via_wr[XIOTOP_VIA_INODE] + d->via_wr[XIOTOP_VIA_LOOPWORK]));
	ex_fig(v, EXK_VIA_QEMU_FILE_BYTES,
	       (double)(d->via_wr[XIOTOP_VIA_FILEIO] + d->via_rd[XIOTOP_VIA_FILEIO]));
	ex_evidence(v, "layers (role, device)");
	ex_evidence(v, "attribution rule of each layer");
	ex_evidence(v, "dirtied_bytes");
}
