/* bio.bpf.h - the attribution rules for a bio (docs/DESIGN.md), and the dirty backlog.
 *
 * Every bio entering a block device (block_bio_queue) is charged to a domain by the
 * first rule that matches and counted per (domain, device, rule) in per-CPU slots: no
 * event stream, no atomics on the hot path. dm/md clones are recognised at
 * block_bio_remap and charged like their parent. A domain's own device that the kernel
 * counts (rule 1, XIOTOP_DEV_COUNTED: zram, a blk-mq device) is not counted here:
 * /proc/diskstats holds its bytes and requests (sources/dev_counts.h), and what it counts
 * there that a program would not is tallied (dev_extras).
 */
#ifndef XIOTOP_BIO_BPF_H
#define XIOTOP_BIO_BPF_H

#include "cpu.bpf.h"
#include "fileio.bpf.h"
#include "latency.bpf.h"
#include "maps.bpf.h"

/* dm/md clone bio -> owner decided at remap time; consumed by its queue event. LRU so
 * a clone that never reaches block_bio_queue cannot fill the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XIOTOP_MAX_REMAPS);
	__type(key, u64);
	__type(value, u32);
} remap_owner SEC(".maps");

/* A counting filter in front of remap_owner: per slot (a hash of the bio's number), how many
 * entries were stored and not yet taken; never fewer than the entries there are (one the LRU
 * evicted, or one stored again over a stale one, stays counted: that slot is then looked up
 * for nothing). A BIO_CLONED bio whose slot is 0 has no entry and is not looked up: a hash
 * lookup of a missing key cost ~40 ns, and more than dm/md clones are BIO_CLONED: a split's
 * parts, and every bio that borrows its bvec array (bio_iov_bvec_set, block/bio.c), as each
 * write of a loop device with direct I/O on to the leaf does, one per guest write. The
 * slots are u64: an atomic add whose result is not used is one instruction on every JIT. */
#define REMAP_FILTER_BITS 12
unsigned long long remap_filter[1 << REMAP_FILTER_BITS];

/* The slot of the bio numbered `num` (bio_number_btf() in a tp_btf program, the pointer in
 * a raw_tp one: the same for a bio at its remap and at its queue event). */
static __always_inline u64 *remap_filter_slot(u64 num)
{
	return &remap_filter[(num * 0x9e3779b97f4a7c15ull) >> (64 - REMAP_FILTER_BITS)];
}

/* What /proc/diskstats counts at a device whose layer is read from there
 * (XIOTOP_DEV_COUNTED) that the programs would not count as a bio of it: a request more per
 * split of a bio (block_split: the parts are requests of their own, and a traced bio is
 * traced once), and the bios of the other operations diskstats counts as reads or writes
 * (write-zeroes, secure erase, and a write of no data: an empty flush). Per device,
 * cumulative since load; user space takes them off its diskstats (sources/dev_counts.h).
 * Rare events: a hash and atomic adds. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XIOTOP_DEV_SLOTS);
	__type(key, u32);
	__type(value, struct xiotop_io);
} dev_extras SEC(".maps");

/* A request, of `bytes` (0: a split's part, whose bytes are its bio's), that diskstats
 * counts at dev and the programs do not. */
static __always_inline int tally_extra(u32 dev, u32 op, u64 bytes)
{
	int group = stat_group(op);
	const struct xiotop_dev_owner *d = group < 0 ? NULL : dev_owner(dev);
	if (!d || !(d->flags & XIOTOP_DEV_COUNTED))
		return 0;
	struct xiotop_io *x = bpf_map_lookup_elem(&dev_extras, &dev);
	if (!x) {
		struct xiotop_io zero = {};
		bpf_map_update_elem(&dev_extras, &dev, &zero, BPF_NOEXIST);
		x = bpf_map_lookup_elem(&dev_extras, &dev);
		if (!x) {
			stat_inc(XIOTOP_STAT_LOST_LAYER);
			return 0;
		}
	}
	if (group) {
		__sync_fetch_and_add(&x->wr_ios, 1);
		__sync_fetch_and_add(&x->wr_bytes, bytes);
	} else {
		__sync_fetch_and_add(&x->rd_ios, 1);
		__sync_fetch_and_add(&x->rd_bytes, bytes);
	}
	return 0;
}

/* A bio split at dev: its parts become requests diskstats counts one by one. */
static __always_inline int on_bio_split(u32 op, u32 dev)
{
	return tally_extra(dev, op & KERNEL_REQ_OP_MASK, 0);
}

/* Domain owning the file whose page-cache pages the bio carries, or NULL. Only bios
 * queued to a device holding an image's file system can carry such pages (a file
 * system writes its pages to its own device; dm/md clones are charged at remap time,
 * against the upper device): the eight reads of the lookup are skipped for all other. */
static __always_inline u32 *bio_file_owner(struct bio *bio, const struct xiotop_dev_owner *d)
{
	u64 ino = 0;
	u32 fs_dev = 0;
	if (!fs_may_hold_image(d) || !bio_first_inode(bio, &ino, &fs_dev))
		return NULL;
	return image_owner(ino, fs_dev);
}

/* Written back: never more than was seen dirtied, so pages dirtied before xiotop
 * started do not make the backlog negative (racy by a few pages, never below zero). */
static __always_inline void tally_written_back(u32 domid, u64 bytes)
{
	struct xiotop_dirty *d = dirty_of(domid);
	if (!d)
		return;
	u64 open = d->dirtied_bytes - d->written_back_bytes;
	if (d->dirtied_bytes < d->written_back_bytes)
		open = 0;
	__sync_fetch_and_add(&d->written_back_bytes, bytes < open ? bytes : open);
}

static __always_inline void tally_if_page_cache(struct bio *bio, const struct xiotop_dev_owner *d,
                                                u32 domid, u64 bytes)
{
	u32 *owner = bio_file_owner(bio, d);
	if (owner && *owner == domid)
		tally_written_back(domid, bytes);
}

/* Rules 2 and 3 for the current task (rule 1, the device, was checked by the caller).
 * Sets *via, and *work to the submitting kworker's current work (else NULL). */
static __always_inline u32 task_owner(struct bio *bio, const struct xiotop_dev_owner *d, u32 *via,
                                      struct work_state **work)
{
	struct task_struct *task = bpf_get_current_task_btf();
	/* a workqueue worker is never a blkback thread nor a device model */
	if (task_is_wq_worker(task->flags)) {
		struct work_state *ws = current_work();
		*work = ws;
		if (ws && ws->kind == WORK_LOOP) {
			*via = XIOTOP_VIA_LOOPWORK;
			return ws->loop_domid;
		}
	} else {
		/* the name and thread group in plain loads from the task: no helper call (a
		 * blkback thread's bios to the leaf under a loop device come through here) */
		char comm[16];
		__builtin_memcpy(comm, task->comm, sizeof(comm));
		u32 domid = blkback_domid(comm);
		if (domid != XIOTOP_DOM_NONE) {
			*via = XIOTOP_VIA_TASK;
			return domid;
		}
		u32 *dm_dom = device_model_of(task, task->tgid);
		if (dm_dom) {
			*via = XIOTOP_VIA_DMTASK;
			return *dm_dom;
		}
	}
	u32 *idom = bio_file_owner(bio, d);
	if (idom) {
		*via = XIOTOP_VIA_INODE;
		return *idom;
	}
	*via = XIOTOP_VIA_NONE;
	return XIOTOP_DOM_NONE;
}

/* Rules 1-3 for a bio about to be queued to `dev` (whose table entry is *d, or NULL). */
static __always_inline u32 owner_of(struct bio *bio, const struct xiotop_dev_owner *d, u32 *via,
                                    struct work_state **work)
{
	*work = NULL;
	if (d && (d->flags & XIOTOP_DEV_IS_BACKEND)) {
		*via = XIOTOP_VIA_DEV;
		return d->domid;
	}
	return task_owner(bio, d, via, work);
}

/* What block_bio_queue needs of a bio, read by the caller (the whole disk under dev is
 * read by whole_devt(), only for a bio that is counted here). */
struct bio_facts {
	u32 op;    /* bi_opf */
	u32 bytes; /* bi_iter.bi_size */
	u32 dev;   /* queued to */
	u32 bio_flags;
	u64 num; /* the bio's number, the key of its latency stamp (latency.bpf.h) */
};

/* The dirty backlog, for a charged write. */
static __always_inline void tally_write(struct bio *bio, const struct xiotop_dev_owner *d,
                                        struct work_state *ws, u32 domid, u32 via, u64 bytes)
{
	/* page-cache pages of a domain's file leaving dom0 memory: the flusher (rule 3),
	 * or an fsync by loop or the device model */
	if (via == XIOTOP_VIA_INODE)
		tally_written_back(domid, bytes);
	else if ((via == XIOTOP_VIA_LOOPWORK && !(ws && ws->loop_dio)) || via == XIOTOP_VIA_DMTASK)
		tally_if_page_cache(bio, d, domid, bytes); /* loop direct I/O: never page cache */
}

/* A bio to a domain's own device (rule 1) that the kernel counts (zram, a blk-mq device:
 * XIOTOP_DEV_COUNTED): its bytes and requests are read from /proc/diskstats once per interval
 * (sources/dev_counts.h), so nothing is counted here; only a bio-based backend's bio is
 * stamped for its latency (the kernel keeps no issue time of it: latency.bpf.h; bios are
 * stamped only while block_bio_complete is attached to take the stamps). */
static __always_inline int counted_bio(const struct bio_facts *f, const struct xiotop_dev_owner *d,
                                       bool is_write)
{
	if (lat_stamp_bios && (d->flags & XIOTOP_DEV_BIO_BASED))
		latency_start(f->num, d->domid, is_write);
	return 0;
}

/* `btf`: a tp_btf program (plain loads), else raw_tp (probe reads); a constant at each
 * call, so the other reads are compiled out. */
static __always_inline int on_bio_queue(struct bio *bio, const struct bio_facts *f, bool btf)
{
	u32 op = f->op & KERNEL_REQ_OP_MASK, dev = f->dev;
	u64 bytes = f->bytes;
	if (op > KERNEL_REQ_OP_WRITE || !bytes) /* flush, discard, ...: not data vmstat counts */
		return tally_extra(dev, op, bytes); /* unless diskstats counts it where it counts */
	bool is_write = op == KERNEL_REQ_OP_WRITE;

	u32 via, domid;
	struct work_state *ws = NULL;
	struct xiotop_dev_owner *d = dev_owner(dev);
	u64 bio_key = (u64)bio;
	/* dm/md clones are BIO_CLONED: only they can be in remap_owner */
	u32 *cloned_from = NULL;
	if ((f->bio_flags & (1u << BIO_CLONED)) && *remap_filter_slot(f->num))
		cloned_from = bpf_map_lookup_elem(&remap_owner, &bio_key);
	if (cloned_from) {
		domid = *cloned_from;
		via = XIOTOP_VIA_REMAP;
		if (!bpf_map_delete_elem(&remap_owner, &bio_key)) /* taken once, if two race */
			__sync_fetch_and_add(remap_filter_slot(f->num), -1ull);
	} else if (d && (d->flags & XIOTOP_DEV_COUNTED)) {
		return counted_bio(f, d, is_write);
	} else {
		domid = owner_of(bio, d, &via, &ws);
	}
	/* a backend the kernel does not count: a bio-based one's bios are stamped here */
	if (via == XIOTOP_VIA_DEV && lat_stamp_bios && d && (d->flags & XIOTOP_DEV_BIO_BASED))
		latency_start(f->num, domid, is_write);
	charge_io(domid, dev, via, is_write, bytes);
	if (via == XIOTOP_VIA_DMTASK && in_io_submit())
		charge_io(domid, dev, XIOTOP_VIA_FILEIO, is_write, bytes);
	if (ws) { /* a kworker inside a tracked item */
		/* a flusher's bytes for every domain and for none: its CPU is split by them */
		if (is_write && ws->kind == WORK_WRITEBACK)
			tally_writeback(ws, domid, bytes);
		if (track_cpu)
			run_progress(ws);
	}
	if (is_write && domid != XIOTOP_DOM_NONE)
		tally_write(bio, d, ws, domid, via, bytes);
	/* a partition's bio also crosses the whole disk: same bio, stacked layer */
	u32 whole = whole_devt(bio, btf);
	if (whole != dev)
		charge_io(domid, whole, XIOTOP_VIA_PART, is_write, bytes);
	return 0;
}

/* `num`: the bio's number, as at its queue event (struct bio_facts) */
static __always_inline int on_bio_remap(struct bio *bio, u64 num, u32 from_dev)
{
	/* a partition remap keeps the same bio and device: block_bio_queue handles it */
	if (bio_devt(bio) == from_dev)
		return 0;
	/* dm/md clone: the owner is decided now, in the context of the upper bio and
	 * against the upper device, as if it had been queued there */
	u32 via;
	struct work_state *ws;
	u32 domid = owner_of(bio, dev_owner(from_dev), &via, &ws);
	u64 bio_key = (u64)bio;
	if (bpf_map_update_elem(&remap_owner, &bio_key, &domid, BPF_ANY))
		stat_inc(XIOTOP_STAT_LOST_REMAP);
	else /* counted before the clone can be queued: its queue event finds it */
		__sync_fetch_and_add(remap_filter_slot(num), 1);
	return 0;
}

/* A clean page-cache folio of file (ino, fs_dev) became dirty (read by the caller). */
static __always_inline int on_dirty_folio(struct folio *folio, u64 ino, u32 fs_dev)
{
	/* at every page dom0 dirties: the device table first, the inode hash only for a
	 * file system that holds an image */
	u32 *owner = fs_may_hold_image(dev_owner(fs_dev)) ? image_owner(ino, fs_dev) : NULL;
	if (!owner)
		return 0;
	struct xiotop_dirty *d = dirty_of(*owner);
	if (d)
		__sync_fetch_and_add(&d->dirtied_bytes, folio_pages(folio) * kernel_page_size);
	return 0;
}

#endif
