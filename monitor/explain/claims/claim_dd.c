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
 * A file may hold several runs (the write test, then the read test), each records lines
 * and a summary: each is a run. A pasted command line before a run gives its direction
 * (if=/dev/zero of=FILE: write; if=FILE of=/dev/null: read); `time`'s real line after a
 * run (`time (dd ...; sync)`) gives its seconds. The headline fields are the first run's.
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

/* --- the pasted command line and `time`'s real line ----------------------------------- */

static bool word_eq(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(w, lit, n) == 0;
}

static bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == ';' || c == '(' || c == ')';
}

/* The direction a pasted "dd if=A of=B" line says: 1 it is one (dir in *dir, 0 when it
 * moves no file or disk one way), 0 the line is no dd command. */
static int command_dir(const struct claim_line *l, unsigned *dir)
{
	const char *in = NULL, *of = NULL;
	size_t inlen = 0, oflen = 0;
	bool dd = false;
	for (size_t i = 0; i < l->len;) {
		while (i < l->len && is_sep(l->s[i]))
			i++;
		size_t start = i;
		while (i < l->len && !is_sep(l->s[i]))
			i++;
		const char *w = l->s + start;
		size_t n = i - start;
		if (word_eq(w, n, "dd") || (n > 3 && !memcmp(w + n - 3, "/dd", 3)))
			dd = true;
		else if (dd && n > 3 && !memcmp(w, "if=", 3))
			in = w + 3, inlen = n - 3;
		else if (dd && n > 3 && !memcmp(w, "of=", 3))
			of = w + 3, oflen = n - 3;
	}
	if (!dd || (!in && !of))
		return 0;
	/* NetBSD's seed reads "of=/dev/zero": a sink like /dev/null */
	bool of_sink = of && (word_eq(of, oflen, "/dev/null") || word_eq(of, oflen, "/dev/zero"));
	bool in_source =
	    in && (word_eq(in, inlen, "/dev/zero") || word_eq(in, inlen, "/dev/urandom") ||
	           word_eq(in, inlen, "/dev/random"));
	*dir = 0;
	if (of_sink && in && !in_source)
		*dir = CLAIM_DIR_READ;
	else if (in_source && of && !of_sink)
		*dir = CLAIM_DIR_WRITE;
	return 1;
}

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

/* --- runs ------------------------------------------------------------------------------- */

struct dd_state {
	int records_seen; /* of the current run: 0, 1 (in), 2 (out) */
	unsigned nsum;    /* runs with a summary so far */
	unsigned pending_dir;
	bool last_timed; /* the last run took a `time` real line already */
	struct dd_summary first;
};

static void end_run(struct dd_state *st, const struct dd_summary *s, struct claim *out)
{
	struct claim_run r = {.direction = st->pending_dir,
	                      .bytes = s->bytes,
	                      .seconds = s->seconds,
	                      .rate_bytes_per_s = s->rate,
	                      .file_bytes = s->bytes}; /* bs x count, as dd copied it */
	snprintf(r.label, sizeof(r.label), "run %u", st->nsum + 1);
	claim_add_run(out, &r);
	if (st->nsum++ == 0)
		st->first = *s;
	st->records_seen = 0;
	st->pending_dir = 0;
	st->last_timed = false;
}

/* A line before the summary: the command, `time`'s line, a progress update or words. */
static void other_line(const struct claim_line *l, struct dd_state *st, struct claim *out)
{
	struct dd_summary s;
	double real;
	unsigned dir;
	if (command_dir(l, &dir)) {
		st->pending_dir = dir;
		return;
	}
	if (parse_real(l, &real)) {
		struct claim_run *r = out->nruns ? &out->runs[out->nruns - 1] : NULL;
		if (r && st->nsum && !st->last_timed && st->records_seen == 0 && real > 0) {
			r->seconds = real;
			r->rate_bytes_per_s = (double)r->bytes / real;
			r->seconds_from_time = true;
			st->last_timed = true;
		}
		return;
	}
	/* before the records lines a summary form is a status=progress update */
	if (st->records_seen == 0 && st->nsum == 0 && parse_summary(l, &s)) {
		out->u.dd.progress_lines++;
		out->u.dd.progress_last_bytes = s.bytes;
	}
}

static int dd_line(const struct claim_src *src, const struct claim_line *l, struct dd_state *st,
                   struct claim *out)
{
	char ex[48];
	uint64_t full, part;
	int r = parse_records(l, &full, &part);
	claim_excerpt(l, ex, sizeof(ex));
	if (r < 0)
		return claim_fail(src, l->no,
		                  "garbled records line \"%s\"; expected \"N+M records "
		                  "in|out\"",
		                  ex);
	if (r > 0) {
		if (st->records_seen == 2)
			return claim_fail(src, l->no,
			                  "third records line; expected records in, "
			                  "records out, then the bytes summary");
		uint64_t *dst =
		    st->records_seen ? &out->u.dd.records_out_full : &out->u.dd.records_in_full;
		if (st->nsum == 0) {
			dst[0] = full;
			dst[1] = part;
		}
		st->records_seen++;
		return 0;
	}
	if (st->records_seen < 2) {
		other_line(l, st, out);
		return 0;
	}
	struct dd_summary s;
	if (l->len == 0 || !is_digit(l->s[0]))
		return 0; /* "dd: …" diagnostics between records and summary */
	if (parse_summary(l, &s)) {
		end_run(st, &s, out);
		return 0;
	}
	if (!memchr(l->s, ',', l->len) && !memchr(l->s, '(', l->len))
		return 0; /* "N truncated records" */
	return claim_fail(src, l->no,
	                  "garbled dd summary \"%s\"; expected \"N bytes (...) "
	                  "copied, S s, R MB/s\"",
	                  ex);
}

int claim_parse_dd(const struct claim_src *src, struct claim *out)
{
	struct dd_state st = {0};
	size_t pos = 0;
	unsigned no = 1;
	struct claim_line l;
	while (claim_next_line(src, &pos, &no, true, &l))
		if (dd_line(src, &l, &st, out) != 0)
			return -1;
	if (st.records_seen == 2)
		return claim_fail(src, 0,
		                  "run %u: records lines but no \"N bytes ... copied\" "
		                  "summary (truncated, status=noxfer, or a busybox built "
		                  "without its third status line?)",
		                  st.nsum + 1);
	if (st.nsum == 0 || st.records_seen)
		return claim_fail(src, 0,
		                  "truncated dd output%s: expected \"N+M records in\", "
		                  "\"N+M records out\" and \"N bytes ... copied, S s, R MB/s\"",
		                  st.nsum ? " (its last run)" : "");
	out->tool = st.first.tool;
	out->directions = CLAIM_DIR_READ | CLAIM_DIR_WRITE;
	out->bytes = out->written_bytes = out->read_bytes = st.first.bytes;
	out->seconds = st.first.seconds;
	out->rate_bytes_per_s = st.first.rate;
	return 0;
}
