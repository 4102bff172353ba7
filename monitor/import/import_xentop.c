/* import_xentop.c - `xentop -b` text into blocks of domains; see import_xentop.h. */
#include "import/import_xentop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrays.h"

enum xt_col { C_NAME, C_STATE, C_CPU, C_MEM, C_VBDS, C_OO, C_RD, C_WR, C_RSECT, C_WSECT, C_N };
static const char *const col_names[C_N] = {"NAME",      "STATE",    "CPU(sec)", "MEM(k)",
                                           "VBDS",      "VBD_OO",   "VBD_RD",   "VBD_WR",
                                           "VBD_RSECT", "VBD_WSECT"};

struct xt_parser {
	struct imp_log log; /* first: imp_parse_log hands it to take and finish */
	struct imp_xentop *out;
	char header[IMP_LINE_MAX]; /* the first header's words, joined */
	int n_cols;
	int col[C_N]; /* word index, -1 absent */
	size_t cap;
	unsigned group;     /* headers seen */
	unsigned *group_of; /* per row */
};

/* imp_log's drop: what a failed parse built, freed. After take stopped, finish never ran
 * and group_of is still held; after finish or the end checks failed it is NULL (freed). */
static void drop_result(void *parser)
{
	struct xt_parser *p = parser;
	free(p->group_of);
	p->group_of = NULL;
	imp_xentop_free(p->out);
}

static int grow_rows(struct xt_parser *p)
{
	struct imp_xentop *x = p->out;
	if (x->n_rows < p->cap)
		return 0;
	size_t cap = p->cap ? p->cap * 2 : 64;
	struct imp_xt_dom *rows = realloc(x->rows, cap * sizeof(*rows));
	if (!rows)
		return -1;
	x->rows = rows;
	unsigned *groups = realloc(p->group_of, cap * sizeof(*groups));
	if (!groups)
		return -1;
	p->group_of = groups;
	p->cap = cap;
	return 0;
}

static void joined(const struct imp_words *w, int from, int to, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (int i = from; i < to && used + 1 < len; i++) {
		int n = snprintf(out + used, len - used, "%s%s", i > from ? " " : "", w->w[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int take_header(struct xt_parser *p, const struct imp_words *w, unsigned line)
{
	char text[IMP_LINE_MAX];
	joined(w, 0, w->n, text, sizeof(text));
	p->group++;
	if (p->log.header_line) {
		if (strcmp(text, p->header))
			return imp_log_fail(&p->log, line,
			                    "the same xentop header as line %u expected",
			                    p->log.header_line),
			       -1;
		return 0;
	}
	snprintf(p->header, sizeof(p->header), "%s", text);
	p->log.header_line = line;
	p->n_cols = w->n;
	for (int c = 0; c < C_N; c++)
		p->col[c] = imp_find_word(w, col_names[c], 0);
	if (p->col[C_NAME] != 0)
		return imp_log_fail(&p->log, line, "a header starting with NAME expected"), -1;
	p->out->has_sect_columns = p->col[C_RSECT] >= 0 && p->col[C_WSECT] >= 0;
	p->out->has_rdwr_columns = p->col[C_RD] >= 0 && p->col[C_WR] >= 0;
	return 0;
}

/* A VBD figure: a number, or "-" (unreadable). false if neither. */
static bool vbd_figure(const char *word, uint64_t *v, bool *known)
{
	if (!strcmp(word, "-")) {
		*known = false;
		*v = 0;
		return true;
	}
	return imp_u64(word, v);
}

static bool valid_state(const char *s)
{
	if (strlen(s) != 6)
		return false;
	for (int i = 0; i < 6; i++)
		if (s[i] != '-' && s[i] != "dsbcpr"[i])
			return false;
	return true;
}

static int fill_row(struct xt_parser *p, const struct imp_words *w, int shift, unsigned line,
                    struct imp_xt_dom *d)
{
	uint64_t *num[C_N] = {[C_CPU] = &d->cpu_s,   [C_MEM] = &d->mem_kb, [C_VBDS] = &d->n_vbds,
	                      [C_OO] = &d->oo,       [C_RD] = &d->rd,      [C_WR] = &d->wr,
	                      [C_RSECT] = &d->rsect, [C_WSECT] = &d->wsect};
	bool rdwr = true, sect = true;
	for (int c = C_CPU; c < C_N; c++) {
		if (p->col[c] < 0)
			continue;
		const char *word = w->w[p->col[c] + shift];
		bool known = true;
		bool ok = c >= C_OO ? vbd_figure(word, num[c], &known) : imp_u64(word, num[c]);
		if (!ok) {
			char q[100];
			imp_quote(word, q, sizeof(q));
			return imp_log_fail(&p->log, line, "a number under %s expected, not \"%s\"",
			                    col_names[c], q),
			       -1;
		}
		if (c == C_RD || c == C_WR)
			rdwr = rdwr && known;
		if (c == C_RSECT || c == C_WSECT)
			sect = sect && known;
	}
	if (p->col[C_STATE] >= 0 && !valid_state(w->w[p->col[C_STATE] + shift]))
		return imp_log_fail(&p->log, line, "a STATE of 6 letters or dashes expected"), -1;
	d->has_mem = p->col[C_MEM] >= 0;
	d->vbd_known = p->out->has_rdwr_columns && rdwr;
	d->sect_known = p->out->has_sect_columns && sect;
	if (d->n_vbds)
		p->out->any_vbds = true;
	return 0;
}

static int take_row(struct xt_parser *p, struct imp_words *w, unsigned line)
{
	/* MAXMEM(k) "no limit" is two words: make it one */
	for (int i = 1; i + 1 < w->n; i++)
		if (!strcmp(w->w[i], "no") && !strcmp(w->w[i + 1], "limit")) {
			memmove(&w->w[i + 1], &w->w[i + 2],
			        (size_t)(w->n - i - 2) * sizeof(char *));
			w->n--;
		}
	if (w->n < p->n_cols)
		return imp_log_fail(&p->log, line,
		                    "%d columns expected as in the header at line %u, found %d",
		                    p->n_cols, p->log.header_line, w->n),
		       -1;
	int shift = w->n - p->n_cols; /* a name with blanks (it comes first) */
	if (grow_rows(p))
		return imp_log_fail(&p->log, line, "out of memory"), -1;
	struct imp_xt_dom *d = &p->out->rows[p->out->n_rows];
	memset(d, 0, sizeof(*d));
	d->line = line;
	joined(w, 0, shift + 1, d->name, sizeof(d->name));
	if (fill_row(p, w, shift, line, d))
		return -1;
	p->group_of[p->out->n_rows++] = p->group;
	return 0;
}

/* The word after label ("OO:"), as a number or "-". */
static int vbd_field(const struct imp_words *w, const char *label, uint64_t *v, bool *known)
{
	int i = imp_find_word(w, label, 3);
	if (i < 0 || i + 1 >= w->n)
		return -1;
	return vbd_figure(w->w[i + 1], v, known) ? 0 : -1;
}

static int take_vbd(struct xt_parser *p, const struct imp_words *w, unsigned line)
{
	struct imp_xentop *x = p->out;
	uint64_t devid;
	if (!x->n_rows)
		return imp_log_fail(&p->log, line, "a domain row before its VBD lines expected"),
		       -1;
	struct imp_xt_vbd v = {0};
	bool known = true, sect_known = true;
	if (w->n < 4 || !imp_u64(w->w[2], &devid) || vbd_field(w, "OO:", &v.oo, &known) ||
	    vbd_field(w, "RD:", &v.rd, &known) || vbd_field(w, "WR:", &v.wr, &known))
		return imp_log_fail(
		           &p->log, line,
		           "a VBD line (VBD TYPE DEVID [maj:min] OO: n RD: n WR: n ...) expected"),
		       -1;
	v.devid = (uint32_t)devid;
	v.has_sect = vbd_field(w, "RSECT:", &v.rsect, &sect_known) == 0 &&
	             vbd_field(w, "WSECT:", &v.wsect, &sect_known) == 0 && sect_known;
	x->has_vbd_lines = true;
	if (w->w[3][0] == '[')
		x->linux_vbd_lines = true;
	if (!known)
		return 0; /* this vbd could not be read: xentop says "-" */
	struct imp_xt_dom *d = &x->rows[x->n_rows - 1];
	if (arrays_append((void **)&d->vbds, &d->n_vbd_lines, &v, sizeof(v)))
		return imp_log_fail(&p->log, line, "out of memory"), -1;
	return 0;
}

/* Lines that belong to the domain above and carry nothing imported: -v and -n. */
static bool detail_line(const char *text, const struct imp_words *w)
{
	if (!w->n)
		return true;
	if (!strcmp(w->w[0], "VCPUs(sec):"))
		return true;
	if (!strncmp(w->w[0], "Net", 3) && w->n > 1 && !strcmp(w->w[1], "RX:"))
		return true;
	/* a VCPUs continuation: indented, "N:" first */
	size_t k = strlen(w->w[0]);
	return (text[0] == ' ' || text[0] == '\t') && k > 1 && w->w[0][k - 1] == ':' &&
	       strspn(w->w[0], "0123456789") == k - 1;
}

static int take_line(void *parser, const struct imp_line *l, struct imp_words *w, unsigned line)
{
	struct xt_parser *p = parser;
	if (w->n >= 3 && !strcmp(w->w[0], "NAME") && imp_find_word(w, "CPU(sec)", 1) > 0)
		return take_header(p, w, line);
	if (detail_line(l->text, w))
		return 0;
	if (!p->log.header_line)
		return imp_log_fail(&p->log, line,
		                    "the xentop -b header (NAME STATE CPU(sec) ...) expected"),
		       -1;
	if (!strcmp(w->w[0], "VBD"))
		return take_vbd(p, w, line);
	return take_row(p, w, line);
}

static int add_block(struct imp_xentop *x, size_t first, size_t n)
{
	struct imp_xt_block b = {.doms = &x->rows[first], .n = n};
	return arrays_append((void **)&x->blocks, &x->n_blocks, &b, sizeof(b));
}

static bool name_in(const struct imp_xt_dom *rows, size_t first, size_t end, const char *name)
{
	for (size_t i = first; i < end; i++)
		if (!strcmp(rows[i].name, name))
			return true;
	return false;
}

/* Iterations from the rows: one per header, or (every header followed by one domain:
 * -r, or a single domain) one that ends where a name repeats. */
static int make_blocks(struct xt_parser *p)
{
	struct imp_xentop *x = p->out;
	bool one_per_header = true;
	for (size_t i = 1; i < x->n_rows; i++)
		if (p->group_of[i] == p->group_of[i - 1])
			one_per_header = false;
	size_t first = 0;
	for (size_t i = 0; i <= x->n_rows; i++) {
		bool end = i == x->n_rows;
		bool split = !end && i > first &&
		             (one_per_header ? name_in(x->rows, first, i, x->rows[i].name)
		                             : p->group_of[i] != p->group_of[first]);
		if (!end && !split) {
			if (!one_per_header && name_in(x->rows, first, i, x->rows[i].name)) {
				char q[100];
				imp_quote(x->rows[i].name, q, sizeof(q));
				return imp_log_fail(
				           &p->log, x->rows[i].line,
				           "one row per domain and iteration expected: \"%s\" "
				           "twice "
				           "(xentop cuts names at 10 characters; capture with -f)",
				           q),
				       -1;
			}
			continue;
		}
		if (i > first && add_block(x, first, i - first))
			return imp_log_fail(&p->log, 0, "out of memory"), -1;
		first = i;
	}
	return 0;
}

/* A last iteration with fewer domains than the one before was cut short: drop it. */
static void drop_partial(struct imp_xentop *x, const char *file, bool cut_line)
{
	char safe[160];
	imp_quote(file, safe, sizeof(safe));
	if (x->n_blocks >= 2 && x->blocks[x->n_blocks - 1].n < x->blocks[x->n_blocks - 2].n) {
		x->n_blocks--;
		snprintf(x->note, sizeof(x->note),
		         "%s: the last iteration (from line %u) is partial: ignored", safe,
		         x->blocks[x->n_blocks].doms[0].line);
	} else if (cut_line) {
		snprintf(x->note, sizeof(x->note), "%s: the last line is cut short: ignored", safe);
	}
}

static int finish(void *parser, unsigned cut_line)
{
	struct xt_parser *p = parser;
	/* no header: no rows either (take_line refuses one), so no blocks to make */
	int rc = make_blocks(p);
	free(p->group_of); /* the blocks are made: the rows' groups are done with */
	p->group_of = NULL;
	if (rc)
		return -1;
	drop_partial(p->out, p->log.file, cut_line != 0);
	return 0;
}

int imp_xentop_parse(const char *file, const char *buf, size_t len, struct imp_xentop *out,
                     struct xerr *err)
{
	memset(out, 0, sizeof(*out));
	struct xt_parser p = {.log = {IMP_XENTOP, take_line, finish, drop_result, &out->n_blocks},
	                      .out = out};
	return imp_parse_log(&p.log, file, buf, len, err);
}

void imp_xentop_free(struct imp_xentop *x)
{
	for (size_t i = 0; i < x->n_rows; i++)
		free(x->rows[i].vbds);
	free(x->rows);
	free(x->blocks);
	memset(x, 0, sizeof(*x));
}
