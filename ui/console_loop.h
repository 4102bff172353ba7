/* console_loop.h - what the live loop (console.c) and the replay loop (console_replay.c)
 * share: one run's terminal, state, and the interval on screen. Internal to ui/console*.c.
 *
 * Contract: samples live on the heap and intervals in two fixed slots, because an
 * interval points into its sample (names, hooks) and the state points at the interval:
 * neither may move while shown. The slot not shown takes the next interval; once the
 * state accepts it, the old slot and the samples only it needed are freed.
 */
#ifndef XIOTOP_CONSOLE_LOOP_H
#define XIOTOP_CONSOLE_LOOP_H

#include <curses.h>
#include <stdint.h>

#include "console.h"
#include "console_state.h"
#include "grid.h"
#include "model.h"

struct console_run {
	const struct console_opts *o;
	struct console_feed *feed;
	struct console_state st;
	struct grid grid;
	struct xs_sample *prev;  /* live: the latest sample */
	struct xs_sample *shown; /* the sample the shown interval points into */
	struct model_interval slots[2];
	int shown_slot; /* -1 before the first interval is shown */
	bool utf8;
	attr_t selected_attr;
	SCREEN *screen;
	char *scratch;     /* one grid line on its way to the terminal (grid.line_cap bytes) */
	const char *error; /* why the loop failed */
};

/* What console_input() returns besides a key (enum console_key or a printable char). */
enum {
	CONSOLE_INPUT_NONE = -1,   /* nothing within the wait, or a key the console ignores */
	CONSOLE_INPUT_RESIZE = -2, /* the terminal changed size: redraw */
	CONSOLE_INPUT_GONE = -3,   /* the terminal hung up: stop */
};

uint64_t console_monotonic_ns(void);
int64_t console_realtime_ns(void);
/* Waits up to wait_ms for the next key. */
int console_input(int wait_ms);
/* Renders the state and copies it to the terminal. 0, or -1 (out of memory). */
int console_draw(struct console_run *r);
/* Frees a sample unless the run still holds it (prev or shown). */
void console_release_sample(struct console_run *r, struct xs_sample *s);

/* The loop over a seekable feed (console_replay.c): 0 quit or stopped, 1 the feed failed. */
int console_replay_loop(struct console_run *r);

#endif
