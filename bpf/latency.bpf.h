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
 * completion programs, so without --latency the verifier drops every latency branch and
 * the hot path is unchanged.
 *
 * The stamps are an array of slots indexed by a hash of the bio pointer, not a hash map:
 * an array element is a direct memory access (no lock, no allocation), which made a
 * stamp and its completion about ten times cheaper than a hash update and delete. A
 * slot holds its bio's pointer, so a completion only times its own stamp, and takes it
 * (frees the slot). So a stamp still in its slot when a new bio is stamped there is a
 * request that will not be timed: either it is still in flight (two bios in one slot,
 * rare with XIOTOP_LAT_SLOTS slots) or its completion never reached us. Each is counted
 * in XIOTOP_STAT_LATENCY_DISPLACED, which user space adds to the lost events when both
 * completion hooks are attached (without one, its backends' stamps are never taken, and
 * the hooks line already says that they are not timed).
 * The second case is real: on a 6.18 kernel, up to about one loop completion in 200,000 fired
 * block_rq_complete (ftrace recorded it, diskstats counted it) without running our
 * program and without a recursion miss; each of the three caught ran in a softirq on
 * top of another task. The bio's slab slot is reused within milliseconds, so the orphan
 * is found, and said, at the next stamp of that pointer. A completion program the
 * kernel does not run because one is already running on that CPU (recursion_misses)
 * is added to the lost events by user space as well.
 */
#ifndef XIOTOP_LATENCY_BPF_H
#define XIOTOP_LATENCY_BPF_H

#include "maps.bpf.h"

const volatile bool track_latency = false;

/* The slot count less one (a power of two), set by user space with the map's size. */
const volatile unsigned int lat_slot_mask = XIOTOP_LAT_SLOTS - 1;

struct lat_stamp {
	u64 bio; /* whose stamp: 0 free */
	u64 start_ns;
	u32 domid;
	u32 op; /* XIOTOP_LAT_READ or XIOTOP_LAT_WRITE */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XIOTOP_LAT_SLOTS);
	__type(key, u32);
	__type(value, struct lat_stamp);
} lat_inflight SEC(".maps");

/* A bio's pointer as a plain number: the verifier allows no arithmetic but adding on a
 * tp_btf program's trusted pointer, so it is copied through the stack by a helper. */
static __always_inline u64 bio_number(struct bio *bio)
{
	u64 ptr = (u64)bio, n = 0;
	bpf_probe_read_kernel(&n, sizeof(n), &ptr);
	return n;
}

/* A bio's slot: Fibonacci hashing of its pointer (slab objects share their low bits). */
static __always_inline struct lat_stamp *lat_slot(u64 bio)
{
	u32 idx = (u32)((bio * 0x9e3779b97f4a7c15ull) >> 40) & lat_slot_mask;
	return bpf_map_lookup_elem(&lat_inflight, &idx);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, XIOTOP_MAX_LAT_KEYS);
	__type(key, struct xiotop_lat_key);
	__type(value, struct xiotop_lat);
} lat_hist SEC(".maps");

/* floor(log2(v)) for v >= 1 by halving the range (BPF has no count-leading-zeros): each
 * step moves the top `bits` bits down when any is set. Unrolled at compile time into the
 * same five shift steps, no loop at run time. */
static __always_inline u32 log2_floor(u64 v)
{
	u32 r = 0;
#pragma unroll
	for (u32 bits = 32; bits > 1; bits /= 2) {
		u32 shift = (u32)((v >> bits) != 0) * bits;
		v >>= shift;
		r |= shift;
	}
	return r | (u32)(v >> 1);
}

/* The histogram of (domid, op), created on first use; NULL (counted lost) when full. */
static __always_inline struct xiotop_lat *lat_hist_of(u32 domid, u32 op)
{
	struct xiotop_lat_key key = {.domid = domid, .op = op};
	struct xiotop_lat zero = {};
	struct xiotop_lat *h = lookup_or_init(&lat_hist, &key, &zero);
	if (!h)
		stat_inc(XIOTOP_STAT_LOST_LATENCY);
	return h;
}

/* One I/O of `ns` nanoseconds into h. */
static __always_inline void lat_record(struct xiotop_lat *h, u64 ns)
{
	u32 b = ns < 2 ? 0 : log2_floor(ns);
	if (b > XIOTOP_LAT_BUCKETS - 1)
		b = XIOTOP_LAT_BUCKETS - 1;
	/* clang drops the mask below as redundant after the clamp, and kernel 6.1's verifier
	 * does not carry the clamp's bound to the register that indexes buckets[] */
	barrier_var(b);
	h->count++;
	h->sum_ns += ns;
	h->buckets[b & (XIOTOP_LAT_BUCKETS - 1)]++;
}

/* One I/O of `ns` nanoseconds for (domid, op). */
static __always_inline void latency_add(u32 domid, u32 op, u64 ns)
{
	struct xiotop_lat *h = lat_hist_of(domid, op);
	if (h)
		lat_record(h, ns);
}

/* A bio charged by rule 1 (its device is domid's backend) enters the block layer. */
static __always_inline void latency_start(struct bio *bio, u32 domid, bool is_write)
{
	u64 key = bio_number(bio);
	struct lat_stamp *st = lat_slot(key);
	if (!st)
		return;
	u64 now = bpf_ktime_get_ns();
	/* a stamp not taken: in flight in the same slot, or its completion never seen */
	if (st->bio)
		stat_inc(XIOTOP_STAT_LATENCY_DISPLACED);
	st->bio = 0; /* while it is rewritten, no completion takes it */
	st->start_ns = now;
	st->domid = domid;
	st->op = is_write ? XIOTOP_LAT_WRITE : XIOTOP_LAT_READ;
	st->bio = key;
}

/* The stamp of bio `key` taken (its slot freed): false when it has none. */
static __always_inline bool lat_take(u64 key, struct lat_stamp *out)
{
	struct lat_stamp *st = lat_slot(key);
	if (!st || st->bio != key)
		return false;
	*out = *st;
	st->bio = 0;
	out->op &= 1;
	return true;
}

static __always_inline u64 lat_since(u64 start)
{
	u64 now = bpf_ktime_get_ns();
	return now > start ? now - start : 0;
}

/* A stamped bio completed (a bio without a stamp is not one of ours: nothing). */
static __always_inline int on_bio_complete(struct bio *bio)
{
	struct lat_stamp st;
	if (lat_take(bio_number(bio), &st))
		latency_add(st.domid, st.op, lat_since(st.start_ns));
	return 0;
}

/* Bios of a request looked at per completion: a request holds at most max_segments bios
 * (128 by default); any beyond are not timed (their slots are overwritten later). */
#define LAT_RQ_BIOS 128

struct rq_walk {
	u64 bio;  /* the next bio of the request (a plain number: read by probe) */
	u32 left; /* completed bytes not yet matched to a bio */
};

/* One bio of a completing request (a bpf_loop callback: verified once, not per bio). */
static long rq_walk_one(u64 index, void *ctx)
{
	struct rq_walk *w = ctx;
	struct bio *b = (struct bio *)w->bio;
	if (!b)
		return 1;
	u32 size = BPF_CORE_READ(b, bi_iter.bi_size);
	if (size > w->left)
		return 1; /* partly done: it completes at a later call */
	w->left -= size;
	struct lat_stamp st;
	if (lat_take(w->bio, &st))
		latency_add(st.domid, st.op, lat_since(st.start_ns));
	w->bio = (u64)BPF_CORE_READ(b, bi_next);
	return 0;
}

/* A blk-mq request completed nr_bytes: the bios those bytes finish, in order. bpf_loop
 * (kernel 5.17) walks them; without it this program does not load and reports so. */
static __always_inline int on_rq_complete(struct request *rq, u32 nr_bytes)
{
	struct rq_walk w = {.bio = (u64)BPF_CORE_READ(rq, bio), .left = nr_bytes};
	bpf_loop(LAT_RQ_BIOS, rq_walk_one, &w, 0);
	return 0;
}

#endif
