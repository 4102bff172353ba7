/* latency.h - log2 latency histograms (bpf/xiotop.h struct xiotop_lat): bucket bounds,
 * interval deltas, merging and quantiles.
 *
 * Contract: bucket i holds latencies in [latency_bucket_low_ns(i), latency_bucket_high_ns(i));
 * the last bucket has no upper bound (high is UINT64_MAX: +Inf). A quantile is found as
 * Prometheus' histogram_quantile() does: the bucket where the cumulative count reaches
 * q x count, interpolated linearly inside it (the last bucket gives its lower bound), so
 * it always lies in the bucket that holds the q-th I/O. No I/O, no globals.
 * latency_copy_whole() copies a histogram a BPF program may be adding to (its seq,
 * bpf/xiotop.h): it tries until the copy is whole, yielding the CPU after a few tries (the
 * writer's vCPU may wait for ours), at most LATENCY_COPY_TRIES; true when whole, else the
 * copy as read, whose sum may lack or hold that one I/O's time. Either way, and in
 * latency_count_buckets(), count is set to the buckets' sum (the programs do not count).
 */
#ifndef XIOTOP_LATENCY_H
#define XIOTOP_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/xiotop.h"

/* The bucket the BPF side counts ns in. */
int latency_bucket_of(uint64_t ns);
uint64_t latency_bucket_low_ns(int i);
uint64_t latency_bucket_high_ns(int i); /* UINT64_MAX for the last bucket */
/* The q-quantile (0 < q <= 1) in ns, or -1 when the histogram is empty. */
double latency_quantile_ns(const struct xiotop_lat *h, double q);
/* cur - prev, bucket by bucket; a histogram that shrank (a restarted tracer, a reused
 * domid) counts from zero: the delta is cur itself. prev NULL: cur. */
void latency_delta(const struct xiotop_lat *cur, const struct xiotop_lat *prev,
                   struct xiotop_lat *out);
/* into += add */
void latency_merge(struct xiotop_lat *into, const struct xiotop_lat *add);

#define LATENCY_COPY_TRIES 1000 /* a writer is inside for nanoseconds, unless its vCPU waits */
bool latency_copy_whole(const struct xiotop_lat *src, struct xiotop_lat *out);
void latency_count_buckets(struct xiotop_lat *h);

#endif
