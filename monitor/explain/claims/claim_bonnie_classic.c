/* claim_bonnie_classic.c - Tim Bray's bonnie (not bonnie++): its text table.
 *
 * After the header line "Machine MB K/sec %CPU ... /sec %CPU" each result line holds an
 * optional machine name, the file size in MB (MiB), then K/sec (KiB/s) and %CPU for
 * per-char write, block write, rewrite, per-char read, block read, and seeks/s with
 * %CPU. Mail archives wrap these lines, leaving the last "%CPU" (or figure) alone on the
 * next line; such a line is joined back. Each result line is a result, its phases runs,
 * its machine name (if any) their row label. The table ends at the first line that is
 * no result line.
 */
#include "explain/claims/claim_lex.h"

#include <stdio.h>
#include <string.h>

#define CLASSIC_FIGURES 13 /* MB + 6 (rate, %CPU) pairs */
#define CLASSIC_TOKENS  16

struct words {
	unsigned n;
	const char *s[CLASSIC_TOKENS];
	size_t len[CLASSIC_TOKENS];
};

static bool split_words(const struct claim_line *l, struct words *w)
{
	w->n = 0;
	size_t i = 0, start;
	while (claim_next_word(l, &i, &start)) {
		if (w->n == CLASSIC_TOKENS)
			return false;
		w->s[w->n] = l->s + start;
		w->len[w->n++] = i - start;
	}
	return true;
}

static bool word_is(const struct words *w, unsigned i, const char *lit)
{
	return i < w->n && w->len[i] == strlen(lit) && memcmp(w->s[i], lit, w->len[i]) == 0;
}

static bool word_number(const struct words *w, unsigned i, double *v)
{
	struct text_cur c = {w->s[i], w->s[i] + w->len[i]};
	return text_decimal(&c, false, v) && text_at_end(&c);
}

/* Figures of a result line, and of its wrapped tail; false if it is none. */
static bool result_figures(const struct words *w, const struct words *next, double *fig,
                           unsigned *nfig, const char **name, size_t *namelen, bool *joined)
{
	unsigned first = 0;
	double v;
	*name = "";
	*namelen = 0;
	if (w->n > 0 && !word_number(w, 0, &v)) {
		*name = w->s[0];
		*namelen = w->len[0];
		first = 1;
	}
	*nfig = 0;
	for (unsigned i = first; i < w->n; i++)
		if (*nfig == CLASSIC_FIGURES || !word_number(w, i, &fig[(*nfig)++]))
			return false;
	*joined = false;
	if (*nfig == CLASSIC_FIGURES - 1 && next && next->n == 1 &&
	    word_number(next, 0, &fig[*nfig])) {
		(*nfig)++;
		*joined = true;
	}
	return *nfig == CLASSIC_FIGURES;
}

static int fill(const struct claim_src *src, unsigned no, const double *fig, const char *name,
                size_t namelen, struct claim_bonnie *b)
{
	if (fig[0] < 1 || fig[0] > (double)(1ull << 40) || fig[0] != (uint64_t)fig[0])
		return claim_fail(src, no, "bonnie size %.0f MB; expected a whole number of MB",
		                  fig[0]);
	snprintf(b->format_version, sizeof(b->format_version), "classic");
	snprintf(b->machine, sizeof(b->machine), "%.*s", (int)namelen, name);
	b->file_size_bytes = (uint64_t)fig[0] << 20;
	b->seed = -1;
	for (int t = 0; t < CLAIM_BONNIE_NTESTS; t++)
		b->rate_bytes_per_s[t] = fig[1 + 2 * t] * 1024;
	return 0;
}

/* The header "Machine MB K/sec %CPU ..." (its last "%CPU" may be wrapped onto a line of
 * its own, which is then part of it). */
static bool header(const struct claim_line *l)
{
	struct words w;
	return split_words(l, &w) && word_is(&w, 0, "Machine") && word_is(&w, 1, "MB");
}

/* The result row at *pos (joined with its wrapped tail): true with the figures, *pos and
 * *no past it. */
static bool next_row(const struct claim_src *src, size_t *pos, unsigned *no, double *fig,
                     const char **name, size_t *namelen, struct claim_line *first,
                     struct claim_line *last)
{
	struct words w, next;
	size_t peek;
	unsigned peekno;
	struct claim_line nl;
	if (!claim_next_line(src, pos, no, false, first) || !split_words(first, &w))
		return false;
	peek = *pos;
	peekno = *no;
	bool have_next =
	    claim_next_line(src, &peek, &peekno, false, &nl) && split_words(&nl, &next);
	unsigned nfig;
	bool joined;
	if (!result_figures(&w, have_next ? &next : NULL, fig, &nfig, name, namelen, &joined))
		return false;
	*last = *first;
	if (joined) {
		*pos = peek;
		*no = peekno;
		*last = nl;
	}
	return true;
}

int claim_find_bonnie_classic(const struct claim_src *file, size_t pos, unsigned lineno,
                              struct claim_extent *out)
{
	struct claim_line l, first, last;
	struct words w;
	out->start = pos;
	if (!claim_next_line(file, &pos, &lineno, false, &l) || !header(&l))
		return 0;
	out->first_line = out->last_line = l.no;
	out->end = pos;
	size_t peek = pos;
	unsigned peekno = lineno;
	if (claim_next_line(file, &peek, &peekno, false, &l) && split_words(&l, &w) && w.n == 1 &&
	    word_is(&w, 0, "%CPU")) {
		pos = peek; /* the header's wrapped "%CPU" */
		lineno = peekno;
	}
	double fig[CLASSIC_FIGURES];
	const char *name;
	size_t namelen;
	unsigned rows = 0;
	for (size_t at = pos; next_row(file, &at, &lineno, fig, &name, &namelen, &first, &last);
	     pos = at) {
		out->end = at;
		out->last_line = last.no;
		rows++;
	}
	if (!rows)
		return claim_fail(file, out->first_line,
		                  "bonnie table without a result line; expected \"Machine MB "
		                  "K/sec %%CPU ...\" and a line of [machine] MB and 6 K/sec %%CPU "
		                  "pairs");
	return 1;
}

/* A row ends with its seeks' %CPU, one decimal: "4.9" (a cut leaves "4." or "4"). */
bool claim_whole_bonnie_classic(const struct claim_src *src, const struct claim_line *last)
{
	(void)src;
	size_t n = last->len;
	while (n && (last->s[n - 1] == ' ' || last->s[n - 1] == '\t'))
		n--;
	return n >= 3 && last->s[n - 2] == '.' && last->s[n - 1] >= '0' && last->s[n - 1] <= '9' &&
	       last->s[n - 3] >= '0' && last->s[n - 3] <= '9';
}

int claim_parse_bonnie_classic(const struct claim_src *src, struct claim_build *b)
{
	size_t pos = 0;
	unsigned no = src->first_line;
	struct claim_line l, first, last;
	struct words w;
	if (!claim_next_line(src, &pos, &no, false, &l) || !header(&l))
		return claim_fail(src, src->first_line, "bonnie table without its header");
	size_t peek = pos;
	unsigned peekno = no;
	if (claim_next_line(src, &peek, &peekno, false, &l) && split_words(&l, &w) && w.n == 1 &&
	    word_is(&w, 0, "%CPU")) {
		pos = peek;
		no = peekno;
	}
	double fig[CLASSIC_FIGURES];
	const char *name;
	size_t namelen;
	while (next_row(src, &pos, &no, fig, &name, &namelen, &first, &last)) {
		struct claim_bonnie row = {0};
		if (fill(src, first.no, fig, name, namelen, &row) != 0)
			return -1;
		row.table_line = first.no;
		struct claim_result *r =
		    claim_new_result(b, src, CLAIM_TOOL_BONNIE_CLASSIC, first.no, last.no);
		if (!r)
			return -1;
		r->u.bonnie = row;
		if (r->said.queue_depth.from == CLAIM_FROM_NONE)
			claim_say(&r->said.queue_depth, CLAIM_FROM_TOOL, 1); /* one process */
		if (claim_bonnie_result(src, r, true))
			return -1;
	}
	return 0;
}
