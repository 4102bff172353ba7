/* prose_import.c - the words of an imported recording's verdicts (verdicts/verdicts_import.c:
 * xentop, vmstat and iostat logs, no tracer): a domain's VBD bytes against the host's
 * disks, vmstat bo against iostat, dom0's busy time. */
#include <stdio.h>

#include "core/sanitize.h"
#include "explain/report/prose.h"

void prose_import_cache(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                        const struct ex_domain *d)
{
	bool write = v->id == EXV_PAGE_CACHE_INFLATION;
	double guest = fig(v, write ? EXK_GUEST_WR_BYTES : EXK_GUEST_RD_BYTES);
	double disk = fig(v, write ? EXK_HOST_DISK_WR_BYTES : EXK_HOST_DISK_RD_BYTES);
	double s = fig(v, EXK_WINDOW_SECONDS);
	char who[160], b1[32], b2[32], r1[32], r2[32];
	say(p,
	    "%s %s %s in %.0f s (%s, xentop's VBD sectors), but the disks %s only %s (%s; %s, "
	    "every domain's and dom0's own bytes together%s). ",
	    ex_dom_label(d, who, sizeof(who)), write ? "wrote" : "read",
	    ex_bytes(guest, b1, sizeof(b1)), s, ex_rate(fig(v, EXK_GUEST_RATE), r1, sizeof(r1)),
	    write ? "took" : "delivered", ex_bytes(disk, b2, sizeof(b2)),
	    ex_rate(fig(v, EXK_DISK_RATE), r2, sizeof(r2)), fig_str(v, EXK_DISK_BYTES_FROM),
	    fig(v, EXK_ACTIVE_DOMAINS) > 1 ? ": another domain was busy too, so this is generous"
	                                   : "");
	/* the logs do not show this domain's path: no words about it. The disks' bytes hold
	 * every domain's (and bo counts a loop's twice), so this domain's part is at most
	 * them: its inflation at least guest / disk */
	if (write && disk > 0)
		say(p,
		    "The rest was held on the way, to be written after the window: the "
		    "benchmark's rate is inflated at least %.1fx. ",
		    fig(v, EXK_INFLATION_FACTOR));
	else if (write)
		say(p, "None of it reached a disk in the window: it was held on the way. ");
	else
		say(p, "%.0f %% of its reads came from a cache, not from a disk. ", v->share * 100);
	say(p,
	    "dom0 holds a guest's bytes in its page cache when the disk is a file without "
	    "direct I/O or a device model with a writeback cache, never on phy: (an LV or a "
	    "partition); these logs do not show which path this domain has (%s does). ",
	    ex_tracer_advice(ex));
	if (write)
		say(p, "Time the run until dom0 has written the bytes (sync in dom0).");
	else
		say(p, "Use a test larger than the memory of every cache on its way%s.",
		    ex_dom0_netbsd(ex)
		        ? ""
		        : ", or drop dom0's caches (echo 3 > /proc/sys/vm/drop_caches)");
}

static void say_double_count(struct prose *p, const struct explain *ex, unsigned reasons)
{
	char stacked[512];
	sanitize_text(ex->host.stacked_devices, stacked, sizeof(stacked));
	say(p, "vmstat counts a write each time it is submitted: a file-backed guest's write "
	       "goes in at its loop device and again at the disk under the file; a dm (LV) or "
	       "partition remap, and md's writes to its members, are not submitted again "
	       "and count once. ");
	if (reasons & EXR_DC_MD_STACKED)
		say(p,
		    "iostat's disks here sit under md (%s): a mirror writes each byte to "
		    "several of them, so their sum is not set against bo. ",
		    stacked);
	else if (!(reasons & EXR_DC_AGAINST_LEAVES))
		say(p, "iostat lists only stacked devices here (%s), not the disks under them. ",
		    stacked);
	else if (stacked[0])
		say(p, "iostat's stacked devices here: %s. ", stacked);
	say(p, "Which domain's bytes were counted twice is not in these logs (%s gives it).",
	    ex_tracer_advice(ex));
}

void prose_import_double_counting(struct prose *p, const struct explain *ex,
                                  const struct ex_verdict *v, const struct ex_domain *d)
{
	(void)d;
	char b1[32], b2[32], b3[32], leaf_names[512];
	bool leaves = (v->reasons & EXR_DC_AGAINST_LEAVES) != 0;
	double bo = fig(v, EXK_VMSTAT_WR_BYTES), dc = fig(v, EXK_DOUBLE_COUNTED_BYTES);
	double base = fig(v, leaves ? EXK_HOST_DISK_WR_BYTES : EXK_GUESTS_WR_BYTES);
	sanitize_text(ex->host.leaf_devices, leaf_names, sizeof(leaf_names));
	if (leaves)
		say(p,
		    "vmstat bo counted %s in the window; the disks (iostat's leaf devices: %s) "
		    "wrote %s: %s (%.0f %% of bo) were counted twice. ",
		    ex_bytes(bo, b1, sizeof(b1)), leaf_names, ex_bytes(base, b2, sizeof(b2)),
		    ex_bytes(dc, b3, sizeof(b3)), v->share * 100);
	else
		say(p,
		    "vmstat bo counted %s in the window; the guests wrote %s (xentop's VBD "
		    "sectors): %s (%.0f %% of bo) more than their own writes, which is the "
		    "second count of file-backed guests' writes plus dom0's own writes. ",
		    ex_bytes(bo, b1, sizeof(b1)), ex_bytes(base, b2, sizeof(b2)),
		    ex_bytes(dc, b3, sizeof(b3)), v->share * 100);
	say_double_count(p, ex, v->reasons);
}

/* Each guest's own vCPU time (xentop CPU(sec)), Domain-0's row left out. */
static void say_guests_cpu(struct prose *p, const struct explain *ex)
{
	char who[160];
	bool any = false;
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		if (!d->domid || !d->guest_cpu_known || !d->guest_cpu_ns)
			continue; /* Domain-0's own row is dom0's busy time */
		say(p, "%s%s %.1f s", any ? ", " : "", ex_dom_label(d, who, sizeof(who)),
		    (double)d->guest_cpu_ns / 1e9);
		any = true;
	}
	if (!any)
		say(p, "none known");
}

void prose_import_dom0_cpu(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                           const struct ex_domain *d)
{
	(void)d;
	say(p,
	    "dom0 was busy %.1f s of CPU in the %.0f s window (%s), %.2f CPUs on average; "
	    "the guests' own vCPU time: ",
	    fig(v, EXK_DOM0_CPU_S), fig(v, EXK_WINDOW_SECONDS), fig_str(v, EXK_BUSY_SOURCE),
	    fig(v, EXK_DOM0_CPUS_BUSY));
	say_guests_cpu(p, ex);
	say(p, ". ");
	if (!fig_null(v, EXK_DOM0_CPU_S_PER_GIB))
		say(p, "That is %.2f s per GiB the guests moved. ", fig(v, EXK_DOM0_CPU_S_PER_GIB));
	say(p, "dom0's CPU is what a disk's path costs beyond the guest's own: a file: disk "
	       "on loop adds loop's kworkers and the flusher, an emulated disk qemu, where "
	       "phy: (an LV) costs only blkback; compare a run on each path (xiotop explain "
	       "A B). Which domain and role the time went to is not in these logs: xiotop "
	       "record charges it.");
}
