/* qdisk_stats.h - a qdisk vbd's counters, from its QEMU's query-blockstats.
 *
 * blkback's sysfs has no qdisk vbds: QEMU serves them and counts their bytes. xentop reads
 * those counts through libxenstat, which waits 10 ms for each QMP reply and, when the
 * second of its questions (query-block, to find the vbd's devid) goes unanswered, lists
 * the vbd under devid 0: one vbd then shows as two, each counted from zero. That doubled
 * a qdisk domain's vbd bytes in the real Xen test, and under load lost them. Here the
 * question is asked once per sample with a deadline QEMU can meet (qmp.h), and the
 * answer is matched to the vbd by the name QEMU itself gives the drive.
 *
 * Contract: qdisk_stats_take() reads the text of one query-blockstats "return" value (an
 * array) for domain `d` and adds to `s` one XIO_VBD_QMP counter set per qdisk backend of
 * `d` it can match, read now:
 *   - the entry whose "node-name" is "<dev>-<driver>", dev being the backend's xenstore
 *     "dev" ("xvda": QEMU's xen-block names its drive so, hw/block/xen-block.c);
 *   - else, when `d` has one qdisk backend and the array one entry, that entry.
 * A backend not matched, or whose entry lacks a counter or holds a negative one, gets
 * nothing (vbd_gaps carries it: unknown is not zero). *problem is NULL when every qdisk
 * backend was matched, else what was wrong (a static string: the text is not an array,
 * or no entry names a vbd). 0, or -1 out of memory.
 * qdisk_stats_fill() asks each domain of `topo` in `s` that has a qdisk backend, through
 * the QMP socket libxl opens for statistics (<qmp_dir>/qmp-libxenstat-<domid>), within
 * QDISK_ASK_MS each and QDISK_BUDGET_MS for the whole sample (domains past the budget are
 * not asked this time); sets s->has_vbd_stats when any domain has a qdisk backend, read
 * or not, so the gaps are carried. Keeps in `why` the last failure (one line) for the
 * caller to say once. 0, or -1 out of memory.
 */
#ifndef XIOTOP_QDISK_STATS_H
#define XIOTOP_QDISK_STATS_H

#include <stddef.h>

#include "core/sample.h"
#include "sources/topology/topology.h"

#define QDISK_ASK_MS    500  /* one domain's question */
#define QDISK_BUDGET_MS 1500 /* all domains' questions in one sample */

int qdisk_stats_take(const char *blockstats, const struct xt_domain *d, struct xio_sample *s,
                     const char **problem);
int qdisk_stats_fill(const char *qmp_dir, const struct xt_topology *topo, struct xio_sample *s,
                     char *why, size_t whylen);

#endif
