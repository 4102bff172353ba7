/* claim_dd.c - GNU, busybox and BSD dd: records lines and the summary line.
 *
 * GNU dd prints "N+M records in", "N+M records out", then one of
 *   N bytes (H MB, H MiB) copied, S s, R MB/s     (coreutils >= 8.24)
 *   N bytes (H kB) copied, S s, R MB/s            (no IEC part below 1 KiB)
 *   N bytes copied, S s, R kB/s                   (below 1000 bytes; "1 byte copied")
 *   N bytes (H GB) copied, S seconds, R MB/s      (older coreutils)
 * with the words translated (LANG=de_DE: "Bytes ... kopiert", "Datensätze ein") and a
 * decimal comma where LC_NUMERIC says so, so words are matched by position, not
 * spelling. status=progress writes the same summary form, ended by '\r', before the
 * records lines. busybox: "N bytes (H.HMB) copied, S.SSSSSS seconds, R.RMB/s" with
 * 1024-based units glued to the number. BSD: "N bytes transferred in S secs (R bytes/sec)".
 *
 * Each run is an output of its own (a post may hold several: the write test, then the
 * read test): status=progress lines, the records lines, dd's own diagnostics, the summary,
 * and `time`'s lines after it (bash's "real\t0m1.234s" after a blank line, or POSIX's
 * "real 1.23"), whose real line gives the run's seconds (`time (dd ...; sync)`). Its
 * direction is the pasted command's (claim_command.c).
 */
#include "explain/claims/claim_lex.h"

#include <stdio.h>
#include <string.h>

struct dd_summary {
	enum claim_tool tool;
	uint64_t bytes;
	double seconds, rate;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "(…)" with no nested parentheses; glued reports no space inside (busybox). */
static bool skip_parens(struct text_cur *c, bool *glued)
{
	if (!text_lit(c, "("))
		return false;
	*glued = true;
	while (!text_at_end(c) && *c->p != ')') {
		if (*c->p == '(')
			return false;
		if (*c->p == ' ')
			*glued = false;
		c->p++;
	}
	return text_lit(c, ")");
}

/* ", R unit/s" | ", Infinity B/s" ; glued: busybox "2.9GB/s" */
static bool parse_rate(struct text_cur *c, struct dd_summary *s)
{
	double v;
	if (!text_decimal(c, true, &v)) {
		const char *w;
		size_t wl;
		/* coreutils prints a translated "Infinity" when no time elapsed */
		if (!text_word(c, &w, &wl) || !text_lit(c, " B/s"))
			return false;
		s->rate = -1;
		return text_at_end(c);
	}
	bool spaced = text_lit(c, " ");
	const char *u = c->p;
	while (!text_at_end(c) && *c->p != '/')
		c->p++;
	size_t ulen = (size_t)(c->p - u);
	if (!text_lit(c, "/s") || !text_at_end(c))
		return false;
	if (!spaced)
		s->tool = CLAIM_TOOL_DD_BUSYBOX;
	double f = claim_unit_factor(u, ulen, spaced);
	if (f == 0)
		return false;
	s->rate = v * f;
	return true;
}

static bool parse_gnu_summary(const struct claim_line *l, struct dd_summary *s)
{
	struct text_cur c = {l->s, l->s + l->len};
	const char *w;
	size_t wl;
	bool glued = false;
	s->tool = CLAIM_TOOL_DD;
	s->seconds = s->rate = -1;
	if (!text_u64(&c, &s->bytes) || !text_lit(&c, " ") || !text_word(&c, &w, &wl) ||
	    !text_lit(&c, " "))
		return false;
	if (!text_at_end(&c) && *c.p == '(' && (!skip_parens(&c, &glued) || !text_lit(&c, " ")))
		return false;
	if (!text_word(&c, &w, &wl))
		return false;
	if (text_at_end(&c))
		return true; /* "N bytes (…) copied" without timing */
	if (!text_lit(&c, ", ") || !text_decimal(&c, true, &s->seconds) || !text_lit(&c, " ") ||
	    !text_word(&c, &w, &wl) || !text_lit(&c, ", "))
		return false;
	if (!parse_rate(&c, s))
		return false;
	if (glued && s->tool != CLAIM_TOOL_DD_BUSYBOX)
		return false;
	return true;
}

static bool parse_bsd_summary(const struct claim_line *l, struct dd_summary *s)
{
	struct text_cur c = {l->s, l->s + l->len};
	uint64_t rate;
	s->tool = CLAIM_TOOL_DD_BSD;
	if (!text_u64(&c, &s->bytes) || !text_lit(&c, " bytes transferred in ") ||
	    !text_decimal(&c, false, &s->seconds) || !text_lit(&c, " secs (") ||
	    !text_u64(&c, &rate) || !text_lit(&c, " bytes/sec)"))
		return false;
	text_skip_blanks(&c);
	s->rate = (double)rate;
	return text_at_end(&c);
}

static bool parse_summary(const struct claim_line *l, struct dd_summary *s)
{
	return parse_bsd_summary(l, s) || parse_gnu_summary(l, s);
}

/* "N+M words": 1 parsed, 0 not a records line, -1 garbled. */
static int parse_records(const struct claim_line *l, uint64_t *full, uint64_t *part)
{
	struct text_cur c = {l->s, l->s + l->len};
	const char *p = l->s;
	while (p < c.end && is_digit(*p))
		p++;
	if (p == l->s || p >= c.end || *p != '+')
		return 0;
	if (!text_u64(&c, full) || !text_lit(&c, "+") || !text_u64(&c, part) ||
	    !text_lit(&c, " ") || text_at_end(&c))
		return -1;
	return 1;
}

/* --- `time`'s lines after a run ---------------------------------------------------------- */

/* bash's "real\t0m1.234s" (a decimal comma in some locales) or POSIX "real 1.23". */
static bool parse_real(const struct claim_line *l, double *seconds)
{
	struct text_cur c = {l->s, l->s + l->len};
	double min = 0, sec;
	if (!text_lit(&c, "real"))
		return false;
	if (text_at_end(&c) || (*c.p != ' ' && *c.p != '\t'))
		return false;
	text_skip_blanks(&c);
	if (!text_decimal(&c, true, &sec))
		return false;
	if (text_lit(&c, "m")) {
		min = sec;
		if (!text_decimal(&c, true, &sec) || !text_lit(&c, "s"))
			return false;
	}
	while (!text_at_end(&c) && (*c.p == ' ' || *c.p == '\r'))
		c.p++;
	if (!text_at_end(&c))
		return false;
	*seconds = min * 60 + sec;
	return true;
}

/* bash's "user\t0m0.028s", POSIX's "sys 0.08": `time`'s lines other than real. */
static bool other_time_line(const struct claim_line *l)
{
	struct text_cur c = {l->s, l->s + l->len};
	double v;
	if (!text_lit(&c, "user") && !text_lit(&c, "sys"))
		return false;
	if (text_at_end(&c) || (*c.p != ' ' && *c.p != '\t'))
		return false;
	text_skip_blanks(&c);
	return text_decimal(&c, true, &v);
}

/* `time`'s real, user or sys line, whole or not (a cut one is the output's, refused by its
 * last-line test) */
static bool time_line(const struct claim_line *l)
{
	static const char *const words[] = {"real", "user", "sys"};
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);
		if (l->len > n && !memcmp(l->s, words[i], n) && (l->s[n] == ' ' || l->s[n] == '\t'))
			return true;
	}
	return false;
}

static bool blank(const struct claim_line *l)
{
	for (size_t i = 0; i < l->len; i++)
		if (l->s[i] != ' ' && l->s[i] != '\t' && l->s[i] != '\r')
			return false;
	return true;
}

/* A status=progress line: updates ended by '\r', one of which is a summary form. */
static bool progress_line(const struct claim_line *l)
{
	const char *p = l->s, *end = l->s + l->len;
	if (!memchr(p, '\r', l->len))
		return false;
	while (p < end) {
		const char *q = memchr(p, '\r', (size_t)(end - p));
		q = q ? q : end;
		struct claim_line piece = {.s = p, .len = (size_t)(q - p), .no = l->no};
		struct dd_summary s;
		if (piece.len && parse_gnu_summary(&piece, &s))
			return true;
		p = q + 1;
	}
	return false;
}

/* What dd may print between its records lines and its summary: "dd: ..." diagnostics,
 * "N truncated records". */
static bool diagnostic(const struct claim_line *l)
{
	struct text_cur c = {l->s, l->s + l->len};
	uint64_t n;
	if (l->len >= 4 && !memcmp(l->s, "dd: ", 4))
		return true;
	return text_u64(&c, &n) && text_lit(&c, " truncated record");
}

/* After the summary: `time`'s lines (bash puts a blank line before them). */
static void time_lines(const struct claim_src *file, size_t pos, unsigned no,
                       struct claim_extent *out)
{
	struct claim_line t;
	bool blank_seen = false, timed = false;
	while (claim_next_line(file, &pos, &no, false, &t)) {
		if (!timed && !blank_seen && blank(&t)) {
			blank_seen = true;
			continue;
		}
		if (!time_line(&t))
			return;
		timed = true;
		out->end = pos;
		out->last_line = t.no;
	}
}

/* The summary after the records lines (r2 the second), past dd's own diagnostics. */
static int find_summary(const struct claim_src *file, size_t pos, unsigned no,
                        const struct claim_line *r2, struct claim_extent *out)
{
	struct claim_line l;
	for (int k = 0;; k++) {
		if (!claim_next_line(file, &pos, &no, false, &l))
			return claim_fail(file, r2->no,
			                  "dd records lines but no \"N bytes ... copied\" summary "
			                  "after them: the output cut short, status=noxfer, or a "
			                  "busybox built without its third status line?");
		struct dd_summary s;
		if (parse_summary(&l, &s)) {
			out->end = pos;
			out->last_line = l.no;
			time_lines(file, pos, no, out);
			return 1;
		}
		if (k < 4 && diagnostic(&l))
			continue;
		char ex[48];
		claim_excerpt(&l, ex, sizeof(ex));
		if (l.len && is_digit(l.s[0]) &&
		    (memchr(l.s, ',', l.len) || memchr(l.s, '(', l.len)))
			return claim_fail(file, l.no,
			                  "garbled dd summary \"%s\"; expected \"N bytes (...) "
			                  "copied, S s, R MB/s\"",
			                  ex);
		return claim_fail(file, r2->no,
		                  "dd records lines but no \"N bytes ... copied\" summary after "
		                  "them (status=noxfer, or a busybox built without its third "
		                  "status line?)");
	}
}

int claim_find_dd(const struct claim_src *file, size_t pos, unsigned lineno,
                  struct claim_extent *out)
{
	struct claim_line l, r2;
	uint64_t full, part;
	out->start = pos;
	if (!claim_next_line(file, &pos, &lineno, false, &l))
		return 0;
	out->first_line = l.no;
	if (progress_line(&l)) {
		if (!claim_next_line(file, &pos, &lineno, false, &l) ||
		    parse_records(&l, &full, &part) != 1)
			return 0;
	}
	if (parse_records(&l, &full, &part) != 1)
		return 0;
	if (!claim_next_line(file, &pos, &lineno, false, &r2))
		return claim_fail(file, l.no,
		                  "truncated dd output: a records line, then the end; expected "
		                  "\"N+M records out\" and the \"N bytes ... copied\" summary");
	if (parse_records(&r2, &full, &part) != 1)
		return 0; /* a line of prose that reads like one */
	return find_summary(file, pos, lineno, &r2, out);
}

bool claim_whole_dd(const struct claim_src *src, const struct claim_line *last)
{
	(void)src;
	size_t n = last->len;
	while (n && (last->s[n - 1] == ' ' || last->s[n - 1] == '\t'))
		n--;
	const char *s = last->s;
	if ((n >= 2 && !memcmp(s + n - 2, "/s", 2)) ||
	    (n >= 10 && !memcmp(s + n - 10, "bytes/sec)", 10)))
		return true; /* a summary ends with its rate's unit */
	double sec;
	if (parse_real(last, &sec)) {
		if (s[n - 1] == 's') /* bash: "0m0.253s" */
			return true;
		const char *dot = NULL; /* POSIX: "real 0.14", two decimals as bash prints them */
		for (size_t i = 0; i < n; i++)
			dot = s[i] == '.' || s[i] == ',' ? s + i : dot;
		return dot && s + n - dot == 3;
	}
	return other_time_line(last); /* user and sys are not read */
}

/* --- the run ------------------------------------------------------------------------- */

struct dd_state {
	int records_seen; /* 0, 1 (in), 2 (out) */
	bool summed, timed;
	struct dd_summary sum;
	double real;
};

static void dd_line(const struct claim_line *l, struct dd_state *st, struct claim_dd *dd)
{
	uint64_t full, part;
	struct dd_summary s;
	if (!st->summed && st->records_seen < 2 && parse_records(l, &full, &part) == 1) {
		uint64_t *dst = st->records_seen ? &dd->records_out_full : &dd->records_in_full;
		dst[0] = full;
		dst[1] = part;
		st->records_seen++;
	} else if (st->records_seen == 0 && parse_summary(l, &s)) {
		dd->progress_lines++; /* before the records lines: a status=progress update */
		dd->progress_last_bytes = s.bytes;
	} else if (st->records_seen == 2 && !st->summed && parse_summary(l, &s)) {
		st->sum = s;
		st->summed = true;
	} else if (st->summed && !st->timed && parse_real(l, &st->real) && st->real > 0) {
		st->timed = true;
	}
}

/* Which of the post's dd runs this is, from 1. */
static unsigned dd_number(const struct claim_post *p)
{
	unsigned n = 1;
	for (size_t i = 0; i < p->nresults; i++)
		n += p->results[i].tool <= CLAIM_TOOL_DD_BSD;
	return n;
}

int claim_parse_dd(const struct claim_src *src, struct claim_build *b)
{
	struct dd_state st = {0};
	struct claim_dd dd = {0};
	size_t pos = 0;
	unsigned no = src->first_line;
	unsigned last = no;
	struct claim_line l;
	while (claim_next_line(src, &pos, &no, true, &l)) {
		dd_line(&l, &st, &dd);
		last = l.no;
	}
	if (!st.summed) /* the finder saw it: not reached */
		return claim_fail(src, src->first_line, "dd output without its summary line");
	unsigned number = dd_number(b->post);
	struct claim_result *r = claim_new_result(b, src, st.sum.tool, src->first_line, last);
	if (!r)
		return -1;
	r->u.dd = dd;
	r->directions = CLAIM_DIR_READ | CLAIM_DIR_WRITE;
	r->bytes = r->written_bytes = r->read_bytes = st.sum.bytes;
	r->seconds = st.sum.seconds;
	r->rate_bytes_per_s = st.sum.rate;
	claim_say(&r->said.file_bytes, CLAIM_FROM_OUTPUT, st.sum.bytes);
	if (r->said.queue_depth.from == CLAIM_FROM_NONE)
		claim_say(&r->said.queue_depth, CLAIM_FROM_TOOL, 1); /* one request at a time */
	struct claim_run run = {.direction = b->ctx.dd_direction,
	                        .bytes = st.sum.bytes,
	                        .seconds = st.sum.seconds,
	                        .rate_bytes_per_s = st.sum.rate,
	                        .file_bytes = st.sum.bytes}; /* bs x count, as dd copied it */
	snprintf(run.label, sizeof(run.label), "run %u", number);
	if (st.timed) {
		run.seconds = st.real;
		run.rate_bytes_per_s = (double)st.sum.bytes / st.real;
		run.seconds_from_time = true;
	}
	return claim_add_run(src, r, &run);
}
