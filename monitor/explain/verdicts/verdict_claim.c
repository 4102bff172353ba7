/* verdict_claim.c - the `claim` verdict: a benchmark's run (a claims[] row, tool_claims.h)
 * against what reached a disk for its domain, and where the run is in the timeline. */
#include <stdio.h>
#include <string.h>

#include "core/sanitize.h"
#include "explain/dom0_subject.h"
#include "explain/verdicts/verdicts.h"

static void claim_figures_of(struct ex_verdict *v, const struct ex_claim *c)
{
	char run[96];
	sanitize_text(c->fig.run, run, sizeof(run));
	ex_fig_str(v, EXK_TOOL, c->fig.tool);
	ex_fig_str(v, EXK_RUN, run);
	ex_fig_str(v, EXK_DIRECTION, c->write ? "write" : "read");
	ex_fig_str(v, EXK_DIRECTION_FROM, ex_direction_from_name(c->direction_from));
	ex_fig(v, EXK_CLAIMED_BYTES, (double)c->bytes);
	/* 0 in claim_figures: the tool did not say (bonnie's "+++++"), never zero seconds */
	if (c->seconds > 0)
		ex_fig(v, EXK_CLAIMED_SECONDS, c->seconds);
	else
		ex_fig_null(v, EXK_CLAIMED_SECONDS);
	if (c->rate_bps > 0)
		ex_fig(v, EXK_CLAIMED_RATE, c->rate_bps);
	else
		ex_fig_null(v, EXK_CLAIMED_RATE);
	if (c->located.found && !(v->reasons & EXR_CLAIM_HOST_DISKS)) {
		/* placed: what reached dom0 and the disks over its run */
		ex_fig(v, EXK_OBSERVED_GUEST_BYTES, (double)c->observed_guest);
		ex_fig(v, EXK_OBSERVED_PHYS_BYTES, (double)c->observed_phys);
		ex_fig(v, EXK_OBSERVED_PHYS_RATE, c->observed_phys_rate_bps);
	} else if (c->located.found) { /* an import: the host's disks over its run */
		ex_fig_null(v, EXK_OBSERVED_GUEST_BYTES);
		ex_fig(v, EXK_OBSERVED_PHYS_BYTES, (double)c->observed_phys);
		ex_fig(v, EXK_OBSERVED_PHYS_RATE, c->observed_phys_rate_bps);
	} else { /* not placed: nothing observed is its */
		ex_fig_null(v, EXK_OBSERVED_GUEST_BYTES);
		ex_fig_null(v, EXK_OBSERVED_PHYS_BYTES);
		ex_fig_null(v, EXK_OBSERVED_PHYS_RATE);
	}
	if (c->inflation >= 0)
		ex_fig(v, EXK_INFLATION, c->inflation);
	else
		ex_fig_null(v, EXK_INFLATION);
	if (c->located.found) {
		ex_fig(v, EXK_LOCATED_FROM_S, c->located.from_s);
		ex_fig(v, EXK_LOCATED_TO_S, c->located.to_s);
	} else {
		ex_fig_null(v, EXK_LOCATED_FROM_S);
		ex_fig_null(v, EXK_LOCATED_TO_S);
	}
	ex_fig_str(v, EXK_PLACED, ex_sureness_name(c->placed_how));
	char by[64] = "";
	for (unsigned b = 0; b < EXPE_BITS; b++)
		if (c->placed_by & (1u << b))
			snprintf(by + strlen(by), sizeof(by) - strlen(by), "%s%s", by[0] ? "," : "",
			         ex_place_evidence_name(1u << b));
	ex_fig_str(v, EXK_PLACED_BY, by);
	ex_fig(v, EXK_STRETCHES, (double)c->n_stretches);
	ex_said_figures(v, c);
}

/* The window's domain of that id; NULL if none (EX_NO_DOMAIN included). */
static const struct ex_domain *domain_by_id(const struct explain *ex, uint32_t domid)
{
	for (size_t i = 0; i < ex->n_doms; i++)
		if (ex->doms[i].domid == domid)
			return &ex->doms[i];
	return NULL;
}

/* Whether the guest's own layer moved the run slower than the tool says, beyond what
 * whole intervals can hide: over the stretch's shortest time (two intervals less) the
 * guest's bytes may have moved at the tool's rate, and then the samples cannot tell a
 * cache above them (a 0.3 s dd seen over one 0.5 s interval). */
static bool cache_above(const struct ex_claim *c, const struct ex_domain *d)
{
	const struct ex_located *at = &c->located;
	double span = at->to_s - at->from_s;
	double guest_rate = span > 0 ? (double)at->guest_bytes / span : 0;
	double tick = d && at->first < d->n_series ? d->series[at->first].interval_s : 0;
	double shortest = span - 2 * tick;
	bool timed = shortest > 0 && (double)at->guest_bytes / shortest < c->rate_bps;
	return at->found && !c->below_resolution && timed && c->rate_bps > 0 && guest_rate > 0 &&
	       c->rate_bps > EX_CLAIM_INFLATION_MIN * guest_rate;
}

static void judge_claim(struct explain *ex, const struct ex_claim *c)
{
	struct ex_verdict *v = ex_verdict_new(ex, EXV_CLAIM, c->domid);
	if (!v)
		return;
	const struct ex_domain *d = domain_by_id(ex, c->domid);
	v->share = c->inflation > 1 ? 1 - 1 / c->inflation : 0;
	v->claim = (size_t)(c - ex->claims);
	if (c->below_resolution)
		v->reasons |= EXR_CLAIM_BELOW_RESOLUTION;
	else if (c->inflation > EX_CLAIM_INFLATION_MIN)
		v->reasons |= EXR_CLAIM_INFLATED;
	/* a run no stretch holds that fits in the guest's memory may never have left the
	 * guest (its cache served the reads, or kept writes of a file deleted before the
	 * guest wrote it back, as bonnie deletes its file) */
	if (!c->n_stretches && d && d->mem_bytes && c->bytes < d->mem_bytes)
		v->reasons |= EXR_CLAIM_GUEST_CACHE;
	if (ex->host.absent) /* an import: against the host's disks, all domains' bytes */
		v->reasons |= EXR_CLAIM_HOST_DISKS;
	else if (cache_above(c, d))
		v->reasons |= EXR_CLAIM_CACHE_ABOVE;
	claim_figures_of(v, c);
	ex_evidence(v, "the tool's output");
	ex_evidence(v, c->write ? "guest_wr_bytes" : "guest_rd_bytes");
	/* an import has no per-domain physical bytes: the host's disks (import_claim) */
	if (ex->host.absent)
		ex_evidence(v, "iostat, leaf devices");
	else
		ex_evidence(v, c->write ? "phys_wr_bytes" : "phys_rd_bytes");
	if (d && d->dom0_subject && c->write) /* where its drain ended */
		ex_dom0_drain_figures(v, ex, d);
}

void verdict_claims(struct explain *ex, const struct ex_domain *d)
{
	for (size_t i = 0; i < ex->n_claims; i++)
		if (!d || ex->claims[i].domid == d->domid)
			judge_claim(ex, &ex->claims[i]);
}
