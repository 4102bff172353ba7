/* metrics.c - cumulative series from intervals; see metrics.h. */
#include "export/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/latency.h"

void metrics_init(struct metrics_state *st)
{
	memset(st, 0, sizeof(*st));
}

void metrics_free(struct metrics_state *st)
{
	free(st->domains);
	free(st->disks);
	free(st->labels);
	metrics_init(st);
}

static const struct metrics_domain *find_series(const struct metrics_state *st, uint32_t domid)
{
	for (size_t i = 0; i < st->n_domains; i++)
		if (st->domains[i].domid == domid)
			return &st->domains[i];
	return NULL;
}

/* Does info describe another domain than the series under the same domid? */
static bool other_incarnation(const struct metrics_domain *old, const struct xio_domain *info)
{
	if (!info)
		return false;
	if (old->xen_generation && info->generation)
		return old->xen_generation != info->generation;
	return old->uuid[0] && info->uuid[0] && strncmp(old->uuid, info->uuid, sizeof(old->uuid));
}

/* The label use of domid in labels[0..*n) (capacity n_cap), added if new. */
static struct metrics_label_use *label_use(struct metrics_label_use *labels, size_t *n,
                                           uint32_t domid)
{
	for (size_t i = 0; i < *n; i++)
		if (labels[i].domid == domid)
			return &labels[i];
	labels[*n] = (struct metrics_label_use){.domid = domid};
	return &labels[(*n)++];
}

static uint32_t next_label(struct metrics_label_use *use, uint32_t xen_generation)
{
	uint32_t g =
	    xen_generation > use->last_generation ? xen_generation : use->last_generation + 1;
	use->last_generation = g;
	return g;
}

/* Adds the interval's counts of scope to values (by figure id); gauges take its value. */
static void add_figures(uint64_t *values, enum figure_scope scope, const struct model_interval *m,
                        const struct model_domain *d)
{
	for (int i = 0; i < figure_count(); i++) {
		const struct figure *f = figure_get((enum figure_id)i);
		if (f->scope != scope || !figure_is_scalar(f))
			continue;
		uint64_t v = figure_value((enum figure_id)i, m, d);
		values[i] = f->form == FORM_GAUGE ? v : values[i] + v;
	}
}

static void add_domain(struct metrics_domain *s, const struct model_interval *m,
                       const struct model_domain *d)
{
	add_figures(s->value, FIGURE_DOMAIN, m, d);
	for (int r = 0; r < XIO_CPU_ROLES; r++)
		s->cpu_ns_by_role[r] += d->cpu_ns_by_role[r];
	for (int op = 0; op < XIOTOP_LAT_OPS; op++) {
		s->lat_untimed[op] = d->lat_untimed[op];
		if (!d->lat_untimed[op])
			latency_merge(&s->lat[op], &d->lat[op]);
	}
	if (d->info) {
		snprintf(s->name, sizeof(s->name), "%s", d->info->name);
		if (d->info->generation)
			s->xen_generation = d->info->generation;
		if (d->info->uuid[0])
			snprintf(s->uuid, sizeof(s->uuid), "%s", d->info->uuid);
	}
}

static int by_domid_generation(const void *a, const void *b)
{
	const struct metrics_domain *x = a, *y = b;
	if (x->domid != y->domid)
		return x->domid < y->domid ? -1 : 1;
	return x->generation < y->generation ? -1 : x->generation > y->generation;
}

/* The interval's domains as series, into doms (m->n_domains) and labels (grown). */
static void next_domains(const struct metrics_state *st, const struct model_interval *m,
                         struct metrics_domain *doms, struct metrics_label_use *labels,
                         size_t *n_labels)
{
	for (size_t i = 0; i < m->n_domains; i++) {
		const struct model_domain *d = &m->domains[i];
		const struct metrics_domain *old = find_series(st, d->domid);
		struct metrics_domain *s = &doms[i];
		if (old && !other_incarnation(old, d->info)) {
			*s = *old;
		} else {
			memset(s, 0, sizeof(*s));
			s->domid = d->domid;
			s->generation = next_label(label_use(labels, n_labels, d->domid),
			                           d->info ? d->info->generation : 0);
		}
		add_domain(s, m, d);
	}
	qsort(doms, m->n_domains, sizeof(*doms), by_domid_generation);
}

static const struct metrics_disk *find_disk(const struct metrics_state *st, uint32_t dev,
                                            const char *name)
{
	for (size_t i = 0; i < st->n_disks; i++)
		if (st->disks[i].dev == dev && !strcmp(st->disks[i].name, name))
			return &st->disks[i];
	return NULL;
}

static void next_disks(const struct metrics_state *st, const struct model_interval *m,
                       struct metrics_disk *disks)
{
	for (size_t i = 0; i < m->n_disks; i++) {
		const struct xio_disk *x = m->disks[i].disk;
		const struct metrics_disk *old = find_disk(st, x->dev, x->name);
		struct metrics_disk *d = &disks[i];
		if (old) {
			*d = *old;
		} else {
			memset(d, 0, sizeof(*d));
			d->dev = x->dev;
			snprintf(d->name, sizeof(d->name), "%s", x->name);
		}
		d->rd_bytes += m->disks[i].rd_bytes;
		d->wr_bytes += m->disks[i].wr_bytes;
	}
}

static void add_host(struct metrics_state *st, const struct model_interval *m)
{
	st->intervals++;
	st->realtime_ns = m->realtime_ns;
	st->has_cpu = m->has_cpu;
	st->has_dirty = m->has_dirty;
	st->has_latency = m->has_latency;
	st->absent = m->absent;
	add_figures(st->host, FIGURE_HOST, m, NULL);
	snprintf(st->hooks, sizeof(st->hooks), "%s", m->hooks ? m->hooks : "");
}

int metrics_add_interval(struct metrics_state *st, const struct model_interval *m)
{
	struct metrics_domain *doms = calloc(m->n_domains + 1, sizeof(*doms));
	struct metrics_disk *disks = calloc(m->n_disks + 1, sizeof(*disks));
	struct metrics_label_use *labels = calloc(st->n_labels + m->n_domains + 1, sizeof(*labels));
	if (!doms || !disks || !labels) {
		free(doms);
		free(disks);
		free(labels);
		return -1;
	}
	size_t n_labels = st->n_labels;
	if (n_labels)
		memcpy(labels, st->labels, n_labels * sizeof(*labels));
	next_domains(st, m, doms, labels, &n_labels);
	next_disks(st, m, disks);
	free(st->domains);
	free(st->disks);
	free(st->labels);
	st->domains = doms;
	st->n_domains = m->n_domains;
	st->disks = disks;
	st->n_disks = m->n_disks;
	st->labels = labels;
	st->n_labels = n_labels;
	add_host(st, m);
	return 0;
}
