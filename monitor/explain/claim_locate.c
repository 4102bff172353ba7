/* claim_locate.c - a claim's run found in a domain's timeline: ex_locate_claim()
 * (explain.h).
 *
 * A benchmark run inside a guest leaves no mark in dom0's recording; what it leaves is
 * its bytes at the top of the domain's stack. Guest bytes are never negative, so for each
 * start interval that moved bytes one forward pointer finds the end at which the bytes
 * first reach the claim's; that end and the last one before it that moved bytes are the
 * candidates from that start, each when within the tolerance. Overlapping candidates are
 * one run seen from several starts: of those the nearest in bytes stands for it (dropping
 * a run's first intervals would always bring a cached run's span nearer its claimed
 * seconds). Between runs, the span nearest the claimed seconds wins.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "explain/explain.h"

static uint64_t way_bytes(const struct ex_point *p, bool write)
{
	return write ? p->guest_wr_bytes : p->guest_rd_bytes;
}

static double start_of(const struct ex_point *p)
{
	return p->t - (p->interval_s > 0 ? p->interval_s : 0);
}

struct candidate {
	size_t first, last;
	double span, byte_err, span_err;
};

/* Between runs: nearer the claimed seconds, then nearer in bytes, then the earlier. */
static bool better_run(const struct candidate *a, const struct candidate *b, double tick)
{
	if (fabs(a->span_err - b->span_err) > tick)
		return a->span_err < b->span_err;
	if (fabs(a->byte_err - b->byte_err) > 1e-3)
		return a->byte_err < b->byte_err;
	return a->first < b->first;
}

struct pick {
	struct candidate best, cluster;
	bool have_best, have_cluster;
	double tick;
	/* every run's representative, in order (ex_find_stretches): NULL when only the best
	 * is wanted */
	struct candidate *runs;
	size_t n_runs, max_runs;
};

/* A run closed: kept, and weighed against the best so far. */
static void close_run(struct pick *p)
{
	if (p->runs && p->n_runs < p->max_runs)
		p->runs[p->n_runs++] = p->cluster;
	if (!p->have_best || better_run(&p->cluster, &p->best, p->tick)) {
		p->best = p->cluster;
		p->have_best = true;
	}
}

/* A candidate: joins the run whose best candidate it overlaps, or closes that run and
 * starts another (candidates come in order of their first interval). */
static void offer(struct pick *p, const struct candidate *c)
{
	if (p->have_cluster && c->first <= p->cluster.last) {
		if (c->byte_err < p->cluster.byte_err - 1e-9)
			p->cluster = *c;
		return;
	}
	if (p->have_cluster)
		close_run(p);
	p->cluster = *c;
	p->have_cluster = true;
}

static void offer_span(struct pick *pk, const struct ex_point *series, size_t first, size_t last,
                       double sum, uint64_t bytes, double seconds)
{
	struct candidate c = {.first = first, .last = last};
	c.span = series[last].t - start_of(&series[first]);
	c.byte_err = fabs(sum - (double)bytes) / (double)bytes;
	c.span_err = seconds > 0 ? fabs(c.span - seconds) : c.span;
	if (pk->tick == 0 && series[first].interval_s > 0)
		pk->tick = series[first].interval_s / 2;
	offer(pk, &c);
}

/* Every start that moved bytes that way, its candidate ends offered to pk. */
static void scan(struct pick *pk, const struct ex_point *series, size_t n, size_t from,
                 uint64_t bytes, double seconds, bool write)
{
	double lo = (double)bytes * (1 - EX_LOCATE_BYTES_TOLERANCE);
	double hi = (double)bytes * (1 + EX_LOCATE_BYTES_TOLERANCE);
	double sum = 0; /* bytes of [i, j) */
	size_t j = from;
	for (size_t i = from; i < n; i++) {
		uint64_t here = way_bytes(&series[i], write);
		while (j < n && sum < (double)bytes)
			sum += (double)way_bytes(&series[j++], write);
		if (sum < lo)
			break; /* no later start reaches the bytes either */
		if (here > 0) {
			/* the end at which the bytes reach the claim's (or the series' last that
			 * moved bytes, when they never do), and the one before it that moved bytes
			 */
			size_t end = j - 1;
			while (end > i && way_bytes(&series[end], write) == 0)
				end--;
			if (sum <= hi)
				offer_span(pk, series, i, end, sum, bytes, seconds);
			size_t prev = end;
			while (prev > i && way_bytes(&series[prev - 1], write) == 0)
				prev--;
			double before = sum - (double)way_bytes(&series[end], write);
			if (sum >= (double)bytes && prev > i && before >= lo)
				offer_span(pk, series, i, prev - 1, before, bytes, seconds);
		}
		sum -= (double)here;
	}
	if (pk->have_cluster)
		close_run(pk);
}

static void fill(const struct ex_point *series, const struct candidate *c, bool write,
                 struct ex_located *out)
{
	memset(out, 0, sizeof(*out));
	out->found = true;
	out->first = c->first;
	out->last = c->last;
	out->from_s = start_of(&series[c->first]);
	out->to_s = series[c->last].t;
	for (size_t k = c->first; k <= c->last; k++) {
		out->guest_bytes += way_bytes(&series[k], write);
		out->phys_bytes += write ? series[k].phys_wr_bytes : series[k].phys_rd_bytes;
	}
}

size_t ex_find_stretches(const struct ex_point *series, size_t n, size_t from, uint64_t bytes,
                         double seconds, bool write, struct ex_located *out, size_t max)
{
	if (!series || bytes == 0 || from >= n || !max)
		return 0;
	struct candidate runs[EX_MAX_STRETCHES];
	struct pick pk = {.runs = runs,
	                  .max_runs = max < EX_MAX_STRETCHES ? max : EX_MAX_STRETCHES};
	scan(&pk, series, n, from, bytes, seconds, write);
	for (size_t i = 0; i < pk.n_runs; i++)
		fill(series, &runs[i], write, &out[i]);
	return pk.n_runs;
}

int ex_locate_claim(const struct ex_point *series, size_t n, size_t from, uint64_t bytes,
                    double seconds, bool write, struct ex_located *out)
{
	memset(out, 0, sizeof(*out));
	if (!series || bytes == 0 || from >= n)
		return -1;
	struct pick pk = {0};
	scan(&pk, series, n, from, bytes, seconds, write);
	if (!pk.have_best)
		return -1;
	fill(series, &pk.best, write, out);
	return 0;
}
