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
 * run and by writeback after it: the subject's writes are the window's and its drain's,
 * and the drain ends at the last interval dom0 wrote >= 1 MiB to a disk the run wrote to
 * in the window (any disk when it wrote to none then) before a quiet
 * stretch as long as vm.dirty_expire_centisecs + vm.dirty_writeback_centisecs (by then
 * the flusher has written every page dirtied before it; the kernel's defaults, 35 s,
 * when the recording lacks them); without such a stretch it is not drained (unknown),
 * and its rate until on disk is over the bytes seen by the recording's end and the last
 * write seen (drain_s), not the whole tail (no page_cache_inflation verdict then).
 * Its name is "dom0 (CMD)" with CMD the wrapped command's program when the window is a
 * wrapped command's (`record -- CMD`), else "dom0": the recording does not say which
 * of dom0's processes submitted a bio, so the subject is all of dom0's own I/O then.
 * dom0 CPU charged to a domain is a path's cost of serving a guest; the subject has none
 * (its cpu_ns stay 0: the command's own CPU is not a serving cost).
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

/* Leaf devices a window's writes are kept for, at most (more: every device counts). */
#define EX_DOM0_RUN_DEVS 8
/* A disk with less than 1/10 of the busiest disk's window writes is not the run's: the
 * root disk's journal and logs beside a benchmark's file (6 MiB beside 252 MiB on the
 * shared test machine). */
#define EX_DOM0_RUN_DEV_DEN 10

/* The writes after the window not yet known to be the subject's drain. */
struct ex_dom0_tail {
	uint64_t guest_wr, guest_wr_ios, phys_wr, vmstat_wr, double_counted;
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
 * at its end): its writes join the subject's drain when dom0 wrote >= 1 MiB to a disk. */
void ex_dom0_after(const struct explain *ex, struct ex_domain *d, struct ex_dom0_tail *t,
                   const struct model_domain *md, double interval_s, double end_s);
/* Seconds of quiet after which dom0 has written back what was dirty (see above). */
double ex_dom0_quiet_limit_s(const struct ex_host *h);
/* Names the subject (when ex has one) from the window's wrap mark; one that moved
 * nothing is dropped (domain 0 stays as the recording has it). */
void ex_dom0_name(struct explain *ex);

#endif
