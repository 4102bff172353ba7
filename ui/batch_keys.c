/* batch_keys.c - the per-domain key table of CSV and JSON; see batch_keys.h. */
#include "ui/batch_keys.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/latency.h"
#include "core/sanitize.h"
#include "ui/fields.h"

static const char *domain_name(const struct model_domain *d)
{
	return d->info && d->info->name[0] ? d->info->name : NULL;
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
	static const char *const role_keys[XS_CPU_ROLES] = {"backend", "device_model", "loop",
	                                                    "writeback"};
	(void)csv;
	if (!m->has_cpu) {
		fputs("null", out);
		return;
	}
	for (int r = 0; r < XS_CPU_ROLES; r++)
		fprintf(out, "%s\"%s\":%" PRIu64, r ? "," : "{", role_keys[r],
		        d->cpu_ns_by_role[r]);
	fputc('}', out);
}

static void put_layers(FILE *out, const struct model_interval *m, const struct model_domain *d,
                       bool csv)
{
	(void)m;
	(void)csv;
	fputc('[', out);
	for (size_t j = 0; j < d->n_layers; j++) {
		const struct model_layer *l = &d->layers[j];
		fprintf(out, "%s{", j ? "," : "");
		if (l->is_file) {
			fprintf(out, "\"file\":");
			json_put_string(out, d->info && d->info->file[0] ? d->info->file : NULL);
		} else {
			fprintf(out, "\"dev\":");
			json_put_string(out, l->name);
		}
		fprintf(out,
		        ",\"role\":\"%s\",\"leaf\":%s,\"rd_bytes\":%" PRIu64
		        ",\"wr_bytes\":%" PRIu64 "}",
		        model_role_name(l->role), l->is_leaf ? "true" : "false", l->rd_bytes,
		        l->wr_bytes);
	}
	fputc(']', out);
}

/* A counter that was not collected prints null, never a misleading 0. */
void batch_put_opt_u64(FILE *out, const char *key, bool known, uint64_t v)
{
	fputs(key, out);
	if (known)
		fprintf(out, "%" PRIu64, v);
	else
		fputs("null", out);
}

/* blkback's own per-vbd counts beside xiotop's (only on a Xen dom0: has_vbd_stats). */
static void put_vbd_stats(FILE *out, const struct model_interval *m, const struct model_domain *d,
                          bool csv)
{
	(void)m;
	(void)csv;
	fputc('[', out);
	for (size_t j = 0; j < d->n_vbds; j++) {
		const struct model_vbd *v = &d->vbds[j];
		fprintf(out,
		        "%s{\"devid\":%u,\"rd_bytes\":%" PRIu64 ",\"wr_bytes\":%" PRIu64
		        ",\"rd_req\":%" PRIu64 ",\"wr_req\":%" PRIu64,
		        j ? "," : "", v->devid, v->rd_bytes, v->wr_bytes, v->rd_req, v->wr_req);
		batch_put_opt_u64(out, ",\"xiotop_rd_bytes\":", v->xiotop_known,
		                  v->xiotop_rd_bytes);
		batch_put_opt_u64(out, ",\"xiotop_wr_bytes\":", v->xiotop_known,
		                  v->xiotop_wr_bytes);
		fprintf(out, ",\"disagree\":%s}", v->disagree ? "true" : "false");
	}
	fputc(']', out);
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

/* I/O latency by op this interval (only when it was timed: --latency). */
static void put_io_latency(FILE *out, const struct model_interval *m, const struct model_domain *d,
                           bool csv)
{
	static const char *const ops[XIOTOP_LAT_OPS] = {"read", "write"};
	(void)m;
	(void)csv;
	for (int op = 0; op < XIOTOP_LAT_OPS; op++) {
		const struct xiotop_lat *h = &d->lat[op];
		fprintf(out, "%s\"%s\":{\"ios\":%llu,\"sum_ns\":%llu", op ? "," : "{", ops[op],
		        h->count, h->sum_ns);
		put_quantile(out, ",\"p50_ns\":", h, 0.5);
		put_quantile(out, ",\"p99_ns\":", h, 0.99);
		/* the non-empty buckets as [lower bound ns, ios]: intervals add up exactly */
		fputs(",\"buckets\":[", out);
		for (int b = 0, n = 0; b < XIOTOP_LAT_BUCKETS; b++)
			if (h->buckets[b])
				fprintf(out, "%s[%" PRIu64 ",%llu]", n++ ? "," : "",
				        latency_bucket_low_ns(b), h->buckets[b]);
		fputs("]}", out);
	}
	fputc('}', out);
}

/* A counter of the domain: false when it was not collected (printed null). */
typedef bool (*count_fn)(const struct model_interval *m, const struct model_domain *d, uint64_t *v);

#define COUNT(fn, known_expr, value_expr)                                                          \
	static bool fn(const struct model_interval *m, const struct model_domain *d, uint64_t *v)  \
	{                                                                                          \
		(void)m;                                                                           \
		*v = (value_expr);                                                                 \
		return (known_expr);                                                               \
	}

/* what an imported recording lacks (model_interval.absent) prints null too */
#define GUEST_KNOWN (!(m->absent & XS_ABSENT_GUEST_IO))
#define STACK_KNOWN (!(m->absent & XS_ABSENT_STACK))
COUNT(guest_rd_bytes, GUEST_KNOWN, d->guest_rd_bytes)
COUNT(guest_wr_bytes, GUEST_KNOWN, d->guest_wr_bytes)
COUNT(guest_rd_ios, GUEST_KNOWN, d->guest_rd_ios)
COUNT(guest_wr_ios, GUEST_KNOWN, d->guest_wr_ios)
COUNT(phys_rd_bytes, STACK_KNOWN, d->phys_rd_bytes)
COUNT(phys_wr_bytes, STACK_KNOWN, d->phys_wr_bytes)
COUNT(double_counted_bytes, STACK_KNOWN, d->double_counted_bytes)
COUNT(dom0_cpu_ns, m->has_cpu, d->cpu_ns)
COUNT(guest_cpu_ns, d->guest_cpu_ns >= 0, (uint64_t)d->guest_cpu_ns)
COUNT(dirty_backlog_bytes, m->has_dirty, d->dirty_backlog_bytes)
COUNT(dirtied_bytes, m->has_dirty, d->dirtied_bytes)
COUNT(written_back_bytes, m->has_dirty, d->written_back_bytes)

/* When a key is present: always, only when the interval has blkback's vbd stats, only
 * when latency was timed (--latency). */
enum key_when { KEY_ALWAYS, KEY_VBD_ONLY, KEY_LATENCY_ONLY };

typedef void (*put_fn)(FILE *out, const struct model_interval *m, const struct model_domain *d,
                       bool csv);

#define NO_COLUMN FIELD_COUNT

struct domain_key {
	enum field_id column; /* the console column showing it: its key names it */
	const char *name;     /* NO_COLUMN: the key's own name */
	bool csv;             /* also a CSV column */
	count_fn count;       /* a counter, or: */
	put_fn put;           /* a value of its own form */
	enum key_when only;   /* present always, or only with what it shows */
};

/* In output order: the JSON contract's order, CSV's columns a subsequence of it. */
static const struct domain_key keys[] = {
    {FIELD_DOMID, NULL, true, NULL, put_domid, KEY_ALWAYS},
    {FIELD_NAME, NULL, true, NULL, put_name, KEY_ALWAYS},
    {FIELD_KIND, NULL, false, NULL, put_kind, KEY_ALWAYS},
    {NO_COLUMN, "missing", false, NULL, put_missing, KEY_ALWAYS},
    {FIELD_GUEST_RD, NULL, true, guest_rd_bytes, NULL, KEY_ALWAYS},
    {FIELD_GUEST_WR, NULL, true, guest_wr_bytes, NULL, KEY_ALWAYS},
    {FIELD_RD_IOPS, NULL, true, guest_rd_ios, NULL, KEY_ALWAYS},
    {FIELD_WR_IOPS, NULL, true, guest_wr_ios, NULL, KEY_ALWAYS},
    {NO_COLUMN, "phys_rd_bytes", true, phys_rd_bytes, NULL, KEY_ALWAYS},
    {FIELD_PHYS_WR, NULL, true, phys_wr_bytes, NULL, KEY_ALWAYS},
    {FIELD_DOUBLE, NULL, true, double_counted_bytes, NULL, KEY_ALWAYS},
    {FIELD_CPU_PCT, NULL, false, dom0_cpu_ns, NULL, KEY_ALWAYS},
    {NO_COLUMN, "dom0_cpu_ns_by_role", false, NULL, put_cpu_by_role, KEY_ALWAYS},
    {FIELD_GUEST_CPU, NULL, false, guest_cpu_ns, NULL, KEY_ALWAYS},
    {FIELD_DIRTY, NULL, false, dirty_backlog_bytes, NULL, KEY_ALWAYS},
    {NO_COLUMN, "dirtied_bytes", false, dirtied_bytes, NULL, KEY_ALWAYS},
    {NO_COLUMN, "written_back_bytes", false, written_back_bytes, NULL, KEY_ALWAYS},
    {NO_COLUMN, "layers", false, NULL, put_layers, KEY_ALWAYS},
    {NO_COLUMN, "vbd_stats", false, NULL, put_vbd_stats, KEY_VBD_ONLY},
    {NO_COLUMN, "io_latency", false, NULL, put_io_latency, KEY_LATENCY_ONLY},
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static const char *key_name(const struct domain_key *k)
{
	return k->column == NO_COLUMN ? k->name : field_get(k->column)->key;
}

static void put_value(FILE *out, const struct domain_key *k, const struct model_interval *m,
                      const struct model_domain *d, bool csv)
{
	uint64_t v;
	if (k->put)
		k->put(out, m, d, csv);
	else if (k->count(m, d, &v))
		fprintf(out, "%" PRIu64, v);
	else
		fputs("null", out);
}

void batch_keys_csv_header(FILE *out)
{
	bool first = true;
	for (size_t i = 0; i < N_KEYS; i++) {
		if (!keys[i].csv)
			continue;
		fprintf(out, "%s%s", first ? "" : ",", key_name(&keys[i]));
		first = false;
	}
}

void batch_keys_csv_row(FILE *out, const struct model_interval *m, const struct model_domain *d)
{
	bool first = true;
	for (size_t i = 0; i < N_KEYS; i++) {
		if (!keys[i].csv)
			continue;
		if (!first)
			fputc(',', out);
		put_value(out, &keys[i], m, d, true);
		first = false;
	}
}

void batch_keys_json(FILE *out, const struct model_interval *m, const struct model_domain *d)
{
	for (size_t i = 0; i < N_KEYS; i++) {
		if ((keys[i].only == KEY_VBD_ONLY && !m->has_vbd_stats) ||
		    (keys[i].only == KEY_LATENCY_ONLY && !m->has_latency))
			continue;
		fprintf(out, "%s\"%s\":", i ? "," : "{", key_name(&keys[i]));
		put_value(out, &keys[i], m, d, false);
	}
	fputc('}', out);
}
