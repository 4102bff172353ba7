/* prose_compare.c - the words of a comparison (verdicts/compare.h): the summary and each
 * cause's sentence. */
#include <string.h>

#include "core/figures.h"
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

/* One side's test against the caches on its path. */
static void say_side_size(struct prose *p, const char *which, const struct ex_side *s)
{
	char who[160], t[32], m[32];
	say(p, "%s's test (%s, %s) was %s against the %s of the caches on its path (%.2fx)", which,
	    ex_dom_label(s->dom, who, sizeof(who)), s->under_rule ? "under the rule" : "over it",
	    ex_bytes(s->test_bytes, t, sizeof(t)), ex_bytes(s->cache_bytes, m, sizeof(m)),
	    s->cache_bytes > 0 ? s->test_bytes / s->cache_bytes : 0);
}

/* The comparison's flaw: a side sized its test under the benchmark's rule for its own
 * caches (seed 004: dom0's 256 MB on a 256 MB dom0, the domU's 2 GB on 2 GB). */
static void say_size_flaw(struct prose *p, const struct ex_compare *c)
{
	say(p, " The comparison's flaw: ");
	say_side_size(p, "A", &c->a);
	say(p, "; ");
	say_side_size(p, "B", &c->b);
	say(p,
	    ". A benchmark sizes its file at %.0fx the memory of the caches on its way (bonnie++ "
	    "by default) so that they cannot hold it; a side under that measured its caches, "
	    "and the two sides' caches differ: size each test to twice its own side's memory "
	    "(guest and dom0 where dom0 caches the path) before comparing.",
	    EX_TEST_TO_CACHE_RULE);
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
	if (c->size_flaw)
		say_size_flaw(&p, c);
}

/* A side's CPU by role where a device model or loop had a part in it: what each path's
 * own machinery cost (qemu's emulation against blkback's). */
static void say_roles(struct prose *p, const char *which, const struct ex_side *s)
{
	double dm = s->role_s_per_gib[XIO_CPU_DEVICE_MODEL], loop = s->role_s_per_gib[XIO_CPU_LOOP];
	if (dm <= 0 && loop <= 0)
		return;
	say(p, "; %s's: ", which);
	for (int r = 0, n = 0; r < XIO_CPU_ROLES; r++)
		if (s->role_s_per_gib[r] > 0)
			say(p, "%s%s %.2f", n++ ? ", " : "",
			    figure_cpu_role_key((enum xio_cpu_role)r), s->role_s_per_gib[r]);
	if (dm > 0)
		say(p, " (the device model emulates each request: a trap, a copy, a syscall)");
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
		say_roles(&p, "A", a);
		say_roles(&p, "B", b);
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
