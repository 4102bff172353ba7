/* claim_bonnie_classic.c - Tim Bray's bonnie (not bonnie++): its text table.
 *
 * After the header line "Machine MB K/sec %CPU ... /sec %CPU" each result line holds an
 * optional machine name, the file size in MB (MiB), then K/sec (KiB/s) and %CPU for
 * per-char write, block write, rewrite, per-char read, block read, and seeks/s with
 * %CPU. Mail archives wrap these lines, leaving the last "%CPU" (or figure) alone on the
 * next line; such a line is joined back. The headline figures are the first result
 * line's; every line's phases are runs, its machine name (if any) their row label.
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
	for (int t = 0; t < CLAIM_BONNIE_NTESTS; t++)
		b->rate_bytes_per_s[t] = fig[1 + 2 * t] * 1024;
	return 0;
}

int claim_parse_bonnie_classic(const struct claim_src *src, struct claim *out)
{
	size_t pos = 0, peek;
	unsigned no = 1, peekno;
	struct claim_line l, nl;
	struct words w, next;
	bool header = false;
	out->tool = CLAIM_TOOL_BONNIE_CLASSIC;
	while (claim_next_line(src, &pos, &no, false, &l)) {
		if (!split_words(&l, &w))
			continue;
		if (word_is(&w, 0, "Machine") && word_is(&w, 1, "MB")) {
			header = true;
			continue;
		}
		if (!header || w.n == 0 || (w.n == 1 && word_is(&w, 0, "%CPU")))
			continue;
		peek = pos;
		peekno = no;
		bool have_next =
		    claim_next_line(src, &peek, &peekno, false, &nl) && split_words(&nl, &next);
		double fig[CLASSIC_FIGURES];
		unsigned nfig;
		const char *name;
		size_t namelen;
		bool joined;
		if (!result_figures(&w, have_next ? &next : NULL, fig, &nfig, &name, &namelen,
		                    &joined)) {
			if (out->u.bonnie.runs == 0)
				return claim_fail(src, l.no,
				                  "bonnie result line; expected [machine] MB and 6 "
				                  "K/sec %%CPU pairs");
			break; /* text after the results */
		}
		if (joined) {
			pos = peek;
			no = peekno;
		}
		struct claim_bonnie row = {0};
		if (fill(src, l.no, fig, name, namelen, &row) != 0)
			return -1;
		claim_take_bonnie_row(out, &row, true);
	}
	if (out->u.bonnie.runs == 0)
		return claim_fail(src, 0,
		                  "bonnie table without a result line; expected "
		                  "\"Machine MB K/sec %%CPU ...\" and a line of figures");
	claim_bonnie_headline(out);
	return 0;
}
