/* prose_said.c - the words of the verdicts on what a claim says of itself
 * (verdicts/verdicts_said.c): queue depth 1 against the round trip, O_DIRECT in the guest
 * buffered in dom0. */
#include <math.h>

#include "core/sanitize.h"
#include "explain/report/prose.h"

/* "fio (group 0 read)": the claim's tool and run, sanitized */
static void say_run(struct prose *p, const struct ex_claim *c)
{
	char tool[64], run[96];
	sanitize_text(c->fig.tool, tool, sizeof(tool));
	sanitize_text(c->fig.run, run, sizeof(run));
	say(p, "%s%s%s%s", tool, run[0] ? " (" : "", run, run[0] ? ")" : "");
}

/* Where xiotop timed a domain's requests in dom0 and what of each round trip is outside
 * that, by backend (docs/DESIGN.md "I/O latency"): blkback's device from each request's
 * start there to its completion, so its own work around it is not in it
 * (end_block_io_op unmaps the grants, responds and notifies after the device's
 * completion); a device model's read and write system calls on its image. */
static const struct qd_where {
	const char *timed, *between, *own_work;
} qd_blkback = {"at the device backing it in dom0, each from its start there to its "
                "completion,",
                "on the ring and event channel between the guest and dom0",
                "in blkback's own work in dom0 around the device (mapping the guest's pages "
                "before, unmapping them, the response and its notify after)"},
  qd_qemu = {"at the device model's reads and writes of its image in dom0,",
             "on the way between the guest and dom0 (its ring or its emulated device's exits)",
             "in the device model's own work in dom0 around those reads and writes"};

void prose_queue_depth(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                       const struct ex_domain *d)
{
	const struct ex_claim *c = &ex->claims[v->claim];
	const struct qd_where *w = ex_path_of(d) == EXP_QEMU ? &qd_qemu : &qd_blkback;
	char who[160], b[32];
	double mean_us = fig(v, EXK_LATENCY_MEAN_US), lat_iops = fig(v, EXK_LATENCY_IOPS);
	double claimed = fig(v, EXK_CLAIMED_IOPS);
	say_run(p, c);
	say(p,
	    " ran at queue depth 1, %s requests: each waits for the one before it, so its "
	    "rate is at most one request per round trip. xiotop timed %.0f of %s's %s %s at "
	    "%.0f us on average over the run, which allows 1 / %.0f us = %.0f IOPS; the tool "
	    "says %.0f IOPS (%.2fx). ",
	    ex_bytes(fig(v, EXK_BLOCK_BYTES), b, sizeof(b)), fig(v, EXK_LATENCY_REQUESTS),
	    ex_dom_label(d, who, sizeof(who)), c->write ? "writes" : "reads", w->timed, mean_us,
	    mean_us, lat_iops, claimed, fig(v, EXK_IOPS_TO_LATENCY));
	if (v->reasons & EXR_QD_ROUND_TRIP)
		say(p, "The round trip is the limit, not the disk's bandwidth: a faster disk does "
		       "little here; more requests in flight (fio iodepth=, numjobs=) measure what "
		       "the path can carry.");
	else if (v->reasons & EXR_QD_BELOW)
		say(p,
		    "Each of its requests took %.0f us more than xiotop timed there: that time is "
		    "outside it, in the guest (its own stack, its CPU), %s, or %s.",
		    1e6 / claimed - mean_us, w->between, w->own_work);
	else
		say(p, "Faster than xiotop's time there allows: a cache above dom0 (the guest's "
		       "own) answered part of them.");
}

void prose_direct_buffered(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                           const struct ex_domain *d)
{
	const struct ex_claim *c = &ex->claims[v->claim];
	char who[160], b1[32], b2[32], b3[32];
	say_run(p, c);
	say(p, " opened its file O_DIRECT in %s, past the guest's own page cache. ",
	    ex_dom_label(d, who, sizeof(who)));
	if (fig(v, EXK_DIRTIED_BYTES) >= EX_ACTIVE_BYTES)
		say(p,
		    "But the guest's disk is %s, and dom0 dirtied %s of its %s of writes in its "
		    "own page cache: ",
		    fig_str(v, EXK_PATH), ex_bytes(fig(v, EXK_DIRTIED_BYTES), b1, sizeof(b1)),
		    ex_bytes(fig(v, EXK_GUEST_WR_BYTES), b2, sizeof(b2)));
	else
		say(p,
		    "But the guest's disk is %s, and dom0's page cache served %s of its %s of "
		    "reads: ",
		    fig_str(v, EXK_PATH),
		    ex_bytes(fig(v, EXK_GUEST_RD_BYTES) - fig(v, EXK_PHYS_RD_BYTES), b1,
		             sizeof(b1)),
		    ex_bytes(fig(v, EXK_GUEST_RD_BYTES), b3, sizeof(b3)));
	say(p, "O_DIRECT in the guest is buffered in dom0 (a loop device without direct I/O, or "
	       "a device model's writeback cache), so what the tool timed includes dom0's "
	       "cache. losetup --direct-io=on (or qemu cache=none), or a phy: disk, makes it "
	       "direct all the way.");
}
