// SPDX-License-Identifier: GPL-2.0
/* xiotop.bpf.c - per-domain block I/O attribution in dom0.
 *
 * Every bio entering a block device (block_bio_queue) is charged to a domain by the
 * first rule of DESIGN.md that matches and counted per (domain, device, rule) in a
 * per-CPU hash: no event stream, no atomics on the hot path. dm/md clones are
 * recognised at block_bio_remap and charged like their parent. Kworkers running loop
 * work are tracked between workqueue_execute_start and _end so that loop's direct I/O
 * and flushes reach the domain of the loop device.
 *
 * Each hook exists twice: tp_btf (preferred, cheaper) and raw_tp (fallback); user
 * space loads one set, see tracer.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "core_compat.bpf.h"
#include "xiotop.h"

char LICENSE[] SEC("license") = "GPL";

/* Addresses of loop's work functions (from /proc/kallsyms), set before load. */
const volatile unsigned long long loop_rootcg_workfn_addr = 0;
const volatile unsigned long long loop_workfn_addr = 0;

#define DEV_IS_BACKEND 1 /* rule 1 applies to bios queued to this device */
#define DEV_IS_LOOP    2 /* a loop device whose work is done for this domain */

struct dev_owner {
	u32 domid;
	u32 flags;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XIOTOP_MAX_DEVS);
	__type(key, u32);
	__type(value, struct dev_owner);
} dev_dom SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XIOTOP_MAX_INODES);
	__type(key, struct xiotop_inode_key);
	__type(value, u32);
} inode_dom SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XIOTOP_MAX_TGIDS);
	__type(key, u32);
	__type(value, u32);
} tgid_dom SEC(".maps");

/* kworker tid -> loop device whose work it is running right now */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u32);
} loop_work SEC(".maps");

/* dm/md clone bio -> owner decided at remap time; consumed by its queue event. LRU so
 * a clone that never reaches block_bio_queue cannot fill the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XIOTOP_MAX_REMAPS);
	__type(key, u64);
	__type(value, u32);
} remap_owner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, XIOTOP_MAX_LAYERS);
	__type(key, struct xiotop_layer_key);
	__type(value, struct xiotop_io);
} layer_io SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XIOTOP_STAT_MAX);
	__type(key, u32);
	__type(value, u64);
} stats SEC(".maps");

static __always_inline void stat_inc(u32 idx)
{
	u64 *v = bpf_map_lookup_elem(&stats, &idx);
	if (v)
		(*v)++;
}

/* Domain id from a blkback kthread name: "<domid>.<dev>-<ring>" or "blkback.<domid>.<dev>".
 * Returns XIOTOP_DOM_NONE for anything else (kworkers fail at the first byte). */
static __always_inline u32 blkback_domid_from_comm(void)
{
	char comm[16];
	u32 domid = 0;
	int i = 0, digits = 0;

	if (bpf_get_current_comm(comm, sizeof(comm)))
		return XIOTOP_DOM_NONE;
	if (comm[0] == 'b') {
		if (comm[1] != 'l' || comm[2] != 'k' || comm[3] != 'b' || comm[4] != 'a' ||
		    comm[5] != 'c' || comm[6] != 'k' || comm[7] != '.')
			return XIOTOP_DOM_NONE;
		i = 8;
	}
#pragma unroll
	for (int k = 0; k < 6; k++) {
		char c = comm[(i + k) & 15];
		if (c < '0' || c > '9')
			break;
		domid = domid * 10 + (c - '0');
		digits++;
	}
	if (!digits || digits > 5 || comm[(i + digits) & 15] != '.' || domid > 0x7fff)
		return XIOTOP_DOM_NONE;
	/* a device name must follow the dot */
	char first = comm[(i + digits + 1) & 15];
	if (first < 'a' || first > 'z')
		return XIOTOP_DOM_NONE;
	return domid;
}

/* Rules 1-3 for a bio about to be queued to `dev`. Sets *via. */
static __always_inline u32 owner_of(struct bio *bio, u32 dev, u32 *via)
{
	struct dev_owner *d = bpf_map_lookup_elem(&dev_dom, &dev);
	if (d && (d->flags & DEV_IS_BACKEND)) {
		*via = XIOTOP_VIA_DEV;
		return d->domid;
	}

	u64 pid_tgid = bpf_get_current_pid_tgid();
	u32 tid = (u32)pid_tgid, tgid = pid_tgid >> 32;
	u32 domid = blkback_domid_from_comm();
	if (domid != XIOTOP_DOM_NONE) {
		*via = XIOTOP_VIA_TASK;
		return domid;
	}
	u32 *dm_dom = bpf_map_lookup_elem(&tgid_dom, &tgid);
	if (dm_dom) {
		*via = XIOTOP_VIA_TASK;
		return *dm_dom;
	}
	u32 *loop_dev = bpf_map_lookup_elem(&loop_work, &tid);
	if (loop_dev) {
		d = bpf_map_lookup_elem(&dev_dom, loop_dev);
		if (d) {
			*via = XIOTOP_VIA_LOOPWORK;
			return d->domid;
		}
	}

	struct xiotop_inode_key ik = {};
	if (bio_first_inode(bio, &ik.ino, &ik.fs_dev)) {
		u32 *idom = bpf_map_lookup_elem(&inode_dom, &ik);
		if (idom) {
			*via = XIOTOP_VIA_INODE;
			return *idom;
		}
	}
	*via = XIOTOP_VIA_NONE;
	return XIOTOP_DOM_NONE;
}

static __always_inline void charge(u32 domid, u32 dev, u32 via, bool is_write, u64 bytes)
{
	struct xiotop_layer_key key = {.domid = domid, .dev = dev, .via = via};
	struct xiotop_io *io = bpf_map_lookup_elem(&layer_io, &key);
	if (!io) {
		struct xiotop_io zero = {};
		if (bpf_map_update_elem(&layer_io, &key, &zero, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&layer_io, &key)) {
			stat_inc(XIOTOP_STAT_LOST_LAYER);
			return;
		}
		io = bpf_map_lookup_elem(&layer_io, &key);
		if (!io) {
			stat_inc(XIOTOP_STAT_LOST_LAYER);
			return;
		}
	}
	if (is_write) {
		io->wr_bytes += bytes;
		io->wr_ios++;
	} else {
		io->rd_bytes += bytes;
		io->rd_ios++;
	}
}

/* REQ_OP_READ = 0, REQ_OP_WRITE = 1; everything else (flush, discard, ...) is not data
 * vmstat counts, so it is not charged either. */
#define OP_MASK 0xff

static __always_inline int on_bio_queue(struct bio *bio)
{
	u32 op = BPF_CORE_READ(bio, bi_opf) & OP_MASK;
	u64 bytes = BPF_CORE_READ(bio, bi_iter.bi_size);
	if (op > 1 || !bytes)
		return 0;
	stat_inc(XIOTOP_STAT_EVENTS);

	u32 dev = bio_devt(bio);
	u32 via, domid;
	u64 bio_key = (u64)bio;
	u32 *cloned_from = bpf_map_lookup_elem(&remap_owner, &bio_key);
	if (cloned_from) {
		domid = *cloned_from;
		via = XIOTOP_VIA_REMAP;
		bpf_map_delete_elem(&remap_owner, &bio_key);
	} else {
		domid = owner_of(bio, dev, &via);
	}
	charge(domid, dev, via, op == 1, bytes);

	/* a partition's bio also crosses the whole disk: same bio, stacked layer */
	u32 whole = bio_whole_devt(bio);
	if (whole != dev)
		charge(domid, whole, XIOTOP_VIA_PART, op == 1, bytes);
	return 0;
}

static __always_inline int on_bio_remap(struct bio *bio, u32 from_dev)
{
	/* a partition remap keeps the same bio and device: block_bio_queue handles it */
	if (bio_devt(bio) == from_dev)
		return 0;
	/* dm/md clone: the owner is decided now, in the context of the upper bio and
	 * against the upper device, as if it had been queued there */
	u32 via;
	u32 domid = owner_of(bio, from_dev, &via);
	u64 bio_key = (u64)bio;
	if (bpf_map_update_elem(&remap_owner, &bio_key, &domid, BPF_ANY))
		stat_inc(XIOTOP_STAT_LOST_REMAP);
	return 0;
}

/* Which loop device a work item belongs to, or 0 if it is not loop work. */
static __always_inline u32 loop_dev_of_work(struct work_struct *work)
{
	u64 fn = (u64)BPF_CORE_READ(work, func);
	struct loop_device *lo;

	if (!fn)
		return 0;
	if (fn == loop_rootcg_workfn_addr) {
		lo = (void *)work - bpf_core_field_offset(struct loop_device, rootcg_work);
	} else if (fn == loop_workfn_addr) {
		struct loop_worker *w =
			(void *)work - bpf_core_field_offset(struct loop_worker, work);
		lo = BPF_CORE_READ(w, lo);
	} else {
		return 0;
	}
	return gendisk_devt(BPF_CORE_READ(lo, lo_disk));
}

static __always_inline int on_work_start(struct work_struct *work)
{
	u32 loop_dev = loop_dev_of_work(work);
	if (!loop_dev)
		return 0;
	u32 tid = (u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&loop_work, &tid, &loop_dev, BPF_ANY);
	return 0;
}

static __always_inline int on_work_end(void)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	/* every work item in the system ends here: a lookup is cheaper than a delete */
	if (bpf_map_lookup_elem(&loop_work, &tid))
		bpf_map_delete_elem(&loop_work, &tid);
	return 0;
}

/* ---- tp_btf set ---- */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(btf_bio_queue, struct bio *bio)
{
	return on_bio_queue(bio);
}

SEC("tp_btf/block_bio_remap")
int BPF_PROG(btf_bio_remap, struct bio *bio, dev_t dev, sector_t from)
{
	return on_bio_remap(bio, dev);
}

SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(btf_work_start, struct work_struct *work)
{
	return on_work_start(work);
}

/* tp_btf cannot take execute_end's work_func_t argument: only the work pointer */
SEC("tp_btf/workqueue_execute_end")
int BPF_PROG(btf_work_end, struct work_struct *work)
{
	return on_work_end();
}

/* ---- raw_tp set (fallback) ---- */
SEC("raw_tp/block_bio_queue")
int BPF_PROG(raw_bio_queue, struct bio *bio)
{
	return on_bio_queue(bio);
}

SEC("raw_tp/block_bio_remap")
int BPF_PROG(raw_bio_remap, struct bio *bio, dev_t dev, sector_t from)
{
	return on_bio_remap(bio, dev);
}

SEC("raw_tp/workqueue_execute_start")
int BPF_PROG(raw_work_start, struct work_struct *work)
{
	return on_work_start(work);
}

SEC("raw_tp/workqueue_execute_end")
int BPF_PROG(raw_work_end, struct work_struct *work)
{
	return on_work_end();
}
