// SPDX-License-Identifier: GPL-2.0
/* floor_btf.bpf.c - empty tp_btf programs at the events xiotop runs at per I/O, for
 * bench/compare.sh's floor_btf peer: what having a BTF-typed program attached costs a guest's
 * I/O whatever the program does (the tracepoint's call into it, the kernel's run stats when
 * on), attached the same way as xiotop's own (bench/floor_btf.c attaches those it is told).
 * The *_clock programs are the floor_lat peer: at the same events, the least a tool that
 * times every I/O does there (a clock read at issue and one at completion where the kernel
 * keeps no start, as for a bio-based device; one at completion against the request's own
 * start on a blk-mq device): what latency on costs any tool, whatever else it gives. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue, struct bio *bio)
{
	return 0;
}

SEC("tp_btf/block_bio_complete")
int BPF_PROG(block_bio_complete, struct request_queue *q, struct bio *bio)
{
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	return 0;
}

SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(workqueue_execute_start, struct work_struct *work)
{
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(writeback_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	return 0;
}

/* floor_lat: a bio's issue time, in a slot by a hash of its sector (a plain load: the key
 * only has to cost what a key costs; a slot another bio took only makes a wrong sum) */
#define STAMP_BITS 10
unsigned long long stamps[1 << STAMP_BITS];
unsigned long long timed_ns, timed;

static __always_inline unsigned long long *stamp_of(struct bio *bio)
{
	return &stamps[(bio->bi_iter.bi_sector * 0x9e3779b97f4a7c15ull) >> (64 - STAMP_BITS)];
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue_clock, struct bio *bio)
{
	*stamp_of(bio) = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_bio_complete")
int BPF_PROG(block_bio_complete_clock, struct request_queue *q, struct bio *bio)
{
	timed_ns += bpf_ktime_get_ns() - *stamp_of(bio);
	timed++;
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_clock, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	timed_ns += bpf_ktime_get_ns() - rq->start_time_ns;
	timed++;
	return 0;
}
