// SPDX-License-Identifier: GPL-2.0
/* floor_btf.bpf.c - empty tp_btf programs at the events xiotop runs at per I/O, for
 * bench/compare.sh's floor_btf peer: what having a BTF-typed program attached costs a guest's
 * I/O whatever the program does (the tracepoint's call into it, the kernel's run stats when
 * on), attached the same way as xiotop's own (bench/floor_btf.c attaches those it is told). */
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
