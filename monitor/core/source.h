/* source.h - where samples come from, as every consumer sees it: a stream of cumulative
 * samples (the live tracer, fabricated domains, a recording read in order), or a
 * recording that can be moved through (replay).
 *
 * Contract: a sample_source hands out fresh cumulative samples in time order; the caller
 * owns (and frees) each. It paces nothing: the interval loop (loop.h) decides when to
 * ask. A seekable feed is the replay's: the console asks for a move, the feed decides
 * where it lands and hands back the two samples of the interval to show. Nothing here
 * depends on a terminal, a file format or BPF: sources/ and record/ implement it,
 * ui/ and cli/ consume it.
 */
#ifndef XIOTOP_SOURCE_H
#define XIOTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sample.h"

/* The status next() returns besides 0 (a sample): no sample will come (a recording's
 * end). A failure is -1; why() then gives the sentence (core/error.h), or the source
 * has none to give (it has no why, or returns NULL). */
enum { SOURCE_END = 1, SOURCE_FAILED = -1 };

struct sample_source {
	void *ctx;
	/* A fresh cumulative sample into *out: 0, SOURCE_END or SOURCE_FAILED. */
	int (*next)(void *ctx, struct xio_sample *out);
	/* The exit status a failure of this source means: 1 (live: a runtime failure) or
	 * 2 (a recording: bad input). */
	int fail_status;
	const char *title; /* "live", "synthetic", "FILE" */
	/* Optional: after a failure, the sentence saying why (the source's own memory). */
	const char *(*why)(void *ctx);
	/* Without why: the one sentence every failure of this source means, or NULL. */
	const char *fail_why;
};

/* A source of the running system (live, synthetic): a failure is a runtime one (exit
 * status 1), and every failure means the one sentence fail_why. */
static inline struct sample_source source_runtime(void *ctx,
                                                  int (*next)(void *ctx, struct xio_sample *out),
                                                  const char *title, const char *fail_why)
{
	return (struct sample_source){
	    .ctx = ctx, .next = next, .fail_status = 1, .title = title, .fail_why = fail_why};
}

/* Moves through a recording, asked for by replay keys (ui/console_state.c's table says
 * which; NAV_HERE / NAV_TICK by the front end itself). The replay cursor (replay.h)
 * decides where each one lands. */
enum seek_move {
	NAV_HERE,      /* where the replay stands (the first screen) */
	NAV_TICK,      /* time passed: playing moves on */
	NAV_STEP_BACK, /* one interval back, or ahead */
	NAV_STEP_AHEAD,
	NAV_PREV_MARK,
	NAV_NEXT_MARK,
	NAV_START,
	NAV_END,
	NAV_PLAY_PAUSE,
	NAV_FASTER,
	NAV_SLOWER,
	NAV_PERIOD_BACK, /* a step period of recorded time back, or ahead */
	NAV_PERIOD_AHEAD,
	NAV_PERIOD_SHORTER, /* the step period itself shorter, or longer */
	NAV_PERIOD_LONGER,
	NAV_GOTO, /* to the time or mark the move's text names */
};

#define SEEK_MARK_LABEL_MAX 256 /* as recordings keep them */

/* Where a replay stands, for its header line. */
struct seek_pos {
	size_t sample, last; /* the interval shown ends at sample `sample` of 0..last */
	int64_t recorded_ns; /* that sample's wall-clock time */
	bool playing;
	double speed;                   /* recorded seconds per real second */
	size_t n_marks;                 /* marks in the replayed recording (window) */
	int64_t period_ns;              /* what NAV_PERIOD_BACK and _AHEAD step by */
	char mark[SEEK_MARK_LABEL_MAX]; /* the nearest mark's label, raw; "" none */
	long mark_offset; /* intervals from the shown one to that mark: 0 here, < 0 behind */
};

/* What a seekable feed says after each move, besides the samples. */
struct seek_view {
	/* The replay's first sample: CPU_s counts from it. The feed owns it; it lives as long
	 * as the feed. */
	const struct xio_sample *origin;
	struct seek_pos pos; /* for the header */
	int64_t wait_ns;     /* playing: monotonic ns until the next NAV_TICK is due; -1 paused */
	char note[320];      /* a word about the move (a goto that found nothing); "" none */
};

/* A seekable feed: make the move at now_ns (monotonic); text is NAV_GOTO's (a mark's label,
 * a time as people give it, core/when.h; NULL otherwise). Returns 1 with *prev and *cur
 * filled (fresh samples the caller frees) when the shown interval changed, and always for
 * NAV_HERE; 0 when it did not (a pause, the end reached, a goto that found nothing: the
 * view's note says so); -1 on failure. *view is filled in both cases. */
typedef int (*seek_fn)(void *ctx, enum seek_move move, const char *text, int64_t now_ns,
                       struct xio_sample *prev, struct xio_sample *cur, struct seek_view *view);

#endif
