/* console.c - the ncurses terminal and the live loop: starting the terminal, timing,
 * console_run choosing the loop; see console.h. The replay loop is console_replay.c,
 * what both loops share (showing, keys, drawing) console_frame.c. */
#include "ui/console.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/loop.h"
#include "ui/console_loop.h"
#include "ui/console_render.h"
#include "core/model.h"

static int on_mark(void *ctx, const char *label, int64_t when_ns, char *where, size_t where_len)
{
	struct console_run *r = ctx;
	return r->feed->mark(r->feed->mark_ctx, label, when_ns, where, where_len);
}

static int start_terminal(struct console_run *r, struct xerr *err)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		xerr_set(err, XERR_PREREQ,
		         "the console needs a terminal (use -b for batch output)");
		return -1;
	}
	setlocale(LC_CTYPE, "");
	r->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	r->screen = newterm(NULL, stdout, stdin);
	if (!r->screen) {
		xerr_set(err, XERR_PREREQ, "cannot use terminal type '%s'",
		         getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25); /* Esc leaves the drill-down without a noticeable wait */
	r->selected_attr = A_BOLD | A_REVERSE;
	if (has_colors() && start_color() == OK) {
		use_default_colors();
		init_pair(1, COLOR_BLACK, COLOR_CYAN);
		r->selected_attr = COLOR_PAIR(1) | A_BOLD;
	}
	return 0;
}

/* --- the loop ---------------------------------------------------------------------- */

static bool stop_requested(const struct console_opts *o)
{
	return o->stop && *o->stop;
}

/* The live console's pacer: keys are read and handled until the next sample is due. */
static enum pace live_wait(void *ctx)
{
	struct console_run *r = ctx;
	const struct console_opts *o = r->o;
	int64_t next_tick = r->last_tick_ns + (int64_t)(r->st.delay_s * (double)NS_PER_S);
	bool dirty = false;
	while (!stop_requested(o)) {
		int64_t now = clock_mono_ns();
		if (now >= next_tick) {
			r->last_tick_ns = now;
			return PACE_DUE;
		}
		if (dirty && console_draw(r)) {
			r->error = "out of memory";
			return PACE_STOP;
		}
		dirty = false;
		enum console_action act =
		    console_key(r, (next_tick - now + 999999) / 1000000, &dirty);
		if (act == CA_QUIT)
			return PACE_STOP;
		if (act == CA_DELAY)
			next_tick = r->last_tick_ns + (int64_t)(r->st.delay_s * (double)NS_PER_S);
	}
	return PACE_STOP;
}

/* The first sample is shown at once (names, rates "-"), then every interval. */
static int live_sample_shown(void *ctx, const struct xio_sample *s, bool first)
{
	struct console_run *r = ctx;
	if (!first)
		return LOOP_GO_ON;
	struct model_interval m;
	if (model_compute(NULL, s, &m) == 0)
		console_show(r, &m, NULL);
	r->last_tick_ns = clock_mono_ns();
	return console_draw(r) ? 1 : LOOP_GO_ON;
}

static int live_interval_shown(void *ctx, struct model_interval *m, unsigned long index)
{
	(void)index;
	struct console_run *r = ctx;
	console_show(r, m, NULL);
	if (console_draw(r)) {
		r->error = "out of memory";
		return 1;
	}
	return LOOP_GO_ON;
}

static int run_loop(struct console_run *r)
{
	struct interval_sink sink = {
	    .ctx = r, .sample = live_sample_shown, .interval = live_interval_shown};
	struct loop l = {.src = &r->feed->source,
	                 .sinks = &sink,
	                 .n_sinks = 1,
	                 .pacer = {.ctx = r, .wait = live_wait},
	                 .max_intervals = r->o->iterations};
	int rc = interval_loop(&l);
	if (rc && !r->error)
		r->error = "cannot read counters";
	return rc ? 1 : 0;
}

int console_run(const struct console_opts *o, struct console_feed *feed, struct xerr *err)
{
	struct console_run r = {.o = o, .feed = feed, .shown_slot = -1};
	if (start_terminal(&r, err))
		return 2;
	struct console_state_opts so = {
	    .delay_s = o->delay_s,
	    .full_names = o->full_names,
	    .dom0_first = o->dom0_first,
	    .ascii_only = !r.utf8,
	    .replay = feed->navigate != NULL,
	    .title = feed->title,
	    .on_mark = feed->mark ? on_mark : NULL,
	    .mark_ctx = &r,
	};
	console_state_init(&r.st, &so);
	int rc = feed->navigate ? console_replay_loop(&r) : run_loop(&r);
	endwin();
	delscreen(r.screen);
	if (rc)
		xerr_set(err, XERR_RUNTIME, "%s", r.error ? r.error : "console failed");
	console_state_free(&r.st);
	grid_free(&r.grid);
	free(r.scratch);
	if (r.shown_slot >= 0)
		model_free(&r.slots[r.shown_slot]);
	return rc;
}
