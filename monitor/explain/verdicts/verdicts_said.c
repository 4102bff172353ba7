/* verdicts_said.c - the verdicts on what a claim says of itself (claims/claim_post.h
 * struct claim_said, carried in each row's claim_figures):
 *   queue_depth_latency  a run at queue depth 1 waits for each request before it issues the
 *                        next: its IOPS are at most 1 / the round trip. Set against 1 /
 *                        the mean latency xiotop timed for its domain's requests over the
 *                        run's stretch (at the device backing it in dom0, each request
 *                        from its start there to its completion: blkback's own work
 *                        around the device is not in it), when each of the tool's I/Os
 *                        was one request there (the guest's requests over the stretch /
 *                        the tool's I/Os within EX_QD_ONE_REQUEST_LO..HI). Share 0: a
 *                        mechanism.
 *   direct_io_buffered   the tool opened its file O_DIRECT in the guest, but the guest's
 *                        disk is a file (loop, or a device model's image) whose writes
 *                        dom0 dirtied in its page cache, or whose reads dom0's cache
 *                        served: O_DIRECT in the guest, buffered in dom0. Share: the
 *                        largest of the claim's inflation share (1 - 1 / inflation, over
 *                        its run), the domain's (1 - end-to-end / guest rate) and its
 *                        cached reads' part.
 * A run not placed, or whose domain's latency was not timed, gets neither; what is missing
 * is named under not given. */
#include <stdio.h>

#include "explain/verdicts/verdicts.h"

/* The claimed IOPS and 1 / the mean latency agree within this: the round trip is the
 * limit (the "within 20 %"); beyond it the tool spent time elsewhere (below) or a
 * cache above dom0 answered (above). */
#define EX_QD_LATENCY_MARGIN 0.2
/* One request at the guest layer per I/O of the tool: a guest splitting a large I/O into
 * several requests (or merging small ones) breaks the one-for-one relation. */
#define EX_QD_ONE_REQUEST_LO 0.8
#define EX_QD_ONE_REQUEST_HI 1.25

static bool said_on(const struct claim_setting *s)
{
	return s->from != CLAIM_FROM_NONE && s->value;
}

static const struct ex_domain *domain_of(const struct explain *ex, uint32_t domid)
{
	for (size_t i = 0; i < ex->n_doms; i++)
		if (ex->doms[i].domid == domid)
			return &ex->doms[i];
	return NULL;
}

/* The latency of op over the run's stretch: requests timed, their summed latency and the
 * guest's requests that way; false when an interval of it was not timed. */
static bool stretch_latency(const struct ex_domain *d, const struct ex_located *at, bool write,
                            uint64_t *count, uint64_t *sum_ns, uint64_t *reqs)
{
	int op = write ? XIOTOP_LAT_WRITE : XIOTOP_LAT_READ;
	*count = *sum_ns = *reqs = 0;
	for (size_t k = at->first; k <= at->last && k < d->n_series; k++) {
		const struct ex_point *p = &d->series[k];
		if (!p->lat_timed[op])
			return false;
		*count += p->lat_count[op];
		*sum_ns += p->lat_sum_ns[op];
		*reqs += write ? p->guest_wr_ios : p->guest_rd_ios;
	}
	return *count > 0;
}

static void judge_queue_depth(struct explain *ex, const struct ex_claim *c)
{
	const struct claim_said *s = &c->fig.said;
	const struct ex_domain *d = domain_of(ex, c->domid);
	if (s->queue_depth.from == CLAIM_FROM_NONE || s->queue_depth.value != 1 ||
	    s->block_bytes.from == CLAIM_FROM_NONE || !s->block_bytes.value || c->seconds <= 0 ||
	    !c->located.found || !d || d->dom0_subject)
		return;
	uint64_t count, sum_ns, reqs;
	if (!stretch_latency(d, &c->located, c->write, &count, &sum_ns, &reqs)) {
		ex_verdict_not_given(ex, EXV_QUEUE_DEPTH,
		                     "needs the latency of the domain's requests over the run: "
		                     "record without --no-latency, with the completion hooks "
		                     "attached");
		return;
	}
	double ios = (double)c->bytes / (double)s->block_bytes.value;
	double per_io = (double)reqs / ios;
	if (per_io < EX_QD_ONE_REQUEST_LO || per_io > EX_QD_ONE_REQUEST_HI) {
		ex_verdict_not_given(ex, EXV_QUEUE_DEPTH,
		                     "needs each of the tool's I/Os to be one request at the "
		                     "guest's disk in dom0: a run at queue depth 1 had %.2f (the "
		                     "guest split or merged them)",
		                     per_io);
		return;
	}
	struct ex_verdict *v = ex_verdict_new(ex, EXV_QUEUE_DEPTH, c->domid);
	if (!v)
		return;
	double mean_ns = (double)sum_ns / (double)count;
	double claimed = ios / c->seconds, by_latency = 1e9 / mean_ns;
	double ratio = claimed / by_latency;
	v->claim = (size_t)(c - ex->claims);
	v->share = 0; /* a mechanism: what bounds the rate, not a count that disagrees */
	v->reasons |= ratio < 1 - EX_QD_LATENCY_MARGIN   ? EXR_QD_BELOW
	              : ratio > 1 + EX_QD_LATENCY_MARGIN ? EXR_QD_ABOVE
	                                                 : EXR_QD_ROUND_TRIP;
	ex_said_figures(v, c);
	ex_fig(v, EXK_CLAIMED_IOPS, claimed);
	ex_fig(v, EXK_LATENCY_MEAN_US, mean_ns / 1e3);
	ex_fig(v, EXK_LATENCY_REQUESTS, (double)count);
	ex_fig(v, EXK_LATENCY_IOPS, by_latency);
	ex_fig(v, EXK_IOPS_TO_LATENCY, ratio);
	ex_fig(v, EXK_REQUESTS_PER_IO, per_io);
	ex_evidence(v, "the tool's output: its queue depth and block size");
	ex_evidence(v, "I/O latency histograms of the domain's guest layer");
	ex_evidence(v, c->write ? "guest_wr_ios" : "guest_rd_ios");
}

void verdict_queue_depth(struct explain *ex, const struct ex_domain *d)
{
	for (size_t i = 0; i < ex->n_claims; i++)
		if (!d || ex->claims[i].domid == d->domid)
			judge_queue_depth(ex, &ex->claims[i]);
}

/* The first row set against d that says O_DIRECT; NULL none. */
static const struct ex_claim *direct_claim(const struct explain *ex, const struct ex_domain *d)
{
	for (size_t i = 0; i < ex->n_claims; i++)
		if (ex->claims[i].domid == d->domid && said_on(&ex->claims[i].fig.said.direct))
			return &ex->claims[i];
	return NULL;
}

static void judge_direct(struct explain *ex, const struct ex_domain *d)
{
	const struct ex_claim *c = direct_claim(ex, d);
	enum ex_path path = ex_path_of(d);
	if (!c || d->dom0_subject || !(ex_path_is_file(path) || path == EXP_QEMU))
		return;
	/* buffered in dom0: its writes dirtied there, or its reads served from its cache */
	bool dirtied = d->dirtied >= EX_ACTIVE_BYTES;
	bool cached_rd =
	    d->io.guest_rd_bytes >= EX_ACTIVE_BYTES &&
	    d->io.phys_rd_bytes * EX_CACHED_PART_DEN < d->io.guest_rd_bytes * EX_CACHED_PART_NUM;
	if (!dirtied && !cached_rd)
		return;
	struct ex_verdict *v = ex_verdict_new(ex, EXV_DIRECT_BUFFERED, d->domid);
	if (!v)
		return;
	double rate = ex_guest_wr_rate(ex, d), e2e = ex_end_to_end_wr_rate(ex, d);
	double hidden_wr = dirtied && rate > 0 && e2e < rate ? 1 - e2e / rate : 0;
	double hidden_rd =
	    cached_rd ? 1 - (double)d->io.phys_rd_bytes / (double)d->io.guest_rd_bytes : 0;
	/* the claim's own inflation over its run, when it was placed; else the window's */
	double hidden_claim = c->inflation > 1 ? 1 - 1 / c->inflation : 0;
	v->share = hidden_wr > hidden_rd ? hidden_wr : hidden_rd;
	if (hidden_claim > v->share)
		v->share = hidden_claim;
	v->claim = (size_t)(c - ex->claims);
	ex_said_figures(v, c);
	ex_fig_str(v, EXK_PATH, ex_path_name(path));
	ex_fig(v, EXK_DIRTIED_BYTES, (double)d->dirtied);
	ex_fig(v, EXK_GUEST_WR_BYTES, (double)d->io.guest_wr_bytes);
	ex_fig(v, EXK_GUEST_RD_BYTES, (double)d->io.guest_rd_bytes);
	ex_fig(v, EXK_PHYS_RD_BYTES, (double)d->io.phys_rd_bytes);
	ex_evidence(v, "the tool's output: O_DIRECT");
	ex_evidence(v, "dirtied_bytes");
	ex_evidence(v, "guest_rd_bytes, phys_rd_bytes");
}

void verdict_direct_buffered(struct explain *ex, const struct ex_domain *d)
{
	for (size_t i = 0; i < ex->n_doms; i++)
		if (!d || &ex->doms[i] == d)
			judge_direct(ex, &ex->doms[i]);
}

/* An import: no latency, no path below a guest; named when a claim would need them. */
static bool any_claim(const struct explain *ex, bool qd1)
{
	for (size_t i = 0; i < ex->n_claims; i++) {
		const struct claim_said *s = &ex->claims[i].fig.said;
		if (qd1 ? s->queue_depth.from != CLAIM_FROM_NONE && s->queue_depth.value == 1
		        : said_on(&s->direct))
			return true;
	}
	return false;
}

void import_queue_depth(struct explain *ex, const struct ex_domain *d)
{
	if (!d && any_claim(ex, true))
		ex_verdict_not_given(ex, EXV_QUEUE_DEPTH,
		                     "needs the latency of the domain's requests: %s",
		                     ex_tracer_advice(ex));
}

void import_direct_buffered(struct explain *ex, const struct ex_domain *d)
{
	if (!d && any_claim(ex, false))
		ex_verdict_not_given(
		    ex, EXV_DIRECT_BUFFERED,
		    "needs the path below the guest and what dom0 dirtied for it: %s",
		    ex_tracer_advice(ex));
}
