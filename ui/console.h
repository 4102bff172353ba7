/* console.h - the console: a xentop-like ncurses view over a sample feed, live or replayed.
 *
 * Contract: console_run() owns the terminal and the timing. Over a live feed it takes a
 * sample every delay (-d; + and - change it), computes the interval with model_compute()
 * and shows it through console_state/console_render; keys are read between samples.
 * Over a seekable feed (a recording: `navigate` set) it takes no samples of its own: the
 * replay keys and the passing of time (while playing) become moves the feed makes, and
 * each move hands back the two samples whose interval to show; the feed decides where
 * a move lands (record/replay.h), the console only renders what it is given.
 * It returns after `iterations` intervals (live only; 0: until q), when *stop becomes
 * non-zero (a signal handler's flag), or when the feed fails. The terminal is restored on
 * every return. Nothing it draws holds a control character: the grid is screen text, and
 * each byte is checked again on its way to the terminal.
 * Returns 0, 1 (the feed failed) or 2 (no terminal: stdin and stdout must be one), the
 * failure's sentence in *err (core/error.h) for cli/ to say.
 */
#ifndef XIOTOP_CONSOLE_H
#define XIOTOP_CONSOLE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "ui/console_state.h"
#include "core/sample.h"
#include "core/error.h"
#include "core/source.h"

/* Where samples come from: a live stream (the tracer, a synthetic generator) or a
 * seekable recording. */
struct console_feed {
	struct sample_source source; /* live: the stream; unused when navigate is set */
	/* Seekable (a recording), NULL for a live feed: see seek_fn (core/source.h). */
	seek_fn navigate;
	void *navigate_ctx;
	/* Optional (NULL): keeps each mark the user adds beyond the screen (see
	 * console_mark_hook: 1 kept in `where`, 0 nowhere to keep it, -1 failed). */
	int (*mark)(void *ctx, const char *label, int64_t realtime_ns, char *where,
	            size_t where_len);
	void *mark_ctx;
	const char *title; /* shown in the header: "live", "synthetic", "replay FILE" */
};

struct console_opts {
	double delay_s;                    /* -d */
	long iterations;                   /* -i: intervals to show, 0 until quit (live) */
	bool full_names;                   /* -f */
	bool dom0_first;                   /* -z */
	const volatile sig_atomic_t *stop; /* may be NULL */
};

int console_run(const struct console_opts *o, struct console_feed *feed, struct xerr *err);

#endif
