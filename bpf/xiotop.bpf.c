// SPDX-License-Identifier: GPL-2.0
/* xiotop.bpf.c - per-domain block I/O attribution in dom0.
 *
 * Every bio entering a block device (block_bio_queue) is charged to a domain by the
 * first rule of docs/DESIGN.md that matches and counted per (domain, device, rule) in a
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

/* Addresses of work functions (from /proc/kallsyms), set before load. */
const volatile unsigned long long loop_rootcg_workfn_addr = 0;
const volatile unsigned long long loop_workfn_addr = 0;
const volatile unsigned long long wb_workfn_addr = 0;
/* Account on-CPU time per domain (sched_switch attached). */
const volatile bool track_cpu = false;

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
	__type(value, struct xiotop_dm_owner);
} tgid_dom SEC(".maps");

/* One bit per tgid that has an entry in tgid_dom: a cheap "no" on every switch and bio. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XIOTOP_TGID_BITMAP_WORDS);
	__type(key, u32);
	__type(value, u64);
} tgid_bits SEC(".maps");

/* USER_HZ ticks, as /proc/<pid>/stat prints a start time */
#define NS_PER_USER_TICK 10000000ull

/* Domain whose device model the current task belongs to, or NULL. A reused pid is
 * told apart by the process start time. */
static __always_inline bool tgid_marked(u32 tgid)
{
	u32 word = tgid >> 6;
	u64 *bits = bpf_map_lookup_elem(&tgid_bits, &word);
	return bits && (*bits & (1ull << (tgid & 63)));
}

static __always_inline u32 *device_model_domid(u32 tgid)
{
	if (!tgid_marked(tgid))
		return NULL;
	struct xiotop_dm_owner *o = bpf_map_lookup_elem(&tgid_dom, &tgid);
	if (!o)
		return NULL;
	struct task_struct *task = bpf_get_current_task_btf();
	u64 start = BPF_CORE_READ(task, group_leader, start_time) / NS_PER_USER_TICK;
	return start == o->start_ticks ? &o->domid : NULL;
}

#define WORK_LOOP      1 /* loop work for a domain's loop device: loop_domid */
#define WORK_WRITEBACK 2 /* flusher work: CPU apportioned by bytes at its end */
#define WB_SLOTS       4 /* domains one writeback work item can split its CPU between */

/* What a kworker is doing right now, between workqueue_execute_start and _end. */
struct work_state {
	u32 kind;
	u32 loop_domid;
	u64 cpu_ns; /* WORK_WRITEBACK: on-CPU time of this work item so far */
	u32 wb_domid[WB_SLOTS];
	u64 wb_kib[WB_SLOTS]; /* KiB written back per domain: keeps the product in u64 */
	u64 wb_other_kib;     /* written back for no domain, or beyond the slots */
};

/* A kworker's current work, in its task storage: no hash lookups, and freed with the
 * task. kind == 0 between work items. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct work_state);
} work_now SEC(".maps");

/* The current task's work, if it is a workqueue worker inside a tracked work item. */
static __always_inline struct work_state *current_work(void)
{
	struct work_state *ws =
	    bpf_task_storage_get(&work_now, bpf_get_current_task_btf(), NULL, 0);
	return ws && ws->kind ? ws : NULL;
}

/* Per CPU: when the time being accounted started (last switch or work boundary). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} cpu_since SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, XIOTOP_MAX_DEVS);
	__type(key, struct xiotop_cpu_key);
	__type(value, u64);
} cpu_ns SEC(".maps");

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

/* The map's value for key, created from `zero` if absent; NULL when the map is full. */
static __always_inline void *lookup_or_init(void *map, const void *key, const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);
	if (v)
		return v;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST); /* EEXIST: another CPU won */
	return bpf_map_lookup_elem(map, key);
}

static __always_inline void stat_inc(u32 idx)
{
	u64 *v = bpf_map_lookup_elem(&stats, &idx);
	if (v)
		(*v)++;
}

/* Domain id from a blkback kthread name: "<domid>.<dev>-<ring>" or "blkback.<domid>.<dev>".
 * Returns XIOTOP_DOM_NONE for anything else (kworkers fail at the first byte). */
static __always_inline u32 blkback_domid(const char comm[16])
{
	u32 domid = 0;
	int i = 0, digits = 0;

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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XIOTOP_MAX_DEVS);
	__type(key, u32);
	__type(value, struct xiotop_dirty);
} dirty SEC(".maps");

/* Domain owning an image/backing file inode, or NULL. */
static __always_inline u32 *inode_owner(struct inode *inode)
{
	if (!inode)
		return NULL;
	struct xiotop_inode_key k = {.ino = BPF_CORE_READ(inode, i_ino),
	                             .fs_dev = BPF_CORE_READ(inode, i_sb, s_dev)};
	return bpf_map_lookup_elem(&inode_dom, &k);
}

/* Domain owning the file whose page-cache pages the bio carries, or NULL. */
static __always_inline u32 *bio_file_owner(struct bio *bio)
{
	struct xiotop_inode_key ik = {};
	if (!bio_first_inode(bio, &ik.ino, &ik.fs_dev))
		return NULL;
	return bpf_map_lookup_elem(&inode_dom, &ik);
}

static __always_inline struct xiotop_dirty *dirty_of(u32 domid)
{
	struct xiotop_dirty zero = {};
	return lookup_or_init(&dirty, &domid, &zero);
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

/* Rules 1-3 for a bio about to be queued to `dev`. Sets *via, and *work to the
 * submitting kworker's current work when it was looked up (else NULL). */
static __always_inline u32 owner_of(struct bio *bio, u32 dev, u32 *via, struct work_state **work)
{
	*work = NULL;
	struct dev_owner *d = bpf_map_lookup_elem(&dev_dom, &dev);
	if (d && (d->flags & DEV_IS_BACKEND)) {
		*via = XIOTOP_VIA_DEV;
		return d->domid;
	}

	u32 tgid = bpf_get_current_pid_tgid() >> 32;
	char comm[16];
	bpf_get_current_comm(comm, sizeof(comm));
	u32 domid = blkback_domid(comm);
	if (domid != XIOTOP_DOM_NONE) {
		*via = XIOTOP_VIA_TASK;
		return domid;
	}
	u32 *dm_dom = device_model_domid(tgid);
	if (dm_dom) {
		*via = XIOTOP_VIA_DMTASK;
		return *dm_dom;
	}
	struct work_state *ws = current_work();
	*work = ws;
	if (ws && ws->kind == WORK_LOOP) {
		*via = XIOTOP_VIA_LOOPWORK;
		return ws->loop_domid;
	}

	u32 *idom = bio_file_owner(bio);
	if (idom) {
		*via = XIOTOP_VIA_INODE;
		return *idom;
	}
	*via = XIOTOP_VIA_NONE;
	return XIOTOP_DOM_NONE;
}

static __always_inline void charge(u32 domid, u32 dev, u32 via, bool is_write, u64 bytes)
{
	struct xiotop_layer_key key = {.domid = domid, .dev = dev, .via = via};
	struct xiotop_io zero = {};
	struct xiotop_io *io = lookup_or_init(&layer_io, &key, &zero);
	if (!io) {
		stat_inc(XIOTOP_STAT_LOST_LAYER);
		return;
	}
	if (is_write) {
		io->wr_bytes += bytes;
		io->wr_ios++;
	} else {
		io->rd_bytes += bytes;
		io->rd_ios++;
	}
}

/* A flusher's writes, by domain, so its CPU time can be apportioned at work end. */
static __always_inline void tally_writeback(struct work_state *ws, u32 domid, u64 bytes)
{
	u64 kib = bytes >> 10;
	if (domid != XIOTOP_DOM_NONE) {
#pragma unroll
		for (int i = 0; i < WB_SLOTS; i++) {
			if (ws->wb_domid[i] == domid || !ws->wb_kib[i]) {
				ws->wb_domid[i] = domid;
				ws->wb_kib[i] += kib;
				return;
			}
		}
	}
	ws->wb_other_kib += kib;
}

static __always_inline void charge_cpu(u32 domid, u32 role, u64 ns)
{
	if (!ns)
		return;
	if (domid == XIOTOP_DOM_NONE) {
		/* most switches land here: a per-CPU array slot, not a hash lookup */
		u32 idx = XIOTOP_STAT_UNATTR_CPU_NS;
		u64 *u = bpf_map_lookup_elem(&stats, &idx);
		if (u)
			*u += ns;
		return;
	}
	struct xiotop_cpu_key key = {.domid = domid, .role = role};
	u64 zero = 0;
	u64 *v = lookup_or_init(&cpu_ns, &key, &zero);
	if (!v) {
		stat_inc(XIOTOP_STAT_LOST_CPU);
		return;
	}
	*v += ns;
}

#define PF_WQ_WORKER 0x20 /* include/linux/sched.h: the task is a workqueue worker */

/* Charge `ns` of on-CPU time of the task being switched out (sched_switch runs in its
 * context, so it is also `current`) to whom it served. */
static __always_inline void charge_task_time(u32 tgid, u32 flags, const char comm[16], u64 ns)
{
	struct work_state *ws = NULL;
	if (flags & PF_WQ_WORKER)
		ws = current_work();
	if (ws) {
		if (ws->kind == WORK_WRITEBACK)
			ws->cpu_ns += ns;
		else
			charge_cpu(ws->loop_domid, XIOTOP_CPU_LOOP, ns);
		return;
	}
	u32 domid = blkback_domid(comm);
	if (domid != XIOTOP_DOM_NONE) {
		charge_cpu(domid, XIOTOP_CPU_BACKEND, ns);
		return;
	}
	u32 *dm_dom = device_model_domid(tgid);
	if (dm_dom) {
		charge_cpu(*dm_dom, XIOTOP_CPU_DEVICE_MODEL, ns);
		return;
	}
	charge_cpu(XIOTOP_DOM_NONE, 0, ns);
}

/* Time on this CPU since the last accounting point; restarts the clock. */
static __always_inline u64 cpu_elapsed(u64 now)
{
	u32 zero = 0;
	u64 *since = bpf_map_lookup_elem(&cpu_since, &zero);
	if (!since)
		return 0;
	u64 elapsed = *since ? now - *since : 0;
	*since = now;
	return elapsed;
}

/* The task being switched out, read by the caller (directly in tp_btf, by probe reads
 * in raw_tp). */
struct task_facts {
	u32 tid, tgid, flags;
	char comm[16];
};

static __always_inline int on_switch(const struct task_facts *prev)
{
	u64 elapsed = cpu_elapsed(bpf_ktime_get_ns());
	if (!prev->tid || !elapsed)
		return 0; /* the idle task: not busy time */
	charge_task_time(prev->tgid, prev->flags, prev->comm, elapsed);
	return 0;
}

/* At the end of a writeback work item: its CPU time split by the bytes it wrote. */
static __always_inline void apportion_writeback(struct work_state *ws)
{
	u64 total = ws->wb_other_kib, given = 0;
#pragma unroll
	for (int i = 0; i < WB_SLOTS; i++)
		total += ws->wb_kib[i];
	if (total) {
#pragma unroll
		for (int i = 0; i < WB_SLOTS; i++) {
			if (!ws->wb_kib[i])
				continue;
			u64 share = ws->cpu_ns * ws->wb_kib[i] / total;
			charge_cpu(ws->wb_domid[i], XIOTOP_CPU_WRITEBACK, share);
			given += share;
		}
	}
	charge_cpu(XIOTOP_DOM_NONE, 0, ws->cpu_ns - given);
}

/* REQ_OP_READ = 0, REQ_OP_WRITE = 1; everything else (flush, discard, ...) is not data
 * vmstat counts, so it is not charged either. */
#define OP_MASK 0xff

#define SYS_IO_SUBMIT 3 /* sys_pending.is_write: inside io_submit (native AIO) */

/* A device-model thread inside a read/write syscall: which fd, which direction. */
struct sys_pending {
	int fd;
	u32 is_write; /* 0 none pending, 1 read, 2 write, SYS_IO_SUBMIT */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sys_pending);
} sys_now SEC(".maps");

/* Is the current task a device-model thread inside io_submit? Native AIO is O_DIRECT in
 * qemu: its bios leave in the submitter's context, so they are also its guest bytes. */
static __always_inline bool in_io_submit(void)
{
	struct sys_pending *p = bpf_task_storage_get(&sys_now, bpf_get_current_task_btf(), NULL, 0);
	return p && p->is_write == SYS_IO_SUBMIT;
}

static __always_inline void tally_if_page_cache(struct bio *bio, u32 domid, u64 bytes)
{
	u32 *owner = bio_file_owner(bio);
	if (owner && *owner == domid)
		tally_written_back(domid, bytes);
}

/* What block_bio_queue needs of a bio, read by the caller. */
struct bio_facts {
	u32 op;    /* REQ_OP_* */
	u32 bytes; /* bi_iter.bi_size */
	u32 dev;   /* queued to */
	u32 whole; /* whole disk of dev */
	u32 bio_flags;
};

static __always_inline int on_bio_queue(struct bio *bio, const struct bio_facts *f)
{
	u32 op = f->op & OP_MASK, dev = f->dev;
	u64 bytes = f->bytes;
	if (op > 1 || !bytes)
		return 0;

	u32 via, domid;
	struct work_state *ws = NULL;
	u64 bio_key = (u64)bio;
	/* dm/md clones are BIO_CLONED (as are splits): only they can be in remap_owner */
	u32 *cloned_from = NULL;
	if (f->bio_flags & (1u << BIO_CLONED))
		cloned_from = bpf_map_lookup_elem(&remap_owner, &bio_key);
	if (cloned_from) {
		domid = *cloned_from;
		via = XIOTOP_VIA_REMAP;
		bpf_map_delete_elem(&remap_owner, &bio_key);
	} else {
		domid = owner_of(bio, dev, &via, &ws);
	}
	charge(domid, dev, via, op == 1, bytes);
	if (via == XIOTOP_VIA_DMTASK && in_io_submit())
		charge(domid, dev, XIOTOP_VIA_FILEIO, op == 1, bytes);
	if (op == 1 && domid != XIOTOP_DOM_NONE) {
		if (ws && ws->kind == WORK_WRITEBACK)
			tally_writeback(ws, domid, bytes);
		/* page-cache pages of a domain's file leaving dom0 memory: the flusher
		 * (rule 3), or an fsync by loop or the device model */
		if (via == XIOTOP_VIA_INODE)
			tally_written_back(domid, bytes);
		else if (via == XIOTOP_VIA_LOOPWORK || via == XIOTOP_VIA_DMTASK)
			tally_if_page_cache(bio, domid, bytes);
	}

	/* a partition's bio also crosses the whole disk: same bio, stacked layer */
	if (f->whole != dev)
		charge(domid, f->whole, XIOTOP_VIA_PART, op == 1, bytes);
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
	struct work_state *ws;
	u32 domid = owner_of(bio, from_dev, &via, &ws);
	u64 bio_key = (u64)bio;
	if (bpf_map_update_elem(&remap_owner, &bio_key, &domid, BPF_ANY))
		stat_inc(XIOTOP_STAT_LOST_REMAP);
	return 0;
}

/* Which loop device a work item belongs to, or 0 if it is not loop work. */
static __always_inline u32 loop_dev_of_work(struct work_struct *work, u64 fn)
{
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

/* Every work item in the system starts here: `fn` (work->func, read by the caller)
 * rejects all but loop and writeback work with two compares. */
static __always_inline int on_work_start(struct work_struct *work, u64 fn)
{
	u32 kind, loop_domid = XIOTOP_DOM_NONE;
	if (track_cpu && fn && fn == wb_workfn_addr) {
		kind = WORK_WRITEBACK;
	} else {
		u32 loop_dev = loop_dev_of_work(work, fn);
		/* the domain is looked up once here, not at each of the item's bios and
		 * switches; another loop device's work serves no domain: nothing to track */
		struct dev_owner *d = loop_dev ? bpf_map_lookup_elem(&dev_dom, &loop_dev) : NULL;
		if (!d)
			return 0;
		kind = WORK_LOOP;
		loop_domid = d->domid;
	}
	/* the kworker's time before this item served no domain */
	if (track_cpu)
		charge_cpu(XIOTOP_DOM_NONE, 0, cpu_elapsed(bpf_ktime_get_ns()));
	struct work_state *ws = bpf_task_storage_get(&work_now, bpf_get_current_task_btf(), NULL,
	                                             BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ws) {
		stat_inc(XIOTOP_STAT_LOST_CPU);
		return 0;
	}
	__builtin_memset(ws, 0, sizeof(*ws));
	ws->kind = kind;
	ws->loop_domid = loop_domid;
	return 0;
}

static __always_inline int on_work_end(void)
{
	/* every work item in the system ends here: one task-storage read for the others */
	struct work_state *ws = current_work();
	if (!ws)
		return 0;
	if (track_cpu) {
		u64 elapsed = cpu_elapsed(bpf_ktime_get_ns());
		if (ws->kind == WORK_WRITEBACK) {
			ws->cpu_ns += elapsed;
			apportion_writeback(ws);
		} else {
			charge_cpu(ws->loop_domid, XIOTOP_CPU_LOOP, elapsed);
		}
	}
	ws->kind = 0;
	return 0;
}

#define PG_HEAD_BIT 6 /* enum pageflags PG_head: a large folio's first page */

/* A clean page-cache folio of a domain's file became dirty. */
static __always_inline int on_dirty_folio(struct folio *folio, struct address_space *mapping)
{
	if (!mapping)
		return 0;
	u32 *owner = inode_owner(BPF_CORE_READ(mapping, host));
	if (!owner)
		return 0;
	u64 flags = 0, pages = 1;
	bpf_probe_read_kernel(&flags, sizeof(flags), folio);
	if ((flags & (1ull << PG_HEAD_BIT)) && bpf_core_field_exists(folio->_nr_pages))
		pages = BPF_CORE_READ(folio, _nr_pages);
	struct xiotop_dirty *d = dirty_of(*owner);
	if (d)
		__sync_fetch_and_add(&d->dirtied_bytes, pages * 4096);
	return 0;
}

/* File-level guest I/O of device models: read/write syscalls on image files. */
#if defined(__TARGET_ARCH_x86)
#define NR_READ      0
#define NR_WRITE     1
#define NR_PREAD     17
#define NR_PWRITE    18
#define NR_READV     19
#define NR_WRITEV    20
#define NR_PREADV    295
#define NR_PWRITEV   296
#define NR_PREADV2   327
#define NR_PWRITEV2  328
#define NR_IO_SUBMIT 209
#elif defined(__TARGET_ARCH_arm64)
#define NR_READ      63
#define NR_WRITE     64
#define NR_PREAD     67
#define NR_PWRITE    68
#define NR_READV     65
#define NR_WRITEV    66
#define NR_PREADV    69
#define NR_PWRITEV   70
#define NR_PREADV2   286
#define NR_PWRITEV2  287
#define NR_IO_SUBMIT 2
#else
#error "syscall numbers for this architecture"
#endif

/* The inode behind fd in the current task's file table. */
static __always_inline struct inode *fd_inode(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = NULL;
	bpf_probe_read_kernel(&f, sizeof(f), fds + fd);
	return f ? BPF_CORE_READ(f, f_inode) : NULL;
}

static __always_inline void charge_file_io(struct inode *inode, bool is_write, u64 bytes)
{
	u32 *owner = inode_owner(inode);
	if (owner && bytes)
		charge(*owner, BPF_CORE_READ(inode, i_sb, s_dev), XIOTOP_VIA_FILEIO, is_write,
		       bytes);
}

static __always_inline int on_sys_enter(struct pt_regs *regs, long id)
{
	if (!tgid_marked(bpf_get_current_pid_tgid() >> 32))
		return 0; /* not a device model: the common case, two loads */
	u32 is_write;
	if (id == NR_READ || id == NR_PREAD || id == NR_READV || id == NR_PREADV ||
	    id == NR_PREADV2)
		is_write = 1;
	else if (id == NR_WRITE || id == NR_PWRITE || id == NR_WRITEV || id == NR_PWRITEV ||
	         id == NR_PWRITEV2)
		is_write = 2;
	else if (id == NR_IO_SUBMIT)
		is_write = SYS_IO_SUBMIT;
	else
		return 0;
	struct sys_pending *p = bpf_task_storage_get(&sys_now, bpf_get_current_task_btf(), NULL,
	                                             BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (p) {
		p->fd = PT_REGS_PARM1_CORE_SYSCALL(regs);
		p->is_write = is_write;
	}
	return 0;
}

static __always_inline int on_sys_exit(long ret)
{
	struct sys_pending *p = bpf_task_storage_get(&sys_now, bpf_get_current_task_btf(), NULL, 0);
	if (!p || !p->is_write)
		return 0;
	u32 is_write = p->is_write;
	p->is_write = 0;
	if (is_write == SYS_IO_SUBMIT)
		return 0; /* its bytes were counted as its bios went out (in_io_submit) */
	if (ret > 0 && device_model_domid(bpf_get_current_pid_tgid() >> 32))
		charge_file_io(fd_inode(p->fd), is_write == 2, ret);
	return 0;
}

/* io_uring read/write completions on an image file, whichever thread completes them. */
static __always_inline int on_uring_complete(void *req_ptr, struct io_uring_cqe *cqe)
{
	struct io_kiocb *req = req_ptr;
	u8 op = BPF_CORE_READ(req, opcode);
	bool is_write;
	if (op == IORING_OP_READV || op == IORING_OP_READ_FIXED || op == IORING_OP_READ)
		is_write = false;
	else if (op == IORING_OP_WRITEV || op == IORING_OP_WRITE_FIXED || op == IORING_OP_WRITE)
		is_write = true;
	else
		return 0;
	s32 res = BPF_CORE_READ(cqe, res);
	if (res > 0)
		charge_file_io(BPF_CORE_READ(req, file, f_inode), is_write, res);
	return 0;
}

/* ---- tp_btf set: arguments are trusted pointers, read directly ---- */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(btf_bio_queue, struct bio *bio)
{
	struct bio_facts f = {
	    .op = bio->bi_opf,
	    .bytes = bio->bi_iter.bi_size,
	    .dev = bio->bi_bdev->bd_dev,
	    .whole = bio->bi_bdev->bd_disk->part0->bd_dev,
	    .bio_flags = bio->bi_flags,
	};
	return on_bio_queue(bio, &f);
}

SEC("tp_btf/block_bio_remap")
int BPF_PROG(btf_bio_remap, struct bio *bio, dev_t dev, sector_t from)
{
	return on_bio_remap(bio, dev);
}

SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(btf_work_start, struct work_struct *work)
{
	return on_work_start(work, (u64)work->func);
}

/* tp_btf cannot take execute_end's work_func_t argument: only the work pointer */
SEC("tp_btf/workqueue_execute_end")
int BPF_PROG(btf_work_end, struct work_struct *work)
{
	return on_work_end();
}

SEC("tp_btf/sched_switch")
int BPF_PROG(btf_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct task_facts t = {.tid = prev->pid, .tgid = prev->tgid, .flags = prev->flags};
	__builtin_memcpy(t.comm, prev->comm, sizeof(t.comm));
	return on_switch(&t);
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(btf_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	return on_dirty_folio(folio, mapping);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(btf_sys_enter, struct pt_regs *regs, long id)
{
	return on_sys_enter(regs, id);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(btf_sys_exit, struct pt_regs *regs, long ret)
{
	return on_sys_exit(ret);
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(btf_uring_complete, void *ring, void *req, struct io_uring_cqe *cqe)
{
	return on_uring_complete(req, cqe);
}

/* ---- raw_tp set (fallback): probe reads, and the pre-5.12 bio layout ---- */
SEC("raw_tp/block_bio_queue")
int BPF_PROG(raw_bio_queue, struct bio *bio)
{
	struct bio_facts f = {
	    .op = BPF_CORE_READ(bio, bi_opf),
	    .bytes = BPF_CORE_READ(bio, bi_iter.bi_size),
	    .dev = bio_devt(bio),
	    .whole = bio_whole_devt(bio),
	    .bio_flags = BPF_CORE_READ(bio, bi_flags),
	};
	return on_bio_queue(bio, &f);
}

SEC("raw_tp/block_bio_remap")
int BPF_PROG(raw_bio_remap, struct bio *bio, dev_t dev, sector_t from)
{
	return on_bio_remap(bio, dev);
}

SEC("raw_tp/workqueue_execute_start")
int BPF_PROG(raw_work_start, struct work_struct *work)
{
	return on_work_start(work, (u64)BPF_CORE_READ(work, func));
}

SEC("raw_tp/workqueue_execute_end")
int BPF_PROG(raw_work_end, struct work_struct *work)
{
	return on_work_end();
}

SEC("raw_tp/sched_switch")
int BPF_PROG(raw_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct task_facts t = {.tid = BPF_CORE_READ(prev, pid),
	                       .tgid = BPF_CORE_READ(prev, tgid),
	                       .flags = BPF_CORE_READ(prev, flags)};
	BPF_CORE_READ_STR_INTO(&t.comm, prev, comm);
	return on_switch(&t);
}

SEC("raw_tp/writeback_dirty_folio")
int BPF_PROG(raw_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	return on_dirty_folio(folio, mapping);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(raw_sys_enter, struct pt_regs *regs, long id)
{
	return on_sys_enter(regs, id);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(raw_sys_exit, struct pt_regs *regs, long ret)
{
	return on_sys_exit(ret);
}

SEC("raw_tp/io_uring_complete")
int BPF_PROG(raw_uring_complete, void *ring, void *req, struct io_uring_cqe *cqe)
{
	return on_uring_complete(req, cqe);
}
