/* verdicts_import.c - the verdicts an imported recording allows (xiotop import: xentop,
 * vmstat and iostat logs, no tracer), from host totals where the logs have no per-domain
 * figure, and the ones it does not allow, each named with what is missing and which log
 * would give it. See verdicts.h. */
#include <stdio.h>
#include <string.h>

#include "core/arrays.h"
#include "core/figures.h"
#include "core/sanitize.h"
#include "explain/verdicts/verdicts.h"

/* Does the window hold what the figure is made of (core/figures.c says what it lacks)? */
static bool holds(const struct explain *ex, enum figure_id id)
{
	return figure_held(id, ex->host.absent);
}

static bool imported_log(const struct explain *ex, const char *kind)
{
	char key[16];
	snprintf(key, sizeof(key), "%s=", kind);
	return strstr(ex->host.imported_from, key) != NULL;
}

static bool netbsd(const struct explain *ex)
{
	return !strcmp(ex->host.dom0_os, "netbsd");
}

/* What gives a figure these logs lack, on the dom0 they came from: xiotop record needs
 * Linux's eBPF; a NetBSD dom0 has iostat -x of its disks and vmstat. */
static const char *tracer_advice(const struct explain *ex)
{
	return netbsd(ex) ? "a tracer, which a NetBSD dom0 does not have (xiotop's needs Linux "
	                    "eBPF); iostat -x of the disks and vmstat give what they can"
	                  : "xiotop record";
}

/* iostat was imported and lists a disk, not only stacked devices (loop, dm, md, ...):
 * with only stacked ones what reached a disk is unknown, never 0. */
static bool leaf_disks(const struct explain *ex)
{
	return holds(ex, FIG_DISKS_WR_BYTES) && ex->host.leaf_devices[0];
}

/* An md device among iostat's stacked ones: its mirror members (RAID1/10) take each byte
 * more than once and md submits to them without counting them in vmstat bo, so the
 * leaves' sum cannot be set against bo. */
static bool md_stacked(const struct explain *ex)
{
	const char *s = ex->host.stacked_devices;
	return !strncmp(s, "md", 2) || strstr(s, ",md") != NULL;
}

/* The guests' own writes in the window (xentop VBD sectors), all domains but dom0. */
static double guests_wr(const struct explain *ex)
{
	double sum = 0;
	for (size_t i = 0; i < ex->n_doms; i++)
		if (ex->doms[i].domid)
			sum += (double)ex->doms[i].io.guest_wr_bytes;
	return sum;
}

/* What reached the disks in the window, host-wide: iostat's leaf devices, else vmstat
 * (bo counts every submission, a loop device's twice: an upper bound). */
static bool disk_bytes(const struct explain *ex, bool write, double *bytes, const char **from)
{
	if (leaf_disks(ex)) {
		*bytes = (double)(write ? ex->disk_wr : ex->disk_rd);
		*from = "iostat, leaf devices";
		return true;
	}
	if (holds(ex, FIG_VMSTAT_PGPGOUT_BYTES)) {
		*bytes = (double)(write ? ex->pgpgout_bytes : ex->pgpgin_bytes);
		*from = write ? "vmstat bo, an upper bound" : "vmstat bi, an upper bound";
		return true;
	}
	return false;
}

/* iostat given, but only stacked devices in it: the disk figure is named as not given. */
static void name_no_leaf(struct explain *ex)
{
	if (!holds(ex, FIG_DISKS_WR_BYTES) || leaf_disks(ex))
		return;
	char stacked[512];
	sanitize_text(ex->host.stacked_devices, stacked, sizeof(stacked));
	ex_not_given(ex, "disk_bytes",
	             "iostat lists no disk, only stacked devices (%s): what reached the disks is "
	             "unknown, not 0; %s",
	             stacked[0] ? stacked : "none",
	             netbsd(ex) ? "pass iostat -x N with the disks under them (wd0, sd0, ...)"
	                        : "pass iostat -dx N without a device list (it shows every disk, "
	                          "the ones under loop and dm included)");
}

static size_t active_domains(const struct explain *ex)
{
	size_t n = 0;
	for (size_t i = 0; i < ex->n_doms; i++)
		n += ex->doms[i].io.guest_wr_bytes + ex->doms[i].io.guest_rd_bytes >=
		     EX_ACTIVE_BYTES;
	return n;
}

/* page_cache_inflation (write) or read_cache (read) of d from its xentop VBD bytes
 * against the host's disks. */
static void host_cache_verdict(struct explain *ex, const struct ex_domain *d, bool write)
{
	double guest = (double)(write ? d->io.guest_wr_bytes : d->io.guest_rd_bytes), disk;
	const char *from;
	if (guest < EX_ACTIVE_BYTES || !disk_bytes(ex, write, &disk, &from) ||
	    disk * EX_CACHED_PART_DEN >= guest * EX_CACHED_PART_NUM)
		return;
	struct ex_verdict *v =
	    ex_verdict_new(ex, write ? EXV_PAGE_CACHE_INFLATION : EXV_READ_CACHE, d->domid);
	if (!v)
		return;
	double s = ex->win.seconds;
	v->share = 1 - disk / guest;
	ex_fig(v, write ? "guest_wr_bytes" : "guest_rd_bytes", guest);
	ex_fig(v, write ? "host_disk_wr_bytes" : "host_disk_rd_bytes", disk);
	ex_fig(v, "window_seconds", s);
	ex_fig(v, "guest_rate_bytes_per_s", guest / s);
	ex_fig(v, "disk_rate_bytes_per_s", disk / s);
	if (disk > 0)
		ex_fig(v, "inflation_factor", guest / disk);
	else
		ex_fig_null(v, "inflation_factor");
	ex_fig(v, "active_domains", (double)active_domains(ex));
	ex_fig_str(v, "disk_bytes_from", from);
	ex_evidence(v, "xentop VBD_RSECT/VBD_WSECT");
	ex_evidence(v, from);
	char who[160], b1[32], b2[32], r1[32], r2[32];
	ex_say(v,
	       "%s %s %s in %.0f s (%s, xentop's VBD sectors), but the disks %s only %s (%s; %s, "
	       "every domain's and dom0's own bytes together%s). ",
	       ex_dom_label(d, who, sizeof(who)), write ? "wrote" : "read",
	       ex_bytes(guest, b1, sizeof(b1)), s, ex_rate(guest / s, r1, sizeof(r1)),
	       write ? "took" : "delivered", ex_bytes(disk, b2, sizeof(b2)),
	       ex_rate(disk / s, r2, sizeof(r2)), from,
	       active_domains(ex) > 1 ? ": another domain was busy too, so this is generous" : "");
	/* the logs do not show this domain's path: no words about it. The disks' bytes hold
	 * every domain's (and bo counts a loop's twice), so this domain's part is at most
	 * them: its inflation at least guest / disk */
	if (write && disk > 0)
		ex_say(v,
		       "The rest was held on the way, to be written after the window: the "
		       "benchmark's rate is inflated at least %.1fx. ",
		       guest / disk);
	else if (write)
		ex_say(v, "None of it reached a disk in the window: it was held on the way. ");
	else
		ex_say(v, "%.0f %% of its reads came from a cache, not from a disk. ",
		       v->share * 100);
	ex_say(v,
	       "dom0 holds a guest's bytes in its page cache when the disk is a file without "
	       "direct I/O or a device model with a writeback cache, never on phy: (an LV or a "
	       "partition); these logs do not show which path this domain has (%s does). ",
	       tracer_advice(ex));
	if (write)
		ex_say(v, "Time the run until dom0 has written the bytes (sync in dom0).");
	else
		ex_say(v, "Use a test larger than the memory of every cache on its way%s.",
		       netbsd(ex) ? ""
		                  : ", or drop dom0's caches (echo 3 > /proc/sys/vm/drop_caches)");
}

static void say_double_count(struct ex_verdict *v, const struct explain *ex, bool leaves)
{
	char stacked[512];
	sanitize_text(ex->host.stacked_devices, stacked, sizeof(stacked));
	ex_say(v, "vmstat counts a write each time it is submitted: a file-backed guest's write "
	          "goes in at its loop device and again at the disk under the file; a dm (LV) or "
	          "partition remap, and md's writes to its members, are not submitted again "
	          "and count once. ");
	if (!leaves && md_stacked(ex))
		ex_say(v,
		       "iostat's disks here sit under md (%s): a mirror writes each byte to "
		       "several of them, so their sum is not set against bo. ",
		       stacked);
	else if (!leaves)
		ex_say(v, "iostat lists only stacked devices here (%s), not the disks under them. ",
		       stacked);
	else if (stacked[0])
		ex_say(v, "iostat's stacked devices here: %s. ", stacked);
	ex_say(v, "Which domain's bytes were counted twice is not in these logs (%s gives it).",
	       tracer_advice(ex));
}

/* vmstat bo against what reached the disks (iostat's leaves), else against the guests'
 * own writes (each counted once by blkback's submission) when iostat lists no usable
 * leaf: what bo holds beyond them is loop's second count and dom0's own writes. */
static void host_double_counting(struct explain *ex)
{
	bool vmstat = holds(ex, FIG_VMSTAT_PGPGOUT_BYTES), iostat = holds(ex, FIG_DISKS_WR_BYTES);
	bool leaves = leaf_disks(ex) && !md_stacked(ex);
	bool by_guests = !leaves && iostat && holds(ex, FIG_GUEST_WR_BYTES);
	if (!vmstat || !iostat || (!leaves && !by_guests)) {
		bool no_bo = !vmstat && imported_log(ex, "vmstat");
		ex_verdict_not_given(
		    ex, EXV_DOUBLE_COUNTING,
		    "needs vmstat bo and iostat per-device sectors: pass %s%s%s%s",
		    vmstat ? "" : "--vmstat", vmstat || iostat ? "" : " and ",
		    iostat ? "" : "--iostat",
		    no_bo ? " (the vmstat given has no bi/bo, as NetBSD's: Linux vmstat N has them)"
		    : iostat && vmstat
		        ? "the disks under the stacked devices, or --xentop with VBD "
		          "sectors"
		        : "");
		return;
	}
	double bo = (double)ex->pgpgout_bytes;
	double base = leaves ? (double)ex->disk_wr : guests_wr(ex), dc = bo - base;
	if (dc < EX_ACTIVE_BYTES || dc * EX_DOUBLE_MIN_DEN < bo)
		return;
	struct ex_verdict *v = ex_verdict_new(ex, EXV_DOUBLE_COUNTING, EX_NO_DOMAIN);
	if (!v)
		return;
	v->share = dc / bo;
	ex_fig(v, "vmstat_wr_bytes", bo);
	if (leaves)
		ex_fig(v, "host_disk_wr_bytes", base);
	else
		ex_fig_null(v, "host_disk_wr_bytes");
	if (by_guests)
		ex_fig(v, "guests_wr_bytes", base);
	else
		ex_fig_null(v, "guests_wr_bytes");
	ex_fig(v, "double_counted_bytes", dc);
	if (base > 0)
		ex_fig(v, "vmstat_times", bo / base);
	else
		ex_fig_null(v, "vmstat_times");
	ex_evidence(v, "vmstat bo");
	ex_evidence(v, leaves ? "iostat, leaf devices" : "xentop VBD_WSECT");
	char b1[32], b2[32], b3[32], leaf_names[512];
	sanitize_text(ex->host.leaf_devices, leaf_names, sizeof(leaf_names));
	if (leaves)
		ex_say(v,
		       "vmstat bo counted %s in the window; the disks (iostat's leaf devices: %s) "
		       "wrote %s: %s (%.0f %% of bo) were counted twice. ",
		       ex_bytes(bo, b1, sizeof(b1)), leaf_names, ex_bytes(base, b2, sizeof(b2)),
		       ex_bytes(dc, b3, sizeof(b3)), v->share * 100);
	else
		ex_say(v,
		       "vmstat bo counted %s in the window; the guests wrote %s (xentop's VBD "
		       "sectors): %s (%.0f %% of bo) more than their own writes, which is the "
		       "second count of file-backed guests' writes plus dom0's own writes. ",
		       ex_bytes(bo, b1, sizeof(b1)), ex_bytes(base, b2, sizeof(b2)),
		       ex_bytes(dc, b3, sizeof(b3)), v->share * 100);
	say_double_count(v, ex, leaves);
}

static void guests_cpu(struct ex_verdict *v, const struct explain *ex, double *total)
{
	char who[160];
	*total = 0;
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		if (!d->domid || !d->guest_cpu_known || !d->guest_cpu_ns)
			continue; /* Domain-0's own row is dom0's busy time */
		ex_say(v, "%s%s %.1f s", *total > 0 ? ", " : "", ex_dom_label(d, who, sizeof(who)),
		       (double)d->guest_cpu_ns / 1e9);
		*total += (double)d->guest_cpu_ns / 1e9;
	}
	if (*total == 0)
		ex_say(v, "none known");
}

/* dom0's CPU from the host's busy time (xentop's Domain-0 row, or vmstat): host-wide. */
static void host_dom0_cpu(struct explain *ex)
{
	if (!ex->host.busy_source[0]) {
		ex_verdict_not_given(
		    ex, EXV_DOM0_CPU_COST,
		    "needs dom0's CPU time: pass --xentop (its Domain-0 row), or --vmstat "
		    "with --cpus N");
		return;
	}
	struct ex_verdict *v = ex_verdict_new(ex, EXV_DOM0_CPU_COST, EX_NO_DOMAIN);
	if (!v)
		return;
	double busy = (double)ex->host_busy_ns / 1e9, s = ex->win.seconds, guests;
	const char *src = ex->host.busy_source; /* sanitized by explain_collect */
	ex_say(v,
	       "dom0 was busy %.1f s of CPU in the %.0f s window (%s), %.2f CPUs on average; "
	       "the guests' own vCPU time: ",
	       busy, s, src, s > 0 ? busy / s : 0);
	guests_cpu(v, ex, &guests);
	ex_say(v, ". ");
	v->share = busy + guests > 0 ? busy / (busy + guests) : 0;
	double gib = 0;
	for (size_t i = 0; i < ex->n_doms; i++)
		gib += (double)(ex->doms[i].io.guest_wr_bytes + ex->doms[i].io.guest_rd_bytes) /
		       EX_GIB;
	ex_fig(v, "dom0_cpu_s", busy);
	ex_fig(v, "window_seconds", s);
	ex_fig(v, "dom0_cpus_busy", s > 0 ? busy / s : 0);
	ex_fig(v, "guests_vcpu_s", guests);
	ex_fig(v, "dom0_share_of_cpu", v->share);
	if (holds(ex, FIG_GUEST_WR_BYTES) && gib > 0) {
		ex_fig(v, "guest_gib", gib);
		ex_fig(v, "dom0_cpu_s_per_gib", busy / gib);
		ex_say(v, "That is %.2f s per GiB the guests moved. ", busy / gib);
	} else {
		ex_fig_null(v, "guest_gib");
		ex_fig_null(v, "dom0_cpu_s_per_gib");
	}
	ex_fig_str(v, "busy_source", ex->host.busy_source);
	ex_evidence(v, ex->host.busy_source);
	ex_evidence(v, "xentop CPU(sec) per domain");
	ex_say(v, "dom0's CPU is what a disk's path costs beyond the guest's own: a file: disk "
	          "on loop adds loop's kworkers and the flusher, an emulated disk qemu, where "
	          "phy: (an LV) costs only blkback; compare a run on each path (xiotop explain "
	          "A B). Which domain and role the time went to is not in these logs: xiotop "
	          "record charges it.");
}

/* The VBD bytes or the disk figures a cache verdict needs are not in these logs: why, and
 * which log gives them (once per import: NULL d). */
static void name_no_cache(struct explain *ex, enum ex_verdict_id id)
{
	bool rd = id == EXV_READ_CACHE;
	if (!holds(ex, FIG_GUEST_WR_BYTES)) {
		const char *why =
		    !imported_log(ex, "xentop") ? "pass --xentop"
		    : strstr(ex->host.imported_counters, "xentop_vbd_reqs")
		        ? "this xentop has no VBD_RSECT/VBD_WSECT columns: requests only"
		        : "VBDS is 0 for every domain in this xentop (NetBSD's libxenstat collects "
		          "no vbd statistics)";
		if (rd)
			ex_verdict_not_given(ex, id,
			                     "needs each domain's VBD read bytes (%s) and the "
			                     "disks' reads (--iostat)",
			                     why);
		else
			ex_verdict_not_given(ex, id,
			                     "needs each domain's VBD bytes (xentop's "
			                     "VBD_RSECT/VBD_WSECT: %s) and what reached the disks "
			                     "(--iostat, or --vmstat)",
			                     why);
	} else if (!holds(ex, FIG_DISKS_WR_BYTES) && !holds(ex, FIG_VMSTAT_PGPGOUT_BYTES)) {
		if (rd)
			ex_verdict_not_given(
			    ex, id, "needs the disks' reads: pass --iostat (iostat -dx N)");
		else
			ex_verdict_not_given(
			    ex, id,
			    "needs what reached the disks: pass --iostat (iostat -dx "
			    "N), or --vmstat (Linux vmstat N)");
	}
}

/* Whether a claim set against d gives the benchmark's file size (bonnie's -s). */
static bool claims_file(const struct explain *ex, const struct ex_domain *d)
{
	for (size_t i = 0; i < ex->n_claims; i++)
		if (ex->claims[i].domid == d->domid && ex->claims[i].fig.file_bytes > 0)
			return true;
	return false;
}

/* d moved 1 MiB through its guest layer, by xentop's VBD sectors. */
static bool active(const struct explain *ex, const struct ex_domain *d)
{
	return holds(ex, FIG_GUEST_WR_BYTES) &&
	       d->io.guest_wr_bytes + d->io.guest_rd_bytes >= EX_ACTIVE_BYTES;
}

void import_page_cache_inflation(struct explain *ex, const struct ex_domain *d)
{
	if (!d)
		name_no_cache(ex, EXV_PAGE_CACHE_INFLATION);
	else if (active(ex, d))
		host_cache_verdict(ex, d, true);
}

void import_read_cache(struct explain *ex, const struct ex_domain *d)
{
	if (!d)
		name_no_cache(ex, EXV_READ_CACHE);
	else if (active(ex, d))
		host_cache_verdict(ex, d, false);
}

void import_double_counting(struct explain *ex, const struct ex_domain *d)
{
	if (d)
		return; /* host-wide */
	host_double_counting(ex);
	name_no_leaf(ex);
}

void import_dom0_cpu_cost(struct explain *ex, const struct ex_domain *d)
{
	if (d)
		return; /* host-wide */
	host_dom0_cpu(ex);
	ex_not_given(ex, "dom0_cpu_by_role",
	             "dom0 CPU by domain and role (blkback, loop, writeback, qemu) needs %s",
	             tracer_advice(ex));
}

void import_test_size_vs_memory(struct explain *ex, const struct ex_domain *d)
{
	/* the benchmark's own size rule needs no VBD counter: the claim's file against the
	 * guest's memory (xentop MEM(k)), as seed 004's bonnie -s 2048 on a 2 GiB guest from
	 * a NetBSD dom0 whose libxenstat has no VBD statistics */
	if (d && (active(ex, d) || (claims_file(ex, d) && d->mem_bytes)))
		verdict_test_size_vs_memory(ex, d);
}

void import_request_size(struct explain *ex, const struct ex_domain *d)
{
	if (!d || !active(ex, d))
		return;
	if (leaf_disks(ex)) /* iostat's requests are the leaves' */
		verdict_request_size(ex, d);
	else
		ex_verdict_not_given(ex, EXV_REQUEST_SIZE, "needs the disks' requests: %s",
		                     netbsd(ex) ? "iostat -x N of the disks"
		                                : "iostat -dx N of the disks");
}

void import_path(struct explain *ex, const struct ex_domain *d)
{
	if (d)
		return;
	ex_verdict_not_given(ex, EXV_PATH,
	                     "needs the layers below each guest (its backend device, loop, dm, "
	                     "partitions): %s",
	                     netbsd(ex) ? "the domain's disk line in its xl config"
	                                : "xiotop record (xiotop topology --xenstore-dump shows "
	                                  "the stack)");
}

void import_claim(struct explain *ex, const struct ex_domain *d)
{
	if (!d && ex->n_claims)
		ex_verdict_not_given(ex, EXV_CLAIM,
		                     "needs the bytes that reached a disk for that domain: %s",
		                     tracer_advice(ex));
}
