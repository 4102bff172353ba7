/* latency.bpf.h - per-domain I/O latency at the guest-visible layer (unless --no-latency).
 *
 * Three sources feed one log2 histogram of nanoseconds per (domain, op) (struct xiotop_lat),
 * each timing only I/O of a device that backs a domain (rule 1: the device table's
 * XIOTOP_DEV_IS_BACKEND, what blkback or an emulated backend submits to):
 *   - a request-based (blk-mq) device (loop, nvme, sd, virtio): the request is timed at
 *     its last block_rq_complete from the kernel's own stamp, rq->start_time_ns, set by
 *     blk_account_io_start (block/blk-mq.c) when the request is made from its first bio,
 *     on a queue with iostats on (the default; the time /proc/diskstats' ticks are
 *     counted from). Where it is 0 (iostats off) rq->io_start_time_ns, the driver's
 *     start, if the queue keeps it (blk-stat users); else the request is not timed and
 *     counted in XIOTOP_STAT_LATENCY_UNSTAMPED (a lost event). No program runs at issue
 *     for these, no bio is walked: one program per completion. A request is one I/O:
 *     bios merged into it count once (a backend that waits for each, as blkback's
 *     guest-sized requests and the live tests' writers, merges none);
 *   - a bio-based device (zram, dm, md) completes each bio through bio_endio, which
 *     fires block_bio_complete once for a bio that passed block_bio_queue
 *     (BIO_TRACE_COMPLETION). The kernel keeps no issue time of such a bio any more:
 *     bio->issue_time_ns (bi_issue before 6.17) is set only in blk_mq_submit_bio since
 *     commit 1f963bdd6420 ("block: initialize bio issue time in blk_mq_submit_bio()"),
 *     so these bios are stamped at block_bio_queue, keyed by their pointer, as below;
 *   - a device model's read/write syscall on its image file is timed from sys_enter to
 *     sys_exit (fileio.bpf.h).
 * On by default: user space sets track_latency before load and only then loads the
 * completion programs, so with --no-latency the verifier drops every latency branch and
 * the hot path is as without it (but for one load of lat_stamp_bios per bio).
 *
 * The bio stamps are an array of slots indexed by a hash of the bio pointer, not a hash map:
 * an array element is a direct memory access (no lock, no allocation), which made a
 * stamp and its completion about ten times cheaper than a hash update and delete. A
 * slot holds its bio's pointer, so a completion only times its own stamp, and takes it
 * (frees the slot). So a stamp still in its slot when a new bio is stamped there is a
 * request that will not be timed: either it is still in flight (two bios in one slot,
 * rare with XIOTOP_LAT_SLOTS slots) or its completion never reached us. Each is counted
 * in XIOTOP_STAT_LATENCY_DISPLACED, which user space adds to the lost events when
 * block_bio_complete is attached (only then are bios stamped).
 * A completion can be missed: on a 6.18 kernel, up to about one loop completion in
 * 200,000 fired block_rq_complete (ftrace recorded it, diskstats counted it) without
 * running our program and without a recursion miss; each of the three caught ran in a
 * softirq on top of another task. And diskstats can count a completion for which the
 * tracepoint never fired: 1,216 loop1p1 completions against 1,215 firings that an
 * independent perf-tracepoint program and ours both saw (2026-12-05, 6.18, direct I/O on;
 * 5 such in ~40,000 requests). Both are said as completions no program saw (rq_watch.h).
 * A completion program the kernel does not run because
 * one is already running on that CPU (recursion_misses) is added to the lost events by
 * user space.
 *
 * The histograms are per-CPU array slots (struct xiotop_lat_slot: domain slot x op x
 * log2 bucket), the per-CPU lat_hist hash only for a domain whose slot on that CPU
 * another domain owns.
 */
#ifndef XIOTOP_LATENCY_BPF_H
#define XIOTOP_LATENCY_BPF_H

#include "maps.bpf.h"

const volatile bool track_latency = false;

/* Bios of bio-based backends are stamped: only while block_bio_complete is attached to
 * take the stamps (set by user space after it attaches it, which it does once a
 * bio-based backend exists: on a host without one, no program runs at every bio-based
 * leaf's completions). */
volatile unsigned int lat_stamp_bios = 0;

/* bio_chain_endio's address (kallsyms, set by user space; 0 unknown): the end_io of a
 * bio split off another, whose request is not the guest's I/O (see on_rq_complete). */
const volatile unsigned long long bio_chain_endio_addr = 0;

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

/* A bio's pointer as a plain number, the key of its stamp. In a tp_btf program the bio is
 * a trusted pointer on which the verifier allows no arithmetic but adding, and one thing
 * more to a program loaded with CAP_PERFMON (as ours is): the difference of two pointers.
 * So the number is the bio's distance from a global of ours, the same in every program of
 * the object (a copy through the stack by bpf_probe_read_kernel cost a helper call at each
 * stamp and each completion). A raw_tp program's argument is a plain number already; the
 * two sets never run together (tracer_hooks.c loads one). */
static __always_inline u64 bio_number_btf(struct bio *bio)
{
	u64 n;
	asm volatile("%[n] = %[bio]; %[n] -= %[anchor]"
	             : [n] "=&r"(n)
	             : [bio] "r"(bio), [anchor] "r"(&lat_slot_mask));
	return n;
}

/* A bio's slot: Fibonacci hashing of its pointer (slab objects share their low bits). */
static __always_inline struct lat_stamp *lat_slot(u64 bio)
{
	u32 idx = (u32)((bio * 0x9e3779b97f4a7c15ull) >> 40) & lat_slot_mask;
	return bpf_map_lookup_elem(&lat_inflight, &idx);
}

/* Histograms: lat_slots, lat_hist for the domains whose slot on a CPU another domain
 * holds. */
XIOTOP_SLOTS_AND_SPILL(lat_slots, struct xiotop_lat_slot, XIOTOP_LAT_DOM_SLOTS, lat_hist,
                       struct xiotop_lat_key, struct xiotop_lat, XIOTOP_MAX_LAT_KEYS);

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

/* The histogram of (domid, op): this CPU's slot of the domain if the domain owns it
 * (claiming it if free: a compare-and-swap, so a program nested on this CPU cannot claim
 * it for another), else the hash's, created on first use; NULL (counted lost) when full. */
static __always_inline struct xiotop_lat *lat_hist_of(u32 domid, u32 op)
{
	u32 idx = bpf_get_smp_processor_id() * XIOTOP_LAT_DOM_SLOTS + xiotop_lat_home(domid);
	struct xiotop_lat_slot *s = bpf_map_lookup_elem(&lat_slots, &idx);
	u64 owner = (u64)domid + 1;
	if (s) {
		if (!s->owner)
			__sync_val_compare_and_swap(&s->owner, 0, owner);
		if (s->owner == owner)
			return &s->lat[op & 1];
	}
	struct xiotop_lat_key key = {.domid = domid, .op = op};
	struct xiotop_lat zero = {};
	struct xiotop_lat *h = lookup_or_init(&lat_hist, &key, &zero);
	if (!h)
		stat_inc(XIOTOP_STAT_LOST_LATENCY);
	return h;
}

/* A histogram's seq one step on (bpf/xiotop.h): odd before the I/O is added, even after.
 * x86 keeps stores in program order for every other CPU (TSO) and the JIT emits them in
 * order: a plain increment between compiler barriers is enough, and costs no locked
 * instruction per I/O. Elsewhere (arm64 reorders stores) the fetch variant of the atomic
 * add, its value used, which every JIT makes fully ordered. A program nested on this CPU
 * (an interrupt's completion) runs its steps whole before ours go on. */
static __always_inline void lat_seq_step(struct xiotop_lat *h)
{
#if defined(__TARGET_ARCH_x86)
	barrier();
	h->seq++;
	barrier();
#else
	u64 seq = __sync_fetch_and_add(&h->seq, 1);
	barrier_var(seq);
#endif
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
	lat_seq_step(h);
	h->sum_ns += ns;
	h->buckets[b & (XIOTOP_LAT_BUCKETS - 1)]++;
	lat_seq_step(h);
}

/* One I/O of `ns` nanoseconds for (domid, op). */
static __always_inline void latency_add(u32 domid, u32 op, u64 ns)
{
	struct xiotop_lat *h = lat_hist_of(domid, op);
	if (h)
		lat_record(h, ns);
}

/* A bio charged by rule 1 (its device is domid's backend) enters the block layer. */
static __always_inline void latency_start(u64 key, u32 domid, bool is_write)
{
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

/* A bio (its number `key`) completed at bio-based device `dev`: timed if it was stamped
 * (only a backend's are: the device is checked first). */
static __always_inline int on_bio_complete(u64 key, u32 dev)
{
	struct xiotop_dev_owner *d = dev_owner(dev);
	if (!d || !(d->flags & XIOTOP_DEV_IS_BACKEND))
		return 0;
	struct lat_stamp st;
	if (lat_take(key, &st))
		latency_add(st.domid, st.op, lat_since(st.start_ns));
	return 0;
}

/* What block_rq_complete needs of a request, read by the caller. */
struct rq_facts {
	u32 op;          /* cmd_flags */
	u32 bytes_left;  /* __data_len: bytes not completed before this call */
	u32 dev;         /* the device its first bio was queued to (a partition's own) */
	u64 start_ns;    /* start_time_ns */
	u64 io_start_ns; /* io_start_time_ns */
	u64 end_io;      /* its first bio's bi_end_io */
};

/* A blk-mq request completed nr_bytes: at its last part, a backend's read or write is
 * timed from the kernel's start stamp (see the top of this file). Every backend request
 * that /proc/diskstats counts as a read or a write (all but discards, flushes and
 * driver-private ones) is counted seen, so that user space can tell a completion no
 * program saw from the kernel's own count (tracer.c). */
static __always_inline int on_rq_complete(const struct rq_facts *f, u32 nr_bytes)
{
	u32 op = f->op & KERNEL_REQ_OP_MASK;
	if (nr_bytes < f->bytes_left || !f->dev || stat_group(op) < 0)
		return 0; /* a part (timed at its last), or not counted as a read or a write */
	struct xiotop_dev_owner *d = dev_owner(f->dev);
	if (!d || !(d->flags & XIOTOP_DEV_IS_BACKEND))
		return 0;
	stat_inc(XIOTOP_STAT_LATENCY_RQ_SEEN);
	if (op > KERNEL_REQ_OP_WRITE)
		return 0; /* secure erase, write-zeroes, zone ops: in diskstats, not guest data */
	/* A bio over the device's limits is split (bio_split_to_limits): the parts split off
	 * are new bios chained to it (bi_end_io bio_chain_endio), the original keeps the
	 * rest and is queued last. Only the request holding the original is timed, so a
	 * guest's I/O counts once (from its last part's start: an under-estimate). */
	if (bio_chain_endio_addr && f->end_io == bio_chain_endio_addr)
		return 0;
	u64 start = f->start_ns ? f->start_ns : f->io_start_ns;
	if (!start) {
		stat_inc(XIOTOP_STAT_LATENCY_UNSTAMPED);
		return 0;
	}
	latency_add(d->domid, op == KERNEL_REQ_OP_WRITE ? XIOTOP_LAT_WRITE : XIOTOP_LAT_READ,
	            lat_since(start));
	return 0;
}

#endif
