// SPDX-License-Identifier: GPL-2.0
/* xiotop.bpf.c - the program entry points: per-domain block I/O attribution and dom0
 * CPU per domain. The work is in the included parts, one job each:
 *   maps.bpf.h    maps and "whose is this?" lookups
 *   cpu.bpf.h     dom0 CPU from the kernel's runtime accounting (task pass, work items)
 *   bio.bpf.h     the attribution rules for bios, the dirty backlog
 *   fileio.bpf.h  device models' file-level I/O (syscalls, io_uring)
 *   latency.bpf.h per-domain I/O latency histograms (unless --no-latency)
 *   core_fixes.bpf.h  kernel literals and version differences
 *
 * Each hook exists twice: tp_btf (preferred, cheaper) and raw_tp (fallback); user
 * space loads one set, see tracer_hooks.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bio.bpf.h"
#include "core_fixes.bpf.h"
#include "cpu.bpf.h"
#include "fileio.bpf.h"
#include "latency.bpf.h"
#include "maps.bpf.h"
#include "xiotop.h"

char LICENSE[] SEC("license") = "GPL";

/* ---- tp_btf set: arguments are trusted pointers, read directly ---- */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(btf_bio_queue, struct bio *bio)
{
	struct bio_facts f = {
	    .op = bio->bi_opf,
	    .bytes = bio->bi_iter.bi_size,
	    .dev = bio->bi_bdev->bd_dev,
	    .bio_flags = bio->bi_flags,
	    .num = bio_number_btf(bio),
	};
	return on_bio_queue(bio, &f, true);
}

SEC("tp_btf/block_bio_remap")
int BPF_PROG(btf_bio_remap, struct bio *bio, dev_t dev, sector_t from)
{
	return on_bio_remap(bio, bio_number_btf(bio), dev);
}

/* fires only where a bio is split (over a queue's limits): none per small I/O */
SEC("tp_btf/block_split")
int BPF_PROG(btf_bio_split, struct bio *bio, unsigned int new_sector)
{
	return on_bio_split(bio->bi_opf, bio->bi_bdev->bd_dev);
}

SEC("tp_btf/block_bio_complete")
int BPF_PROG(btf_bio_complete, struct request_queue *q, struct bio *bio)
{
	return on_bio_complete(bio_number_btf(bio), bio->bi_bdev->bd_dev);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(btf_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	struct rq_facts f = {
	    .op = rq->cmd_flags,
	    .bytes_left = rq->__data_len,
	    .dev = rq->bio->bi_bdev->bd_dev,
	    .start_ns = rq->start_time_ns,
	    .io_start_ns = rq->io_start_time_ns,
	    .end_io = (u64)rq->bio->bi_end_io,
	};
	return on_rq_complete(&f, nr_bytes);
}

SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(btf_work_start, struct work_struct *work)
{
	return on_work_start(work, (u64)work->func);
}

/* sched_process_free and the task iterator have no raw_tp twin: task storage needs the
 * trusted task pointer only BTF-typed programs get (and the iterator needs BTF anyway). */
SEC("tp_btf/sched_process_free")
int BPF_PROG(btf_task_exit, struct task_struct *task)
{
	return on_task_exit(task);
}

SEC("iter/task")
int cpu_pass(struct bpf_iter__task *ctx)
{
	return on_task_pass(ctx->meta, ctx->task);
}

/* runs at every page dom0 dirties (1 per 4 KiB write of a loop device with direct I/O
 * off): the file's identity in plain loads, not the four probe reads of the raw_tp twin */
SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(btf_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct inode *host = mapping ? mapping->host : NULL;
	if (!host)
		return 0;
	return on_dirty_folio(folio, host->i_ino, host->i_sb->s_dev);
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
	    .bio_flags = BPF_CORE_READ(bio, bi_flags),
	    .num = (u64)bio,
	};
	return on_bio_queue(bio, &f, false);
}

SEC("raw_tp/block_bio_remap")
int BPF_PROG(raw_bio_remap, struct bio *bio, dev_t dev, sector_t from)
{
	return on_bio_remap(bio, (u64)bio, dev);
}

SEC("raw_tp/block_split")
int BPF_PROG(raw_bio_split, struct bio *bio, unsigned int new_sector)
{
	return on_bio_split(BPF_CORE_READ(bio, bi_opf), bio_devt(bio));
}

SEC("raw_tp/block_bio_complete")
int BPF_PROG(raw_bio_complete, struct request_queue *q, struct bio *bio)
{
	return on_bio_complete((u64)bio, bio_devt(bio));
}

SEC("raw_tp/block_rq_complete")
int BPF_PROG(raw_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	struct rq_facts f = {
	    .op = BPF_CORE_READ(rq, cmd_flags),
	    .bytes_left = BPF_CORE_READ(rq, __data_len),
	    .dev = bio_devt(BPF_CORE_READ(rq, bio)),
	    .start_ns = BPF_CORE_READ(rq, start_time_ns),
	    .io_start_ns = BPF_CORE_READ(rq, io_start_time_ns),
	    .end_io = (u64)BPF_CORE_READ(rq, bio, bi_end_io),
	};
	return on_rq_complete(&f, nr_bytes);
}

SEC("raw_tp/workqueue_execute_start")
int BPF_PROG(raw_work_start, struct work_struct *work)
{
	return on_work_start(work, (u64)BPF_CORE_READ(work, func));
}

SEC("raw_tp/writeback_dirty_folio")
int BPF_PROG(raw_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct inode *host = mapping ? BPF_CORE_READ(mapping, host) : NULL;
	if (!host)
		return 0;
	return on_dirty_folio(folio, BPF_CORE_READ(host, i_ino), BPF_CORE_READ(host, i_sb, s_dev));
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
