/* console_loop.h - what the live loop (console.c) and the replay loop (console_replay.c)
 * share: one run's terminal, state, and the interval on screen, shown, keyed and drawn
 * by console_frame.c, which calls neither loop. Internal to ui/console*.c.
 *
 * Contract: intervals live in two fixed slots, because the state points at the interval
 * shown: it may not move while shown. The slot not shown takes the next interval
 * (console_show); once the state accepts it, the old slot is freed.
 */
#ifndef XIOTOP_CONSOLE_LOOP_H
#define XIOTOP_CONSOLE_LOOP_H

#include <curses.h>
#include <stdint.h>

#include "ui/console.h"
#include "ui/console_state.h"
#include "ui/grid.h"
#include "core/model.h"

struct console_run {
	const struct console_opts *o;
	struct console_feed *feed;
	struct console_state st;
	struct grid grid;
	int64_t last_tick_ns; /* live: when the latest sample was taken (monotonic) */
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

/* Waits up to wait_ms for the next key. */
int console_input(int wait_ms);
/* Waits up to wait_ms for a key and applies it to the state: the action (CA_NONE: no
 * key; CA_QUIT also when the terminal hung up); *dirty is set when the screen changed. */
enum console_action console_key(struct console_run *r, int64_t wait_ms, bool *dirty);
/* Renders the state and copies it to the terminal. 0, or -1 (out of memory). */
int console_draw(struct console_run *r);
/* m becomes the shown interval (taken: m is left empty) unless the state refuses it
 * (paused live: then it is freed). since: replay only, see console_state_show(). */
void console_show(struct console_run *r, struct model_interval *m,
                  const struct model_interval *since);

/* The loop over a seekable feed (console_replay.c): 0 quit or stopped, 1 the feed failed. */
int console_replay_loop(struct console_run *r);

#endif
