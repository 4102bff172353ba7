/* dm_keep.h - which device models stay in the BPF lookup maps (tgid_dom, tgid_bits) from
 * one topology to the next.
 *
 * Why a model that left the topology stays a while: its threads' last runtime is charged
 * when their task_structs are freed (bpf/cpu.bpf.h, sched_process_free), an RCU grace
 * period after they exit: 8-64 ms measured on an idle VM, up to ~10 s where lazy RCU
 * defers callbacks, and later under load. The topology no longer holds a process that was
 * reaped, so without this its threads freed after the next topology found no owner and
 * the device model's last interval of CPU went to the shared runtime (reproduced: 3 of
 * 20 qemu-like runs at -d 0.2 lost 60-70 of ~70 ms). Its start time keeps a reused pid
 * from being taken for it.
 *
 * Contract: dm_keep_begin() starts a topology; dm_keep_see() adds or refreshes each
 * device model in it (a tgid seen with another start time is a new process and replaces
 * the old); dm_keep_end() marks those not seen as gone (from now) and drops those gone
 * for DM_KEEP_GONE_NS or more, their tgids in dropped[] for the caller to unmap. dm_keep_word() is
 * the bitmap word the kept ones give a tgid's word. No BPF here: the tracer writes the maps from it
 * (sources/tracer_topology.c).
 */
#ifndef XIOTOP_SOURCES_DM_KEEP_H
#define XIOTOP_SOURCES_DM_KEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/xiotop.h"

/* How long a device model stays mapped after it left the topology. */
#define DM_KEEP_GONE_NS (30 * 1000000000LL)

struct dm_kept {
	uint32_t tgid;
	struct xiotop_dm_owner owner;
	int64_t gone_since_ns; /* 0 while in the topology */
	bool seen;             /* in the topology being built */
};

struct dm_keep {
	struct dm_kept v[XIOTOP_MAX_TGIDS];
	size_t n;
	uint32_t dropped[XIOTOP_MAX_TGIDS]; /* by the last dm_keep_end() */
	size_t n_dropped;
};

void dm_keep_begin(struct dm_keep *k);
/* false when XIOTOP_MAX_TGIDS device models are kept already (tgid_dom would refuse it
 * too). */
bool dm_keep_see(struct dm_keep *k, uint32_t tgid, const struct xiotop_dm_owner *owner);
void dm_keep_end(struct dm_keep *k, int64_t now_ns);
uint64_t dm_keep_word(const struct dm_keep *k, uint32_t word);

#endif
