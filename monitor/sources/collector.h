/* collector.h - once per interval: counters + host ground truth + names -> a sample.
 *
 * Contract: collector_sample() fills a fresh sample with the tracer's cumulative
 * per-(domain, device, rule) counters (through the read_layers callback, so tests can
 * feed synthetic counters), /proc/stat's CPU times (read right after the tracer, and the
 * sample's instant right before it: the three agree to within a few microseconds unless
 * the collector is preempted), /proc/vmstat, /proc/diskstats of leaf devices, the names
 * and leaf flags of every device it mentions, the domains of the topology, and on a Xen
 * dom0 blkback's per-vbd counters (and libxenstat's figures, see collector_set_xen),
 * with an entry for each listed vbd that neither answered for (vbd_gaps.h).
 * Device facts are cached until collector_set_topology().
 */
#ifndef XIOTOP_COLLECTOR_H
#define XIOTOP_COLLECTOR_H

#include "core/sample.h"
#include "sources/topology/topology.h"
#include "sources/xen/vbd_gaps.h"

struct xenlive;

typedef int (*collector_read_fn)(void *ctx, struct xio_sample *s);
/* Requests in progress at dev when read_layers last read it, where its layer counts a
 * request as it completes (a layer read from /proc/diskstats); 0 elsewhere. */
typedef uint64_t (*collector_in_flight_fn)(void *ctx, uint32_t dev);

struct collector_devfact {
	uint32_t dev;
	struct xt_devinfo info;
};

struct collector {
	collector_read_fn read_layers;
	collector_in_flight_fn in_flight; /* NULL: none lags */
	void *read_ctx;
	const struct xt_topology *topo;
	struct xt_roots roots;
	struct collector_devfact *devcache;
	size_t n_devcache;
	struct xenlive *xen;  /* libxenstat figures (vCPU, memory, qdisk VBDs); NULL: none */
	struct vbd_gaps gaps; /* vbds listed but not read: not new ones (vbd_gaps.h) */
};

void collector_init(struct collector *c, collector_read_fn fn, void *ctx,
                    const struct xt_roots *roots);
void collector_set_topology(struct collector *c, const struct xt_topology *topo);
/* A vbd whose backend device's layer lags blkback by the requests in flight there (fn,
 * called with the read_layers ctx): they are sampling skew of its cross-check, not a miss
 * (xio_vbd_stat.skew_*_bytes). */
void collector_set_in_flight(struct collector *c, collector_in_flight_fn fn);
/* Add libxenstat's per-domain figures to every sample (the Xen live source). */
void collector_set_xen(struct collector *c, struct xenlive *xen);
/* 0, or -1 when the counters cannot be read (host files missing only warn once). */
int collector_sample(struct collector *c, struct xio_sample *s);
void collector_free(struct collector *c);

#endif
