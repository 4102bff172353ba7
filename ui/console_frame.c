/* console_frame.c - what both console loops share: the interval on screen, keys read
 * from the terminal and applied to the state, the rendered grid copied to the terminal
 * (with the last guard against control bytes). Called by console.c (the live loop and
 * console_run) and console_replay.c; it calls neither. See console_loop.h. */
#include <curses.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/model.h"
#include "ui/console_loop.h"
#include "ui/console_render.h"

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
