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
	             ex_dom0_netbsd(ex)
	                 ? "pass iostat -x N with the disks under them (wd0, sd0, ...)"
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
	ex_fig(v, write ? EXK_GUEST_WR_BYTES : EXK_GUEST_RD_BYTES, guest);
	ex_fig(v, write ? EXK_HOST_DISK_WR_BYTES : EXK_HOST_DISK_RD_BYTES, disk);
	ex_fig(v, EXK_WINDOW_SECONDS, s);
	ex_fig(v, EXK_GUEST_RATE, guest / s);
	ex_fig(v, EXK_DISK_RATE, disk / s);
	if (disk > 0)
		ex_fig(v, EXK_INFLATION_FACTOR, guest / disk);
	else
		ex_fig_null(v, EXK_INFLATION_FACTOR);
	ex_fig(v, EXK_ACTIVE_DOMAINS, (double)active_domains(ex));
	ex_fig_str(v, EXK_DISK_BYTES_FROM, from);
	ex_evidence(v, "xentop VBD_RSECT/VBD_WSECT");
	ex_evidence(v, from);
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
	if (leaves)
		v->reasons |= EXR_DC_AGAINST_LEAVES;
	else if (md_stacked(ex))
		v->reasons |= EXR_DC_MD_STACKED;
	ex_fig(v, EXK_VMSTAT_WR_BYTES, bo);
	if (leaves)
		ex_fig(v, EXK_HOST_DISK_WR_BYTES, base);
	else
		ex_fig_null(v, EXK_HOST_DISK_WR_BYTES);
	if (by_guests)
		ex_fig(v, EXK_GUESTS_WR_BYTES, base);
	else
		ex_fig_null(v, EXK_GUESTS_WR_BYTES);
	ex_fig(v, EXK_DOUBLE_COUNTED_BYTES, dc);
	if (base > 0)
		ex_fig(v, EXK_VMSTAT_TIMES, bo / base);
	else
		ex_fig_null(v, EXK_VMSTAT_TIMES);
	ex_evidence(v, "vmstat bo");
	ex_evidence(v, leaves ? "iostat, leaf devices" : "xentop VBD_WSECT");
}

/* The guests' own vCPU time in the window (xentop CPU(sec)), Domain-0's row left out: it
 * is dom0's busy time. *known: some guest's is in the logs. */
static double guests_vcpu_s(const struct explain *ex, bool *known)
{
	double total = 0;
	*known = false;
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		*known |= d->domid && d->guest_cpu_known;
		if (d->domid && d->guest_cpu_known && d->guest_cpu_ns)
			total += (double)d->guest_cpu_ns / 1e9;
	}
	return total;
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
	double busy = (double)ex->host_busy_ns / 1e9, s = ex->win.seconds;
	bool known;
	double guests = guests_vcpu_s(ex, &known);
	/* dom0's part of the CPU the run cost; unknown without the guests' (vmstat alone) */
	v->share = known && busy + guests > 0 ? busy / (busy + guests) : 0;
	double gib = 0;
	for (size_t i = 0; i < ex->n_doms; i++)
		gib += (double)(ex->doms[i].io.guest_wr_bytes + ex->doms[i].io.guest_rd_bytes) /
		       EX_GIB;
	ex_fig(v, EXK_DOM0_CPU_S, busy);
	ex_fig(v, EXK_WINDOW_SECONDS, s);
	ex_fig(v, EXK_DOM0_CPUS_BUSY, s > 0 ? busy / s : 0);
	if (known) {
		ex_fig(v, EXK_GUESTS_VCPU_S, guests);
		ex_fig(v, EXK_DOM0_SHARE_OF_CPU, v->share);
	} else {
		ex_fig_null(v, EXK_GUESTS_VCPU_S);
		ex_fig_null(v, EXK_DOM0_SHARE_OF_CPU);
	}
	if (holds(ex, FIG_GUEST_WR_BYTES) && gib > 0) {
		ex_fig(v, EXK_GUEST_GIB, gib);
		ex_fig(v, EXK_DOM0_CPU_S_PER_GIB, busy / gib);
	} else {
		ex_fig_null(v, EXK_GUEST_GIB);
		ex_fig_null(v, EXK_DOM0_CPU_S_PER_GIB);
	}
	ex_fig_str(v, EXK_BUSY_SOURCE, ex->host.busy_source);
	ex_evidence(v, ex->host.busy_source);
	ex_evidence(v, "xentop CPU(sec) per domain");
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
	             ex_tracer_advice(ex));
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
		                     ex_dom0_netbsd(ex) ? "iostat -x N of the disks"
		                                        : "iostat -dx N of the disks");
}

void import_path(struct explain *ex, const struct ex_domain *d)
{
	if (d)
		return;
	ex_verdict_not_given(ex, EXV_PATH,
	                     "needs the layers below each guest (its backend device, loop, dm, "
	                     "partitions): %s",
	                     ex_dom0_netbsd(ex)
	                         ? "the domain's disk line in its xl config"
	                         : "xiotop record (xiotop topology --xenstore-dump shows "
	                           "the stack)");
}

/* A claim on an import is set against the host's disks (iostat's leaf devices) over its
 * run, placed on their timeline (tool_claims.c): every domain's and dom0's bytes
 * together, so an upper bound of the domain's. Without them, not given. */
void import_claim(struct explain *ex, const struct ex_domain *d)
{
	if (d || !ex->n_claims)
		return;
	if (leaf_disks(ex))
		verdict_claims(ex, NULL);
	else
		ex_verdict_not_given(ex, EXV_CLAIM, "needs what reached the disks over its run: %s",
		                     ex_dom0_netbsd(ex) ? "iostat -x N of the disks"
		                                        : "iostat -dx N of the disks (or xiotop "
		                                          "record, for the domain's own)");
}
