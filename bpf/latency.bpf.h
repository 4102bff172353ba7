/* latency.bpf.h - per-domain I/O latency at the guest-visible layer (--latency).
 *
 * Two sources feed one log2 histogram of nanoseconds per (domain, op) (struct xiotop_lat):
 *   - a bio queued to a domain's backend device (rule 1, `dev`: what blkback or an
 *     emulated backend submits) is stamped at block_bio_queue, keyed by its pointer, and
 *     timed when it completes. A bio-based device (zram, dm, md) completes it through
 *     bio_endio, which fires block_bio_complete once for a bio that passed
 *     block_bio_queue (BIO_TRACE_COMPLETION: set in submit_bio_noacct_nocheck,
 *     block/blk-core.c, cleared by bio_endio, block/bio.c). A request-based (blk-mq)
 *     device (loop, nvme, sd) does not: blk_update_request clears the flag ("completion
 *     has already been traced") after block_rq_complete, so there the request's bios
 *     are timed at block_rq_complete, each one the completed byte count covers;
 *   - a device model's read/write syscall on its image file is timed from sys_enter to
 *     sys_exit (fileio.bpf.h).
 * Off by default: user space sets track_latency before load and only then loads the
 * completion program, so without --latency the verifier drops every latency branch and
 * the hot path is unchanged. The stamp map is LRU: a stamp whose completion is never
 * seen cannot fill it.
 */
#ifndef XIOTOP_LATENCY_BPF_H
#define XIOTOP_LATENCY_BPF_H

#include "maps.bpf.h"

const volatile bool track_latency = false;

struct lat_stamp {
	u64 start_ns;
	u32 domid;
	u32 op; /* XIOTOP_LAT_READ or XIOTOP_LAT_WRITE */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XIOTOP_MAX_INFLIGHT);
	__type(key, u64);
	__type(value, struct lat_stamp);
} lat_inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, XIOTOP_MAX_LAT_KEYS);
	__type(key, struct xiotop_lat_key);
	__type(value, struct xiotop_lat);
} lat_hist SEC(".maps");

/* floor(log2(v)) for v >= 1 by halving the range (BPF has no count-leading-zeros). */
static __always_inline u32 log2_floor(u64 v)
{
	u32 r = 0, shift;
	shift = (v > 0xffffffffull) << 5;
	v >>= shift;
	r |= shift;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	return r | (u32)(v >> 1);
}

/* One I/O of `ns` nanoseconds for (domid, op). */
static __always_inline void latency_add(u32 domid, u32 op, u64 ns)
{
	struct xiotop_lat_key key = {.domid = domid, .op = op};
	struct xiotop_lat zero = {};
	struct xiotop_lat *h = lookup_or_init(&lat_hist, &key, &zero);
	if (!h) {
		stat_inc(XIOTOP_STAT_LOST_LATENCY);
		return;
	}
	u32 b = ns < 2 ? 0 : log2_floor(ns);
	if (b > XIOTOP_LAT_BUCKETS - 1)
		b = XIOTOP_LAT_BUCKETS - 1;
	h->count++;
	h->sum_ns += ns;
	h->buckets[b & (XIOTOP_LAT_BUCKETS - 1)]++;
}

/* A bio charged by rule 1 (its device is domid's backend) enters the block layer. */
static __always_inline void latency_start(struct bio *bio, u32 domid, bool is_write)
{
	u64 key = (u64)bio;
	struct lat_stamp st = {.start_ns = bpf_ktime_get_ns(),
	                       .domid = domid,
	                       .op = is_write ? XIOTOP_LAT_WRITE : XIOTOP_LAT_READ};
	bpf_map_update_elem(&lat_inflight, &key, &st, BPF_ANY);
}

/* A stamped bio completed (a bio without a stamp is not one of ours: nothing). */
static __always_inline int on_bio_complete(struct bio *bio)
{
	u64 key = (u64)bio;
	struct lat_stamp *st = bpf_map_lookup_elem(&lat_inflight, &key);
	if (!st)
		return 0;
	u64 now = bpf_ktime_get_ns();
	u64 ns = now > st->start_ns ? now - st->start_ns : 0;
	u32 domid = st->domid, op = st->op;
	bpf_map_delete_elem(&lat_inflight, &key);
	latency_add(domid, op, ns);
	return 0;
}

/* Bios a request carries, looked at per completion: the first ones; a request merged from
 * more is timed for these only (their stamps age out of the LRU map). */
#define LAT_RQ_BIOS 16

/* A blk-mq request completed nr_bytes: the bios those bytes finish, in order. */
static __always_inline int on_rq_complete(struct request *rq, u32 nr_bytes)
{
	struct bio *bio = BPF_CORE_READ(rq, bio);
	u32 left = nr_bytes;
	for (int i = 0; i < LAT_RQ_BIOS && bio; i++) {
		u32 size = BPF_CORE_READ(bio, bi_iter.bi_size);
		if (size > left)
			break; /* partly done: it completes at a later call */
		left -= size;
		on_bio_complete(bio);
		bio = BPF_CORE_READ(bio, bi_next);
	}
	return 0;
}

#endif
