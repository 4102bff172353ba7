/* core_fixes.bpf.h - every kernel literal and every kernel-version difference, in one place.
 *
 * One small helper per difference, each naming the change it bridges. Reads go through
 * BPF_CORE_READ so the same helpers serve tp_btf and raw_tp programs, and enum values
 * are relocated with bpf_core_enum_value where the kernel has an enum. Device numbers
 * returned are kernel dev_t (major << 20 | minor).
 */
#ifndef XIOTOP_CORE_FIXES_BPF_H
#define XIOTOP_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

/* Page size of the running kernel: user space sets it (getpagesize()) before load, as
 * PAGE_SIZE is a macro, not in BTF. */
const volatile unsigned int kernel_page_size = 4096;

/* PF_WQ_WORKER, include/linux/sched.h: a #define (not in BTF), 0x20 since workqueue
 * workers were introduced (2.6.36, concurrency-managed workqueues) through 6.18. */
#define KERNEL_PF_WQ_WORKER 0x00000020

static __always_inline bool task_is_wq_worker(u32 task_flags)
{
	return task_flags & KERNEL_PF_WQ_WORKER;
}

/* Is `work` the item the current workqueue worker runs? The workqueue's own record of it,
 * struct worker's current_work, reached through the worker's kthread data
 * (task->worker_private since 5.17, "kthread: Generalize pf_io_worker so it can point to
 * struct kthread"). A BH workqueue's item (6.9 and
 * later, WQ_BH) starts in a softirq on top of whatever task runs, a kworker inside its own
 * item included: it is not that kworker's item. Before 5.17 there is no BH workqueue: any
 * item starting on a worker is its own. */
static __always_inline bool worker_runs(struct task_struct *task, struct work_struct *work)
{
	if (!bpf_core_field_exists(task->worker_private))
		return true;
	struct kthread *k = BPF_CORE_READ(task, worker_private);
	struct worker *w = BPF_CORE_READ(k, data);
	return w && BPF_CORE_READ(w, current_work) == work;
}

/* enum pageflags PG_head: its bit number moved between kernels (config-dependent
 * flags before it), so it is relocated from the running kernel's BTF. */
static __always_inline bool folio_is_large(struct folio *folio)
{
	u64 flags = 0;
	bpf_probe_read_kernel(&flags, sizeof(flags), folio);
	return flags & (1ull << bpf_core_enum_value(enum pageflags, PG_head));
}

/* Pages in a folio: folio->_nr_pages exists on kernels that store the count in the
 * folio; without it a large folio is counted as one page (an under-count, never more). */
static __always_inline u64 folio_pages(struct folio *folio)
{
	if (folio_is_large(folio) && bpf_core_field_exists(folio->_nr_pages))
		return BPF_CORE_READ(folio, _nr_pages);
	return 1;
}

/* Before 5.12 a bio named its disk and partition number instead of a block_device
 * (commit 309dca309fc3, "block: store a block_device pointer in struct bio"). */
struct bio___pre512 {
	struct gendisk *bi_disk;
	u8 bi_partno;
} __attribute__((preserve_access_index));

static __always_inline u32 gendisk_devt(struct gendisk *disk)
{
	u32 major = BPF_CORE_READ(disk, major);
	u32 minor = BPF_CORE_READ(disk, first_minor);
	return (major << 20) | minor;
}

/* The device the bio is queued to (a partition if it was submitted to one). */
static __always_inline u32 bio_devt(struct bio *bio)
{
	if (bpf_core_field_exists(bio->bi_bdev))
		return BPF_CORE_READ(bio, bi_bdev, bd_dev);
	struct bio___pre512 *old = (void *)bio;
	return gendisk_devt(BPF_CORE_READ(old, bi_disk)) + BPF_CORE_READ(old, bi_partno);
}

/* The whole disk under that device (itself unless it is a partition). */
static __always_inline u32 bio_whole_devt(struct bio *bio)
{
	if (bpf_core_field_exists(bio->bi_bdev))
		return BPF_CORE_READ(bio, bi_bdev, bd_disk, part0, bd_dev);
	struct bio___pre512 *old = (void *)bio;
	return gendisk_devt(BPF_CORE_READ(old, bi_disk));
}

/* The whole disk under the bio's device: plain loads in a tp_btf program (btf), else
 * probe reads (bio_whole_devt, which also knows the pre-5.12 layout). */
static __always_inline u32 whole_devt(struct bio *bio, bool btf)
{
	if (btf)
		return bio->bi_bdev->bd_disk->part0->bd_dev;
	return bio_whole_devt(bio);
}

/* LO_FLAGS_DIRECT_IO (uapi linux/loop.h, an anonymous enum: no CO-RE relocation by
 * name; uapi values never change): set in lo_flags while the loop device does direct I/O
 * to its backing file (kept in step with the older `use_dio` since 4.4). */
#define KERNEL_LO_FLAGS_DIRECT_IO 16

static __always_inline bool loop_uses_dio(struct loop_device *lo)
{
	return BPF_CORE_READ(lo, lo_flags) & KERNEL_LO_FLAGS_DIRECT_IO;
}

/* A tail page points to its head with bit 0 of compound_head set (since 4.6, commit
 * 1d798ca3f164, "mm: make compound_head() robust"). */
static __always_inline struct page *page_head(struct page *page)
{
	unsigned long head = BPF_CORE_READ(page, compound_head);
	return head & 1 ? (struct page *)(head - 1) : page;
}

/* The inode owning the bio's first page, if it is a file page (not anonymous memory,
 * not a bdev buffer of interest). Start at bi_idx: split and cloned bios share the
 * vector with an offset. Returns 0 when there is no file page. */
static __always_inline int bio_first_inode(struct bio *bio, u64 *ino, u32 *fs_dev)
{
	struct bio_vec *vec = BPF_CORE_READ(bio, bi_io_vec);
	u16 idx = BPF_CORE_READ(bio, bi_iter.bi_idx);
	if (!vec)
		return 0;
	struct page *page = BPF_CORE_READ(vec + idx, bv_page);
	if (!page)
		return 0;
	unsigned long mapping = (unsigned long)BPF_CORE_READ(page_head(page), mapping);
	/* low bits tag anonymous, KSM and movable pages: no inode behind them */
	if (!mapping || (mapping & 3))
		return 0;
	struct inode *host = BPF_CORE_READ((struct address_space *)mapping, host);
	if (!host)
		return 0;
	*ino = BPF_CORE_READ(host, i_ino);
	*fs_dev = BPF_CORE_READ(host, i_sb, s_dev);
	return 1;
}

/* Syscall numbers: the architecture's ABI (arch/x86/entry/syscalls/syscall_64.tbl,
 * include/uapi/asm-generic/unistd.h for arm64); they never change once assigned. */
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

/* bi_opf: the low 8 bits are the operation (REQ_OP_BITS, include/linux/blk_types.h, since
 * 4.10); REQ_OP_READ is 0 and REQ_OP_WRITE 1 in every version. */
#define KERNEL_REQ_OP_MASK  0xff
#define KERNEL_REQ_OP_WRITE 1
/* The operations /proc/diskstats does not count as reads or writes: a discard (a group of
 * its own in op_stat_group(), include/linux/blk_types.h), a flush (the flush machinery's
 * requests are not accounted, blk_account_io_done()), passthrough (from REQ_OP_DRV_IN on,
 * blk_do_io_stat()). Every other operation is a read if even, a write if odd: a secure
 * erase (5) or write-zeroes (9) is counted as a write. Values of enum req_op as in 6.18's
 * BTF, not checked on older kernels (REQ_OP_DRV_IN was added in 4.11). */
#define KERNEL_REQ_OP_FLUSH   2
#define KERNEL_REQ_OP_DISCARD 3
#define KERNEL_REQ_OP_DRV_IN  34

/* diskstats' group of an operation (op: masked with KERNEL_REQ_OP_MASK), as
 * op_stat_group(): 1 write (every odd operation), 0 read (every even one), -1 neither. */
static __always_inline int stat_group(u32 op)
{
	if (op == KERNEL_REQ_OP_DISCARD || op == KERNEL_REQ_OP_FLUSH || op >= KERNEL_REQ_OP_DRV_IN)
		return -1;
	return op & 1;
}

/* USER_HZ ticks, as /proc/<pid>/stat prints a start time (USER_HZ is 100 on every
 * architecture xiotop builds for). */
#define NS_PER_USER_TICK 10000000ull

#endif
