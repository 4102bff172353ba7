/* rows.c - the table's rows of an interval and CPU totals per row; see rows.h. */
#include "ui/rows.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/figures.h"
#include "core/latency.h"

static void fill_domain_figures(struct field_row *r, const struct model_interval *m,
                                const struct model_domain *d)
{
	r->dom = d;
	r->name = d->info ? d->info->name : NULL;
	r->backend_kind = d->info ? d->info->kind : NULL;
	r->missing = d->info && d->info->missing;
	r->guest_rd_bytes = d->io.guest_rd_bytes;
	r->guest_wr_bytes = d->io.guest_wr_bytes;
	r->guest_rd_ios = d->io.guest_rd_ios;
	r->guest_wr_ios = d->io.guest_wr_ios;
	r->phys_wr_bytes = d->io.phys_wr_bytes;
	r->double_counted_bytes = d->io.double_counted_bytes;
	r->dirty_backlog_bytes = d->dirty_backlog_bytes;
	r->cpu_ns = d->cpu_ns;
	r->guest_cpu_ns = d->guest_cpu_ns;
	struct xiotop_lat both = d->lat[XIOTOP_LAT_READ];
	latency_merge(&both, &d->lat[XIOTOP_LAT_WRITE]);
	/* "-" too where it was not timed (--no-latency, or a kind of its backends was not) */
	bool timed = figure_known(FIG_LATENCY_P50, m, d);
	r->lat_p50_ns = timed ? latency_quantile_ns(&both, 0.5) : -1;
	r->lat_p99_ns = timed ? latency_quantile_ns(&both, 0.99) : -1;
}

int field_rows_build(const struct model_interval *m, struct field_row **rows, size_t *cap,
                     size_t *n)
{
	size_t need = m->n_domains + 2;
	if (need > *cap) {
		struct field_row *p = realloc(*rows, need * sizeof(*p));
		if (!p)
			return -1;
		*rows = p;
		*cap = need;
	}
	struct field_row *out = *rows;
	size_t k = 0;
	const struct model_domain *dom0 = NULL;
	for (size_t i = 0; i < m->n_domains; i++) {
		const struct model_domain *d = &m->domains[i];
		if (d->domid == 0) {
			dom0 = d;
			continue;
		}
		struct field_row *r = &out[k++];
		memset(r, 0, sizeof(*r));
		r->kind = ROW_DOMAIN;
		r->domid = d->domid;
		fill_domain_figures(r, m, d);
	}

	struct field_row *r = &out[k++];
	memset(r, 0, sizeof(*r));
	r->kind = ROW_DOM0;
	r->guest_cpu_ns = -1;
	r->lat_p50_ns = r->lat_p99_ns = -1;
	if (dom0)
		fill_domain_figures(r, m, dom0);
	r->cpu_ns = (dom0 ? dom0->cpu_ns : 0) + model_dom0_own_cpu_ns(m);

	r = &out[k++];
	memset(r, 0, sizeof(*r));
	r->kind = ROW_UNATTRIBUTED;
	r->domid = XIOTOP_DOM_NONE;
	r->guest_rd_bytes = m->unattr_rd_bytes;
	r->guest_wr_bytes = m->unattr_wr_bytes;
	r->cpu_ns = m->cpu_unattributed_ns;
	r->guest_cpu_ns = -1;
	r->lat_p50_ns = r->lat_p99_ns = -1; /* bios for no domain are not timed */

	for (size_t i = 0; i < k; i++) {
		out[i].interval_s = m->interval_s;
		out[i].m = m;
	}
	*n = k;
	return 0;
}

/* --- dom0 CPU per row since the start ------------------------------------------------ */

static uint32_t total_key(const struct field_row *r)
{
	return r->kind == ROW_DOM0 ? 0 : r->domid;
}

static size_t total_slot(const struct cpu_totals *t, uint32_t key, bool *found)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < t->n && t->v[lo].key == key;
	return lo;
}

static void add_total(struct cpu_totals *t, uint32_t key, uint64_t ns)
{
	bool found;
	size_t at = total_slot(t, key, &found);
	if (!found) {
		struct cpu_total *p = realloc(t->v, (t->n + 1) * sizeof(*p));
		if (!p)
			return; /* the total stays short; the figures of this interval do not */
		t->v = p;
		memmove(&p[at + 1], &p[at], (t->n - at) * sizeof(*p));
		p[at].key = key;
		p[at].ns = 0;
		t->n++;
	}
	t->v[at].ns += ns;
}

void cpu_totals_add(struct cpu_totals *t, const struct field_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (field_row_known(&rows[i], FIG_DOM0_CPU_NS))
			add_total(t, total_key(&rows[i]), rows[i].cpu_ns);
}

void cpu_totals_fill(const struct cpu_totals *t, struct field_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool found;
		size_t at = total_slot(t, total_key(&rows[i]), &found);
		rows[i].cpu_total_ns = found ? t->v[at].ns : 0;
	}
}

void cpu_totals_clear(struct cpu_totals *t)
{
	t->n = 0;
}

void cpu_totals_free(struct cpu_totals *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}
