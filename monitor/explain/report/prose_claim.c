/* prose_claim.c - the words of a claim verdict (verdicts/verdict_claim.c): what the tool
 * says, what reached a disk for its domain, where its run is in the timeline. */
#include <stdio.h>

#include "core/sanitize.h"
#include "explain/report/prose.h"

/* What the tool says of its run, where it says anything: " (O_DIRECT, synchronous writes,
 * 4 KiB requests, queue depth 1)". */
static void say_said(struct prose *p, const struct claim_said *s)
{
	char b[32];
	int n = 0;
	const char *sep[] = {" (", ", "};
	if (s->direct.from != CLAIM_FROM_NONE)
		say(p, "%s%s", sep[n++ > 0],
		    s->direct.value ? "O_DIRECT" : "through its page cache");
	if (s->sync.from != CLAIM_FROM_NONE && s->sync.value)
		say(p, "%ssynchronous writes", sep[n++ > 0]);
	if (s->flush_end.from != CLAIM_FROM_NONE)
		say(p, "%s%s", sep[n++ > 0],
		    s->flush_end.value ? "a flush inside its time" : "no flush inside its time");
	if (s->block_bytes.from != CLAIM_FROM_NONE && s->block_bytes.value)
		say(p, "%s%s requests", sep[n++ > 0],
		    ex_bytes((double)s->block_bytes.value, b, sizeof(b)));
	if (s->queue_depth.from != CLAIM_FROM_NONE && s->queue_depth.value)
		say(p, "%squeue depth %llu", sep[n++ > 0],
		    (unsigned long long)s->queue_depth.value);
	if (n)
		say(p, ")");
}

/* What a placement stood on, in words (EXPE_* bit order). */
static const char *const evidence_words[EXPE_BITS] = {
    "the guest's own marks around it",
    "marks made in dom0 around it",
    "the recorded command being the tool",
    "the tool's own clock",
    "its bytes",
    "its duration",
    "its place among the file's runs",
    "the other stretches being other runs'",
};

static void say_evidence(struct prose *p, unsigned by)
{
	int said = 0, n = 0;
	for (unsigned b = 0; b < EXPE_BITS; b++)
		n += (by >> b) & 1;
	for (unsigned b = 0; b < EXPE_BITS; b++)
		if (by & (1u << b))
			say(p, "%s%s", said++ ? (said == n ? " and " : ", ") : "",
			    evidence_words[b]);
}

/* A run not placed: why, and what would place it. */
static void say_not_placed(struct prose *p, const struct ex_verdict *v, const struct ex_claim *c,
                           const struct ex_domain *d)
{
	const char *way = c->write ? "writes" : "reads";
	bool dom0 = d && d->dom0_subject;
	const char *whose = v->reasons & EXR_CLAIM_HOST_DISKS ? "the host disks'"
	                    : dom0                            ? "dom0's own"
	                                                      : "the domain's guest";
	char b[32], m[32], tool[64];
	sanitize_text(c->fig.tool, tool, sizeof(tool));
	if (v->reasons & EXR_CLAIM_GUEST_CACHE)
		say(p,
		    " No stretch of the domain's guest %s holds %s (within %.0f %%): that fits "
		    "in the guest's %s of memory, so the guest's own cache %s.",
		    way, ex_bytes((double)c->bytes, b, sizeof(b)), EX_LOCATE_BYTES_TOLERANCE * 100,
		    ex_bytes((double)d->mem_bytes, m, sizeof(m)),
		    c->write ? "kept them" : "served them");
	else if (!c->n_stretches)
		say(p,
		    " No stretch of %s %s holds %s (within %.0f %%): the run is outside the "
		    "recording, or %s served it.",
		    whose, way, ex_bytes((double)c->bytes, b, sizeof(b)),
		    EX_LOCATE_BYTES_TOLERANCE * 100, dom0 ? "dom0's page cache" : "a cache");
	else if (c->n_fitting > 1)
		say(p,
		    " %zu stretches of %s %s hold %s, and %zu of them fit its duration and its "
		    "file's runs: nothing tells which is its.",
		    c->n_stretches, whose, way, ex_bytes((double)c->bytes, b, sizeof(b)),
		    c->n_fitting);
	else if (c->seconds > 0)
		say(p,
		    " %zu stretch%s of %s %s hold%s %s, none as long as its %.2f s (or with room "
		    "for the file's next run after it).",
		    c->n_stretches, c->n_stretches > 1 ? "es" : "", whose, way,
		    c->n_stretches > 1 ? "" : "s", ex_bytes((double)c->bytes, b, sizeof(b)),
		    c->seconds);
	else
		say(p,
		    " %zu stretch%s of %s %s hold%s %s; the tool gives no time for it, and its "
		    "bytes alone tie it to none.",
		    c->n_stretches, c->n_stretches > 1 ? "es" : "", whose, way,
		    c->n_stretches > 1 ? "" : "s", ex_bytes((double)c->bytes, b, sizeof(b)));
	say(p, " Not placed in the timeline, so no rate is set against it.");
	bool marked = c->placed_by & (EXPE_GUEST_MARKS | EXPE_DOM0_MARKS | EXPE_WRAP);
	if (marked || (v->reasons & EXR_CLAIM_GUEST_CACHE))
		return; /* its marks were there; or nothing of it left the guest */
	say(p,
	    " A mark before and after the run would place it: in the guest, xenstore-write "
	    "data/xiotop/mark \"start %s\" and \"end %s\"; in dom0, xiotop mark (or the "
	    "console's m) with those labels; or, for a run in dom0, xiotop record -- %s ...",
	    tool, tool, tool);
}

/* Where the run is in the timeline and what placed it, or why it is not placed. */
static void say_located(struct prose *p, const struct ex_verdict *v, const struct ex_claim *c,
                        const struct ex_domain *d)
{
	const struct ex_located *at = &c->located;
	if (!at->found) {
		say_not_placed(p, v, c, d);
		return;
	}
	const char *way = c->write ? "writes" : "reads";
	char b[32], r[32];
	/* dom0's own run has no guest: what its bios do not show, dom0's page cache held */
	bool dom0 = d && d->dom0_subject;
	const char *cache = dom0 ? "dom0's page cache" : "the guest's own cache";
	const char *whose = v->reasons & EXR_CLAIM_HOST_DISKS ? "the host disks'"
	                    : dom0                            ? "dom0's own"
	                                                      : "the domain's guest";
	say(p, " Its run is %s %s from %.1f s to %.1f s of the window (%s)", whose, way, at->from_s,
	    at->to_s, ex_bytes((double)at->guest_bytes, b, sizeof(b)));
	if (c->direction_from != EXD_TOOL)
		say(p, "; the tool does not say which way, the timeline does");
	say(p, "; placed (%s) by ", ex_sureness_name(c->placed_how));
	say_evidence(p, c->placed_by);
	say(p, ".");
	double span = at->to_s - at->from_s;
	if (v->reasons & EXR_CLAIM_CACHE_ABOVE)
		say(p, " %s them at %s only: the tool's rate is %s.",
		    dom0 ? "dom0 submitted" : "The guest's disk took",
		    ex_rate((double)at->guest_bytes / span, r, sizeof(r)), cache);
}

/* Taken as the busiest domain while another moved 1 MiB too: which, and how to name it. */
static void say_also_active(struct prose *p, const struct explain *ex, const struct ex_claim *c,
                            const struct ex_domain *d)
{
	const struct ex_domain *other = prose_domain(ex, c->also_active_domid);
	if (!other)
		return;
	char chosen[160], label[160], b[32];
	say(p,
	    " (Set against %s, the recording's busiest domain; %s moved %s too: "
	    "--claim FILE@DOMAIN names the one meant.)",
	    d ? ex_dom_label(d, chosen, sizeof(chosen)) : "the busiest domain",
	    ex_dom_label(other, label, sizeof(label)),
	    ex_bytes((double)(other->io.guest_wr_bytes + other->io.guest_rd_bytes), b, sizeof(b)));
}

/* What dom0 saw for the run's domain, and over which time. */
static void say_observed(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                         const struct ex_claim *c, const struct ex_domain *d)
{
	char who[160], b2[32], b3[32], r2[32], leaves[300];
	if (v->reasons & EXR_CLAIM_HOST_DISKS) {
		sanitize_text(ex->host.leaf_devices, leaves, sizeof(leaves));
		say(p,
		    ". The host's disks (iostat's leaf devices: %s) %s %s over its run (%s), every "
		    "domain's and dom0's bytes together: at most what reached them for %s",
		    leaves, c->write ? "wrote" : "read",
		    ex_bytes((double)c->observed_phys, b3, sizeof(b3)),
		    ex_rate(c->observed_phys_rate_bps, r2, sizeof(r2)),
		    d ? ex_dom_label(d, who, sizeof(who)) : "the domain");
		return;
	}
	if (d && d->dom0_subject)
		say(p, ". %s submitted %s of %s to its devices and %s on a physical disk",
		    ex_dom_label(d, who, sizeof(who)),
		    ex_bytes((double)c->observed_guest, b2, sizeof(b2)),
		    c->write ? "writes" : "reads",
		    ex_bytes((double)c->observed_phys, b3, sizeof(b3)));
	else
		say(p, ". dom0 saw %s %s %s through its disk and %s on a physical disk",
		    d ? ex_dom_label(d, who, sizeof(who)) : "the domain",
		    c->write ? "write" : "read",
		    ex_bytes((double)c->observed_guest, b2, sizeof(b2)),
		    ex_bytes((double)c->observed_phys, b3, sizeof(b3)));
	if (c->observed_phys_rate_bps > 0)
		say(p, " (%s, %s)", ex_rate(c->observed_phys_rate_bps, r2, sizeof(r2)),
		    c->located.on_disk_s > 0 ? "over its run and until it was on disk"
		                             : "over its run");
}

void prose_claim(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                 const struct ex_domain *d)
{
	const struct ex_claim *c = &ex->claims[v->claim];
	char file[1024], tool[64], run[96], b1[32], r1[32];
	sanitize_text(c->fig.file, file, sizeof(file));
	sanitize_text(c->fig.tool, tool, sizeof(tool));
	sanitize_text(c->fig.run, run, sizeof(run));
	say(p, "%s (%s%s%s) says it %s %s", tool, file, run[0] ? ", " : "", run,
	    c->write ? "wrote" : "read", ex_bytes((double)c->bytes, b1, sizeof(b1)));
	if (c->seconds > 0)
		say(p, " in %.2f s", c->seconds);
	if (c->rate_bps > 0)
		say(p, ", %s", ex_rate(c->rate_bps, r1, sizeof(r1)));
	if (c->direction_from == EXD_LARGER)
		say(p, " (the tool does not say which way; taken as the way the domain moved "
		       "more bytes)");
	say_said(p, &c->fig.said);
	if (c->located.found)
		say_observed(p, ex, v, c, d);
	if (!c->located.found)
		say(p, ".");
	else if (v->reasons & EXR_CLAIM_BELOW_RESOLUTION)
		say(p, ": the run is shorter than the recording's intervals can time; over the "
		       "shortest time its stretch allows the disks kept up with the tool's rate, "
		       "which is all the samples can tell (record with a shorter -d, or run it "
		       "longer).");
	else if (v->reasons & EXR_CLAIM_INFLATED)
		say(p, ": the tool's rate is %.1fx what the disks did.", c->inflation);
	else if (c->inflation > 0 && c->inflation * EX_CLAIM_INFLATION_MIN < 1)
		say(p,
		    ": the tool's rate is below what the disks did (%.2fx): no cache inflated it.",
		    c->inflation);
	else if (c->inflation > 0)
		say(p, ": the tool's rate matches what the disks did (%.2fx).", c->inflation);
	else
		say(p, ".");
	say_located(p, v, c, d);
	say_also_active(p, ex, c, d);
	if (d && d->dom0_subject && c->write) /* where its drain ended, what came after */
		prose_dom0_after_data(p, ex, " ");
}
