/* import_vmstat.c - `vmstat N` text into rows; see import_vmstat.h. */
#include "import/import_vmstat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrays.h"

struct vm_parser {
	struct imp_log log; /* first: imp_parse_log hands it to take and finish */
	struct imp_vmstat *out;
	char header[IMP_LINE_MAX];
	int n_cols;             /* numeric columns of a row */
	int bi, bo, us, sy, st; /* word index, -1 absent */
};

/* imp_log's drop: what a failed parse built, freed */
static void drop_result(void *parser)
{
	imp_vmstat_free(((struct vm_parser *)parser)->out);
}

static int last_word(const struct imp_words *w, const char *name)
{
	int found = -1;
	for (int i = 0; i < w->n; i++)
		if (!strcmp(w->w[i], name))
			found = i;
	return found;
}

static int take_header(struct vm_parser *p, const struct imp_line *l, const struct imp_words *w,
                       unsigned line)
{
	if (p->log.header_line) {
		if (strcmp(l->text, p->header))
			return imp_log_fail(&p->log, line,
			                    "the same vmstat header as line %u expected",
			                    p->log.header_line),
			       -1;
		return 0;
	}
	struct imp_vmstat *v = p->out;
	snprintf(p->header, sizeof(p->header), "%s", l->text);
	p->log.header_line = line;
	p->bi = imp_find_word(w, "bi", 0);
	p->bo = imp_find_word(w, "bo", 0);
	p->us = last_word(w, "us");
	p->sy = last_word(w, "sy");
	p->st = imp_find_word(w, "st", 0);
	v->has_io = p->bi >= 0 && p->bo >= 0;
	v->netbsd = !v->has_io && imp_find_word(w, "avm", 0) >= 0;
	if ((!v->has_io && !v->netbsd) || p->us < 0 || p->sy < 0)
		return imp_log_fail(
		           &p->log, line,
		           "a vmstat header (procps: r b swpd ... bi bo ... us sy id; NetBSD: r b "
		           "avm fre ... us sy id) expected"),
		       -1;
	p->n_cols = w->n;
	if (v->has_time) {
		/* the zone closes the header line over the timestamp */
		p->n_cols--;
		snprintf(v->zone, sizeof(v->zone), "%s", w->w[w->n - 1]);
	}
	return 0;
}

static int take_time(struct vm_parser *p, const struct imp_words *w, unsigned line,
                     struct imp_vm_row *r)
{
	int y, mo, d, h, mi, s;
	char tail;
	if (w->n != p->n_cols + 2 ||
	    sscanf(w->w[p->n_cols], "%4d-%2d-%2d%c", &y, &mo, &d, &tail) != 3 ||
	    sscanf(w->w[p->n_cols + 1], "%2d:%2d:%2d%c", &h, &mi, &s, &tail) != 3 ||
	    (r->time_ns = imp_local_ns(y, mo, d, h, mi, s)) < 0)
		return imp_log_fail(&p->log, line,
		                    "%d numbers and a time (YYYY-MM-DD HH:MM:SS) expected",
		                    p->n_cols),
		       -1;
	return 0;
}

static int take_row(struct vm_parser *p, const struct imp_words *w, unsigned line)
{
	struct imp_vmstat *v = p->out;
	if (!p->log.header_line)
		return imp_log_fail(&p->log, line, "a vmstat header expected first"), -1;
	struct imp_vm_row r = {.line = line, .since_boot = v->n == 0, .time_ns = -1};
	if (v->has_time ? take_time(p, w, line, &r) : 0)
		return -1;
	if (!v->has_time && w->n != p->n_cols)
		return imp_log_fail(&p->log, line,
		                    "%d columns expected as in the header at line %u, found %d",
		                    p->n_cols, p->log.header_line, w->n),
		       -1;
	for (int i = 0; i < p->n_cols; i++) {
		double x;
		if (imp_log_double(&p->log, w, i, line, &x))
			return -1;
		if (i == p->bi)
			r.bi_kbs = x;
		else if (i == p->bo)
			r.bo_kbs = x;
		else if (i == p->us)
			r.us = x;
		else if (i == p->sy)
			r.sy = x;
		else if (i == p->st)
			r.st = x;
	}
	if (arrays_append((void **)&v->rows, &v->n, &r, sizeof(r)))
		return imp_log_fail(&p->log, line, "out of memory"), -1;
	return 0;
}

static int take_line(void *parser, const struct imp_line *l, struct imp_words *w, unsigned line)
{
	struct vm_parser *p = parser;
	if (!w->n)
		return 0;
	if (!strcmp(w->w[0], "procs")) { /* the group line over the header */
		if (!p->log.header_line)
			p->out->has_time = strstr(l->text, "timestamp") != NULL;
		return 0;
	}
	if (!strcmp(w->w[0], "r") && w->n > 2 && !strcmp(w->w[1], "b"))
		return take_header(p, l, w, line);
	return take_row(p, w, line);
}

static int finish(void *parser, unsigned cut_line)
{
	struct vm_parser *p = parser;
	imp_note_cut(p->out->note, sizeof(p->out->note), p->log.file, cut_line);
	return 0;
}

int imp_vmstat_parse(const char *file, const char *buf, size_t len, struct imp_vmstat *out,
                     struct xerr *err)
{
	memset(out, 0, sizeof(*out));
	struct vm_parser p = {.log = {IMP_VMSTAT, take_line, finish, drop_result, &out->n},
	                      .out = out};
	return imp_parse_log(&p.log, file, buf, len, err);
}

void imp_vmstat_free(struct imp_vmstat *v)
{
	free(v->rows);
	memset(v, 0, sizeof(*v));
}
