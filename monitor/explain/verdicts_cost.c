/* verdicts_cost.c - the verdicts about what a path costs and how the test was sized: dom0
 * CPU per GiB by role, test size against dom0's memory and dirty limits, and the path
 * itself (what each layer adds). See verdicts.h for shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sanitize.h"
#include "explain/verdicts.h"

static const char *const role_names[XS_CPU_ROLES] = {"backend", "device_model", "loop",
                                                     "writeback"};

/* The smallest dom0 CPU per GiB among the judged domains (0 if none has CPU). */
static const struct ex_domain *cheapest(const struct explain *ex)
{
	const struct ex_domain *best = NULL;
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		if (d->guest_wr + d->guest_rd < EX_ACTIVE_BYTES || !d->cpu_ns + d->after_cpu_ns)
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
	struct ex_verdict *v = ex_verdict_new(ex, "dom0_cpu_cost", d->domid);
	if (!v)
		return;
	double gib = (double)(d->guest_wr + d->guest_rd) / EX_GIB;
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
	for (int r = 0; r < XS_CPU_ROLES; r++) {
		char key[48];
		double s = (double)(d->cpu_ns_by_role[r] + d->after_cpu_ns_by_role[r]) / 1e9;
		snprintf(key, sizeof(key), "%s_s_per_gib", role_names[r]);
		ex_fig(v, key, gib > 0 ? s / gib : 0);
		if (s > 0)
			ex_say(v, " %s %.2f", role_names[r], gib > 0 ? s / gib : 0);
	}
	ex_say(v, "). ");
	if (low && low != d && low_per_gib > 0) {
		ex_fig(v, "cheapest_domid", low->domid);
		ex_fig(v, "cheapest_s_per_gib", low_per_gib);
		ex_fig(v, "ratio_to_cheapest", per_gib / low_per_gib);
		ex_say(v, "That is %.1fx what %s cost per GiB (%.2f s). ", per_gib / low_per_gib,
		       ex_dom_label(low, other, sizeof(other)), low_per_gib);
	}
	if (d->cpu_ns_by_role[XS_CPU_LOOP] + d->cpu_ns_by_role[XS_CPU_WRITEBACK])
		ex_say(v, "The loop device's kworkers and the flusher copy and write back every "
		          "byte a second time; a phy: backend has only blkback's share. ");
	if (d->cpu_ns_by_role[XS_CPU_DEVICE_MODEL])
		ex_say(v, "qemu emulates the disk in dom0: each request is a trap, a copy and a "
		          "syscall; PV drivers (blkfront/blkback) avoid most of it. ");
	ex_say(v, "xentop's dom0 CPU shows this cost, not the guest's.");
	ex_evidence(v, "dom0_cpu_ns_by_role");
	ex_evidence(v, "guest_wr_bytes");
	ex_evidence(v, "guest_rd_bytes");
}

/* vm.dirty_bytes when set, else vm.dirty_ratio % of dom0's memory (the kernel takes it
 * of available memory: an upper bound). 0 unknown. */
static double dirty_limit(const struct ex_host *h, const char *bytes, const char *ratio)
{
	double b = atof(bytes), r = atof(ratio);
	if (b > 0)
		return b;
	return ratio[0] && h->mem_total_kb ? r / 100 * (double)h->mem_total_kb * 1024 : 0;
}

void verdict_test_size_vs_memory(struct explain *ex, const struct ex_domain *d)
{
	const struct ex_host *h = &ex->host;
	double mem = (double)h->mem_total_kb * 1024, test = (double)(d->guest_wr + d->guest_rd);
	if (!h->mem_total_kb || test > 2 * (mem + (double)d->mem_bytes))
		return;
	struct ex_verdict *v = ex_verdict_new(ex, "test_size_vs_memory", d->domid);
	if (!v)
		return;
	double limit = dirty_limit(h, h->dirty_bytes, h->dirty_ratio);
	double bg = dirty_limit(h, h->dirty_background_bytes, h->dirty_background_ratio);
	double wr = d->guest_wr ? (double)d->guest_wr : 1;
	double fits = h->has_dirty ? (double)d->backlog_peak / wr : limit > 0 ? limit / wr : 0;
	if (fits > 1)
		fits = 1;
	/* the test's size is why the cache could inflate it: a part of that inflation */
	double rate = ex_guest_wr_rate(ex, d), e2e = ex_end_to_end_wr_rate(ex, d);
	v->share = rate > 0 && e2e < rate ? fits * (1 - e2e / rate) : 0;
	ex_fig(v, "test_bytes", test);
	ex_fig(v, "dom0_mem_bytes", mem);
	ex_fig(v, "guest_mem_bytes", (double)d->mem_bytes);
	ex_fig(v, "dirty_limit_bytes", limit);
	ex_fig(v, "dirty_background_bytes", bg);
	ex_fig(v, "dirty_backlog_peak_bytes", (double)d->backlog_peak);
	ex_fig(v, "test_to_dom0_mem", test / mem);
	ex_fig(v, "cached_share_of_writes", fits);
	ex_evidence(v, "host facts: dom0_mem_kb, vm.dirty_*");
	ex_evidence(v, "dirty_backlog_bytes");
	ex_evidence(v, "guest_wr_bytes");
	char who[160], b1[32], b2[32], b3[32], b4[32];
	ex_say(v,
	       "%s's test moved %s; dom0 has %s of memory and lets %s be dirty "
	       "(vm.dirty_ratio %s, vm.dirty_bytes %s) before writers are throttled, and "
	       "starts writing back at %s. ",
	       ex_dom_label(d, who, sizeof(who)), ex_bytes(test, b1, sizeof(b1)),
	       ex_bytes(mem, b2, sizeof(b2)), ex_bytes(limit, b3, sizeof(b3)),
	       h->dirty_ratio[0] ? h->dirty_ratio : "?", h->dirty_bytes[0] ? h->dirty_bytes : "?",
	       ex_bytes(bg, b4, sizeof(b4)));
	if (h->has_dirty)
		ex_say(v, "Up to %s (%.0f %% of its writes) sat in dom0's cache at once. ",
		       ex_bytes((double)d->backlog_peak, b1, sizeof(b1)), fits * 100);
	ex_say(v,
	       "A test smaller than twice dom0's memory plus the guest's (%s) measures the "
	       "caches, not the disk.",
	       ex_bytes(2 * (mem + (double)d->mem_bytes), b1, sizeof(b1)));
}

static void say_path(struct ex_verdict *v, const struct ex_domain *d, const char *kind)
{
	char file[XS_PATH_MAX * 4], leaves[256];
	sanitize_text(d->file, file, sizeof(file));
	ex_leaf_names(d, leaves, sizeof(leaves));
	if (!strcmp(kind, "qemu"))
		ex_say(v,
		       "emulated by qemu in dom0 on the image %s, down to %s: every request is "
		       "trapped, emulated and turned into a read or write of the file; ",
		       file[0] ? file : "(unknown)", leaves);
	else if (!strncmp(kind, "file", 4))
		ex_say(v,
		       "a file (%s) on a loop device, down to %s: loop adds a second submission "
		       "of every byte (vmstat counts it twice) and, without direct I/O, dom0's "
		       "page cache between the guest and the disk; ",
		       file[0] ? file : "backing file", leaves);
	else
		ex_say(v, "phy: straight onto %s%s: counted once, no dom0 page cache; ", leaves,
		       strstr(kind, "partition") ? " through a partition (iostat shows it twice)"
		       : strstr(kind, "dm")      ? " through device-mapper"
		                                 : "");
}

void verdict_path(struct explain *ex, const struct ex_domain *d)
{
	struct ex_verdict *v = ex_verdict_new(ex, "path", d->domid);
	if (!v)
		return;
	const char *kind = ex_path_kind(d);
	bool buffered = d->dirtied > 0;
	v->share = 0;
	ex_fig_str(v, "path", kind);
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
	say_path(v, d, kind);
	ex_say(v, "%s.",
	       buffered ? "its writes were buffered in dom0's page cache"
	                : "its writes were not buffered in dom0");
}
