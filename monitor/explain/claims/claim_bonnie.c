/* claim_bonnie.c - bonnie++ CSV lines, read by position.
 *
 * Format 1.96/1.97 (bonnie++ 1.96, 1.97): 48 fields, file size at 5, then K/sec and
 * %CPU pairs from 7: putc, block write, rewrite, getc, block read, seeks. Format 1.98
 * (bonnie++ 1.98 .. 2.00a) inserts "seeks" and "seek_proc_count" after the chunk size:
 * 50 fields, the pairs start at 9. The header line bonnie++ -q prints still lists the
 * 1.96 names (two columns short), so it is skipped, never used to find a column.
 * "+++++" is a test too fast to measure; an empty field a test not run (-f).
 * Each data line is a result (bonnie++ -x N prints N), its phases runs (claim_runs.c), its
 * machine name their row label. The text table bonnie++ prints before it is the same run
 * (claim_bonnie_table.c): a line whose machine begins with the table row's name, of the
 * same size and block figures, completes that row's result instead of adding one.
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

bool claim_bonnie_size(const char *s, size_t len, uint64_t *out)
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
	uint64_t v;
	struct text_cur c = {f->s[3], f->s[3] + f->len[3]};
	b->concurrency = text_u64(&c, &v) && text_at_end(&c) && v < 100000 ? (unsigned)v : 0;
	c = (struct text_cur){f->s[4], f->s[4] + f->len[4]};
	b->seed = text_u64(&c, &v) && text_at_end(&c) && v < (1ull << 62) ? (int64_t)v : -1;
	c = (struct text_cur){f->s[6], f->s[6] + f->len[6]};
	b->chunk_bytes = text_u64(&c, &v) && text_at_end(&c) && v < (1ull << 40) ? v : 0;
	if (!claim_bonnie_size(f->s[5], f->len[5], &b->file_size_bytes))
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

/* A table row of the same run: its machine a prefix of the line's (the table cuts it to
 * its column), the same file size, and the same block figures (bonnie++ 1.9x prints the
 * same integers in both). */
static bool same_run(const struct claim_bonnie *row, const struct claim_bonnie *csv)
{
	size_t n = strlen(row->machine);
	if (!n || strncmp(row->machine, csv->machine, n) ||
	    row->file_size_bytes != csv->file_size_bytes)
		return false;
	for (int t = 0; t < CLAIM_BONNIE_NTESTS; t++)
		if (row->too_fast[t] != csv->too_fast[t] ||
		    row->rate_bytes_per_s[t] != csv->rate_bytes_per_s[t])
			return false;
	return true;
}

/* The table row result this line completes, if any: the latest not completed yet. */
static struct claim_result *table_row_of(struct claim_post *p, const struct claim_bonnie *csv)
{
	for (size_t i = p->nresults; i-- > 0;) {
		struct claim_result *r = &p->results[i];
		if (r->tool == CLAIM_TOOL_BONNIE && !r->u.bonnie.csv_line &&
		    r->u.bonnie.table_line && same_run(&r->u.bonnie, csv))
			return r;
	}
	return NULL;
}

/* A bonnie++ 2 table row (rounded figures, not read) this line completes: its line, or
 * 0. */
static unsigned pending_row_of(struct claim_build *b, const struct claim_bonnie *csv)
{
	for (size_t i = 0; i < b->npending; i++) {
		struct claim_pending_row *p = &b->pending[i];
		size_t n = strlen(p->machine);
		if (!p->completed && n && !strncmp(p->machine, csv->machine, n) &&
		    p->size == csv->file_size_bytes) {
			p->completed = true;
			return p->line;
		}
	}
	return 0;
}

int claim_parse_bonnie_csv(const struct claim_src *src, struct claim_build *b)
{
	size_t pos = 0;
	unsigned no = src->first_line;
	struct claim_line l;
	struct csv_fields f;
	if (!claim_next_line(src, &pos, &no, false, &l))
		return 0;
	if (!split_csv(&l, &f))
		return claim_fail(src, l.no, "bonnie++ CSV line has more than %d fields",
		                  BONNIE_MAX_FIELDS);
	struct claim_bonnie row = {.seed = -1, .csv_line = l.no};
	if (parse_row(src, &l, &f, &row) != 0)
		return -1;
	struct claim_result *r = table_row_of(b->post, &row);
	if (r) { /* the table's row and this line: one run */
		row.table_line = r->u.bonnie.table_line;
		r->last_line = l.no;
	} else {
		row.table_line = pending_row_of(b, &row);
		r = claim_new_result(b, src, CLAIM_TOOL_BONNIE,
		                     row.table_line ? row.table_line : l.no, l.no);
		if (!r)
			return -1;
	}
	r->u.bonnie = row;
	if (row.seed >= 0) {
		r->clock.kind = CLAIM_CLOCK_SEED;
		r->clock.unix_ms = row.seed * 1000;
	}
	return claim_bonnie_result(src, r, false);
}

int claim_find_bonnie_csv(const struct claim_src *file, size_t pos, unsigned lineno,
                          struct claim_extent *out)
{
	struct claim_line l;
	out->start = pos;
	if (!claim_next_line(file, &pos, &lineno, false, &l))
		return 0;
	if (l.len < 5 || memcmp(l.s, "1.9", 3) != 0 || l.s[4] != ',')
		return 0;
	out->end = pos;
	out->first_line = out->last_line = l.no;
	return 1;
}

/* Its field count was checked: a cut in its last field (a latency) leaves the figures
 * read whole. */
bool claim_whole_bonnie_csv(const struct claim_src *src, const struct claim_line *last)
{
	(void)src;
	(void)last;
	return true;
}
