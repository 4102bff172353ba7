/* core_compat.bpf.h - one small helper per kernel-version difference (CO-RE reads).
 *
 * Every read goes through BPF_CORE_READ so the same helpers serve tp_btf and raw_tp
 * programs. Device numbers returned are kernel dev_t (major << 20 | minor).
 */
#ifndef XIOTOP_CORE_COMPAT_BPF_H
#define XIOTOP_CORE_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

/* Before 5.12 a bio named its disk and partition number instead of a block_device. */
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
	unsigned long head = BPF_CORE_READ(page, compound_head);
	if (head & 1)
		page = (struct page *)(head - 1);
	unsigned long mapping = (unsigned long)BPF_CORE_READ(page, mapping);
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

#endif
