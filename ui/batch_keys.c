/* batch_keys.c - the per-domain key table of CSV and JSON; see batch_keys.h. */
#include "ui/batch_keys.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>

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

typedef void (*put_fn)(FILE *out, const struct model_interval *m, const struct model_domain *d,
                       bool csv);

#define NO_COLUMN FIELD_COUNT

struct domain_key {
	enum field_id column; /* the console column showing it: its key names it */
	const char *name;     /* NO_COLUMN: the key's own name */
	bool csv;             /* also a CSV column */
	count_fn count;       /* a counter, or: */
	put_fn put;           /* a value of its own form */
	bool vbd_only;        /* present only when the interval has blkback's vbd stats */
};

/* In output order: the JSON contract's order, CSV's columns a subsequence of it. */
static const struct domain_key keys[] = {
    {FIELD_DOMID, NULL, true, NULL, put_domid, false},
    {FIELD_NAME, NULL, true, NULL, put_name, false},
    {FIELD_KIND, NULL, false, NULL, put_kind, false},
    {NO_COLUMN, "missing", false, NULL, put_missing, false},
    {FIELD_GUEST_RD, NULL, true, guest_rd_bytes, NULL, false},
    {FIELD_GUEST_WR, NULL, true, guest_wr_bytes, NULL, false},
    {FIELD_RD_IOPS, NULL, true, guest_rd_ios, NULL, false},
    {FIELD_WR_IOPS, NULL, true, guest_wr_ios, NULL, false},
    {NO_COLUMN, "phys_rd_bytes", true, phys_rd_bytes, NULL, false},
    {FIELD_PHYS_WR, NULL, true, phys_wr_bytes, NULL, false},
    {FIELD_DOUBLE, NULL, true, double_counted_bytes, NULL, false},
    {FIELD_CPU_PCT, NULL, false, dom0_cpu_ns, NULL, false},
    {NO_COLUMN, "dom0_cpu_ns_by_role", false, NULL, put_cpu_by_role, false},
    {FIELD_GUEST_CPU, NULL, false, guest_cpu_ns, NULL, false},
    {FIELD_DIRTY, NULL, false, dirty_backlog_bytes, NULL, false},
    {NO_COLUMN, "dirtied_bytes", false, dirtied_bytes, NULL, false},
    {NO_COLUMN, "written_back_bytes", false, written_back_bytes, NULL, false},
    {NO_COLUMN, "layers", false, NULL, put_layers, false},
    {NO_COLUMN, "vbd_stats", false, NULL, put_vbd_stats, true},
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
		if (keys[i].vbd_only && !m->has_vbd_stats)
			continue;
		fprintf(out, "%s\"%s\":", i ? "," : "{", key_name(&keys[i]));
		put_value(out, &keys[i], m, d, false);
	}
	fputc('}', out);
}
