/* claim_bonnie_table.c - bonnie++'s text table, the rows of its sequential tests.
 *
 * bonnie++ 1.9x (and 1.0x) print, after the "Version" and "-Per Chr- --Block--" lines,
 *   Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP
 *   razer.justynshul 2G   419  98 144092  21 68102   2   882  97 183977   2 699.3   0
 * each figure right-aligned in its header's column, one blank between columns, a test not
 * run (-f) left blank, "+++++ +++" a test too fast to time, and a figure wider than its
 * column pushing the rest of the row right. So the row is read column by column at the
 * header's widths from the size on, never by counting words. The machine name is cut to
 * its column ("razer.justynshul"); the size may carry the chunk size ("1G:32k"). Each row
 * is a result; the CSV line bonnie++ prints after the table completes it
 * (claim_bonnie.c). bonnie++ 2's table ("Name:Size etc  /sec %CP", "248k") rounds its
 * figures: its rows are not read, their CSV lines are (a row without one is noted).
 */
#include "explain/claims/claim_lex.h"

#include <stdio.h>
#include <string.h>

#include "core/arrays.h"

#define TABLE_COLUMNS 12 /* 6 tests, each a figure and a %CP */

/* Right edges of the header's words: 0 Machine/Name:Size, 1 Size/etc, 2.. the figures. */
struct header {
	bool rounded; /* bonnie++ 2: "Name:Size etc" */
	size_t edge[2 + TABLE_COLUMNS];
};

static bool word_is(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(w, lit, n);
}

static bool read_header(const struct claim_line *l, struct header *h)
{
	static const char *const v1[] = {"Machine", "Size"}, *const v2[] = {"Name:Size", "etc"};
	size_t pos = 0, start;
	unsigned n = 0;
	while (claim_next_word(l, &pos, &start)) {
		const char *w = l->s + start;
		size_t wl = pos - start;
		if (n == 2 + TABLE_COLUMNS)
			return false;
		if (n < 2 && !word_is(w, wl, (n ? v1[1] : v1[0])) &&
		    !word_is(w, wl, (n ? v2[1] : v2[0])))
			return false;
		if (n == 0)
			h->rounded = word_is(w, wl, v2[0]);
		bool rate = (n - 2) % 2 == 0;
		if (n >= 2 && !(rate ? word_is(w, wl, "K/sec") || word_is(w, wl, "/sec")
		                     : word_is(w, wl, "%CP")))
			return false;
		h->edge[n++] = pos;
	}
	return n == 2 + TABLE_COLUMNS;
}

/* "32k", "8192": a chunk size in bytes. */
static bool chunk_size(const char *s, size_t len, uint64_t *out)
{
	struct text_cur c = {s, s + len};
	uint64_t v;
	if (!text_u64(&c, &v) || v > (1ull << 30))
		return false;
	if (text_lit(&c, "k") || text_lit(&c, "K"))
		v <<= 10;
	else if (text_lit(&c, "m") || text_lit(&c, "M"))
		v <<= 20;
	*out = v;
	return text_at_end(&c);
}

/* The row's columns from the size on: col[k] and its length, len 0 when blank. */
static bool row_columns(const struct claim_line *l, const struct header *h, size_t pos,
                        const char **col, size_t *len)
{
	for (unsigned k = 0; k < TABLE_COLUMNS; k++) {
		size_t width = h->edge[2 + k] - h->edge[1 + k] - 1;
		col[k] = NULL;
		len[k] = 0;
		if (pos >= l->len)
			continue; /* the rest blank (a cut %CP, trailing blanks trimmed) */
		if (l->s[pos] != ' ')
			return false; /* no blank between two columns */
		size_t from = pos + 1, end = from + width, i = from;
		while (i < l->len && i < end && l->s[i] == ' ')
			i++;
		if (i < end && i < l->len) {
			size_t j = i;
			while (j < l->len && l->s[j] != ' ' && l->s[j] != '\t' && l->s[j] != '\r')
				j++;
			col[k] = l->s + i;
			len[k] = j - i;
			end = j > end ? j : end;
		}
		pos = end;
	}
	return pos >= l->len || l->s[pos] == ' ' || l->s[pos] == '\r';
}

/* A figure column: KiB/s (or seeks/s), "+++++", or blank. */
static bool figure(const char *s, size_t len, double *rate, bool *too_fast)
{
	double v;
	*rate = -1;
	*too_fast = len == 5 && !memcmp(s, "+++++", 5);
	if (!len || *too_fast)
		return true; /* a blank column has no bytes at all (s NULL) */
	struct text_cur c = {s, s + len};
	if (!text_decimal(&c, false, &v) || !text_at_end(&c))
		return false;
	*rate = v * 1024;
	return true;
}

/* One row into b; 0 read, -1 not a row. */
static int read_row(const struct claim_line *l, const struct header *h, struct claim_bonnie *b)
{
	size_t pos = 0, start;
	const char *w[2];
	size_t wl[2];
	for (int k = 0; k < 2; k++) {
		if (!claim_next_word(l, &pos, &start))
			return -1;
		w[k] = l->s + start;
		wl[k] = pos - start;
	}
	const char *colon = memchr(w[1], ':', wl[1]);
	size_t size_len = colon ? (size_t)(colon - w[1]) : wl[1];
	if (!claim_bonnie_size(w[1], size_len, &b->file_size_bytes) ||
	    (colon && !chunk_size(colon + 1, wl[1] - size_len - 1, &b->chunk_bytes)))
		return -1;
	snprintf(b->machine, sizeof(b->machine), "%.*s", (int)wl[0], w[0]);
	if (h->rounded)
		return 0; /* bonnie++ 2: the CSV line gives the figures */
	const char *col[TABLE_COLUMNS];
	size_t len[TABLE_COLUMNS];
	if (!row_columns(l, h, pos, col, len))
		return -1;
	for (unsigned t = 0; t < CLAIM_BONNIE_NTESTS; t++)
		if (!figure(col[2 * t], len[2 * t], &b->rate_bytes_per_s[t], &b->too_fast[t]))
			return -1;
	return 0;
}

static bool ends_table(const struct claim_line *l)
{
	size_t i = 0;
	while (i < l->len && (l->s[i] == ' ' || l->s[i] == '\t' || l->s[i] == '\r'))
		i++;
	return i == l->len || (l->len - i >= 7 && !memcmp(l->s + i, "Latency", 7)) ||
	       (l->len - i >= 7 && !memcmp(l->s + i, "Version", 7));
}

int claim_find_bonnie_table(const struct claim_src *file, size_t pos, unsigned lineno,
                            struct claim_extent *out)
{
	struct claim_line l;
	struct header h;
	out->start = pos;
	if (!claim_next_line(file, &pos, &lineno, false, &l) || !read_header(&l, &h))
		return 0;
	out->first_line = out->last_line = l.no;
	unsigned rows = 0;
	while (claim_next_line(file, &pos, &lineno, false, &l) && !ends_table(&l)) {
		struct claim_bonnie b = {0};
		if (read_row(&l, &h, &b) != 0) {
			char ex[48];
			claim_excerpt(&l, ex, sizeof(ex));
			return claim_fail(
			    file, l.no,
			    "bonnie++ table row \"%s\"; expected the machine, its size "
			    "and 6 figures with their %%CP under the header's columns",
			    ex);
		}
		out->end = pos;
		out->last_line = l.no;
		rows++;
	}
	if (!rows)
		return claim_fail(file, out->first_line,
		                  "bonnie++ table header without a row after it; expected "
		                  "\"MACHINE SIZE\" and its figures");
	return 1;
}

/* A row read whole: its seeks column is there (the figures read come before it). */
bool claim_whole_bonnie_table(const struct claim_src *src, const struct claim_line *last)
{
	size_t pos = 0;
	unsigned no = src->first_line;
	struct claim_line l;
	struct header h;
	if (!claim_next_line(src, &pos, &no, false, &l) || !read_header(&l, &h) || h.rounded)
		return true; /* bonnie++ 2: nothing read from the row */
	size_t start;
	const char *col[TABLE_COLUMNS];
	size_t len[TABLE_COLUMNS];
	pos = 0;
	for (int k = 0; k < 2; k++)
		if (!claim_next_word(last, &pos, &start))
			return false;
	return row_columns(last, &h, pos, col, len) && len[TABLE_COLUMNS - 2] > 0;
}

int claim_parse_bonnie_table(const struct claim_src *src, struct claim_build *b)
{
	size_t pos = 0;
	unsigned no = src->first_line;
	struct claim_line l;
	struct header h;
	if (!claim_next_line(src, &pos, &no, false, &l) || !read_header(&l, &h))
		return claim_fail(src, src->first_line, "bonnie++ table without its header");
	while (claim_next_line(src, &pos, &no, false, &l)) {
		struct claim_bonnie row = {.seed = -1, .table_line = l.no};
		snprintf(row.format_version, sizeof(row.format_version), "table");
		if (read_row(&l, &h, &row) != 0)
			return claim_fail(src, l.no, "bonnie++ table row changed while read");
		if (h.rounded) {
			struct claim_pending_row p = {.line = l.no, .size = row.file_size_bytes};
			snprintf(p.machine, sizeof(p.machine), "%s", row.machine);
			if (arrays_append((void **)&b->pending, &b->npending, &p, sizeof(p)))
				return claim_no_memory(src);
			continue;
		}
		struct claim_result *r = claim_new_result(b, src, CLAIM_TOOL_BONNIE, l.no, l.no);
		if (!r)
			return -1;
		r->u.bonnie = row;
		if (claim_bonnie_result(src, r, false))
			return -1;
	}
	return 0;
}
