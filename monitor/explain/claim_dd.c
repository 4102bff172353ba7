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
 */
#include "explain/claim_lex.h"

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
static bool skip_parens(struct claim_cur *c, bool *glued)
{
	if (!cur_lit(c, "("))
		return false;
	*glued = true;
	while (!cur_at_end(c) && *c->p != ')') {
		if (*c->p == '(')
			return false;
		if (*c->p == ' ')
			*glued = false;
		c->p++;
	}
	return cur_lit(c, ")");
}

/* ", R unit/s" | ", Infinity B/s" ; glued: busybox "2.9GB/s" */
static bool parse_rate(struct claim_cur *c, struct dd_summary *s)
{
	double v;
	if (!cur_decimal(c, true, &v)) {
		const char *w;
		size_t wl;
		/* coreutils prints a translated "Infinity" when no time elapsed */
		if (!cur_word(c, &w, &wl) || !cur_lit(c, " B/s"))
			return false;
		s->rate = -1;
		return cur_at_end(c);
	}
	bool spaced = cur_lit(c, " ");
	const char *u = c->p;
	while (!cur_at_end(c) && *c->p != '/')
		c->p++;
	size_t ulen = (size_t)(c->p - u);
	if (!cur_lit(c, "/s") || !cur_at_end(c))
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
	struct claim_cur c = {l->s, l->s + l->len};
	const char *w;
	size_t wl;
	bool glued = false;
	s->tool = CLAIM_TOOL_DD;
	s->seconds = s->rate = -1;
	if (!cur_u64(&c, &s->bytes) || !cur_lit(&c, " ") || !cur_word(&c, &w, &wl) ||
	    !cur_lit(&c, " "))
		return false;
	if (!cur_at_end(&c) && *c.p == '(' && (!skip_parens(&c, &glued) || !cur_lit(&c, " ")))
		return false;
	if (!cur_word(&c, &w, &wl))
		return false;
	if (cur_at_end(&c))
		return true; /* "N bytes (…) copied" without timing */
	if (!cur_lit(&c, ", ") || !cur_decimal(&c, true, &s->seconds) || !cur_lit(&c, " ") ||
	    !cur_word(&c, &w, &wl) || !cur_lit(&c, ", "))
		return false;
	if (!parse_rate(&c, s))
		return false;
	if (glued && s->tool != CLAIM_TOOL_DD_BUSYBOX)
		return false;
	return true;
}

static bool parse_bsd_summary(const struct claim_line *l, struct dd_summary *s)
{
	struct claim_cur c = {l->s, l->s + l->len};
	uint64_t rate;
	s->tool = CLAIM_TOOL_DD_BSD;
	if (!cur_u64(&c, &s->bytes) || !cur_lit(&c, " bytes transferred in ") ||
	    !cur_decimal(&c, false, &s->seconds) || !cur_lit(&c, " secs (") ||
	    !cur_u64(&c, &rate) || !cur_lit(&c, " bytes/sec)"))
		return false;
	cur_skip_spaces(&c);
	s->rate = (double)rate;
	return cur_at_end(&c);
}

static bool parse_summary(const struct claim_line *l, struct dd_summary *s)
{
	return parse_bsd_summary(l, s) || parse_gnu_summary(l, s);
}

/* "N+M words": 1 parsed, 0 not a records line, -1 garbled. */
static int parse_records(const struct claim_line *l, uint64_t *full, uint64_t *part)
{
	struct claim_cur c = {l->s, l->s + l->len};
	const char *p = l->s;
	while (p < c.end && is_digit(*p))
		p++;
	if (p == l->s || p >= c.end || *p != '+')
		return 0;
	if (!cur_u64(&c, full) || !cur_lit(&c, "+") || !cur_u64(&c, part) || !cur_lit(&c, " ") ||
	    cur_at_end(&c))
		return -1;
	return 1;
}

struct dd_state {
	int records_seen; /* 0, 1 (in), 2 (out) */
	bool have_summary;
	unsigned summary_line;
	struct dd_summary sum;
};

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
		if (st->have_summary)
			return claim_fail(src, l->no,
			                  "a second dd run starts here; expected one run "
			                  "per file");
		if (st->records_seen == 2)
			return claim_fail(src, l->no,
			                  "third records line; expected records in, "
			                  "records out, then the bytes summary");
		uint64_t *dst =
		    st->records_seen ? &out->u.dd.records_out_full : &out->u.dd.records_in_full;
		dst[0] = full;
		dst[1] = part;
		st->records_seen++;
		return 0;
	}
	struct dd_summary s;
	if (st->records_seen < 2 || st->have_summary) {
		/* before the records lines a summary form is a status=progress update */
		if (st->records_seen == 0 && !st->have_summary && parse_summary(l, &s)) {
			out->u.dd.progress_lines++;
			out->u.dd.progress_last_bytes = s.bytes;
		}
		return 0;
	}
	if (l->len == 0 || !is_digit(l->s[0]))
		return 0; /* "dd: …" diagnostics between records and summary */
	if (parse_summary(l, &s)) {
		st->sum = s;
		st->have_summary = true;
		st->summary_line = l->no;
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
	if (!st.have_summary) {
		if (st.records_seen == 2)
			return claim_fail(src, 0,
			                  "records lines but no \"N bytes ... copied\" "
			                  "summary (status=noxfer, or a busybox built "
			                  "without its third status line?)");
		return claim_fail(src, 0,
		                  "truncated dd output: expected \"N+M records in\", "
		                  "\"N+M records out\" and \"N bytes ... copied, S s, R MB/s\"");
	}
	out->tool = st.sum.tool;
	out->directions = CLAIM_DIR_READ | CLAIM_DIR_WRITE;
	out->bytes = out->written_bytes = out->read_bytes = st.sum.bytes;
	out->seconds = st.sum.seconds;
	out->rate_bytes_per_s = st.sum.rate;
	return 0;
}
