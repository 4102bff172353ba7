/* day.c - the recording at a glance per domain; see day.h. */
#include "explain/day.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/figures.h"
#include "core/model.h"

/* minutes */
static const int64_t bucket_minutes[] = {1, 5, 10, 15, 30, 60, 120, 240, 360, 720, 1440};

static int64_t bucket_of(int64_t span_ns, double interval_s)
{
	int64_t least = (int64_t)(interval_s * 1e9);
	for (size_t i = 0; i < sizeof(bucket_minutes) / sizeof(*bucket_minutes); i++) {
		int64_t b = bucket_minutes[i] * 60 * NS_PER_S;
		if (b >= least && span_ns / b < EX_DAY_BUCKETS)
			return b;
	}
	return (span_ns / EX_DAY_BUCKETS + 1 > least ? span_ns / EX_DAY_BUCKETS + 1 : least);
}

static struct ex_day_domain *domain_of(struct ex_day *day, const struct model_domain *d)
{
	for (size_t i = 0; i < day->n_doms; i++)
		if (day->doms[i].domid == d->domid)
			return &day->doms[i];
	if (day->n_doms == EX_DAY_DOMAINS)
		return NULL;
	struct ex_day_domain *x = &day->doms[day->n_doms++];
	memset(x, 0, sizeof(*x));
	x->domid = d->domid;
	x->guest_known = x->phys_known = true;
	if (d->info)
		snprintf(x->name, sizeof(x->name), "%s", d->info->name);
	return x;
}

/* Bucket b, the interval between samples a and b of the edges. */
static void add_bucket(struct ex_day *day, size_t b, const struct model_interval *m)
{
	for (size_t i = 0; i < m->n_domains; i++) {
		const struct model_domain *d = &m->domains[i];
		bool guest = figure_known(FIG_GUEST_WR_BYTES, m, d);
		bool phys = figure_known(FIG_PHYS_WR_BYTES, m, d);
		uint64_t g = d->io.guest_rd_bytes + d->io.guest_wr_bytes;
		uint64_t p = d->io.phys_rd_bytes + d->io.phys_wr_bytes;
		if (!g && !p)
			continue;
		struct ex_day_domain *x = domain_of(day, d);
		if (!x)
			continue;
		x->guest_known &= guest;
		x->phys_known &= phys;
		x->guest_bytes += g;
		x->guest_bps[b] = m->interval_s > 0 ? (double)g / m->interval_s : 0;
		x->phys_bps[b] = m->interval_s > 0 ? (double)p / m->interval_s : 0;
	}
}

static int by_guest_bytes(const void *a, const void *b)
{
	const struct ex_day_domain *x = a, *y = b;
	return x->guest_bytes > y->guest_bytes ? -1 : x->guest_bytes < y->guest_bytes;
}

int explain_day_collect(struct rec_reader *r, struct ex_day *day, struct xerr *err)
{
	memset(day, 0, sizeof(*day));
	size_t n = rec_count(r);
	if (n < 2)
		return 0;
	const char *interval = rec_meta(r, "interval_s");
	int64_t span = rec_time(r, n - 1) - rec_time(r, 0);
	day->bucket_ns = bucket_of(span, interval ? atof(interval) : 1);
	day->t0_ns = rec_time(r, 0) - rec_time(r, 0) % day->bucket_ns;
	day->n_buckets = (size_t)((rec_time(r, n - 1) - day->t0_ns) / day->bucket_ns) + 1;
	if (day->n_buckets > EX_DAY_BUCKETS)
		day->n_buckets = EX_DAY_BUCKETS;
	struct xio_sample prev, cur;
	size_t at_prev = 0;
	if (rec_read(r, 0, &prev, err))
		return -1;
	for (size_t b = 0; b < day->n_buckets; b++) {
		size_t at =
		    rec_find_at_or_before(r, day->t0_ns + (int64_t)(b + 1) * day->bucket_ns);
		if (b + 1 == day->n_buckets)
			at = n - 1;
		if (at == SIZE_MAX || at <= at_prev) {
			day->gap[b] = true;
			continue;
		}
		if (rec_read(r, at, &cur, err)) {
			sample_free(&prev);
			return -1;
		}
		struct model_interval m;
		if (model_compute(&prev, &cur, &m) == 0) {
			add_bucket(day, b, &m);
			model_free(&m);
		}
		sample_free(&prev);
		prev = cur;
		at_prev = at;
	}
	sample_free(&prev);
	qsort(day->doms, day->n_doms, sizeof(*day->doms), by_guest_bytes);
	return 0;
}
