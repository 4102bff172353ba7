/* vbd_gaps.h - a vbd whose counters were not read for a sample is not a new vbd.
 *
 * libxenstat reads a qdisk vbd's counters from QEMU's QMP socket and may get no answer
 * (another client holds the socket, QEMU is slow): the vbd is then missing from that
 * sample, and the next sample's counters, taken as a delta from zero, counted its bytes
 * again. The sample says which vbds were not read (xio_vbd_stat.read, core/sample.h).
 *
 * Contract: vbd_gaps_fill() runs once per sample, after every reader of vbd counters
 * (blkback's sysfs, libxenstat), on a sample that has_vbd_stats. For each vbd a domain of
 * the topology lists (a vbd or qdisk backend) that the sample has no counters for, it adds
 *   - XIO_VBD_CARRIED with the counters last read, when it was read before for this
 *     incarnation of its domain (same domid and generation);
 *   - XIO_VBD_UNREAD (counters 0, unknown) when never read and its domain was in the first
 *     sample filled: the vbd is older than xiotop's counting;
 *   - nothing when never read and its domain came later: made since, so its first counters
 *     read are all since xiotop started, a delta from zero.
 * What it remembers of a domain that left (or whose domid now has another generation) is
 * forgotten. Pure: no I/O; unit-tested.
 */
#ifndef XIOTOP_VBD_GAPS_H
#define XIOTOP_VBD_GAPS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/sample.h"
#include "sources/topology/topology.h"

struct vbd_gaps_domain {
	uint32_t domid, generation;
};

struct vbd_gaps_last {
	struct xio_vbd_stat v; /* as last read */
	uint32_t generation;   /* of its domain then */
};

struct vbd_gaps {
	bool started; /* the first sample was filled */
	struct vbd_gaps_domain *first;
	size_t n_first;
	struct vbd_gaps_last *last;
	size_t n_last;
};

/* 0, or -1 out of memory. */
int vbd_gaps_fill(struct vbd_gaps *g, const struct xt_topology *topo, struct xio_sample *s);
void vbd_gaps_free(struct vbd_gaps *g);

#endif
