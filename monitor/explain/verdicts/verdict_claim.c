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
	ex_fig_str(v, "tool", c->fig.tool);
	ex_fig_str(v, "run", run);
	ex_fig_str(v, "direction", c->write ? "write" : "read");
	ex_fig_str(v, "direction_from", ex_direction_from_name(c->direction_from));
	ex_fig(v, "claimed_bytes", (double)c->bytes);
	/* 0 in claim_figures: the tool did not say (bonnie's "+++++"), never zero seconds */
	if (c->seconds > 0)
		ex_fig(v, "claimed_seconds", c->seconds);
	else
		ex_fig_null(v, "claimed_seconds");
	if (c->rate_bps > 0)
		ex_fig(v, "claimed_rate_bytes_per_s", c->rate_bps);
	else
		ex_fig_null(v, "claimed_rate_bytes_per_s");
	ex_fig(v, "observed_guest_bytes", (double)c->observed_guest);
	ex_fig(v, "observed_phys_bytes", (double)c->observed_phys);
	ex_fig(v, "observed_phys_rate_bytes_per_s", c->observed_phys_rate_bps);
	if (c->inflation >= 0)
		ex_fig(v, "inflation", c->inflation);
	else
		ex_fig_null(v, "inflation");
	if (c->located.found) {
		ex_fig(v, "located_from_s", c->located.from_s);
		ex_fig(v, "located_to_s", c->located.to_s);
	} else {
		ex_fig_null(v, "located_from_s");
		ex_fig_null(v, "located_to_s");
	}
}

/* Where the run is in the timeline, or why it is not found: a run smaller than the
 * guest's memory may never leave the guest (its cache served the reads, or kept writes of
 * a file deleted before the guest wrote it back, as bonnie deletes its file). */
static void say_located(struct ex_verdict *v, const struct ex_claim *c, const struct ex_domain *d)
{
	const struct ex_located *at = &c->located;
	const char *way = c->write ? "writes" : "reads";
	char b[32], r[32], m[32];
	if (!at->found && d && d->mem_bytes && c->bytes < d->mem_bytes) {
		ex_say(v,
		       " No stretch of the domain's guest %s holds %s (within %.0f %%): that fits "
		       "in the guest's %s of memory, so the guest's own cache %s; figures are "
		       "over the whole window.",
		       way, ex_bytes((double)c->bytes, b, sizeof(b)),
		       EX_LOCATE_BYTES_TOLERANCE * 100,
		       ex_bytes((double)d->mem_bytes, m, sizeof(m)),
		       c->write ? "kept them" : "served them");
		return;
	}
	/* dom0's own run has no guest: what its bios do not show, dom0's page cache held */
	bool dom0 = d && d->dom0_subject;
	const char *cache = dom0 ? "dom0's page cache" : "the guest's own cache";
	const char *whose = dom0 ? "dom0's own" : "the domain's guest";
	if (!at->found) {
		ex_say(v,
		       " No stretch of %s %s holds %s (within %.0f %%): the run is outside the "
		       "recording, or %s served it; figures are over the whole window.",
		       whose, way, ex_bytes((double)c->bytes, b, sizeof(b)),
		       EX_LOCATE_BYTES_TOLERANCE * 100, cache);
		return;
	}
	double span = at->to_s - at->from_s;
	ex_say(v, " Its run is %s %s from %.1f s to %.1f s of the window (%s)", whose, way,
	       at->from_s, at->to_s, ex_bytes((double)at->guest_bytes, b, sizeof(b)));
	if (c->direction_from != EXD_TOOL)
		ex_say(v, "; the tool does not say which way, the timeline does");
	ex_say(v, ".");
	double guest_rate = span > 0 ? (double)at->guest_bytes / span : 0;
	/* whole intervals, as for the disks' figure: over the stretch's shortest time (two
	 * intervals less) the guest's bytes may have moved at the tool's rate, and then the
	 * samples cannot tell a cache above them (a 0.3 s dd seen over one 0.5 s interval) */
	double tick = d && at->first < d->n_series ? d->series[at->first].interval_s : 0;
	double shortest = span - 2 * tick;
	bool timed = shortest > 0 && (double)at->guest_bytes / shortest < c->rate_bps;
	if (!c->below_resolution && timed && c->rate_bps > 0 && guest_rate > 0 &&
	    c->rate_bps > EX_CLAIM_INFLATION_MIN * guest_rate)
		ex_say(v, " %s them at %s only: the tool's rate is %s.",
		       dom0 ? "dom0 submitted" : "The guest's disk took",
		       ex_rate(guest_rate, r, sizeof(r)), cache);
}

/* The window's domain of that id; NULL if none (EX_NO_DOMAIN included). */
static const struct ex_domain *domain_by_id(const struct explain *ex, uint32_t domid)
{
	for (size_t i = 0; i < ex->n_doms; i++)
		if (ex->doms[i].domid == domid)
			return &ex->doms[i];
	return NULL;
}

/* Taken as the busiest domain while another moved 1 MiB too: which, and how to name it. */
static void say_also_active(struct ex_verdict *v, const struct explain *ex,
                            const struct ex_claim *c, const struct ex_domain *d)
{
	const struct ex_domain *other = domain_by_id(ex, c->also_active_domid);
	if (!other)
		return;
	char chosen[160], label[160], b[32];
	ex_say(
	    v,
	    " (Set against %s, the recording's busiest domain; %s moved %s too: "
	    "--claim FILE@DOMAIN names the one meant.)",
	    d ? ex_dom_label(d, chosen, sizeof(chosen)) : "the busiest domain",
	    ex_dom_label(other, label, sizeof(label)),
	    ex_bytes((double)(other->io.guest_wr_bytes + other->io.guest_rd_bytes), b, sizeof(b)));
}

static void judge_claim(struct explain *ex, const struct ex_claim *c)
{
	struct ex_verdict *v = ex_verdict_new(ex, EXV_CLAIM, c->domid);
	if (!v)
		return;
	const struct ex_domain *d = domain_by_id(ex, c->domid);
	v->share = c->inflation > 1 ? 1 - 1 / c->inflation : 0;
	claim_figures_of(v, c);
	ex_evidence(v, "the tool's output");
	ex_evidence(v, c->write ? "guest_wr_bytes" : "guest_rd_bytes");
	ex_evidence(v, c->write ? "phys_wr_bytes" : "phys_rd_bytes");
	char file[1024], tool[64], run[96], who[160], b1[32], b2[32], b3[32], r1[32], r2[32];
	sanitize_text(c->fig.file, file, sizeof(file));
	sanitize_text(c->fig.tool, tool, sizeof(tool));
	sanitize_text(c->fig.run, run, sizeof(run));
	ex_say(v, "%s (%s%s%s) says it %s %s", tool, file, run[0] ? ", " : "", run,
	       c->write ? "wrote" : "read", ex_bytes((double)c->bytes, b1, sizeof(b1)));
	if (c->seconds > 0)
		ex_say(v, " in %.2f s", c->seconds);
	if (c->rate_bps > 0)
		ex_say(v, ", %s", ex_rate(c->rate_bps, r1, sizeof(r1)));
	if (c->direction_from == EXD_LARGER)
		ex_say(v, " (the tool does not say which way; taken as the way the domain moved "
		          "more bytes)");
	if (d && d->dom0_subject)
		ex_say(v, ". %s submitted %s of %s to its devices and %s on a physical disk",
		       ex_dom_label(d, who, sizeof(who)),
		       ex_bytes((double)c->observed_guest, b2, sizeof(b2)),
		       c->write ? "writes" : "reads",
		       ex_bytes((double)c->observed_phys, b3, sizeof(b3)));
	else
		ex_say(v, ". dom0 saw %s %s %s through its disk and %s on a physical disk",
		       d ? ex_dom_label(d, who, sizeof(who)) : "the domain",
		       c->write ? "write" : "read",
		       ex_bytes((double)c->observed_guest, b2, sizeof(b2)),
		       ex_bytes((double)c->observed_phys, b3, sizeof(b3)));
	if (c->observed_phys_rate_bps > 0)
		ex_say(v, " (%s, %s)", ex_rate(c->observed_phys_rate_bps, r2, sizeof(r2)),
		       c->located.on_disk_s > 0 ? "over its run and until it was on disk"
		       : c->located.found       ? "over its run"
		       : c->write               ? "counted until it was on disk"
		                                : "over the window");
	if (c->below_resolution)
		ex_say(v,
		       ": the run is shorter than the recording's intervals can time; over the "
		       "shortest time its stretch allows the disks kept up with the tool's rate, "
		       "which is all the samples can tell (record with a shorter -d, or run it "
		       "longer).");
	else if (c->drain_cut)
		ex_say(v, ": the recording ended before dom0 had written the run's data back (its "
		          "drain cut short), so what the disks did is not known; record until the "
		          "drain ends.");
	else if (c->inflation > EX_CLAIM_INFLATION_MIN)
		ex_say(v, ": the tool's rate is %.1fx what the disks did.", c->inflation);
	else if (c->inflation > 0)
		ex_say(v, ": the tool's rate matches what the disks did (%.2fx).", c->inflation);
	else
		ex_say(v, ".");
	say_located(v, c, d);
	say_also_active(v, ex, c, d);
	if (d && d->dom0_subject && c->write) { /* where its drain ended, what came after */
		ex_dom0_drain_figures(v, ex, d);
		ex_dom0_say_after_data(v, ex, " ");
	}
}

void verdict_claims(struct explain *ex, const struct ex_domain *d)
{
	for (size_t i = 0; i < ex->n_claims; i++)
		if (!d || ex->claims[i].domid == d->domid)
			judge_claim(ex, &ex->claims[i]);
}
