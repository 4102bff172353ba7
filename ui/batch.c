/* batch.c - text, CSV and JSON-lines output of one interval; see batch.h. */
#include "ui/batch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sanitize.h"
#include "ui/batch_keys.h"
#include "ui/fields.h"
#include "ui/grid.h"
#include "ui/rows.h"

/* Text: the console's table at 80 columns, or every column with -f. */
#define BATCH_COLUMNS    80
#define BATCH_WIDE       100000
#define BATCH_LINE_BYTES (4 * (4 * XS_NAME_MAX + 8 * FIELD_COUNT) + 1)

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
	time_t sec = (time_t)(realtime_ns / 1000000000);
	struct tm tm;
	gmtime_r(&sec, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03dZ", (int)(realtime_ns / 1000000 % 1000));
}

static double mb_per_s(uint64_t bytes, double secs)
{
	return secs > 0 ? (double)bytes / 1e6 / secs : 0.0;
}

static void print_json(FILE *out, const struct model_interval *m)
{
	char ts[40];
	iso_time(ts, sizeof(ts), m->realtime_ns);
	fprintf(out, "{\"time\":\"%s\",\"interval_s\":%.3f,\"host\":{", ts, m->interval_s);
	bool vmstat = !(m->absent & XS_ABSENT_VMSTAT), stack = !(m->absent & XS_ABSENT_STACK);
	batch_put_opt_u64(out, "\"vmstat_pgpgout_bytes\":", vmstat, m->pgpgout_bytes);
	batch_put_opt_u64(out, ",\"vmstat_pgpgin_bytes\":", vmstat, m->pgpgin_bytes);
	fputs(m->absent & XS_ABSENT_DISKS ? ",\"disks\":null" : ",\"disks\":[", out);
	for (size_t i = 0; !(m->absent & XS_ABSENT_DISKS) && i < m->n_disks; i++) {
		fprintf(out, "%s{\"dev\":", i ? "," : "");
		json_put_string(out, m->disks[i].disk->name);
		fprintf(out, ",\"rd_bytes\":%" PRIu64 ",\"wr_bytes\":%" PRIu64 "}",
		        m->disks[i].rd_bytes, m->disks[i].wr_bytes);
	}
	if (!(m->absent & XS_ABSENT_DISKS))
		fputc(']', out);
	batch_put_opt_u64(out, ",\"dom0_cpu_busy_ns\":", m->has_cpu, m->host_busy_ns);
	batch_put_opt_u64(out, "},\"unattributed\":{\"rd_bytes\":", stack, m->unattr_rd_bytes);
	batch_put_opt_u64(out, ",\"wr_bytes\":", stack, m->unattr_wr_bytes);
	fputc('}', out);
	batch_put_opt_u64(out, ",\"unattributed_cpu_ns\":", m->has_cpu, m->cpu_unattributed_ns);
	fprintf(out, ",\"lost_events\":%" PRIu64 ",\"domains\":[", m->lost_events);
	for (size_t i = 0; i < m->n_domains; i++) {
		if (i)
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
		fputs(",vmstat_pgpgout_bytes,unattributed_wr_bytes,lost_events\n", out);
	}
	iso_time(ts, sizeof(ts), m->realtime_ns);
	for (size_t i = 0; i < m->n_domains; i++) {
		fprintf(out, "%s,%.3f,", ts, m->interval_s);
		batch_keys_csv_row(out, m, &m->domains[i]);
		batch_put_opt_u64(out, ",", !(m->absent & XS_ABSENT_VMSTAT), m->pgpgout_bytes);
		batch_put_opt_u64(out, ",", !(m->absent & XS_ABSENT_STACK), m->unattr_wr_bytes);
		fprintf(out, ",%" PRIu64 "\n", m->lost_events);
	}
}

static void mb_text(char *buf, size_t len, bool known, double mb_s)
{
	if (known)
		snprintf(buf, len, "%.1f", mb_s);
	else
		snprintf(buf, len, "-");
}

/* The two lines above the table: when, how many, and the host's own figures. */
static void print_text_head(FILE *out, const struct model_interval *m)
{
	char ts[40];
	double s = m->interval_s;
	uint64_t phys_rd = 0, phys_wr = 0, dbl = 0;
	for (size_t i = 0; i < m->n_disks; i++) {
		phys_rd += m->disks[i].rd_bytes;
		phys_wr += m->disks[i].wr_bytes;
	}
	for (size_t i = 0; i < m->n_domains; i++)
		dbl += m->domains[i].double_counted_bytes;
	iso_time(ts, sizeof(ts), m->realtime_ns);
	/* which hooks are active is said once on stderr at start: this line stays < 80 */
	fprintf(out, "xiotop %.19s  %zu domains  %.2fs  lost %" PRIu64 "\n", ts, m->n_domains, s,
	        m->lost_events);
	/* a figure the recording does not hold (an import's) prints "-", never 0.0 */
	char rd[24], wr[24], bo[24], dc[24], un[24];
	mb_text(rd, sizeof(rd), !(m->absent & XS_ABSENT_DISKS), mb_per_s(phys_rd, s));
	mb_text(wr, sizeof(wr), !(m->absent & XS_ABSENT_DISKS), mb_per_s(phys_wr, s));
	mb_text(bo, sizeof(bo), !(m->absent & XS_ABSENT_VMSTAT), mb_per_s(m->pgpgout_bytes, s));
	mb_text(dc, sizeof(dc), !(m->absent & XS_ABSENT_STACK), mb_per_s(dbl, s));
	mb_text(un, sizeof(un), !(m->absent & XS_ABSENT_STACK), mb_per_s(m->unattr_wr_bytes, s));
	fprintf(out, "disks rd %s wr %s MB/s  vmstat bo %s MB/s  double %s MB/s  unattr %s MB/s\n",
	        rd, wr, bo, dc, un);
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

/* The name column: the console's width, or with -f the widest name (never cut). */
static int name_width(const struct batch_opts *o, const struct field_row *const *rows, size_t n)
{
	int w = FIELD_NAME_WIDTH;
	char name[4 * XS_NAME_MAX + 1];
	for (size_t i = 0; o->full_names && i < n; i++) {
		int nw = text_width(grid_text(field_row_name(rows[i]), false, name, sizeof(name)));
		if (nw > w)
			w = nw;
	}
	return w;
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
	fields_layout_for(o->full_names ? BATCH_WIDE : BATCH_COLUMNS,
	                  name_width(o, rows, (size_t)n), fields_domid_width(rows, (size_t)n),
	                  false, m->has_latency, &l);
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
	fprintf(stderr, "xiotop: cannot write the output: %s\n", strerror(errno));
	return 1;
}

struct interval_sink batch_sink(struct batch_sink *b)
{
	return (struct interval_sink){.ctx = b, .interval = batch_sink_interval};
}

void batch_sink_free(struct batch_sink *b)
{
	memory_free(&b->mem);
}
