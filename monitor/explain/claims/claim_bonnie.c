/* claim_bonnie.c - bonnie++ CSV lines, read by position.
 *
 * Format 1.96/1.97 (bonnie++ 1.96, 1.97): 48 fields, file size at 5, then K/sec and
 * %CPU pairs from 7: putc, block write, rewrite, getc, block read, seeks. Format 1.98
 * (bonnie++ 1.98 .. 2.00a) inserts "seeks" and "seek_proc_count" after the chunk size:
 * 50 fields, the pairs start at 9. The header line bonnie++ -q prints still lists the
 * 1.96 names (two columns short), so it is skipped, never used to find a column.
 * "+++++" is a test too fast to measure; an empty field a test not run (-f).
 * Each data line's phases are runs (claim_runs.c), its machine name their row label.
 */
#include "explain/claims/claim_lex.h"

#include <string.h>

#define BONNIE_MAX_FIELDS 64

struct csv_fields {
	const char *s[BONNIE_MAX_FIELDS];
	size_t len[BONNIE_MAX_FIELDS];
	unsigned n;
};

static bool split_csv(const struct claim_line *l, struct csv_fields *f)
{
	const char *p = l->s, *end = l->s + l->len;
	if (end > p && end[-1] == '\r')
		end--;
	f->n = 0;
	for (;;) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		if (f->n == BONNIE_MAX_FIELDS)
			return false;
		f->s[f->n] = p;
		f->len[f->n] = (size_t)((q ? q : end) - p);
		f->n++;
		if (!q)
			return true;
		p = q + 1;
	}
}

static void field_copy(const struct csv_fields *f, unsigned i, char *out, size_t outlen)
{
	size_t n = f->len[i] < outlen - 1 ? f->len[i] : outlen - 1;
	memcpy(out, f->s[i], n);
	out[n] = '\0';
}

/* "2G", "256M", "512K": bytes (bonnie++ sizes are 1024-based). */
static bool parse_size(const char *s, size_t len, uint64_t *out)
{
	struct text_cur c = {s, s + len};
	uint64_t v;
	if (!text_u64(&c, &v) || (size_t)(c.end - c.p) != 1)
		return false;
	const char *units = "KMGT";
	const char *u = strchr(units, *c.p == 'k' || *c.p == 'm' || *c.p == 'g' ? *c.p - 32 : *c.p);
	if (!u || !*u)
		return false;
	for (int i = 0; i <= u - units; i++) {
		if (v > UINT64_MAX / 1024)
			return false;
		v *= 1024;
	}
	if (v > UINT64_MAX / 4)
		return false; /* keeps written/read totals (at most 2x) from wrapping */
	*out = v;
	return true;
}

/* 1 value, 0 empty (not run), 2 "+++++", -1 garbled */
static int parse_rate(const char *s, size_t len, double *out)
{
	struct text_cur c = {s, s + len};
	*out = -1;
	if (len == 0)
		return 0;
	if (len == 5 && memcmp(s, "+++++", 5) == 0)
		return 2;
	double v;
	if (!text_decimal(&c, false, &v) || !text_at_end(&c))
		return -1;
	*out = v * 1024;
	return 1;
}

static int parse_row(const struct claim_src *src, const struct claim_line *l,
                     const struct csv_fields *f, struct claim_bonnie *b)
{
	bool v198 = f->len[0] == 4 && memcmp(f->s[0], "1.98", 4) == 0;
	bool v196 =
	    f->len[0] == 4 && (memcmp(f->s[0], "1.96", 4) == 0 || memcmp(f->s[0], "1.97", 4) == 0);
	if (!v196 && !v198)
		return claim_fail(src, l->no,
		                  "bonnie++ CSV format %.*s; expected 1.96, 1.97 or 1.98",
		                  (int)(f->len[0] < 8 ? f->len[0] : 8), f->s[0]);
	unsigned want = v198 ? 50 : 48;
	if (f->n != want)
		return claim_fail(src, l->no,
		                  "bonnie++ CSV line has %u fields; expected %u for "
		                  "format %.4s (truncated?)",
		                  f->n, want, f->s[0]);
	field_copy(f, 0, b->format_version, sizeof(b->format_version));
	field_copy(f, 1, b->version, sizeof(b->version));
	field_copy(f, 2, b->machine, sizeof(b->machine));
	if (!parse_size(f->s[5], f->len[5], &b->file_size_bytes))
		return claim_fail(src, l->no,
		                  "bonnie++ file size field \"%.*s\"; expected e.g. "
		                  "\"2G\" or \"256M\"",
		                  (int)(f->len[5] < 20 ? f->len[5] : 20), f->s[5]);
	unsigned first = v198 ? 9 : 7;
	static const char *names[] = {"putc", "block write", "rewrite", "getc", "block read"};
	for (unsigned t = 0; t < CLAIM_BONNIE_NTESTS; t++) {
		unsigned i = first + 2 * t;
		int r = parse_rate(f->s[i], f->len[i], &b->rate_bytes_per_s[t]);
		if (r < 0)
			return claim_fail(src, l->no,
			                  "bonnie++ %s field \"%.*s\" (column %u); expected "
			                  "K/sec, \"+++++\" or empty",
			                  names[t], (int)(f->len[i] < 20 ? f->len[i] : 20), f->s[i],
			                  i + 1);
		b->too_fast[t] = r == 2;
	}
	return 0;
}

static bool ran(const struct claim_bonnie *b, enum claim_bonnie_test t)
{
	return b->rate_bytes_per_s[t] >= 0 || b->too_fast[t];
}

void claim_bonnie_headline(struct claim *out)
{
	struct claim_bonnie *b = &out->u.bonnie;
	uint64_t size = b->file_size_bytes;
	if (ran(b, CLAIM_BONNIE_BLOCK_WRITE) || ran(b, CLAIM_BONNIE_REWRITE))
		out->directions |= CLAIM_DIR_WRITE;
	if (ran(b, CLAIM_BONNIE_BLOCK_READ) || ran(b, CLAIM_BONNIE_REWRITE))
		out->directions |= CLAIM_DIR_READ;
	/* per-char tests use their own size (-f), so only block tests count in totals */
	out->written_bytes =
	    size * (ran(b, CLAIM_BONNIE_BLOCK_WRITE) + ran(b, CLAIM_BONNIE_REWRITE));
	out->read_bytes = size * (ran(b, CLAIM_BONNIE_BLOCK_READ) + ran(b, CLAIM_BONNIE_REWRITE));
	out->bytes = size;
	out->seconds = out->rate_bytes_per_s = -1;
	enum claim_bonnie_test t = b->rate_bytes_per_s[CLAIM_BONNIE_BLOCK_WRITE] > 0
	                               ? CLAIM_BONNIE_BLOCK_WRITE
	                               : CLAIM_BONNIE_BLOCK_READ;
	if (b->rate_bytes_per_s[t] > 0) {
		out->rate_bytes_per_s = b->rate_bytes_per_s[t];
		out->seconds = (double)size / out->rate_bytes_per_s;
	}
}

int claim_parse_bonnie(const struct claim_src *src, struct claim *out)
{
	size_t pos = 0;
	unsigned no = 1;
	struct claim_line l;
	struct csv_fields f;
	out->tool = CLAIM_TOOL_BONNIE;
	while (claim_next_line(src, &pos, &no, false, &l)) {
		if (l.len < 5 || memcmp(l.s, "1.9", 3) != 0 || l.s[4] != ',')
			continue; /* header line, the text table, shell prompts */
		if (!split_csv(&l, &f))
			return claim_fail(src, l.no, "bonnie++ CSV line has more than %d fields",
			                  BONNIE_MAX_FIELDS);
		struct claim_bonnie row = {0};
		if (parse_row(src, &l, &f, &row) != 0)
			return -1;
		claim_take_bonnie_row(out, &row, false);
	}
	if (out->u.bonnie.runs == 0)
		return claim_fail(
		    src, 0,
		    "no bonnie++ CSV data line; expected a line starting "
		    "\"1.96,\", \"1.97,\" or \"1.98,\" (the text table alone, or classic "
		    "bonnie, is not read)");
	claim_bonnie_headline(out);
	return 0;
}
