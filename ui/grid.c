/* grid.c - text grid and column-width text helpers; see grid.h. */
#include "ui/grid.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/sanitize.h"

int grid_init(struct grid *g, int w, int h)
{
	memset(g, 0, sizeof(*g));
	if (w < 1 || h < 1)
		return -1;
	g->w = w;
	g->h = h;
	g->line_cap = (size_t)w * 4 + 1;
	g->lines = calloc((size_t)h, sizeof(*g->lines));
	g->attr = calloc((size_t)h, sizeof(*g->attr));
	if (!g->lines || !g->attr) {
		grid_free(g);
		return -1;
	}
	for (int y = 0; y < h; y++) {
		g->lines[y] = calloc(1, g->line_cap);
		if (!g->lines[y]) {
			grid_free(g);
			return -1;
		}
	}
	return 0;
}

void grid_free(struct grid *g)
{
	for (int y = 0; g->lines && y < g->h; y++)
		free(g->lines[y]);
	free(g->lines);
	free(g->attr);
	memset(g, 0, sizeof(*g));
}

void grid_clear(struct grid *g)
{
	for (int y = 0; y < g->h; y++) {
		g->lines[y][0] = '\0';
		g->attr[y] = GRID_PLAIN;
	}
}

/* Decode one UTF-8 sequence (input is sanitized: valid). Returns its length, 1 for a
 * stray byte so that callers always advance. */
static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
	size_t n = 1;
	uint32_t c = s[0];
	if (s[0] >= 0xf0)
		n = 4, c = s[0] & 0x07;
	else if (s[0] >= 0xe0)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xc0)
		n = 2, c = s[0] & 0x1f;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = s[0];
			return 1;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	*cp = c;
	return n;
}

/* Columns of one code point. wcwidth() knows the locale's tables; where it does not know
 * a character (C locale) count one column, as the escaping there makes everything ASCII. */
static int cp_width(uint32_t cp)
{
	if (cp < 0x80)
		return 1;
	int w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w;
}

int text_width(const char *s)
{
	int w = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t cp;
		p += utf8_next(p, &cp);
		w += cp_width(cp);
	}
	return w;
}

size_t text_append_cell(char *dst, size_t cap, const char *s, int width, bool left)
{
	size_t len = strlen(dst);
	if (width < 0)
		width = 0;
	/* how many bytes of s fit in `width` columns, and how many columns they take */
	const unsigned char *p = (const unsigned char *)s;
	size_t take = 0;
	int cols = 0;
	while (p[take]) {
		uint32_t cp;
		size_t n = utf8_next(p + take, &cp);
		int cw = cp_width(cp);
		if (cols + cw > width)
			break;
		take += n;
		cols += cw;
	}
	int pad = width - cols;
	if (len + take + (size_t)pad + 1 > cap)
		return len; /* callers size buffers at 4 bytes a column: not reached */
	if (!left) {
		memset(dst + len, ' ', (size_t)pad);
		len += (size_t)pad;
	}
	memcpy(dst + len, s, take);
	len += take;
	if (left) {
		memset(dst + len, ' ', (size_t)pad);
		len += (size_t)pad;
	}
	dst[len] = '\0';
	return len;
}

void grid_put(struct grid *g, int y, const char *text, enum grid_attr attr)
{
	if (y < 0 || y >= g->h)
		return;
	char *line = g->lines[y];
	line[0] = '\0';
	size_t len = text_append_cell(line, g->line_cap, text, g->w, true);
	while (len > 0 && line[len - 1] == ' ')
		line[--len] = '\0';
	g->attr[y] = (unsigned char)attr;
}

char *grid_text(const char *raw, bool ascii_only, char *out, size_t outlen)
{
	if (ascii_only)
		sanitize_ascii(raw, out, outlen);
	else
		sanitize_text(raw, out, outlen);
	return out;
}
