/* tracer_internal.h - the tracer's state, shared by its files: tracer.c (loading,
 * attaching, reading the counters) and tracer_topology.c (the topology into the lookup
 * maps). Nothing outside sources/tracer*.c includes it.
 */
#ifndef XIOTOP_SOURCES_TRACER_INTERNAL_H
#define XIOTOP_SOURCES_TRACER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sample.h"
#include "sources/dev_counts.h"
#include "sources/dm_keep.h"
#include "sources/map_updates.h"
#include "sources/rq_watch.h"
#include "sources/tracer_hooks.h"
#include "bpf/xiotop.h"

struct tracer {
	struct hook_set hooks;
	struct xiotop_bpf *skel; /* hooks.skel */
	const char *mode;
	char hooks_line[512];
	bool has_cpu;   /* the task iterator attached */
	bool has_dirty; /* writeback_dirty_folio attached */
	int ncpus;
	bool has_latency;                      /* latency is timed: lat_hist is read */
	struct xiotop_io *percpu_io;           /* ncpus values of one layer_io entry */
	const struct xiotop_layer_slot *slots; /* layer_slots, mapped read-only */
	size_t slots_len, n_slots;
	const struct xiotop_lat_slot *lat_slots; /* lat_slots, mapped read-only (has_latency) */
	size_t lat_slots_len, n_lat_slots;
	struct xio_layer *layer_buf; /* one interval's layers before they are merged */
	size_t layer_cap, n_layers_buf;
	struct xiotop_lat *percpu_lat;
	struct xiotop_lat *percpu_lat_again; /* a second copy, to know the first whole */
	unsigned long long *percpu_u64;
	uint64_t unattributed_ns; /* the last value given: never decreases */
	bool pass_failed;         /* said once */
	struct xiotop_dev_slot dev_staging[XIOTOP_DEV_SLOTS]; /* the next dev_table */
	struct map_updates updates;   /* topology writes the maps refused: lost_events */
	struct rq_watch rq_watch;     /* blk-mq backends' completions no program saw */
	struct dev_counts dev_counts; /* backends the kernel counts: their layers (diskstats) */
	struct dev_extra extras[XIOTOP_DEV_SLOTS]; /* dev_extras as last read (tracer_extras) */
	char proc_root[256];     /* where diskstats is read ("": no topology yet) */
	struct tracer_lost lost; /* the last read's lost_events by kind */
	struct dm_keep dms;      /* the device models in tgid_dom and tgid_bits */
	/* the domains of the topology whose latency is not timed (a kind of their backends is
	 * timed by a hook not attached) and why (enum xio_untimed), by domid (has_latency) */
	struct tracer_untimed {
		uint32_t domid, untimed;
	} * untimed;
	size_t n_untimed;
};

/* The programs' dev_extras (bpf/bio.bpf.h) into t->extras, read after a diskstats read
 * (sources/dev_counts.h): how many. */
size_t tracer_extras(struct tracer *t);

#endif
