/* compare.c - A against B: the throughput difference in seconds per GiB and its causes;
 * see compare.h for the arithmetic. */
#include "explain/verdicts/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/figures.h"
#include "explain/verdicts/verdicts.h"

static int pick(const struct explain *ex, const char *name, const char *which, struct ex_side *side,
                struct xerr *err)
{
	const struct ex_domain **out = &side->dom;
	*out = name ? explain_find_domain(ex, name) : explain_busiest(ex, NULL);
	if (*out && (*out)->io.guest_wr_bytes + (*out)->io.guest_rd_bytes >= EX_ACTIVE_BYTES) {
		side->also_active = name ? NULL : explain_also_active(ex, *out);
		return 0;
	}
	if (name)
		xerr_set(err, XERR_INPUT, "%s: no domain '%s' moved 1 MiB in the window (%s side)",
		         ex->file, name, which);
	else
		xerr_set(err, XERR_INPUT, "%s: no domain moved 1 MiB in the window (%s side)",
		         ex->file, which);
	return -1;
}

static void measure(struct ex_side *s, bool reads)
{
	const struct explain *ex = s->ex;
	const struct ex_domain *d = s->dom;
	s->bytes = (double)(reads ? d->io.guest_rd_bytes : d->io.guest_wr_bytes);
	double gib = s->bytes / EX_GIB;
	s->rate_bps = s->bytes / ex->win.seconds;
	s->seen_s_per_gib = gib > 0 ? ex->win.seconds / gib : 0;
	s->cpu_s_per_gib = ex_cpu_s_per_gib(d);
	if (!reads) {
		/* dom0's own writes: the bytes counted are those seen by the recording's end, on
		 * the disk by its last write seen (dom0_subject.h) */
		double drain =
		    d->drained || d->dom0_subject ? d->drain_s : ex->win.recorded_after_s;
		s->hidden_s_per_gib = gib > 0 ? drain / gib : 0;
	} else if (d->io.phys_rd_bytes >= EX_ACTIVE_BYTES &&
	           d->io.phys_rd_bytes < d->io.guest_rd_bytes) {
		/* the cached part read at the rate the disk delivered the rest */
		s->hidden_s_per_gib =
		    s->seen_s_per_gib *
		    ((double)d->io.guest_rd_bytes / (double)d->io.phys_rd_bytes - 1);
	}
	s->true_s_per_gib = s->seen_s_per_gib + s->hidden_s_per_gib;
	double all_gib = (double)(d->io.guest_wr_bytes + d->io.guest_rd_bytes) / EX_GIB;
	for (int r = 0; r < XIO_CPU_ROLES; r++)
		s->role_s_per_gib[r] =
		    all_gib > 0 ? (double)(d->cpu_ns_by_role[r] + d->after_cpu_ns_by_role[r]) /
		                      1e9 / all_gib
		                : 0;
	struct ex_test_size t;
	ex_test_and_caches(ex, d, &t);
	s->test_bytes = t.test;
	s->cache_bytes = t.cache;
	s->under_rule = t.cache > 0 && t.test < EX_TEST_TO_CACHE_RULE * t.cache;
}

static int by_share(const void *x, const void *y)
{
	const struct ex_cause *a = x, *b = y;
	return a->share > b->share ? -1 : a->share < b->share;
}

/* One scale: each cause's seconds per GiB over the sum of all causes' (as magnitudes), so
 * every share is within 0..1 and they add up to 1 even when causes pull opposite ways
 * (a share of the signed difference ran to 2014 % and -1900 % when they cancelled). */
static void share_out(struct ex_compare *c)
{
	double total = 0;
	for (size_t i = 0; i < c->n_causes; i++)
		total += fabs(c->causes[i].s_per_gib);
	c->causes_s_per_gib = total;
	for (size_t i = 0; i < c->n_causes; i++) {
		struct ex_cause *k = &c->causes[i];
		k->share = total > 0 ? fabs(k->s_per_gib) / total : 0;
		k->against = k->s_per_gib * c->difference_s_per_gib < 0;
	}
}

static void cause(struct ex_compare *c, enum ex_verdict_id id, double s_per_gib)
{
	struct ex_cause *k = &c->causes[c->n_causes++];
	k->id = id;
	k->s_per_gib = s_per_gib;
}

/* The path's requests on each side, when both recordings count them: small guest
 * requests merged on one path (dom0's page cache) and taken as issued on the other are
 * the first suspect for a path's speed at a small block size. */
static void measure_requests(struct ex_compare *c)
{
	const struct ex_domain *a = c->a.dom, *b = c->b.dom;
	bool wr = !c->reads;
	double ga = (double)(wr ? a->io.guest_wr_ios : a->io.guest_rd_ios);
	double gb = (double)(wr ? b->io.guest_wr_ios : b->io.guest_rd_ios), ka, kb, ia, ib;
	ex_leaf_requests(a, wr, &ka, &ia, NULL, 0);
	ex_leaf_requests(b, wr, &kb, &ib, NULL, 0);
	if (c->a.ex->host.absent || c->b.ex->host.absent || ga <= 0 || gb <= 0 || ia <= 0 ||
	    ib <= 0)
		return;
	c->requests_known = true;
	c->a.guest_avg_request = c->a.bytes / ga;
	c->b.guest_avg_request = c->b.bytes / gb;
	c->a.disk_avg_request = ka / ia;
	c->b.disk_avg_request = kb / ib;
}

static void explain_causes(struct ex_compare *c)
{
	const struct ex_side *a = &c->a, *b = &c->b;
	double hidden = a->hidden_s_per_gib - b->hidden_s_per_gib;
	double truth = b->true_s_per_gib - a->true_s_per_gib;
	double cpu = b->cpu_s_per_gib - a->cpu_s_per_gib;
	if (cpu * truth <= 0)
		cpu = 0;
	else if (fabs(cpu) > fabs(truth))
		cpu = truth;
	cause(c, EXV_PAGE_CACHE_INFLATION, hidden);
	cause(c, EXV_DOM0_CPU_COST, cpu);
	cause(c, EXV_PATH, truth - cpu);
	measure_requests(c);
	share_out(c);
	qsort(c->causes, c->n_causes, sizeof(c->causes[0]), by_share);
}

static double guests_vcpu_s(const struct explain *ex)
{
	double s = 0;
	for (size_t i = 0; i < ex->n_doms; i++)
		if (ex->doms[i].domid && ex->doms[i].guest_cpu_known)
			s += (double)ex->doms[i].guest_cpu_ns / 1e9;
	return s;
}

/* Two imports without guest bytes: dom0's CPU of each (see compare.h). */
static int compare_hosts(struct ex_compare *out)
{
	const struct explain *a = out->a.ex, *b = out->b.ex;
	if (!a->host.absent || !b->host.absent || figure_held(FIG_GUEST_WR_BYTES, a->host.absent) ||
	    figure_held(FIG_GUEST_WR_BYTES, b->host.absent) || !a->host.busy_source[0] ||
	    !b->host.busy_source[0] || !b->host_busy_ns)
		return -1;
	out->hosts_only = true;
	out->a.dom = out->b.dom = NULL;
	out->dom0_cpu_s_a = (double)a->host_busy_ns / 1e9;
	out->dom0_cpu_s_b = (double)b->host_busy_ns / 1e9;
	out->guests_vcpu_s_a = guests_vcpu_s(a);
	out->guests_vcpu_s_b = guests_vcpu_s(b);
	out->ratio = out->dom0_cpu_s_a / out->dom0_cpu_s_b;
	return 0;
}

int explain_compare(const struct explain *a, const char *dom_a, const struct explain *b,
                    const char *dom_b, struct ex_compare *out, struct xerr *err)
{
	memset(out, 0, sizeof(*out));
	out->a.ex = a;
	out->b.ex = b;
	if (pick(a, dom_a, "A", &out->a, err) || pick(b, dom_b, "B", &out->b, err))
		return compare_hosts(out);
	out->reads = out->a.dom->io.guest_wr_bytes < EX_ACTIVE_BYTES &&
	             out->b.dom->io.guest_wr_bytes < EX_ACTIVE_BYTES;
	measure(&out->a, out->reads);
	measure(&out->b, out->reads);
	if (out->a.bytes <= 0 || out->b.bytes <= 0) {
		xerr_set(err, XERR_INPUT, "%s: one side %s nothing to compare", a->file,
		         out->reads ? "read" : "wrote");
		return -1;
	}
	out->ratio = out->a.rate_bps / out->b.rate_bps;
	out->difference_s_per_gib = out->b.seen_s_per_gib - out->a.seen_s_per_gib;
	explain_causes(out);
	/* each side measured its own caches, and they are not the same ones */
	out->size_flaw =
	    (out->a.under_rule || out->b.under_rule) && out->a.cache_bytes != out->b.cache_bytes;
	return 0;
}
