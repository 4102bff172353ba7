/* batch_keys.c - a domain's keys of CSV and JSON, from the figure table; see batch_keys.h. */
#include "ui/batch_keys.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/figures.h"
#include "core/latency.h"
#include "core/sanitize.h"
#include "ui/fields.h"

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
/* A record's CSV cells, flattened (its JSON members' paths joined with '.'), comma
 * separated: their names when d is NULL, else d's values (null: not known). */
typedef void (*csv_fn)(FILE *out, const char *key, const struct model_interval *m,
                       const struct model_domain *d);

static void csv_cpu_by_role(FILE *out, const char *key, const struct model_interval *m,
                            const struct model_domain *d)
{
	for (int r = 0; r < XIO_CPU_ROLES; r++) {
		if (r)
			putc(',', out);
		if (!d)
			fprintf(out, "%s.%s", key, figure_cpu_role_key((enum xio_cpu_role)r));
		else if (!figure_known(FIG_DOM0_CPU_NS_BY_ROLE, m, d))
			fputs("null", out);
		else
			put_u64(out, d->cpu_ns_by_role[r]);
	}
}

static const char *const lat_ops[XIOTOP_LAT_OPS] = {"read", "write"};
static const char *const lat_members[] = {"ios", "sum_ns", "p50_ns", "p99_ns"};
#define LAT_MEMBERS (sizeof(lat_members) / sizeof(lat_members[0]))

/* io_latency's figures by op; its buckets, a list, are JSON's only. */
static void csv_io_latency(FILE *out, const char *key, const struct model_interval *m,
                           const struct model_domain *d)
{
	for (int op = 0; op < XIOTOP_LAT_OPS; op++)
		for (size_t k = 0; k < LAT_MEMBERS; k++) {
			if (op || k)
				putc(',', out);
			if (!d) {
				fprintf(out, "%s.%s.%s", key, lat_ops[op], lat_members[k]);
				continue;
			}
			const struct xiotop_lat *h = &d->lat[op];
			if (!figure_known(FIG_IO_LATENCY, m, d))
				fputs("null", out);
			else if (k == 0)
				put_u64(out, h->count);
			else if (k == 1)
				put_u64(out, h->sum_ns);
			else
				put_quantile(out, "", h, k == 2 ? 0.5 : 0.99);
		}
}

/* The keys a sink shapes itself (text, a flag, objects and lists); every other key of a
 * domain is a count or gauge of the figure table, printed as a number or null. A list's
 * length varies from interval to interval: it has no CSV column. */
static const struct {
	enum figure_id figure;
	put_fn put;
	csv_fn csv;     /* a record's cells; NULL: put's one cell */
	unsigned cells; /* its CSV columns (0: JSON only) */
} shaped[] = {
    {FIG_DOMID, put_domid, NULL, 1},
    {FIG_NAME, put_name, NULL, 1},
    {FIG_KIND, put_kind, NULL, 1},
    {FIG_MISSING, put_missing, NULL, 1},
    {FIG_DOM0_CPU_NS_BY_ROLE, put_cpu_by_role, csv_cpu_by_role, XIO_CPU_ROLES},
    {FIG_LAYERS, put_layers, NULL, 0},
    {FIG_VBD_STATS, put_vbd_stats, NULL, 0},
    {FIG_IO_LATENCY, put_io_latency, csv_io_latency, XIOTOP_LAT_OPS *LAT_MEMBERS},
};
#define N_SHAPED (sizeof(shaped) / sizeof(shaped[0]))

/* The shaped entry of fig, or N_SHAPED. */
static size_t shaped_at(enum figure_id fig)
{
	size_t i = 0;
	while (i < N_SHAPED && shaped[i].figure != fig)
		i++;
	return i;
}

/* A domain's key: in the JSON (and the CSV) of every interval. */
static bool domain_key(const struct figure *f)
{
	return f->scope == FIGURE_DOMAIN && f->key && f->form != FORM_SCREEN;
}

static void put_value(FILE *out, enum figure_id fig, const struct model_interval *m,
                      const struct model_domain *d, bool csv)
{
	size_t at = shaped_at(fig);
	if (at < N_SHAPED)
		shaped[at].put(out, m, d, csv);
	else if (figure_known(fig, m, d))
		put_u64(out, figure_value(fig, m, d));
	else
		fputs("null", out); /* not collected, or what an import lacks: never 0 */
}

/* How many CSV columns a figure has: 1 for a count, a gauge or a text, a record's
 * flattened members, 0 for a list or a figure without a key. */
static unsigned csv_cells(enum figure_id fig)
{
	const struct figure *f = figure_get(fig);
	if (!domain_key(f) && !(f->scope == FIGURE_HOST && f->key))
		return 0;
	size_t at = shaped_at(fig);
	if (at < N_SHAPED)
		return shaped[at].cells;
	return figure_is_scalar(f) ? 1 : 0;
}

/* A CSV column's place: those CSV has had from the start (FIGURE_CSV_FIRST), the
 * domain's (1) then the host's (2); every other figure of the table that JSON holds, in
 * the table's order (3); then figures added to the table after the named ones (4): a
 * column added never moves one that was there (a reader may count columns). 0: none. */
static int csv_place(int i)
{
	const struct figure *f = figure_get((enum figure_id)i);
	if (!csv_cells((enum figure_id)i))
		return 0;
	if (i >= FIGURE_NAMED)
		return 4;
	if (!(f->flags & FIGURE_CSV_FIRST))
		return 3;
	return f->scope == FIGURE_HOST ? 2 : 1;
}

/* Each CSV column's figure in order, into figs; their count. */
static int csv_order(enum figure_id *figs)
{
	int n = 0;
	for (int place = 1; place <= 4; place++)
		for (int i = 0; i < figure_count(); i++)
			if (csv_place(i) == place)
				figs[n++] = (enum figure_id)i;
	return n;
}

void batch_keys_csv_header(FILE *out)
{
	enum figure_id figs[FIGURE_MAX];
	int n = csv_order(figs);
	for (int i = 0; i < n; i++) {
		const char *key = figure_get(figs[i])->key;
		size_t at = shaped_at(figs[i]);
		if (i)
			putc(',', out);
		if (at < N_SHAPED && shaped[at].csv)
			shaped[at].csv(out, key, NULL, NULL);
		else
			fputs(key, out);
	}
}

/* One cell (or a record's cells) of a domain's CSV row. */
static void csv_domain_cells(FILE *out, enum figure_id fig, const struct model_interval *m,
                             const struct model_domain *d)
{
	size_t at = shaped_at(fig);
	if (at < N_SHAPED && shaped[at].csv)
		shaped[at].csv(out, figure_get(fig)->key, m, d);
	else
		put_value(out, fig, m, d, true);
}

/* (unattributed)'s cells: its bytes and CPU where a domain has them (ui/fields.h
 * field_row_figure), empty where a domain's figure does not apply to it. */
static void csv_unattributed_cells(FILE *out, enum figure_id fig, const struct model_interval *m)
{
	enum figure_id shown;
	if (fig == FIG_NAME) {
		csv_put_field(out, field_row_name(&(struct field_row){.kind = ROW_UNATTRIBUTED}));
	} else if (fig != FIG_DOMID && field_row_figure(ROW_UNATTRIBUTED, fig, &shown)) {
		batch_put_opt_u64(out, "", figure_known(shown, m, NULL),
		                  figure_value(shown, m, NULL));
	} else {
		for (unsigned c = 1; c < csv_cells(fig); c++)
			putc(',', out);
	}
}

void batch_keys_csv_row(FILE *out, const struct model_interval *m, const struct model_domain *d)
{
	enum figure_id figs[FIGURE_MAX];
	int n = csv_order(figs);
	for (int i = 0; i < n; i++) {
		if (i)
			putc(',', out);
		if (figure_get(figs[i])->scope == FIGURE_HOST)
			put_value(out, figs[i], m, NULL, true);
		else if (d)
			csv_domain_cells(out, figs[i], m, d);
		else
			csv_unattributed_cells(out, figs[i], m);
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
