/* prose_compare.c - the words of a comparison (verdicts/compare.h): the summary and each
 * cause's sentence. */
#include <string.h>

#include "explain/report/prose.h"
#include "explain/verdicts/verdicts.h"

static void say_hosts(struct prose *p, const struct ex_compare *c)
{
	const struct explain *a = c->a.ex, *b = c->b.ex;
	say(p,
	    "dom0 was busy %.1f s of CPU in A's %.0f s and %.1f s in B's %.0f s (%s): A cost "
	    "dom0 %.2fx B's CPU (%+.1f s), while the guests' own vCPU time was %.1f s and "
	    "%.1f s. The logs hold no bytes the guests moved (no VBD_RSECT/VBD_WSECT), so "
	    "this compares the runs only if both ran the same test. What dom0 spends beyond "
	    "blkback is its path's: a file: disk on loop adds loop's kworkers and the "
	    "flusher, an emulated disk qemu; xiotop record splits it by role.",
	    c->dom0_cpu_s_a, a->win.seconds, c->dom0_cpu_s_b, b->win.seconds, a->host.busy_source,
	    c->ratio, c->dom0_cpu_s_a - c->dom0_cpu_s_b, c->guests_vcpu_s_a, c->guests_vcpu_s_b);
}

void prose_compare(const struct ex_compare *c, char *buf, size_t len)
{
	struct prose p = {.buf = buf, .len = len};
	buf[0] = '\0';
	if (c->hosts_only) {
		say_hosts(&p, c);
		return;
	}
	char ra[32], rb[32];
	double ta = c->a.true_s_per_gib, tb = c->b.true_s_per_gib;
	say(&p,
	    "A %s at %s, B at %s: A looked %.2fx as fast (%.2f s per GiB against %.2f). "
	    "First cause: %s (%.0f %% of what the causes explain). Counted until the bytes "
	    "were on disk%s, A took %.2f s per GiB and B %.2f: %s was %.2fx as fast. How "
	    "they add up: the causes' signed seconds per GiB sum to the difference (%+.2f); "
	    "each share is a cause's seconds over all of theirs (%.2f), a cause working "
	    "the other way counted as against it.",
	    c->reads ? "read" : "wrote", ex_rate(c->a.rate_bps, ra, sizeof(ra)),
	    ex_rate(c->b.rate_bps, rb, sizeof(rb)), c->ratio, c->a.seen_s_per_gib,
	    c->b.seen_s_per_gib, ex_verdict_key(c->causes[0].id), c->causes[0].share * 100,
	    c->reads ? " (reads: from a disk)" : "", ta, tb, ta <= tb ? "A" : "B",
	    ta <= tb ? (ta > 0 ? tb / ta : 0)
	    : tb > 0 ? ta / tb
	             : 0,
	    c->difference_s_per_gib, c->causes_s_per_gib);
}

void prose_cause(const struct ex_compare *c, const struct ex_cause *k, char *buf, size_t len)
{
	struct prose p = {.buf = buf, .len = len};
	const struct ex_side *a = &c->a, *b = &c->b;
	buf[0] = '\0';
	switch (k->id) {
	case EXV_PAGE_CACHE_INFLATION:
		say(&p,
		    "dom0's page cache hid %.2f s per GiB from A's timing and %.2f s per GiB from "
		    "B's (the time until the bytes were on disk%s)",
		    a->hidden_s_per_gib, b->hidden_s_per_gib, c->reads ? ", or read from it" : "");
		return;
	case EXV_DOM0_CPU_COST:
		say(&p, "dom0 spent %.2f s of CPU per GiB for A and %.2f for B", a->cpu_s_per_gib,
		    b->cpu_s_per_gib);
		return;
	default: /* the path */
		break;
	}
	say(&p,
	    "counted until on disk, A took %.2f s per GiB and B %.2f: the rest is the path "
	    "below (disk speed, layers)",
	    a->true_s_per_gib, b->true_s_per_gib);
	char x[32], y[32], z[32], w[32];
	if (c->requests_known)
		say(&p,
		    "; the guest's requests averaged %s on A and %s on B, the disk's own %s and "
		    "%s (request_size)",
		    ex_bytes(a->guest_avg_request, x, sizeof(x)),
		    ex_bytes(b->guest_avg_request, y, sizeof(y)),
		    ex_bytes(a->disk_avg_request, z, sizeof(z)),
		    ex_bytes(b->disk_avg_request, w, sizeof(w)));
}
