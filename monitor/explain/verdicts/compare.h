/* compare.h - two windows (two recordings, or two windows of one) of a benchmark: the
 * throughput difference and its causes, ranked by how much of it each explains.
 *
 * Contract: each side is one domain of one explained window (the busiest unless named).
 * Its throughput is guest bytes (writes, or reads when neither side wrote 1 MiB) per
 * window second. The difference is taken in seconds per GiB, which add up:
 *   seen  s = window seconds / GiB           (what the benchmark timed)
 *   true  e = (window + drain) seconds / GiB (until the bytes were on disk)
 *   s_B - s_A = (h_A - h_B)   page_cache_inflation: the seconds per GiB the cache hid
 *                                 (h = e - s; reads: the part served from cache)
 *             + (c_B - c_A)   dom0_cpu_cost: dom0 CPU seconds per GiB, when the true
 *                                 difference goes the same way (at most all of it)
 *             + the rest      path: what the layers below did (disk speed, stacking)
 * The signed seconds add up to s_B - s_A. One scale for all: each cause's share is its
 * seconds per GiB over the sum of every cause's, taken as magnitudes (within 0..1, adding
 * up to 1 even when causes pull opposite ways); `against` marks a cause whose seconds go
 * the other way from the difference. Ranked by share, largest first.
 * Two imported recordings (xiotop import) whose logs hold no guest bytes (an old xentop
 * without VBD_RSECT/WSECT, NetBSD's) but dom0's CPU (xentop's Domain-0 row) are compared
 * by that alone (hosts_only: no domain, no causes): dom0 CPU seconds of A against B's and
 * the guests' vCPU time, assuming both windows ran the same test (said in its words,
 * report/prose_compare.c).
 */
#ifndef XIOTOP_EXPLAIN_COMPARE_H
#define XIOTOP_EXPLAIN_COMPARE_H

#include <stdbool.h>

#include "core/error.h"
#include "explain/explain.h"

struct ex_side {
	const struct explain *ex;
	const struct ex_domain *dom;
	/* dom taken as the busiest (no name given) while this other domain moved 1 MiB too:
	 * said beside the side, so a busy dom0 or a second guest is not the subject unseen */
	const struct ex_domain *also_active;
	double bytes, rate_bps;
	double seen_s_per_gib, true_s_per_gib, hidden_s_per_gib, cpu_s_per_gib;
	/* the guest's average request and dom0's to the leaf disks (requests_known) */
	double guest_avg_request, disk_avg_request;
	/* dom0 CPU seconds per GiB by role (enum xio_cpu_role), the drain's included */
	double role_s_per_gib[XIO_CPU_ROLES];
	/* its test file against the caches on its path (verdicts.h ex_test_and_caches), and
	 * whether it is under the benchmark's rule (EX_TEST_TO_CACHE_RULE x the caches) */
	double test_bytes, cache_bytes;
	bool under_rule;
};

struct ex_cause {
	enum ex_verdict_id id; /* EXV_PAGE_CACHE_INFLATION, EXV_DOM0_CPU_COST, EXV_PATH */
	double s_per_gib;      /* signed: its part of s_B - s_A */
	double share;          /* |s_per_gib| / the causes' sum of |s_per_gib|: 0..1 */
	bool against;          /* it worked the other way from the difference */
};

struct ex_compare {
	struct ex_side a, b;
	bool reads;                  /* the throughput compared is reads */
	double ratio;                /* rate a / rate b */
	double difference_s_per_gib; /* s_B - s_A */
	double causes_s_per_gib;     /* the causes' seconds per GiB, as magnitudes, summed */
	struct ex_cause causes[3];
	size_t n_causes;
	bool requests_known; /* both sides count their requests (ex_side's averages) */
	/* the comparison's flaw: a side's test is under the benchmark's size rule for the
	 * caches on its path (it measured them), the sides' caches differing */
	bool size_flaw;
	/* hosts_only: a.dom, b.dom are NULL, n_causes 0; these instead (seconds) */
	bool hosts_only;
	double dom0_cpu_s_a, dom0_cpu_s_b, guests_vcpu_s_a, guests_vcpu_s_b;
};

/* dom_a / dom_b: the domain of each side (id or name), NULL the busiest. 0, or -1 with
 * err (XERR_INPUT: a side without a domain that moved 1 MiB). */
int explain_compare(const struct explain *a, const char *dom_a, const struct explain *b,
                    const char *dom_b, struct ex_compare *out, struct xerr *err);

#endif
