/* day.h - each domain's whole recording at a glance, for the HTML report's day chart: its
 * guest and physical bytes per second in buckets from the recording's first sample to
 * its last (not only the window explain judges).
 *
 * Contract: explain_day_collect() reads the recording at the buckets' edges only (the
 * counters are cumulative: a bucket is the interval between two samples, computed by the
 * model as every figure is), the sample at or before each edge, so a day of 1 s samples
 * costs 145 reads. Buckets are the shortest of 1, 5, 10, 15, 30 and 60 minutes and 2, 4,
 * 6, 12 and 24 hours that cut the recording into at most EX_DAY_BUCKETS (at least one
 * sampling interval). A domain is in it when any bucket moved a byte of it; a bucket
 * whose edges are one sample (a gap in the recording) holds nothing, marked so.
 * Unknown figures (an import without the stack) are said per domain, never 0.
 */
#ifndef XIOTOP_EXPLAIN_DAY_H
#define XIOTOP_EXPLAIN_DAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "record/record.h"

#define EX_DAY_BUCKETS 144
#define EX_DAY_DOMAINS 64 /* the busiest, by guest bytes */

struct ex_day_domain {
	uint32_t domid;
	char name[64]; /* raw: sanitize on output */
	bool guest_known, phys_known;
	uint64_t guest_bytes; /* over the whole recording: the order they are shown in */
	double guest_bps[EX_DAY_BUCKETS], phys_bps[EX_DAY_BUCKETS];
};

struct ex_day {
	int64_t t0_ns, bucket_ns; /* the first bucket's start (wall clock) and a bucket's span */
	size_t n_buckets;
	bool gap[EX_DAY_BUCKETS]; /* no sample within the bucket */
	struct ex_day_domain doms[EX_DAY_DOMAINS];
	size_t n_doms;
};

/* The day of reader r into *day. 0, or -1 with err (a sample that cannot be read). */
int explain_day_collect(struct rec_reader *r, struct ex_day *day, struct xerr *err);

#endif
