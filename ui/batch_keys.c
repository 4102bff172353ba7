/* batch_keys.c - a domain's keys of CSV and JSON, from the figure table; see batch_keys.h. */
#include "ui/batch_keys.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/figures.h"
#include "core/latency.h"
#include "core/sanitize.h"

static const char *domain_name(const struct model_domain *d)
{
	return d->info && d->info->name[0] ? d->info->name : NULL;
}

/* v in decimal: the JSON of 1,000 domains is mostly numbers, and fprintf's format parsing
 * took about a third of the batch's CPU (perf, --synthetic 1000 with latency). */
static void put_u64(FILE *out, uint64_t v)
{
	char digits[20];
	int n = 0;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		putc(digits[--n], out);
}

static void put_text(FILE *out, const char *s, bool csv)
{
	if (csv)
		csv_put_field(out, s);
	else
		json_put_string(out, s);
}

static void put_domid(FILE *out, const struct model_interval *m, const struct model_domain *d,
                      bool csv)
{
	(void)m;
	(void)csv;
	fprintf(out, "%u", d->domid);
}

static void put_name(FILE *out, const struct model_interval *m, const struct model_domain *d,
                     bool csv)
{
	(void)m;
	put_text(out, domain_name(d), csv);
}

static void put_kind(FILE *out, const struct model_interval *m, const struct model_domain *d,
                     bool csv)
{
	(void)m;
	put_text(out, d->info && d->info->kind[0] ? d->info->kind : NULL, csv);
}

static void put_missing(FILE *out, const struct model_interval *m, const struct model_domain *d,
                        bool csv)
{
	(void)m;
	(void)csv;
	fputs(d->info && d->info->missing ? "true" : "false", out);
}

static void put_cpu_by_role(FILE *out, const struct model_interval *m, const struct model_domain *d,
                            bool csv)
{
	(void)csv;
	if (!m->has_cpu) {
		fputs("null", out);
		return;
	}
	for (int r = 0; r < XIO_CPU_ROLES; r++) {
		fprintf(out, "%s\"%s\":", r ? "," : "{", figure_cpu_role_key((enum xio_cpu_role)r));
		put_u64(out, d->cpu_ns_by_role[r]);
	}
	fputc('}', out);
}

/* d's items[0, n) (size bytes each) as a JSON array of what put_item writes */
static void put_array(FILE *out, const struct model_domain *d, const void *items, size_t n,
                      size_t size,
                      void (*put_item)(FILE *out, const struct model_domain *d, const void *item))
{
	fputc('[', out);
	for (size_t j = 0; j < n; j++) {
		if (j)
			fputc(',', out);
		put_item(out, d, (const char *)items + j * size);
	}
	fputc(']', out);
}

static void put_layer(FILE *out, const struct model_domain *d, const void *item)
{
	const struct model_layer *l = item;
	if (l->is_file)
		json_put_member(out,
		                "{\"file\":", d->info && d->info->file[0] ? d->info->file : NULL);
	else
		json_put_member(out, "{\"dev\":", l->name);
	fprintf(out,
	        ",\"role\":\"%s\",\"leaf\":%s,\"rd_bytes\":%" PRIu64 ",\"wr_bytes\":%" PRIu64 "}",
	        model_role_name(l->role), l->is_leaf ? "true" : "false", l->rd_bytes, l->wr_bytes);
}

static void put_layers(FILE *out, const struct model_interval *m, const struct model_domain *d,
                       bool csv)
{
	(void)m;
	(void)csv;
	put_array(out, d, d->layers, d->n_layers, sizeof(*d->layers), put_layer);
}

/* A counter that was not collected prints null, never a misleading 0. */
void batch_put_opt_u64(FILE *out, const char *key, bool known, uint64_t v)
{
	fputs(key, out);
	if (known)
		put_u64(out, v);
	else
		fputs("null", out);
}

static void put_vbd(FILE *out, const struct model_domain *d, const void *item)
{
	const struct model_vbd *v = item;
	(void)d;
	fprintf(out,
	        "{\"devid\":%u,\"rd_bytes\":%" PRIu64 ",\"wr_bytes\":%" PRIu64
	        ",\"rd_req\":%" PRIu64 ",\"wr_req\":%" PRIu64,
	        v->devid, v->rd_bytes, v->wr_bytes, v->rd_req, v->wr_req);
	batch_put_opt_u64(out, ",\"xiotop_rd_bytes\":", v->xiotop_known, v->xiotop_rd_bytes);
	batch_put_opt_u64(out, ",\"xiotop_wr_bytes\":", v->xiotop_known, v->xiotop_wr_bytes);
	fprintf(out, ",\"disagree\":%s}", v->disagree ? "true" : "false");
}

/* blkback's own per-vbd counts beside xiotop's (only on a Xen dom0: has_vbd_stats). */
static void put_vbd_stats(FILE *out, const struct model_interval *m, const struct model_domain *d,
                          bool csv)
{
	(void)m;
	(void)csv;
	put_array(out, d, d->vbds, d->n_vbds, sizeof(*d->vbds), put_vbd);
}

/* A quantile in whole ns, or null for a direction without I/O this interval. */
static void put_quantile(FILE *out, const char *key, const struct xiotop_lat *h, double q)
{
	double ns = latency_quantile_ns(h, q);
	fputs(key, out);
	if (ns < 0)
		fputs("null", out);
	else
		fprintf(out, "%.0f", ns);
}

/* I/O latency by op this interval (only when it was timed: not --no-latency). */
static void put_io_latency(FILE *out, const struct model_interval *m, const struct model_domain *d,
                           bool csv)
{
	static const char *const ops[XIOTOP_LAT_OPS] = {"read", "write"};
	(void)m;
	(void)csv;
	for (int op = 0; op < XIOTOP_LAT_OPS; op++) {
		const struct xiotop_lat *h = &d->lat[op];
		fprintf(out, "%s\"%s\":", op ? "," : "{", ops[op]);
		if (d->lat_untimed[op]) { /* a kind of its backends not timed: unknown, not 0 */
			fputs("null", out);
			continue;
		}
		fputs("{\"ios\":", out);
		put_u64(out, h->count);
		fputs(",\"sum_ns\":", out);
		put_u64(out, h->sum_ns);
		put_quantile(out, ",\"p50_ns\":", h, 0.5);
		put_quantile(out, ",\"p99_ns\":", h, 0.99);
		/* the non-empty buckets as [lower bound ns, ios]: intervals add up exactly */
		fputs(",\"buckets\":[", out);
		for (int b = 0, n = 0; b < XIOTOP_LAT_BUCKETS; b++)
			if (h->buckets[b]) {
				fputs(n++ ? ",[" : "[", out);
				put_u64(out, latency_bucket_low_ns(b));
				putc(',', out);
				put_u64(out, h->buckets[b]);
				putc(']', out);
			}
		fputs("]}", out);
	}
	fputc('}', out);
}

typedef void (*put_fn)(FILE *out, const struct model_interval *m, const struct model_domain *d,
                       bool csv);

/* The keys a sink shapes itself (text, a flag, objects and lists); every other key of a
 * domain is a count or gauge of the figure table, printed as a number or null. */
static const struct {
	enum figure_id figure;
	put_fn put;
} shaped[] = {
    {FIG_DOMID, put_domid},
    {FIG_NAME, put_name},
    {FIG_KIND, put_kind},
    {FIG_MISSING, put_missing},
    {FIG_DOM0_CPU_NS_BY_ROLE, put_cpu_by_role},
    {FIG_LAYERS, put_layers},
    {FIG_VBD_STATS, put_vbd_stats},
    {FIG_IO_LATENCY, put_io_latency},
};

static put_fn shaped_put(enum figure_id fig)
{
	for (size_t i = 0; i < sizeof(shaped) / sizeof(shaped[0]); i++)
		if (shaped[i].figure == fig)
			return shaped[i].put;
	return NULL;
}

/* A domain's key: in the JSON (and with FIGURE_CSV the CSV) of every interval. */
static bool domain_key(const struct figure *f)
{
	return f->scope == FIGURE_DOMAIN && f->key && f->form != FORM_SCREEN;
}

static void put_value(FILE *out, enum figure_id fig, const struct model_interval *m,
                      const struct model_domain *d, bool csv)
{
	put_fn put = shaped_put(fig);
	if (put)
		put(out, m, d, csv);
	else if (figure_known(fig, m, d))
		put_u64(out, figure_value(fig, m, d));
	else
		fputs("null", out); /* not collected, or what an import lacks: never 0 */
}

/* A CSV column's place: the named domain figures' (1), then the named host figures' (2),
 * then those of figures added to the table after the named ones (3), so that a column
 * added never moves one that was there (a reader may count columns); 0: no CSV column. */
static int csv_place(int i)
{
	const struct figure *f = figure_get((enum figure_id)i);
	bool host = f->scope == FIGURE_HOST && f->key;
	if (!(f->flags & FIGURE_CSV) || !(domain_key(f) || host))
		return 0;
	return i >= FIGURE_NAMED ? 3 : host ? 2 : 1;
}

void batch_keys_csv_header(FILE *out)
{
	const char *sep = "";
	for (int place = 1; place <= 3; place++)
		for (int i = 0; i < figure_count(); i++)
			if (csv_place(i) == place) {
				fprintf(out, "%s%s", sep, figure_get((enum figure_id)i)->key);
				sep = ",";
			}
}

void batch_keys_csv_row(FILE *out, const struct model_interval *m, const struct model_domain *d)
{
	const char *sep = "";
	for (int place = 1; place <= 3; place++)
		for (int i = 0; i < figure_count(); i++)
			if (csv_place(i) == place) {
				fputs(sep, out);
				put_value(out, (enum figure_id)i, m, d, true);
				sep = ",";
			}
}

void batch_put_figure(FILE *out, const char *before, enum figure_id fig,
                      const struct model_interval *m)
{
	batch_put_opt_u64(out, before, figure_known(fig, m, NULL), figure_value(fig, m, NULL));
}

void batch_keys_json(FILE *out, const struct model_interval *m, const struct model_domain *d)
{
	bool first = true;
	for (int i = 0; i < figure_count(); i++) {
		const struct figure *f = figure_get((enum figure_id)i);
		if (!domain_key(f) || !figure_present((enum figure_id)i, m))
			continue;
		fprintf(out, "%s\"%s\":", first ? "{" : ",", f->key);
		put_value(out, (enum figure_id)i, m, d, false);
		first = false;
	}
	fputc('}', out);
}
