/* grid.h - the text grid a screen is rendered into, and text measured in terminal columns.
 *
 * Contract: a grid is H lines of UTF-8 text, each at most W terminal columns wide, with
 * no trailing blanks and no control character, plus one attribute per line. The console
 * copies it to the terminal as is; tests compare it with expected text. grid_text() is
 * the one way a guest-controlled string (domain name, file path) becomes screen text:
 * sanitized (sanitize.h), and in ASCII-only mode (a terminal that is not UTF-8) every
 * non-ASCII byte escaped as \xNN too, because some UTF-8 continuation bytes are C1
 * controls to an 8-bit terminal. Widths count terminal columns, not bytes.
 */
#ifndef XIOTOP_GRID_H
#define XIOTOP_GRID_H

#include <stdbool.h>
#include <stddef.h>

enum grid_attr {
	GRID_PLAIN,
	GRID_HEADER,   /* column headers: reverse video */
	GRID_SELECTED, /* the selected row */
};

struct grid {
	int w, h;
	char **lines;        /* h lines of at most w columns */
	unsigned char *attr; /* enum grid_attr per line */
	size_t line_cap;     /* bytes per line buffer (up to 4 per column, plus NUL) */
};

/* Allocates a blank w x h grid (w, h >= 1). 0, or -1 on ENOMEM. */
int grid_init(struct grid *g, int w, int h);
void grid_free(struct grid *g);
void grid_clear(struct grid *g);
/* Line y (ignored outside the grid) becomes `text`, cut to w columns, blanks trimmed.
 * `text` must already be screen text (from grid_text() or our own ASCII). */
void grid_put(struct grid *g, int y, const char *text, enum grid_attr attr);

/* A guest-controlled string as screen text (see the contract). Returns out. */
char *grid_text(const char *raw, bool ascii_only, char *out, size_t outlen);
/* Terminal columns that screen text takes. */
int text_width(const char *s);
/* Append s to dst (capacity cap, NUL kept) cut or padded with blanks to exactly `width`
 * columns, left- or right-aligned. A cut never splits a UTF-8 sequence. Returns the new
 * length of dst. */
size_t text_append_cell(char *dst, size_t cap, const char *s, int width, bool left);

#define LINE_MAX_BYTES 4096 /* one screen line before the grid cuts it */

#endif
