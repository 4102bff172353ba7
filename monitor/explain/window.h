/* window.h - the interval loop's sink that accumulates one window of a recording per
 * domain (explain.h's struct ex_domain), and keeps watching after the window's end until
 * each domain's dirty backlog has drained.
 *
 * Contract: the sink is handed samples first..N-1 of a recording in order (window
 * [first, last], then the tail). Intervals ending at samples first+1..last are the
 * window's; later ones count toward a domain's drain, its own: the dirty backlog it had
 * at the window's end followed first in, first out (what it writes back after the window
 * is the window's data until that much is written, then a later run's), each interval's
 * figures (phys bytes, vmstat, double counting, writeback CPU) in the share of its
 * writeback that was the window's, until all but max(1 MiB, 1 %) of it is written; they
 * feed the chart series to the end. Domains are created for what the window shows only.
 * dom0's own bios (no domain's) make the subject domain 0 (dom0_subject.h), whose drain
 * is dom0's writes to the disks after the window rather than a dirty backlog.
 */
#ifndef XIOTOP_EXPLAIN_WINDOW_H
#define XIOTOP_EXPLAIN_WINDOW_H

#include "core/loop.h"
#include "explain/dom0_subject.h"
#include "explain/explain.h"

struct ex_window_sink {
	struct explain *ex;
	size_t next_sample;     /* index of the sample the next interval ends at */
	struct xio_layer *prev; /* the previous sample's layers, for per-rule deltas */
	size_t n_prev;
	int failed;                 /* ENOMEM seen */
	uint64_t *drain_threshold;  /* per domain, set at the window's end */
	uint64_t *own_left;         /* per domain: of its backlog at the window's end, not yet
	                             * written back (first in, first out) */
	struct ex_dom0_interval d0; /* dom0's own bios in the interval being handed out */
	struct ex_dom0_tail d0_tail;
	struct model_layer d0_merged[2 * EX_MAX_LAYERS];
};

struct interval_sink ex_window_sink(struct ex_window_sink *w);
/* Frees what the sink kept (not ex). */
void ex_window_sink_done(struct ex_window_sink *w);

#endif
