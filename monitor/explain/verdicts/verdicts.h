/* verdicts.h - the verdicts on one window, each a function of struct explain.
 *
 * Contract: explain_verdicts() runs every verdict on every domain that moved at least
 * 1 MiB through its guest in the window (and on each claim), fills ex->verdicts and
 * ranks them by share, largest first. A verdict holds its figures (numbers, null when
 * unknown), its reason codes and the counters it used (evidence): findings.h. It writes
 * no words: what a Xen storage expert would post, with the numbers, is report/'s
 * (report/prose.h). Shares are fractions in 0..1 of the discrepancy each verdict is about:
 *   page_cache_inflation  the part of the real time (window + drain) the guest did not
 *                         see: 1 - end-to-end rate / guest-visible rate;
 *   double_counting       the part of vmstat bo that is not physical I/O;
 *   dom0_cpu_cost         the part of its dom0 CPU per GiB the cheapest domain's path
 *                         does not spend (0 for the cheapest);
 *   read_cache            the part of guest reads no disk served;
 *   test_size_vs_memory   the page-cache inflation's share times the part of the bytes
 *                         written that sat in dom0's cache at once (peak backlog / bytes
 *                         written; the dirty limit when unknown): the test's size is why
 *                         the cache could hide that much;
 *   request_size          0: how the disk took the guest's requests (merged or as
 *                         issued) is a mechanism, not a discrepancy between two counts;
 *                         like path, it is weighed in a comparison;
 *   path                  0 on one window (what each layer adds; compare.h shares it);
 *   claim                 1 - what reached a disk / what the tool claims.
 * An imported recording (ex->host.absent != 0: logs, no tracer) gets the verdicts its
 * counters allow instead (the table's judge_import, verdicts_import.c), host-wide where
 * the logs have no per-domain figure:
 *   dom0_cpu_cost         (host) dom0's busy time from xentop's Domain-0 row (or vmstat);
 *                         share: dom0's part of the CPU the run cost, dom0 / (dom0 +
 *                         the guests' vCPU time);
 *   double_counting       (host) vmstat bo against iostat's leaf devices; share as above;
 *   page_cache_inflation, read_cache  a domain's xentop VBD bytes against the host's
 *                         disks (iostat, else vmstat): share 1 - disks / guest;
 *   test_size_vs_memory   as above (share 0: what a cache hid is unknown here);
 *   request_size          xentop's VBD requests against iostat's leaf devices' r/s, w/s;
 * and every verdict it cannot give is named in ex->not_given with what is missing and
 * which log (or xiotop record) would give it.
 */
#ifndef XIOTOP_EXPLAIN_VERDICTS_H
#define XIOTOP_EXPLAIN_VERDICTS_H

#include <stdarg.h>

#include "explain/explain.h"

/* A cache verdict needs the disks to have taken less than 4/5 of the guest's bytes: less
 * than that gap is the last interval's writeback or readahead, not a cache. */
#define EX_CACHED_PART_NUM 4
#define EX_CACHED_PART_DEN 5
/* Double counting is named when at least 1/20 of the bytes (5 %) were counted twice:
 * below, it is dom0's own writes and metadata, not a layer's second count. */
#define EX_DOUBLE_MIN_DEN 20
/* bonnie++ sizes its file at twice RAM by default (and warns below it) so that no cache
 * can hold it: a test file under twice the caches on its path measures them. */
#define EX_TEST_TO_CACHE_RULE 2.0

void explain_verdicts(struct explain *ex);

/* A verdict's judge: adds at most one verdict about d to ex (a claim's: one per claims[]
 * row). On an import it is also called once with d NULL, for a host-wide verdict or to
 * name the verdict as not given (ex_verdict_not_given) when the logs cannot give it. */
typedef void verdict_fn(struct explain *ex, const struct ex_domain *d);

/* Where a verdict applies (struct ex_verdict_kind.applies). */
enum {
	EXV_GUESTS = 1u << 0,      /* each guest domain a recording judges (1 MiB moved) */
	EXV_DOM0 = 1u << 1,        /* dom0's own run, the subject domain 0 (dom0_subject.h) */
	EXV_ONCE = 1u << 2,        /* once per recording (d NULL), after the domains: the claims */
	EXV_IMPORT = 1u << 3,      /* each domain of an import (xiotop import: logs, no tracer) */
	EXV_IMPORT_HOST = 1u << 4, /* an import, host-wide (domid EX_NO_DOMAIN) */
};

/* One row of the verdict table: the one place a verdict is named. */
struct ex_verdict_kind {
	const char *key;   /* its name: the JSON "id", the text's and HTML's heading, not_given */
	unsigned rank;     /* among equal shares, the lower rank first */
	unsigned applies;  /* EXV_* bits */
	verdict_fn *judge; /* on a recording (EXV_GUESTS, EXV_DOM0, EXV_ONCE) */
	verdict_fn *judge_import; /* on an import: each domain (EXV_IMPORT), and once with d
	                           * NULL for every verdict (host-wide, or not given) */
};

/* The table (verdict_table.c), indexed by enum ex_verdict_id. */
extern const struct ex_verdict_kind ex_verdict_kinds[EXV_COUNT];

static inline const char *ex_verdict_key(enum ex_verdict_id id)
{
	return ex_verdict_kinds[id].key;
}

/* Names a verdict the recording cannot give (once per name), printf-style why;
 * ex_not_given names a figure that is not a verdict ("disk_bytes"). */
void ex_verdict_not_given(struct explain *ex, enum ex_verdict_id id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ex_not_given(struct explain *ex, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The judges of a recording (verdicts_io.c, verdicts_cost.c, verdicts_request.c,
 * verdict_claim.c: verdict_claims judges every claims[] row, d NULL) */
verdict_fn verdict_page_cache_inflation, verdict_double_counting, verdict_read_cache,
    verdict_dom0_cpu_cost, verdict_test_size_vs_memory, verdict_path, verdict_request_size,
    verdict_claims, verdict_queue_depth, verdict_direct_buffered;
/* and of an import (verdicts_import.c) */
verdict_fn import_page_cache_inflation, import_double_counting, import_read_cache,
    import_dom0_cpu_cost, import_test_size_vs_memory, import_path, import_request_size,
    import_claim, import_queue_depth, import_direct_buffered;

/* dom0's own run (explain/dom0_subject.h): which rule ended its drain, as a verdict's
 * figures ("drain_from": "the run's data", "a quiet stretch" or "-" not drained;
 * "run_data_bytes", "data_taken_bytes", "after_data_wr_bytes", "after_data_last_seconds":
 * null where unknown). dom0_drain.c */
void ex_dom0_drain_figures(struct ex_verdict *v, const struct explain *ex,
                           const struct ex_domain *d);

/* What a claim says of itself (its result's struct claim_said) as a verdict's figures:
 * "direct", "sync", "flush_end" (1, 0; null: nothing says), "block_bytes", "queue_depth".
 * verdict_util.c */
void ex_said_figures(struct ex_verdict *v, const struct ex_claim *c);

/* The figure keys (verdict_keys.c), indexed by enum ex_key: the JSON contract. */
extern const char *const ex_keys[EXK_COUNT];

static inline const char *ex_key_name(enum ex_key k)
{
	return ex_keys[k];
}

/* ---- helpers for verdicts (verdict_util.c) ---- */
/* A new verdict in ex (NULL when full). */
struct ex_verdict *ex_verdict_new(struct explain *ex, enum ex_verdict_id id, uint32_t domid);
void ex_fig(struct ex_verdict *v, enum ex_key key, double value);
void ex_fig_null(struct ex_verdict *v, enum ex_key key);
void ex_fig_str(struct ex_verdict *v, enum ex_key key, const char *value);
void ex_evidence(struct ex_verdict *v, const char *counter);
/* The benchmark's own size rule's inputs for d (verdicts_cost.c): its test file (the
 * largest a claim set against it gives, claims[] row `row`; else the larger direction it
 * moved), and the caches on its path: the guest's memory plus dom0's part (its memory, or
 * its dirty limit for a test that only writes) where dom0 caches the path. */
struct ex_test_size {
	double test, cache, dom0_cache, limit;
	size_t row; /* EX_NO_CLAIM: from the guest's bytes */
	bool dom0;  /* dom0's page cache is on the path */
};
void ex_test_and_caches(const struct explain *ex, const struct ex_domain *d,
                        struct ex_test_size *t);

/* What d's leaf devices took over the window and its drain, in one direction: their own
 * bytes and completed requests (diskstats, after merging), when each leaf d used served d
 * alone; false (0, 0) when not, or when no leaf counted any (why, if not NULL, then says
 * which leaf and why, or stays as it was: d used no leaf that way). verdicts_request.c */
bool ex_leaf_requests(const struct ex_domain *d, bool wr, double *bytes, double *ios, char *why,
                      size_t whylen);
#endif
