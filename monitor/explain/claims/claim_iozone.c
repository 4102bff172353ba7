/* claim_iozone.c - iozone's default table, or else its -R report sections.
 *
 * The table header names the columns "KB reclen write rewrite read reread read write
 * read rewrite read fwrite frewrite fread freread" (the second "read"/"write" pair is
 * random read/write, labelled on the line above). With -i, tests not run print blanks
 * of their width, so a figure belongs to the header label whose right edge it ends
 * nearest to (iozone right-aligns both), never to the n-th token of its line.
 * The -R report: a quoted section name ("Writer report"), a line of quoted record sizes
 * (KiB), rows of a quoted file size (KiB) and one figure per record size.
 * Figures are KiB/s; -O (ops/s) and -N (us/op) output (said in iozone's banner, before
 * the table) is refused. When figures in the table run together (wider than their
 * columns), the -R report is read instead. One output is one table with the -R report
 * iozone prints after it (or the report alone): one result, each row's tests its runs
 * (claim_runs.c), in the order iozone runs them. Rows have no fixed cap (`iozone -a`).
 */
#include "explain/claims/claim_lex.h"

#include <string.h>
#include <strings.h>

#include <stdlib.h>

#include "core/arrays.h"

#define IOZONE_MAX_COLS 24
#define IOZONE_MAX_KIB  (1ull << 40)
#define IOZONE_SLACK    3 /* columns a figure may end off its label's right edge */

static const char *const canon[] = {"kb",     "reclen", "write",    "rewrite", "read",
                                    "reread", "read",   "write",    "read",    "rewrite",
                                    "read",   "fwrite", "frewrite", "fread",   "freread"};
#define NCANON (sizeof(canon) / sizeof(canon[0]))

struct tokens {
	unsigned n;
	const char *s[IOZONE_MAX_COLS];
	size_t len[IOZONE_MAX_COLS];
	size_t end[IOZONE_MAX_COLS]; /* column just past the token */
	bool overflow;
};

static void tokenize(const struct claim_line *l, struct tokens *t)
{
	t->n = 0;
	t->overflow = false;
	size_t i = 0, start;
	while (claim_next_word(l, &i, &start)) {
		if (t->n == IOZONE_MAX_COLS) {
			t->overflow = true;
			return;
		}
		t->s[t->n] = l->s + start;
		t->len[t->n] = i - start;
		t->end[t->n] = i;
		t->n++;
	}
}

static bool tok_u64(const struct tokens *t, unsigned i, bool quoted, uint64_t *v)
{
	const char *s = t->s[i];
	size_t len = t->len[i];
	if (quoted) {
		if (len < 3 || s[0] != '"' || s[len - 1] != '"')
			return false;
		s++;
		len -= 2;
	}
	struct text_cur c = {s, s + len};
	return text_u64(&c, v) && text_at_end(&c);
}

static struct claim_iozone_row *row_for(struct claim_iozone *z, uint64_t file_kib, uint64_t rec_kib)
{
	for (size_t i = 0; i < z->nrows; i++)
		if (z->rows[i].file_kib == file_kib && z->rows[i].record_kib == rec_kib)
			return &z->rows[i];
	struct claim_iozone_row row = {.file_kib = file_kib, .record_kib = rec_kib};
	for (int k = 0; k < CLAIM_IOZONE_NTESTS; k++)
		row.kib_per_s[k] = -1;
	if (arrays_append((void **)&z->rows, &z->nrows, &row, sizeof(row)))
		return NULL;
	return &z->rows[z->nrows - 1];
}

/* --- default table ------------------------------------------------------------------ */

static bool is_header(const struct tokens *t)
{
	return t->n >= 3 && t->len[0] == 2 && strncasecmp(t->s[0], "kb", 2) == 0 &&
	       t->len[1] == 6 && memcmp(t->s[1], "reclen", 6) == 0;
}

static int check_header(const struct claim_src *src, const struct claim_line *l,
                        const struct tokens *h)
{
	if (h->overflow || h->n > NCANON)
		return claim_fail(src, l->no, "iozone header has more columns than the %zu known",
		                  NCANON);
	for (unsigned i = 2; i < h->n; i++)
		if (h->len[i] != strlen(canon[i]) || memcmp(h->s[i], canon[i], h->len[i]) != 0)
			return claim_fail(
			    src, l->no, "iozone column %u is \"%.*s\"; expected \"%s\"", i + 1,
			    (int)(h->len[i] < 16 ? h->len[i] : 16), h->s[i], canon[i]);
	return 0;
}

static int nearest_col(const struct tokens *h, size_t end)
{
	int best = -1;
	size_t bestd = IOZONE_SLACK + 1;
	for (unsigned i = 0; i < h->n; i++) {
		size_t d = h->end[i] > end ? h->end[i] - end : end - h->end[i];
		if (d < bestd) {
			bestd = d;
			best = (int)i;
		}
	}
	return best;
}

static int table_row(const struct claim_src *src, const struct claim_line *l,
                     const struct tokens *h, const struct tokens *t, struct claim_iozone *z)
{
	uint64_t v[IOZONE_MAX_COLS];
	int col[IOZONE_MAX_COLS] = {0};
	bool used[IOZONE_MAX_COLS] = {false};
	for (unsigned i = 0; i < t->n; i++) {
		col[i] = nearest_col(h, t->end[i]);
		/* a figure wider than its column runs into its left neighbour: "93922312310336"
		 * is 939223 and 12310336 (iozone -a on fast storage); no position can split it */
		if (col[i] > 0 && t->end[i] - t->len[i] < h->end[col[i] - 1])
			return 1;
		if (!tok_u64(t, i, false, &v[i]))
			return claim_fail(src, l->no,
			                  "iozone figure \"%.*s\" is not a whole number",
			                  (int)(t->len[i] < 24 ? t->len[i] : 24), t->s[i]);
		if (col[i] < 0 || used[col[i]])
			return claim_fail(src, l->no,
			                  "iozone figure %u ends at column %zu, under no "
			                  "header label",
			                  i + 1, t->end[i]);
		used[col[i]] = true;
	}
	if (t->n < 2 || col[0] != 0 || col[1] != 1)
		return claim_fail(src, l->no, "iozone row does not start with KB and reclen");
	if (v[0] > IOZONE_MAX_KIB || v[1] > IOZONE_MAX_KIB)
		return claim_fail(src, l->no, "iozone file or record size out of range");
	size_t rows_before = z->nrows;
	struct claim_iozone_row *r = row_for(z, v[0], v[1]);
	if (!r)
		return claim_no_memory(src);
	/* iozone prints each file and record size once: a second row is a table pasted
	 * twice, and which one holds is unknown */
	if (z->nrows == rows_before)
		return claim_fail(src, l->no,
		                  "iozone row of file %llu KiB, record %llu KiB twice; expected "
		                  "each row once",
		                  (unsigned long long)v[0], (unsigned long long)v[1]);
	for (unsigned i = 2; i < t->n; i++)
		if (col[i] - 2 < CLAIM_IOZONE_NTESTS)
			r->kib_per_s[col[i] - 2] = (double)v[i];
	return 0;
}

/* 1: a table was read, 0: none in the file, 2: figures run together (at *glued_line),
 * -1: error */
static int parse_table(const struct claim_src *src, struct claim_iozone *z, unsigned *glued_line)
{
	size_t pos = 0;
	unsigned no = src->first_line;
	struct claim_line l;
	struct tokens h = {0}, t;
	bool in_table = false, seen = false;
	while (claim_next_line(src, &pos, &no, false, &l)) {
		tokenize(&l, &t);
		if (is_header(&t)) {
			if (check_header(src, &l, &t) != 0)
				return -1;
			h = t;
			in_table = seen = true;
			continue;
		}
		if (!in_table)
			continue;
		if (t.n == 0 || !(t.s[0][0] >= '0' && t.s[0][0] <= '9')) {
			in_table = false; /* blank line, "iozone test complete." */
			continue;
		}
		if (t.overflow)
			return claim_fail(src, l.no, "iozone row with more than %d figures",
			                  IOZONE_MAX_COLS);
		/* iozone ends every row with '\n': without one a figure may be cut short */
		if (l.s + l.len == src->buf + src->len)
			return claim_fail(src, l.no, "truncated iozone row (no end of line)");
		int rc = table_row(src, &l, &h, &t, z);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			*glued_line = l.no;
			return 2;
		}
	}
	return seen ? 1 : 0;
}

/* --- -R report ---------------------------------------------------------------------- */

static int section_test(const struct claim_line *l)
{
	static const char *const names[CLAIM_IOZONE_NTESTS] = {
	    "\"Writer report\"",    "\"Re-writer report\"",   "\"Reader report\"",
	    "\"Re-Reader report\"", "\"Random read report\"", "\"Random write report\""};
	size_t len = l->len;
	while (len && (l->s[len - 1] == ' ' || l->s[len - 1] == '\r'))
		len--;
	for (int i = 0; i < CLAIM_IOZONE_NTESTS; i++)
		if (len == strlen(names[i]) && memcmp(l->s, names[i], len) == 0)
			return i;
	if (len > 8 && l->s[0] == '"' && memcmp(l->s + len - 8, " report\"", 8) == 0)
		return CLAIM_IOZONE_NTESTS; /* a section we do not use */
	return -1;
}

/* Which record sizes a short row covers: all that fit in the file (-a stops at the file
 * size), or those from 64 KiB up (-a without -z skips small records on large files). */
static int row_first_rec(const uint64_t *recs, unsigned nrec, uint64_t file_kib, unsigned n)
{
	unsigned fit = 0, from = nrec, big = 0;
	for (unsigned i = 0; i < nrec; i++)
		if (recs[i] <= file_kib) {
			fit++;
			if (recs[i] >= 64) {
				big++;
				if (from == nrec)
					from = i;
			}
		}
	if (n == nrec || n == fit)
		return 0;
	if (n == big)
		return (int)from;
	return -1;
}

static int report_row(const struct claim_src *src, const struct claim_line *l,
                      const struct tokens *t, const uint64_t *recs, unsigned nrec, int test,
                      struct claim_iozone *z)
{
	uint64_t file_kib, v;
	if (!tok_u64(t, 0, true, &file_kib) || file_kib > IOZONE_MAX_KIB)
		return claim_fail(src, l->no, "iozone report row; expected a quoted file size");
	int first = row_first_rec(recs, nrec, file_kib, t->n - 1);
	if (first < 0)
		return claim_fail(src, l->no,
		                  "iozone report row has %u figures for %u record sizes", t->n - 1,
		                  nrec);
	for (unsigned i = 1; i < t->n; i++) {
		if (!tok_u64(t, i, false, &v))
			return claim_fail(src, l->no,
			                  "iozone report figure \"%.*s\" is not a whole "
			                  "number",
			                  (int)(t->len[i] < 24 ? t->len[i] : 24), t->s[i]);
		if (test == CLAIM_IOZONE_NTESTS)
			continue;
		struct claim_iozone_row *r = row_for(z, file_kib, recs[(unsigned)first + i - 1]);
		if (!r)
			return claim_no_memory(src);
		/* iozone prints each figure once: a second is a pasted section twice, and
		 * which one holds is unknown */
		if (r->kib_per_s[test] >= 0)
			return claim_fail(
			    src, l->no,
			    "iozone report gives file %llu KiB, record %llu KiB twice; "
			    "expected each report section once",
			    (unsigned long long)r->file_kib, (unsigned long long)r->record_kib);
		r->kib_per_s[test] = (double)v;
	}
	return 0;
}

static int parse_report(const struct claim_src *src, struct claim_iozone *z)
{
	size_t pos = 0;
	unsigned no = src->first_line;
	struct claim_line l;
	struct tokens t;
	uint64_t recs[IOZONE_MAX_COLS];
	unsigned nrec = 0;
	int test = -1; /* section being read; nrec == 0 until its record-size line */
	while (claim_next_line(src, &pos, &no, false, &l)) {
		int s = section_test(&l);
		tokenize(&l, &t);
		if (s >= 0) {
			test = s;
			nrec = 0;
			continue;
		}
		if (test < 0 || t.n == 0)
			continue;
		if (t.overflow)
			return claim_fail(src, l.no, "iozone report line with more than %d fields",
			                  IOZONE_MAX_COLS);
		if (nrec == 0) {
			for (unsigned i = 0; i < t.n; i++)
				if (!tok_u64(&t, i, true, &recs[i]))
					return claim_fail(src, l.no,
					                  "iozone report; expected the quoted "
					                  "record sizes");
			nrec = t.n;
			continue;
		}
		if (l.s + l.len == src->buf + src->len)
			return claim_fail(src, l.no,
			                  "truncated iozone report row (no end of line)");
		if (report_row(src, &l, &t, recs, nrec, test, z) != 0)
			return -1;
	}
	return 0;
}

/* The table's rows, or the report's when the table's figures run together. 0, or -1 with
 * z's rows freed. */
static int read_figures(const struct claim_src *src, struct claim_iozone *z)
{
	unsigned glued = 0;
	int rc = parse_table(src, z, &glued);
	if (rc >= 0 && rc != 1) {
		free(z->rows);
		*z = (struct claim_iozone){.from_report = true};
		rc = parse_report(src, z);
		if (rc == 0 && glued && z->nrows == 0)
			rc = claim_fail(src, glued,
			                "iozone figures run together (wider than their columns) "
			                "and no -R report follows; expected separable figures or "
			                "the -R \"Writer report\" sections");
	}
	if (rc >= 0 && z->nrows == 0)
		rc = claim_fail(src, src->first_line,
		                "no iozone figures; expected the \"KB reclen write ...\" "
		                "table or the -R \"Writer report\" section");
	if (rc < 0) {
		free(z->rows);
		z->rows = NULL;
		return -1;
	}
	return 0;
}

int claim_parse_iozone(const struct claim_src *src, struct claim_build *b)
{
	struct claim_iozone z = {0};
	if (b->ctx.not_kib_per_s)
		return claim_fail(src, src->first_line,
		                  "iozone output in ops/s or us/op (-O, -N, said in its banner); "
		                  "expected kBytes/sec");
	if (read_figures(src, &z))
		return -1;
	unsigned last = src->first_line;
	size_t pos = 0;
	unsigned no = src->first_line;
	struct claim_line l;
	while (claim_next_line(src, &pos, &no, false, &l))
		last = l.no;
	struct claim_result *r = claim_new_result(b, src, CLAIM_TOOL_IOZONE, src->first_line, last);
	if (!r) {
		free(z.rows);
		return -1;
	}
	r->u.iozone = z;
	if (r->said.queue_depth.from == CLAIM_FROM_NONE)
		claim_say(&r->said.queue_depth, CLAIM_FROM_TOOL, 1); /* without -H: one at a time */
	return claim_add_iozone_runs(src, r);
}

/* --- where an output is ------------------------------------------------------------- */

static bool blank_line(const struct claim_line *l)
{
	for (size_t i = 0; i < l->len; i++)
		if (l->s[i] != ' ' && l->s[i] != '\t' && l->s[i] != '\r')
			return false;
	return true;
}

static bool starts_with_digit(const struct tokens *t)
{
	return t->n && t->s[0][0] >= '0' && t->s[0][0] <= '9';
}

/* What iozone prints between its table and its report. */
static bool trailer(const struct claim_line *l)
{
	struct text_cur c = {l->s, l->s + l->len};
	text_skip_blanks(&c);
	return text_lit(&c, "iozone test complete.") || text_lit(&c, "Excel output is below:");
}

/* The -R report's lines from *pos: its sections, their record sizes and rows (blank lines
 * between them). The extent ends at the last of them. */
static void report_lines(const struct claim_src *file, size_t pos, unsigned no,
                         struct claim_extent *out)
{
	struct claim_line l;
	struct tokens t;
	bool in_section = false;
	while (claim_next_line(file, &pos, &no, false, &l)) {
		tokenize(&l, &t);
		bool quoted = t.n && t.s[0][0] == '"';
		if (section_test(&l) >= 0)
			in_section = true;
		else if (blank_line(&l))
			continue;
		else if (!in_section || !quoted)
			return;
		out->end = pos;
		out->last_line = l.no;
	}
}

int claim_find_iozone(const struct claim_src *file, size_t pos, unsigned lineno,
                      struct claim_extent *out)
{
	struct claim_line l;
	struct tokens t;
	out->start = pos;
	if (!claim_next_line(file, &pos, &lineno, false, &l))
		return 0;
	out->first_line = out->last_line = l.no;
	out->end = pos;
	if (section_test(&l) >= 0) { /* the -R report alone */
		report_lines(file, out->start, l.no, out);
		return 1;
	}
	tokenize(&l, &t);
	if (!is_header(&t))
		return 0;
	if (check_header(file, &l, &t) != 0)
		return -1;
	size_t at = pos;
	unsigned at_no = lineno;
	while (claim_next_line(file, &at, &at_no, false, &l)) {
		tokenize(&l, &t);
		if (!starts_with_digit(&t))
			break;
		out->end = at;
		out->last_line = l.no;
	}
	/* its -R report, after "iozone test complete." and "Excel output is below:" */
	at = out->end;
	at_no = out->last_line + 1;
	for (size_t before = at; claim_next_line(file, &at, &at_no, false, &l); before = at) {
		if (section_test(&l) >= 0) {
			report_lines(file, before, l.no, out);
			break;
		}
		if (!blank_line(&l) && !trailer(&l))
			break;
	}
	return 1;
}

/* iozone's figures are whole numbers: a cut one looks whole. */
bool claim_whole_iozone(const struct claim_src *src, const struct claim_line *last)
{
	(void)src;
	(void)last;
	return false;
}
