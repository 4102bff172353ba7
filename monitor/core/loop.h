/* loop.h - the one interval loop: source -> model -> sinks, for every command.
 *
 * Contract: interval_loop() takes a first sample at once, then, as often as its pacer
 * says, the next sample; each pair of consecutive samples becomes one interval
 * (model_compute), handed to every sink in order. Sinks see every sample first (the
 * `sample` hook, the first sample too: a recorder stores them, a console shows names at
 * once) and then the interval; a sink may take the interval (model_move) to keep it, the
 * loop frees whatever is left and every sample once the next one has been handed out.
 * It ends and returns an exit status when:
 *   - the source ends (0) or fails (the source's fail_status; its why() in *err);
 *   - a sink returns LOOP_DONE (0) or an exit status (> 0; its failure() in *err), after
 *     the other sinks of that step have seen it;
 *   - max_intervals intervals were handed out (0);
 *   - the pacer says PACE_STOP (0), or PACE_LAST (0, after one last sample).
 * It prints nothing: a failure's sentence goes to *err (when given) for cli/ to say.
 * Live batch output, the console, record, export, replay and explain are all this loop
 * with another source, pacer and sinks (see cli/).
 */
#ifndef XIOTOP_LOOP_H
#define XIOTOP_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/model.h"
#include "core/source.h"

enum { LOOP_GO_ON = 0, LOOP_DONE = -1 }; /* what sinks return, besides an exit status */

struct interval_sink {
	void *ctx;
	/* Optional: every sample, before the interval it ends. */
	int (*sample)(void *ctx, const struct xio_sample *s, bool first);
	/* Optional: one interval; index counts from 0. m may be taken (model_move). */
	int (*interval)(void *ctx, struct model_interval *m, unsigned long index);
	/* Optional: after the sink returned an exit status, why (the sink's own memory);
	 * the loop copies it into its err. */
	const struct xerr *(*failure)(void *ctx);
};

enum pace { PACE_DUE, PACE_LAST, PACE_STOP };

struct pacer {
	void *ctx;
	/* Waits until the next sample is due. NULL: no waiting (a recording, read in order). */
	enum pace (*wait)(void *ctx);
};

struct loop {
	struct sample_source *src;
	struct interval_sink *sinks;
	size_t n_sinks;
	struct pacer pacer;
	long max_intervals; /* 0: no limit */
	struct xerr *err;   /* may be NULL: where a failure is said (core/error.h) */
};

int interval_loop(const struct loop *l);

/* A pacer for live sources: one sample every *delay_s seconds on the monotonic clock,
 * without bursts after a slow sample; PACE_STOP as soon as *stop is set. */
struct pace_every {
	const double *delay_s;
	const volatile sig_atomic_t *stop; /* may be NULL */
	int64_t next_ns;                   /* 0: not started */
};
enum pace pace_every_wait(void *ctx);

#endif
