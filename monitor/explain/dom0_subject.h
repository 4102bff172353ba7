/* dom0_subject.h - dom0's own I/O as a subject of explain, "dom0 (CMD)": a benchmark run in
 * dom0 (every seed compares one with the same benchmark in a domU) explained like a
 * domain and comparable with one.
 *
 * Contract: the tracer charges dom0's own bios to no domain (XIOTOP_DOM_NONE: via none at
 * the device dom0 submitted to, remap and part below it); the recording keeps them by
 * device, not by command. The subject is domain 0 (dom0 is domain 0 in Xen): its "guest"
 * bytes are the bios dom0 submitted itself (via none, what vmstat counts; a loop device
 * of dom0's own counts at both submissions), its physical bytes those at leaf devices, its
 * double counting vmstat's count beyond them. dom0's page cache sits above its bios and
 * no dirty counter follows dom0's own files, so a run's writes reach the bios during the
 * run and by writeback after it: the subject's writes are the window's and its drain's.
 * The drain is the time the disks need to take the run's data. When the run's bytes are
 * known (the write claims set against the subject: ex_dom0_data_drain), it ends at the
 * interval in which the run's disks (below) have taken, since the window's start, those
 * bytes less EX_DOM0_DATA_SLACK; their writes after it (the run's last pages within the
 * slack, the file system's metadata and journal, other programs') are named, not drained. Otherwise
 * (no claim, or the disks never took the claims' bytes) it ends at the last interval dom0 wrote >=
 * 1 MiB to a disk the run wrote to in the window (any disk when it wrote to none then) before a
 * quiet stretch as long as vm.dirty_expire_centisecs + vm.dirty_writeback_centisecs (by then the
 * flusher has written every page dirtied before it; the kernel's defaults, 35 s, when the recording
 * lacks them); without such a stretch it is not drained (unknown), and its rate until on disk is
 * over the bytes seen by the recording's end and the last write seen (drain_s), not the whole tail
 * (no page_cache_inflation verdict then). Which rule ended it is said (ex_dom0_drain_figures,
 * ex_dom0_say_drain). Its name is "dom0 (CMD)" with CMD the wrapped command's program when the
 * window is a wrapped command's (`record -- CMD`), else "dom0": the recording does not say which of
 * dom0's processes submitted a bio, so the subject is all of dom0's own I/O then. dom0 CPU charged
 * to a domain is a path's cost of serving a guest; the subject has none (its cpu_ns stay 0: the
 * command's own CPU is not a serving cost).
 */
#ifndef XIOTOP_EXPLAIN_DOM0_SUBJECT_H
#define XIOTOP_EXPLAIN_DOM0_SUBJECT_H

#include <stdbool.h>

#include "explain/explain.h"

#define EX_DOM0_ID 0u

/* dom0's own bios in one interval, as a model_domain of domain 0. */
struct ex_dom0_interval {
	struct model_domain md; /* md.layers points into layers */
	struct model_layer layers[EX_MAX_LAYERS];
	bool any; /* a byte moved */
};

/* dom0 writing less than this to its disks in an interval is quiet (its journal, the
 * recorder's own file), not a run's writeback. */
#define DOM0_ACTIVE_WR_BYTES (1024 * 1024)

/* Leaf devices a window's writes are kept for, at most (more: every device counts). */
#define EX_DOM0_RUN_DEVS 8
/* A disk with less than 1/10 of the busiest disk's window writes is not the run's: the
 * root disk's journal and logs beside a benchmark's file (6 MiB beside 252 MiB on the
 * shared test machine). */
#define EX_DOM0_RUN_DEV_DEN 10

/* Where the run's data ends (ex_dom0_data_drain): the run's disks have taken the run's
 * bytes less a slack of 1/EX_DOM0_DATA_SLACK_DEN of them (at least EX_DOM0_DATA_SLACK_MIN:
 * an interval's writes under it are quiet, DOM0_ACTIVE_WR_BYTES). A throughput claim is
 * about the bulk of the data: the run's last pages, under the dirty background
 * threshold, wait for the flusher's timer (vm.dirty_expire_centisecs), not for a busy
 * disk; in the live seed test the leaf took 252 of dd's 256 MiB during dd and the last
 * 4 MiB (1.6 %) 3.3 s later, which made dd's 0.09 s "12x inflated". A disk taking the
 * data steadily is left 1/20 of the run's time short at most: the factor moves by
 * 1/(1 - 1/20) = 1.05 at most, under EX_INFLATION_MIN (1.1), so the slack neither makes
 * nor hides that verdict. A run that rewrote its pages in the cache (the disks take
 * them once), or a claim that says more than it wrote, never reaches it: the quiet rule
 * then, said so. */
#define EX_DOM0_DATA_SLACK_DEN 20
#define EX_DOM0_DATA_SLACK_MIN (1024 * 1024)

/* The subject's figures that its drain adds to the window's (explain.h's ex_domain):
 * io.guest_wr_bytes, io.guest_wr_ios, after_phys_wr, after_vmstat_wr, after_double_counted. */
enum { EX_DOM0_SUMS = 5 };

/* One interval after the window. */
struct ex_dom0_step {
	double end_s;               /* seconds after the window's end, at its end */
	uint64_t run_wr;            /* written to the run's disks in it (run_wr) */
	uint64_t sum[EX_DOM0_SUMS]; /* since the window's end, this interval's included */
	uint64_t run_sum;           /* run_wr since the window's end, this one's included */
};

/* The subject's intervals after the window (explain.h's ex->dom0_drain), until the quiet
 * rule drained it or the recording ended, and which rule ended its drain. */
struct ex_dom0_drain {
	uint64_t base[EX_DOM0_SUMS]; /* the window's figures */
	uint64_t window_run_wr;      /* the run's disks' writes in the window */
	size_t quiet_n;              /* steps the quiet rule takes (to its last active one) */
	bool quiet_drained;
	double quiet_drain_s;
	/* the data rule (ex_dom0_data_drain): the run's bytes (0: unknown, the quiet rule),
	 * whether the disks took them (data_drained) and what they had taken then
	 * (data_taken: since the window's start), and the run's disks' writes after that
	 * to the log's end: the run's last data within the slack, its file system's metadata,
	 * other programs' writes (after_data_wr, the last interval of >= 1 MiB of them
	 * after_data_last_s seconds after the window) */
	uint64_t data_bytes;
	bool data_drained;
	size_t data_n; /* steps the data rule takes */
	uint64_t data_taken;
	uint64_t data_on_disk; /* the run's disks' writes by the log's end */
	uint64_t after_data_wr;
	double after_data_last_s;
	size_t n, cap;
	struct ex_dom0_step step[];
};

/* The window's leaf devices and the quiet stretch, while the recording is read. */
struct ex_dom0_tail {
	double quiet_s; /* seconds since dom0 last wrote >= 1 MiB to a run's disk */
	/* the leaf devices dom0 wrote to in the window, and how much: the run's disks are
	 * those that took >= 1 MiB and >= 1/EX_DOM0_RUN_DEV_DEN of the busiest one's bytes.
	 * Its writeback goes to the disks under the file systems it wrote, so only their
	 * writes keep the drain going (a root disk's few MiB from other programs beside a
	 * run's hundreds do not); none: every leaf (a run that dom0's cache held whole
	 * submitted nothing in the window) */
	uint32_t run_devs[EX_DOM0_RUN_DEVS];
	uint64_t run_dev_wr[EX_DOM0_RUN_DEVS];
	size_t n_run_devs;
	bool all_devs; /* more than EX_DOM0_RUN_DEVS of them */
};

void ex_dom0_begin(struct ex_dom0_interval *d0);
/* One unattributed layer's delta this interval (s: the sample it ends at, for names). */
void ex_dom0_add(struct ex_dom0_interval *d0, const struct xio_sample *s, const struct xio_layer *l,
                 const struct xiotop_io *delta);
/* The subject's model_domain for the interval: dom0's bios merged with domain 0's own
 * figures (md, NULL if the interval has none: its counters, names), into *out whose
 * layers point into buf (2 * EX_MAX_LAYERS). */
const struct model_domain *ex_dom0_merge(const struct model_domain *md,
                                         const struct ex_dom0_interval *d0,
                                         struct model_domain *out, struct model_layer *buf);
/* A window interval of the subject (md): the leaf devices its run wrote to. */
void ex_dom0_window(struct ex_dom0_tail *t, const struct model_domain *md);
/* An interval after the window (md: the subject's, end_s: seconds after the window's end
 * at its end), kept in ex->dom0_drain: its writes join the subject's drain when dom0
 * wrote >= 1 MiB to a disk (the quiet rule). 0, or -1 out of memory. */
int ex_dom0_after(struct explain *ex, struct ex_domain *d, struct ex_dom0_tail *t,
                  const struct model_domain *md, double interval_s, double end_s);
/* The run wrote data_bytes (the write claims set against the subject d): its drain ends
 * where the run's disks had taken them (see above), d's drain figures set to that; else
 * (data_bytes 0, no interval after the window kept, or the disks never took them) the
 * quiet rule's. */
void ex_dom0_data_drain(struct explain *ex, struct ex_domain *d, uint64_t data_bytes);
/* Whether the subject's series point ending t seconds after the window's start is the
 * run's: before its data drain's end (every point when the data rule did not end it).
 * A write claim's run is located among these: the writes after (the run's last pages
 * within the slack, the journal) are not its run. */
bool ex_dom0_in_data(const struct explain *ex, double t);
/* Seconds of quiet after which dom0 has written back what was dirty (see above). */
double ex_dom0_quiet_limit_s(const struct ex_host *h);
/* Names the subject (when ex has one) from the window's wrap mark; one that moved
 * nothing is dropped (domain 0 stays as the recording has it). */
void ex_dom0_name(struct explain *ex);

#endif
