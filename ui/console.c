/* console.c - the ncurses terminal and the live loop: timing, keys, copying the rendered
 * grid; see console.h. The replay loop is console_replay.c. */
#include "ui/console.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
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

/* The terminal hung up (closed window, killed tmux): input reports HUP or an error. */
static bool terminal_gone(void)
{
	struct pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
	return poll(&in, 1, 0) > 0 && (in.revents & (POLLHUP | POLLERR | POLLNVAL));
}

#define MAX_WAIT_MS 500 /* wake at least this often to notice the stop flag */

void console_show(struct console_run *r, struct model_interval *m,
                  const struct model_interval *since)
{
	int slot = r->shown_slot == 0 ? 1 : 0;
	model_move(&r->slots[slot], m);
	bool shown = r->st.o.replay ? console_state_show(&r->st, &r->slots[slot], since)
	                            : console_state_interval(&r->st, &r->slots[slot]);
	if (!shown) {
		model_free(&r->slots[slot]);
		return;
	}
	if (r->shown_slot >= 0)
		model_free(&r->slots[r->shown_slot]);
	r->shown_slot = slot;
}

static int on_mark(void *ctx, const char *label, int64_t when_ns, char *where, size_t where_len)
{
	struct console_run *r = ctx;
	return r->feed->mark(r->feed->mark_ctx, label, when_ns, where, where_len);
}

/* --- terminal ---------------------------------------------------------------------- */

static int map_key(int ch)
{
	switch (ch) {
	case KEY_UP:
		return CK_UP;
	case KEY_DOWN:
		return CK_DOWN;
	case KEY_PPAGE:
		return CK_PAGE_UP;
	case KEY_NPAGE:
		return CK_PAGE_DOWN;
	case KEY_HOME:
		return CK_HOME;
	case KEY_END:
		return CK_END;
	case KEY_LEFT:
		return CK_LEFT;
	case KEY_RIGHT:
		return CK_RIGHT;
	case KEY_ENTER:
	case '\n':
	case '\r':
		return CK_ENTER;
	case 27:
		return CK_ESCAPE;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		return CK_BACKSPACE;
	default:
		return ch >= 0x20 && ch < 0x7f ? ch : -1;
	}
}

/* The last guard: whatever the grid holds, no control byte reaches the terminal, and
 * on a terminal that is not UTF-8 no byte above ASCII either. */
static void put_line(const struct console_run *r, int y, const char *text, int attr_kind)
{
	char *line = r->scratch;
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)text; *p && n + 1 < r->grid.line_cap;
	     p++) {
		bool bad = *p < 0x20 || *p == 0x7f || (*p >= 0x80 && !r->utf8);
		line[n++] = bad ? '?' : (char)*p;
	}
	line[n] = '\0';
	attr_t a = attr_kind == GRID_HEADER     ? A_REVERSE
	           : attr_kind == GRID_SELECTED ? r->selected_attr
	                                        : A_NORMAL;
	attrset(a);
	mvaddstr(y, 0, line);
	/* highlighted lines are bars across the screen (never the last cell: it scrolls) */
	if (a != A_NORMAL && y < r->grid.h - 1) {
		int cy, cx;
		getyx(stdscr, cy, cx);
		(void)cy;
		for (int x = cx; x < r->grid.w; x++)
			addch(' ');
	}
	attrset(A_NORMAL);
}

int console_input(int wait_ms)
{
	timeout(wait_ms > MAX_WAIT_MS ? MAX_WAIT_MS : wait_ms < 0 ? 0 : wait_ms);
	int ch = getch();
	if (ch == ERR)
		/* hung up: getch() would fail at once forever */
		return terminal_gone() ? CONSOLE_INPUT_GONE : CONSOLE_INPUT_NONE;
	if (ch == KEY_RESIZE)
		return CONSOLE_INPUT_RESIZE;
	int key = map_key(ch);
	return key < 0 ? CONSOLE_INPUT_NONE : key;
}

enum console_action console_key(struct console_run *r, int64_t wait_ms, bool *dirty)
{
	int key = console_input(wait_ms > MAX_WAIT_MS ? MAX_WAIT_MS : (int)wait_ms);
	if (key == CONSOLE_INPUT_GONE)
		return CA_QUIT;
	if (key == CONSOLE_INPUT_RESIZE)
		*dirty = true;
	if (key < 0)
		return CA_NONE;
	enum console_action act = console_state_key(&r->st, key, clock_real_ns());
	*dirty = *dirty || act != CA_NONE;
	return act;
}

int console_draw(struct console_run *r)
{
	int h, w;
	getmaxyx(stdscr, h, w);
	if (h < 1 || w < 1)
		return 0;
	if (h != r->grid.h || w != r->grid.w) {
		grid_free(&r->grid);
		free(r->scratch);
		r->scratch = NULL;
		if (grid_init(&r->grid, w, h))
			return -1;
		r->scratch = malloc(r->grid.line_cap);
		if (!r->scratch)
			return -1;
	}
	console_render(&r->st, &r->grid);
	erase();
	for (int y = 0; y < r->grid.h; y++)
		put_line(r, y, r->grid.lines[y], r->grid.attr[y]);
	refresh();
	return 0;
}

static int start_terminal(struct console_run *r)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "xiotop: the console needs a terminal (use -b for batch output)\n");
		return -1;
	}
	setlocale(LC_CTYPE, "");
	r->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	r->screen = newterm(NULL, stdout, stdin);
	if (!r->screen) {
		fprintf(stderr, "xiotop: cannot use terminal type '%s'\n",
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
	int64_t next_tick = r->last_tick_ns + (int64_t)(r->st.delay_s * 1e9);
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
			next_tick = r->last_tick_ns + (int64_t)(r->st.delay_s * 1e9);
	}
	return PACE_STOP;
}

/* The first sample is shown at once (names, rates "-"), then every interval. */
static int live_sample_shown(void *ctx, const struct xs_sample *s, bool first)
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

int console_run(const struct console_opts *o, struct console_feed *feed)
{
	struct console_run r = {.o = o, .feed = feed, .shown_slot = -1};
	if (start_terminal(&r))
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
		fprintf(stderr, "xiotop: %s\n", r.error ? r.error : "console failed");
	console_state_free(&r.st);
	grid_free(&r.grid);
	free(r.scratch);
	if (r.shown_slot >= 0)
		model_free(&r.slots[r.shown_slot]);
	return rc;
}
