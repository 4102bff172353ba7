/* metrics.h - what a Prometheus scrape of xiotop shows: counters per domain series, per
 * host disk and for the host, cumulative since the exporter started.
 *
 * Contract: metrics_add_interval() adds one interval of the loop (model.h) to the state.
 * A series is one domain incarnation: (domid, generation). Its counters only grow:
 *   - a domain listed in the interval continues its series, or starts one (counters 0 +
 *     this interval) when it is new, or when its domid now holds another domain than
 *     before (another hypervisor generation, or another uuid);
 *   - a domain (or host disk) not listed in the interval is dropped: it is gone from the
 *     next exposition, and if its domid comes back it is a new series, never the old
 *     counters continued.
 * The `generation` label is the hypervisor's generation of the domid when xiotop knows
 * it and it is above every label used for that domid so far; otherwise one more than
 * the last label of that domid (1 for the first). So labels of one domid never repeat.
 * Pure: no I/O, no locks, no globals; strings are copied (raw: escaping is the
 * exposition writer's job).
 */
#ifndef XIOTOP_EXPORT_METRICS_H
#define XIOTOP_EXPORT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/figures.h"
#include "core/model.h"

struct metrics_domain {
	uint32_t domid;
	uint32_t generation; /* the series' label, see above */
	uint32_t xen_generation;
	char uuid[40];
	char name[XIO_NAME_MAX]; /* raw, guest-controlled; "" unknown */
	/* each count of the domain in the figure table (core/figures.h) summed, each gauge the
	 * latest interval's, by figure id */
	uint64_t value[FIGURE_MAX];
	uint64_t cpu_ns_by_role[XIO_CPU_ROLES];
	struct xiotop_lat lat[XIOTOP_LAT_OPS]; /* I/O latency by op (with has_latency) */
	/* the latest interval's model_domain.lat_untimed: not 0, the op's latency is not
	 * timed and has no series (what lat holds is not its latency) */
	uint32_t lat_untimed[XIOTOP_LAT_OPS];
};

struct metrics_disk {
	uint32_t dev;
	char name[32];
	uint64_t rd_bytes, wr_bytes;
};

/* The last generation label given per domid (never forgotten: labels never repeat). */
struct metrics_label_use {
	uint32_t domid, last_generation;
};

struct metrics_state {
	unsigned long intervals;
	int64_t realtime_ns; /* end of the latest interval; 0 none yet */
	bool has_cpu, has_dirty;
	bool has_latency; /* the latest interval timed I/O (not --no-latency) */
	uint32_t absent;  /* enum xio_absent, the latest interval's: those series are left out */
	/* each count of the host in the figure table summed (gauges the latest), by figure id */
	uint64_t host[FIGURE_MAX];
	char hooks[512];                /* "MODE hook hook ...", the latest interval's */
	struct metrics_domain *domains; /* sorted by domid, then generation */
	size_t n_domains;
	struct metrics_disk *disks; /* in the interval's order */
	size_t n_disks;
	struct metrics_label_use *labels;
	size_t n_labels;
};

void metrics_init(struct metrics_state *st);
/* 0, or -1 (ENOMEM: the state is as before the call). */
int metrics_add_interval(struct metrics_state *st, const struct model_interval *m);
void metrics_free(struct metrics_state *st);

#endif
