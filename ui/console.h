/* console.h - the console: a xentop-like ncurses view over a sample feed, live or replayed.
 *
 * Contract: console_run() owns the terminal and the timing. Over a live feed it takes a
 * sample every delay (-d; + and - change it), computes the interval with model_compute()
 * and shows it through console_state/console_render; keys are read between samples.
 * Over a seekable feed (a recording: `navigate` set) it takes no samples of its own: the
 * replay keys and the passing of time (while playing) become moves the feed makes, and
 * each move hands back the two samples whose interval to show; the feed decides where
 * a move lands (monitor/record/replay.h), the console only renders what it is given.
 * It returns after `iterations` intervals (live only; 0: until q), when *stop becomes
 * non-zero (a signal handler's flag), or when the feed fails. The terminal is restored on
 * every return. Nothing it draws holds a control character: the grid is screen text, and
 * each byte is checked again on its way to the terminal.
 * Returns 0, 1 (the feed failed) or 2 (no terminal: stdin and stdout must be one).
 */
#ifndef XIOTOP_CONSOLE_H
#define XIOTOP_CONSOLE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "console_state.h"
#include "sample.h"

/* What a seekable feed says after each move, besides the samples. */
struct console_view {
	/* The replay's first sample: CPU_s counts from it. The feed owns it; it lives as long
	 * as the feed. */
	const struct xs_sample *origin;
	struct console_replay_pos pos; /* for the header */
	int64_t wait_ns; /* playing: monotonic ns until the next NAV_TICK is due; -1 paused */
};

/* Where samples come from: the live tracer, a synthetic generator, or a recording. */
struct console_feed {
	void *ctx;
	/* Live: a fresh cumulative sample into *out (the caller frees it); 0, or -1 on
	 * failure. Unused when navigate is set. */
	int (*sample)(void *ctx, struct xs_sample *out);
	/* Seekable (a recording), NULL for a live feed: make the move nav at now_ns
	 * (monotonic). Returns 1 with *prev and *cur filled (fresh samples the caller frees)
	 * when the shown interval changed, and always for NAV_HERE; 0 when it did not (a
	 * pause, the end reached); -1 on failure. *view is filled in both cases. */
	int (*navigate)(void *ctx, enum console_nav nav, int64_t now_ns, struct xs_sample *prev,
	                struct xs_sample *cur, struct console_view *view);
	/* Optional (NULL): keeps each mark the user adds beyond the screen (see
	 * console_mark_hook: 1 kept in `where`, 0 nowhere to keep it, -1 failed). */
	int (*mark)(void *ctx, const char *label, int64_t realtime_ns, char *where,
	            size_t where_len);
	const char *title; /* shown in the header: "live", "synthetic", "replay FILE" */
};

struct console_opts {
	double delay_s;                    /* -d */
	long iterations;                   /* -i: intervals to show, 0 until quit (live) */
	bool full_names;                   /* -f */
	bool dom0_first;                   /* -z */
	const volatile sig_atomic_t *stop; /* may be NULL */
};

int console_run(const struct console_opts *o, struct console_feed *feed);

#endif
