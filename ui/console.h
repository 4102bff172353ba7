/* console.h - the live console: a xentop-like ncurses view over a sample feed.
 *
 * Contract: console_run() owns the terminal and the timing. It takes a sample from the
 * feed every delay (-d; + and - change it), computes the interval with model_compute()
 * and shows it through console_state/console_render; keys are read between samples.
 * It returns after `iterations` intervals (0: until q), when *stop becomes non-zero
 * (a signal handler's flag), or when the feed fails. The terminal is restored on every
 * return. Nothing it draws holds a control character: the grid is screen text, and each
 * byte is checked again on its way to the terminal.
 * Returns 0, 1 (the feed failed) or 2 (no terminal: stdin and stdout must be one).
 */
#ifndef XIOTOP_CONSOLE_H
#define XIOTOP_CONSOLE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "sample.h"

/* Where samples come from: the live tracer, a replay, a synthetic generator. */
struct console_feed {
	void *ctx;
	/* A fresh cumulative sample into *out (the caller frees it); 0, or -1 on failure. */
	int (*sample)(void *ctx, struct xs_sample *out);
	/* Optional (NULL): told of each mark the user adds; 0 or -1 (shown to the user). */
	int (*mark)(void *ctx, const char *label, int64_t realtime_ns);
	const char *title; /* shown in the header: "live", "synthetic", a file name */
};

struct console_opts {
	double delay_s;                    /* -d */
	long iterations;                   /* -i: intervals to show, 0 until quit */
	bool full_names;                   /* -f */
	bool dom0_first;                   /* -z */
	const volatile sig_atomic_t *stop; /* may be NULL */
};

int console_run(const struct console_opts *o, struct console_feed *feed);

#endif
