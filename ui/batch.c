/* batch.c - text, CSV and JSON-lines output of one interval; see batch.h. */
#include "ui/batch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/figures.h"
#include "core/sanitize.h"
#include "ui/batch_keys.h"
#include "ui/fields.h"
#include "ui/grid.h"
#include "ui/rows.h"

/* Text: the console's table fitted to a terminal (80 columns when it does not say), or
 * every column. */
#define BATCH_COLUMNS    80
#define BATCH_WIDE       100000
#define BATCH_LINE_BYTES (4 * (4 * XIO_NAME_MAX + 8 * FIELD_MAX) + 1)

int batch_parse_format(const char *s, enum batch_format *out)
{
	if (!strcmp(s, "text"))
		*out = BATCH_TEXT;
	else if (!strcmp(s, "csv"))
		*out = BATCH_CSV;
	else if (!strcmp(s, "json"))
		*out = BATCH_JSON;
	else
		return -1;
	return 0;
}

static void iso_time(char *buf, size_t len, int64_t realtime_ns)
{
	if (clock_iso8601(realtime_ns, true, buf, len))
		snprintf(buf, len, "?");
}

/* A host figure as a JSON member: sep, its key, its value or null. */
static void json_figure(FILE *out, const char *sep, enum figure_id fig,
                        const struct model_interval *m)
{
	char key[64];
	snprintf(key, sizeof(key), "%s\"%s\":", sep, figure_json_name(figure_get(fig)));
	batch_put_figure(out, key, fig, m);
}

/* The disks' list (null when the recording does not hold them). */
static void json_disks(FILE *out, const char *sep, const struct model_interval *m)
{
	bool disks = figure_known(FIG_DISKS, m, NULL);
	fprintf(out, "%s\"disks\":%s", sep, disks ? "[" : "null");
	for (size_t i = 0; disks && i < m->n_disks; i++) {
		fprintf(out, "%s{\"dev\":", i ? "," : "");
		json_put_string(out, m->disks[i].disk->name);
		fprintf(out, ",\"rd_bytes\":%" PRIu64 ",\"wr_bytes\":%" PRIu64 "}",
		        m->disks[i].rd_bytes, m->disks[i].wr_bytes);
	}
	if (disks)
		fputc(']', out);
}

/* Every host figure whose JSON place is in `object` ("host", "unattributed", "" the top
 * level), in the table's order, which is the JSON contract's: a figure added to the
 * table comes after the named ones. first: no comma before the first member. */
static void json_members(FILE *out, const char *object, bool first, const struct model_interval *m)
{
	for (int i = 0; i < figure_count(); i++) {
		const struct figure *f = figure_get((enum figure_id)i);
		const char *path = f->json ? f->json : f->key;
		if (f->scope != FIGURE_HOST || !path || strchr(path, '['))
			continue;
		const char *dot = strrchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : 0;
		if (len != strlen(object) || strncmp(path, object, len))
			continue;
		const char *sep = first ? "" : ",";
		if (i == FIG_DISKS)
			json_disks(out, sep, m);
		else if (figure_is_scalar(f))
			json_figure(out, sep, (enum figure_id)i, m);
		else
			continue; /* no other record is the host's */
		first = false;
	}
}

/* Domain-0 where the interval holds no domain 0 (no Xen, nothing charged to dom0 as a
 * domain): its figures as they are, none charged to it, so that every format has the row
 * the text has; NULL when the interval holds one. */
static const struct model_domain *domain0_stand_in(const struct model_interval *m)
{
	static const struct xio_domain info = {.domid = 0, .name = "Domain-0"};
	static const struct model_domain dom0 = {.domid = 0, .info = &info, .guest_cpu_ns = -1};
	for (size_t i = 0; i < m->n_domains; i++)
		if (m->domains[i].domid == 0)
			return NULL;
	return &dom0;
}

static void print_json(FILE *out, const struct model_interval *m)
{
	char ts[40];
	iso_time(ts, sizeof(ts), m->realtime_ns);
	fprintf(out, "{\"time\":\"%s\",\"interval_s\":%.3f,\"host\":{", ts, m->interval_s);
	json_members(out, "host", true, m);
	fputs("},\"unattributed\":{", out);
	json_members(out, "unattributed", true, m);
	fputc('}', out);
	json_members(out, "", false, m);
	fputs(",\"domains\":[", out);
	const struct model_domain *dom0 = domain0_stand_in(m);
	if (dom0)
		batch_keys_json(out, m, dom0);
	for (size_t i = 0; i < m->n_domains; i++) {
		if (i || dom0)
			fputc(',', out);
		batch_keys_json(out, m, &m->domains[i]);
	}
	fprintf(out, "]}\n");
}

static void print_csv(FILE *out, const struct model_interval *m, unsigned long iteration)
{
	char ts[40];
	if (iteration == 0) {
		fputs("time,interval_s,", out);
		batch_keys_csv_header(out);
		fputc('\n', out);
	}
	iso_time(ts, sizeof(ts), m->realtime_ns);
	/* the text's rows: Domain-0 (where the interval holds none), the domains,
	 * (unattributed) last (NULL) */
	const struct model_domain *dom0 = domain0_stand_in(m);
	for (size_t i = dom0 ? 0 : 1; i <= m->n_domains + 1; i++) {
		fprintf(out, "%s,%.3f,", ts, m->interval_s);
		batch_keys_csv_row(out, m,
		                   i == 0              ? dom0
		                   : i <= m->n_domains ? &m->domains[i - 1]
		                                       : NULL);
		fputc('\n', out);
	}
}

static void mb_text(char *buf, size_t len, enum figure_id fig, const struct model_interval *m)
{
	if (figure_known(fig, m, NULL))
		snprintf(buf, len, "%.1f",
		         fields_mib_per_s(figure_value(fig, m, NULL), m->interval_s));
	else
		snprintf(buf, len, "-");
}

/* A host figure's screen header (core/figures.h). */
static const char *head(enum figure_id fig)
{
	return figure_get(fig)->header;
}

/* A host CPU figure as a percentage of one CPU over the interval, or "-" when unknown. */
static void cpu_text(char *buf, size_t len, enum figure_id fig, const struct model_interval *m)
{
	if (figure_known(fig, m, NULL) && m->interval_s > 0)
		snprintf(buf, len, "%.1f%%",
		         fields_cpu_pct(figure_value(fig, m, NULL), m->interval_s));
	else
		snprintf(buf, len, "-");
}

/* The three lines above the table: when, how many, and the host's own figures, each
 * named by its screen header. */
static void print_text_head(FILE *out, const struct model_interval *m)
{
	char ts[40], busy[24], irq[24], steal[24];
	iso_time(ts, sizeof(ts), m->realtime_ns);
	cpu_text(busy, sizeof(busy), FIG_HOST_BUSY_NS, m);
	cpu_text(irq, sizeof(irq), FIG_HOST_IRQ_NS, m);
	cpu_text(steal, sizeof(steal), FIG_HOST_STEAL_NS, m);
	/* which hooks are active is said once on stderr at start: these lines stay < 80 */
	fprintf(out, "xiotop %.19s  %zu domains  %.2fs  %s %" PRIu64 "\n", ts, m->n_domains,
	        m->interval_s, head(FIG_LOST_EVENTS), m->lost_events);
	/* a figure the recording does not hold (an import's) prints "-", never 0.0 */
	char rd[24], wr[24], bo[24], dc[24], un[24];
	mb_text(rd, sizeof(rd), FIG_DISKS_RD_BYTES, m);
	mb_text(wr, sizeof(wr), FIG_DISKS_WR_BYTES, m);
	struct model_host_totals t;
	model_host_totals(m, &t);
	if (!t.disks_complete) { /* a leaf that keeps no diskstats (a ram disk): not known */
		snprintf(rd, sizeof(rd), "-");
		snprintf(wr, sizeof(wr), "-");
	}
	mb_text(bo, sizeof(bo), FIG_VMSTAT_PGPGOUT_BYTES, m);
	mb_text(dc, sizeof(dc), FIG_DOUBLE_COUNTED_TOTAL, m);
	mb_text(un, sizeof(un), FIG_UNATTRIBUTED_WR_BYTES, m);
	/* the unit said once, first, as the console's header says it */
	fprintf(out, "MiB/s  %s %s %s %s  %s %s  %s %s  %s %s\n", head(FIG_DISKS_RD_BYTES), rd,
	        head(FIG_DISKS_WR_BYTES), wr, head(FIG_VMSTAT_PGPGOUT_BYTES), bo,
	        head(FIG_DOUBLE_COUNTED_TOTAL), dc, head(FIG_UNATTRIBUTED_WR_BYTES), un);
	/* interrupts are part of the busy time; steal is apart: the hypervisor's, not dom0's */
	fprintf(out, "%s %s  %s %s  %s %s\n", head(FIG_HOST_BUSY_NS), busy, head(FIG_HOST_IRQ_NS),
	        irq, head(FIG_HOST_STEAL_NS), steal);
	if (!t.disks_complete) {
		/* a device name from a recording is outside text: escaped as every name is */
		char leaf[4 * sizeof(m->unaccounted_leaf)];
		sanitize_text(m->unaccounted_leaf, leaf, sizeof(leaf));
		fprintf(out, "disks: %s keeps no diskstats\n", leaf);
	}
}

/* Rows in domid order: Domain-0 first, (unattributed) last. */
static int by_domid(const void *pa, const void *pb)
{
	const struct field_row *a = *(const struct field_row *const *)pa;
	const struct field_row *b = *(const struct field_row *const *)pb;
	if (a->domid != b->domid)
		return a->domid < b->domid ? -1 : 1;
	return (int)a->kind - (int)b->kind;
}

/* How wide the text is: every column and whole names (0) with -f or into a file or a
 * pipe, as `xentop -b` prints; fitted to a terminal's width only on one. */
static int text_columns(FILE *out, const struct batch_opts *o)
{
	if (o->full_names)
		return 0;
	if (o->columns > 0)
		return o->columns;
	int fd = fileno(out);
	if (fd < 0 || !isatty(fd))
		return 0;
	struct winsize ws;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return BATCH_COLUMNS;
}

static void put_line(FILE *out, char *line)
{
	size_t len = strlen(line);
	while (len > 0 && line[len - 1] == ' ')
		line[--len] = '\0';
	fprintf(out, "%s\n", line);
}

/* The domains of which a backend could not be resolved (KIND says "!" when shown). */
static void print_missing(FILE *out, const struct field_row *const *rows, size_t n)
{
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (!rows[i]->missing)
			continue;
		fprintf(out, "%s %u", any ? "" : "!missing: a backend of domain", rows[i]->domid);
		any = true;
	}
	if (any)
		fputc('\n', out);
}

/* Sorted row pointers of this interval's rows into mem, with CPU totals. Their count,
 * or -1 (out of memory). */
static long text_rows(struct batch_memory *mem, const struct model_interval *m)
{
	size_t n;
	if (field_rows_build(m, &mem->rows, &mem->cap_rows, &n))
		return -1;
	if (n > mem->cap_order) {
		const struct field_row **p = realloc(mem->order, n * sizeof(*p));
		if (!p)
			return -1;
		mem->order = p;
		mem->cap_order = n;
	}
	cpu_totals_add(&mem->totals, mem->rows, n);
	cpu_totals_fill(&mem->totals, mem->rows, n);
	for (size_t i = 0; i < n; i++)
		mem->order[i] = &mem->rows[i];
	qsort(mem->order, n, sizeof(*mem->order), by_domid);
	return (long)n;
}

static void print_text(FILE *out, const struct model_interval *m, const struct batch_opts *o,
                       struct batch_memory *mem)
{
	print_text_head(out, m);
	long n = text_rows(mem, m);
	if (n < 0) {
		fprintf(out, "(out of memory: no rows this interval)\n\n");
		return;
	}
	const struct field_row *const *rows = mem->order;
	struct field_layout l;
	int columns = text_columns(out, o);
	fields_layout_for(columns ? columns : BATCH_WIDE,
	                  fields_name_width(rows, (size_t)n, !columns, false, 0),
	                  fields_domid_width(rows, (size_t)n), false, m->has_latency, &l);
	char line[BATCH_LINE_BYTES];
	fields_header(&l, line, sizeof(line));
	put_line(out, line);
	for (long i = 0; i < n; i++) {
		fields_row(&l, rows[i], line, sizeof(line));
		put_line(out, line);
	}
	print_missing(out, rows, (size_t)n);
	fputc('\n', out);
}

static void print_with(FILE *out, const struct model_interval *m, const struct batch_opts *o,
                       unsigned long iteration, struct batch_memory *mem)
{
	switch (o->format) {
	case BATCH_JSON:
		print_json(out, m);
		break;
	case BATCH_CSV:
		print_csv(out, m, iteration);
		break;
	default:
		print_text(out, m, o, mem);
		break;
	}
	fflush(out);
}

static void memory_free(struct batch_memory *mem)
{
	free(mem->rows);
	free(mem->order);
	cpu_totals_free(&mem->totals);
	memset(mem, 0, sizeof(*mem));
}

void batch_print(FILE *out, const struct model_interval *m, const struct batch_opts *o,
                 unsigned long iteration)
{
	struct batch_memory mem = {0};
	print_with(out, m, o, iteration, &mem);
	memory_free(&mem);
}

static int batch_sink_interval(void *ctx, struct model_interval *m, unsigned long index)
{
	struct batch_sink *b = ctx;
	print_with(b->out, m, &b->opts, index, &b->mem);
	if (fflush(b->out) == 0 && !ferror(b->out))
		return LOOP_GO_ON;
	if (errno == EPIPE)
		return LOOP_DONE;
	xerr_set(&b->err, XERR_RUNTIME, "cannot write the output: %s", strerror(errno));
	return 1;
}

static const struct xerr *batch_sink_failure(void *ctx)
{
	return &((struct batch_sink *)ctx)->err;
}

struct interval_sink batch_sink(struct batch_sink *b)
{
	return (struct interval_sink){
	    .ctx = b, .interval = batch_sink_interval, .failure = batch_sink_failure};
}

void batch_sink_free(struct batch_sink *b)
{
	memory_free(&b->mem);
}
