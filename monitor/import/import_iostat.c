/* import_iostat.c - `iostat -dx` / NetBSD `iostat -x` text into reports; see import_iostat.h. */
#include "import/import_iostat.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrays.h"

struct io_parser {
	struct imp_log log; /* first: imp_parse_log hands it to take and finish */
	struct imp_iostat *out;
	int n_cols;      /* words of a device row */
	int rd, wr;      /* word index of the read and write rates */
	int rs, ws;      /* of r/s and w/s; -1 none */
	double scale;    /* to bytes per second */
	bool in_report;  /* sysstat: between a header and a blank line */
	bool skip_next;  /* the numbers line under avg-cpu */
	int64_t time_ns; /* the last -t time line */
};

/* imp_log's drop: what a failed parse built, freed */
static void drop_result(void *parser)
{
	imp_iostat_free(((struct io_parser *)parser)->out);
}

static int header_sysstat(struct io_parser *p, const struct imp_words *w, unsigned line)
{
	static const struct {
		const char *rd, *wr;
		double scale;
	} units[] = {
	    {"rkB/s", "wkB/s", 1024}, {"rMB/s", "wMB/s", 1048576}, {"rsec/s", "wsec/s", 512}};
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		int rd = imp_find_word(w, units[u].rd, 1), wr = imp_find_word(w, units[u].wr, 1);
		if (rd > 0 && wr > 0) {
			if (p->log.header_line && (p->rd != rd || p->wr != wr || p->n_cols != w->n))
				return imp_log_fail(&p->log, line,
				                    "the same iostat header as line %u expected",
				                    p->log.header_line),
				       -1;
			p->rd = rd, p->wr = wr, p->scale = units[u].scale, p->n_cols = w->n;
			p->rs = imp_find_word(w, "r/s", 1), p->ws = imp_find_word(w, "w/s", 1);
			p->log.header_line = p->log.header_line ? p->log.header_line : line;
			return 0;
		}
	}
	return imp_log_fail(&p->log, line,
	                    "an iostat -x header with rkB/s and wkB/s (or rMB/s, rsec/s) expected"),
	       -1;
}

static int new_report(struct io_parser *p, unsigned line)
{
	struct imp_iostat *io = p->out;
	struct imp_io_report r = {
	    .line = line, .since_boot = io->n == 0, .time_ns = io->has_time ? p->time_ns : -1};
	if (arrays_append((void **)&io->reports, &io->n, &r, sizeof(r)))
		return imp_log_fail(&p->log, line, "out of memory"), -1;
	return 0;
}

static bool in_last_report(const struct imp_iostat *io, const char *name)
{
	if (!io->n)
		return false;
	const struct imp_io_report *r = &io->reports[io->n - 1];
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->devs[i].name, name))
			return true;
	return false;
}

static int take_device(struct io_parser *p, const struct imp_words *w, unsigned line)
{
	struct imp_iostat *io = p->out;
	double rd, wr;
	if (w->n != p->n_cols || !imp_double(w->w[p->rd], &rd) || !imp_double(w->w[p->wr], &wr))
		return imp_log_fail(
		           &p->log, line,
		           "a device row of %d columns as in the header at line %u expected",
		           p->n_cols, p->log.header_line),
		       -1;
	double x;
	for (int i = 1; i < w->n; i++)
		if (imp_log_double(&p->log, w, i, line, &x))
			return -1;
	if (io->netbsd && in_last_report(io, w->w[0]) && new_report(p, line))
		return -1;
	struct imp_io_report *r = &io->reports[io->n - 1];
	struct imp_io_dev d = {.rd_Bps = rd * p->scale, .wr_Bps = wr * p->scale};
	if (p->rs > 0 && p->ws > 0) {
		imp_double(w->w[p->rs], &d.rd_iops);
		imp_double(w->w[p->ws], &d.wr_iops);
	}
	snprintf(d.name, sizeof(d.name), "%s", w->w[0]);
	if (arrays_append((void **)&r->devs, &r->n, &d, sizeof(d)))
		return imp_log_fail(&p->log, line, "out of memory"), -1;
	return 0;
}

/* sysstat's -t line: MM/DD/YY[YY] HH:MM:SS [AM|PM], or ISO 8601. */
static bool time_line(const struct imp_words *w, int64_t *ns)
{
	int y, mo, d, h, mi, s;
	char tail;
	if (w->n == 1 &&
	    sscanf(w->w[0], "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) == 6) {
		*ns = imp_local_ns(y, mo, d, h, mi, s);
		return *ns >= 0;
	}
	if ((w->n != 2 && w->n != 3) || sscanf(w->w[0], "%2d/%2d/%4d%c", &mo, &d, &y, &tail) != 3 ||
	    sscanf(w->w[1], "%2d:%2d:%2d%c", &h, &mi, &s, &tail) != 3)
		return false;
	if (w->n == 3) {
		bool pm = !strcmp(w->w[2], "PM");
		if (!pm && strcmp(w->w[2], "AM"))
			return false;
		h = h % 12 + (pm ? 12 : 0);
	}
	*ns = imp_local_ns(y < 100 ? 2000 + y : y, mo, d, h, mi, s);
	return *ns >= 0;
}

static int take_netbsd_header(struct io_parser *p, const struct imp_words *w, unsigned line)
{
	/* device read KB/t r/s time MB/s write KB/t w/s time MB/s: rows are a name + 8 */
	static const char *const want[] = {"device", "read", "KB/t", "r/s",  "time", "MB/s",
	                                   "write",  "KB/t", "w/s",  "time", "MB/s"};
	if (w->n != 11)
		goto bad;
	for (int i = 0; i < 11; i++)
		if (strcmp(w->w[i], want[i]))
			goto bad;
	if (!p->log.header_line) {
		p->log.header_line = line;
		p->out->netbsd = true;
		p->n_cols = 9, p->rd = 4, p->wr = 8, p->scale = 1048576;
		p->rs = 2, p->ws = 6;
		return new_report(p, line);
	}
	return 0;
bad:
	return imp_log_fail(&p->log, line,
	                    "NetBSD's iostat -x header (device read KB/t r/s time MB/s write ...) "
	                    "expected"),
	       -1;
}

static int take_line(void *parser, const struct imp_line *l, struct imp_words *w, unsigned line)
{
	struct io_parser *p = parser;
	struct imp_iostat *io = p->out;
	if (!w->n || p->skip_next) {
		p->in_report = p->skip_next = false;
		return 0;
	}
	if (!strcmp(w->w[0], "device") || io->netbsd)
		return io->netbsd && strcmp(w->w[0], "device") ? take_device(p, w, line)
		                                               : take_netbsd_header(p, w, line);
	if (!strcmp(w->w[0], "Device") || !strcmp(w->w[0], "Device:")) {
		if (header_sysstat(p, w, line) || new_report(p, line))
			return -1;
		p->in_report = true;
		return 0;
	}
	if (p->in_report)
		return take_device(p, w, line);
	if (!strcmp(w->w[0], "avg-cpu:")) {
		p->skip_next = true;
		return 0;
	}
	if (!io->n && !p->log.header_line && !io->has_time && strchr(l->text, '(')) {
		const char *cpu = strstr(l->text, " CPU)");
		const char *open = cpu ? cpu : NULL;
		while (open && open > l->text && isdigit((unsigned char)open[-1]))
			open--;
		if (cpu && open < cpu)
			io->cpu_count = strtol(open, NULL, 10);
		return 0; /* the banner: Linux RELEASE (HOST) DATE ARCH (N CPU) */
	}
	if (time_line(w, &p->time_ns)) {
		io->has_time = true;
		return 0;
	}
	return imp_log_fail(&p->log, line,
	                    "an iostat -x line (banner, time, Device header, device row) expected"),
	       -1;
}

/* A last report with fewer devices than the one before was cut short: drop it. */
static int drop_partial(void *parser, unsigned cut_line)
{
	const struct io_parser *p = parser;
	struct imp_iostat *io = p->out;
	if (io->n >= 2 && io->reports[io->n - 1].n < io->reports[io->n - 2].n) {
		char safe[160];
		imp_quote(p->log.file, safe, sizeof(safe));
		io->n--;
		snprintf(io->note, sizeof(io->note), "%s:%u: the last report is partial: ignored",
		         safe, io->reports[io->n].line);
		free(io->reports[io->n].devs);
	} else {
		imp_note_cut(io->note, sizeof(io->note), p->log.file, cut_line);
	}
	return 0;
}

int imp_iostat_parse(const char *file, const char *buf, size_t len, struct imp_iostat *out,
                     struct xerr *err)
{
	memset(out, 0, sizeof(*out));
	struct io_parser p = {.log = {IMP_IOSTAT, take_line, drop_partial, drop_result, &out->n},
	                      .out = out,
	                      .time_ns = -1};
	return imp_parse_log(&p.log, file, buf, len, err);
}

void imp_iostat_free(struct imp_iostat *io)
{
	for (size_t i = 0; i < io->n; i++)
		free(io->reports[i].devs);
	free(io->reports);
	memset(io, 0, sizeof(*io));
}

static bool stacked_kind(const char *name)
{
	/* zram is not one: nothing lies below it, and the live collector counts it as a leaf
	 * (sources/topology/resolve.c), so an import of the same host shows the same disks */
	static const char *const kinds[] = {"loop", "dm", "md", "vnd", "dk", "cgd", "raid", "ccd"};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(name, kinds[i], strlen(kinds[i])))
			return true;
	return false;
}

/* name is base + digits, or base + "p" + digits when base ends in a digit */
static bool partition_of(const char *name, const char *base)
{
	size_t n = strlen(base);
	if (!n || strncmp(name, base, n) || !name[n])
		return false;
	const char *rest = name + n;
	if (isdigit((unsigned char)base[n - 1])) {
		if (*rest != 'p')
			return false;
		rest++;
	}
	return *rest && strspn(rest, "0123456789") == strlen(rest);
}

bool imp_iostat_is_leaf(const char *const *names, size_t n, size_t i)
{
	if (stacked_kind(names[i]))
		return false;
	for (size_t j = 0; j < n; j++)
		if (j != i && partition_of(names[i], names[j]))
			return false;
	return true;
}
