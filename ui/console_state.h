/* console_state.h - what the console shows and how keys change it; no terminal.
 *
 * Contract: the state turns each model_interval into rows (one per guest domain, one for
 * dom0 itself, one for unattributed I/O) and keeps the sort column and direction, the
 * selection (it follows its row when the order changes), the drill-down, the name
 * filter, pause, delay, marks, help and a one-line prompt. Everything here is pure: keys
 * come in as plain codes (printable characters, or enum console_key), times come in as
 * arguments, nothing reads a clock or a terminal. console_render.h turns a state into a
 * text grid. The state keeps a pointer to the interval it shows; see
 * console_state_interval() for who owns it.
 *
 * Replay (opts.replay): the same state over a recording. The keys that move through it
 * (console_replay_keys[]: arrows, [ ] { }, n N, g G, space and p, + -) do not change the
 * state: they return CA_NAVIGATE with the move in st->nav (g first asks where to, a time
 * or a mark, into st->go_to), the front end asks its feed for the interval there and
 * shows it with console_state_show(), and tells where it stands with
 * console_state_set_replay() for the header. m only says that a recording is read-only.
 */
#ifndef XIOTOP_CONSOLE_STATE_H
#define XIOTOP_CONSOLE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/fields.h"
#include "ui/rows.h"
#include "core/model.h"
#include "core/source.h"

/* Keys that are not printable characters (the ncurses layer maps its codes to these). */
enum console_key {
	CK_UP = 0x100,
	CK_DOWN,
	CK_PAGE_UP,
	CK_PAGE_DOWN,
	CK_HOME,
	CK_END,
	CK_ENTER,
	CK_ESCAPE,
	CK_BACKSPACE,
	CK_LEFT,
	CK_RIGHT,
};

/* What the loop must do after a key. */
enum console_action {
	CA_NONE,   /* nothing changed */
	CA_REDRAW, /* the screen changed */
	CA_DELAY,  /* the delay changed: reschedule, and redraw */
	CA_QUIT,
	CA_NAVIGATE, /* replay: move as st->nav says, then redraw */
};

enum console_prompt { PROMPT_NONE, PROMPT_MARK, PROMPT_FILTER, PROMPT_GOTO };

/* Replay: a row of the key table (its keys and their moves) and its help. */
#define CONSOLE_KEY_MOVES 3
struct console_replay_key {
	struct {
		int key; /* 0: none */
		enum seek_move nav;
	} moves[CONSOLE_KEY_MOVES];
	const char *names, *help;
};
extern const struct console_replay_key console_replay_keys[]; /* ends with names NULL */

#define CONSOLE_TEXT_MAX 64 /* mark labels, filter */

struct console_mark {
	char label[CONSOLE_TEXT_MAX];
	int64_t realtime_ns;
};

/* Told of every mark as it is added, to keep it beyond the screen (a running recorder).
 * Returns 1 kept, `where` naming where (a file); 0 there was nowhere to keep it, -1 it
 * failed: `where` says why (shown to the user). */
typedef int (*console_mark_hook)(void *ctx, const char *label, int64_t realtime_ns, char *where,
                                 size_t where_len);

struct console_state_opts {
	double delay_s;
	bool full_names; /* -f: widen the name column instead of cutting names */
	bool dom0_first; /* -z: dom0's row first whatever the sort */
	bool ascii_only; /* the terminal is not UTF-8: escape every non-ASCII byte */
	bool replay;     /* over a recording: replay keys, a replay header, no marks */
	const char *title;
	console_mark_hook on_mark; /* may be NULL */
	void *mark_ctx;
};

struct console_state {
	struct console_state_opts o;
	double delay_s;
	const struct model_interval *m; /* shown; NULL before the first one */
	unsigned long intervals;        /* intervals seen (shown or not) */

	struct field_row *rows, *spare_rows; /* rows of m; spare: the next interval's */
	size_t n_rows, cap_rows, cap_spare_rows;
	const struct field_row **shown; /* filtered and sorted */
	size_t n_shown, cap_shown;

	enum field_id sort;
	bool reverse; /* against the column's natural order */

	size_t sel_pos; /* index in shown */
	enum row_kind sel_kind;
	uint32_t sel_domid;
	bool have_sel;
	size_t scroll; /* first shown row on screen; kept by the renderer */
	int page_rows; /* rows on screen at the last render (page up/down) */
	bool drilled;  /* the selected row's layer stack instead of the table */
	bool help;
	bool paused; /* the display keeps its interval; intervals are still counted */

	char filter[CONSOLE_TEXT_MAX]; /* case-insensitive substring of the shown name */
	enum console_prompt prompt;
	char input[CONSOLE_TEXT_MAX];

	struct console_mark *marks;
	size_t n_marks;
	struct cpu_totals cpu_totals; /* dom0 CPU per row since the first interval */
	char status[1536]; /* one-line message until the next key (a path and a label fit) */

	enum seek_move nav;           /* the move the last CA_NAVIGATE asks for */
	char go_to[CONSOLE_TEXT_MAX]; /* NAV_GOTO's text: a time or a mark */
	struct seek_pos replay;       /* replay: where it stands */
};

void console_state_init(struct console_state *st, const struct console_state_opts *o);
void console_state_free(struct console_state *st);

/* Every computed interval goes through here: dom0 CPU seconds are accounted for, and
 * unless paused m becomes the shown interval and true is returned. Then the caller must
 * keep m, and the sample its names point into, alive until the next true return or
 * console_state_free(); on false the caller may free m at once. (Out of memory: the
 * previous interval stays shown, false.) */
bool console_state_interval(struct console_state *st, const struct model_interval *m);

/* Replay: m becomes the shown interval whatever the pause, with the ownership rules of
 * console_state_interval(). The CPU_s column comes from `since`, the interval from the
 * replay's first sample to m's end (it may be freed on return), instead of accumulating:
 * moving back shows smaller totals. since NULL: totals left as they are. */
bool console_state_show(struct console_state *st, const struct model_interval *m,
                        const struct model_interval *since);
void console_state_set_replay(struct console_state *st, const struct seek_pos *pos);

/* One key; now_ns (wall clock) stamps marks. */
enum console_action console_state_key(struct console_state *st, int key, int64_t now_ns);

/* The transitions behind the keys, for tests and other front ends. */
void console_state_sort_step(struct console_state *st, int step); /* +1 next, -1 previous */
void console_state_reverse(struct console_state *st);
void console_state_select(struct console_state *st, long delta);
void console_state_set_filter(struct console_state *st, const char *filter);
void console_state_add_mark(struct console_state *st, const char *label, int64_t now_ns);
void console_state_delay_step(struct console_state *st, int step); /* +1 longer */

/* The selected row, or NULL. */
const struct field_row *console_state_selected(const struct console_state *st);

#endif
