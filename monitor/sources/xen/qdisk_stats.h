/* qdisk_stats.h - a qdisk vbd's counters, from its QEMU's query-blockstats.
 *
 * blkback's sysfs has no qdisk vbds: QEMU serves them and counts their bytes. xentop reads
 * those counts through libxenstat, which waits 10 ms for each QMP reply and, when the
 * second of its questions (query-block, to find the vbd's devid) goes unanswered, lists
 * the vbd under devid 0: one vbd then shows as two, each counted from zero. That doubled
 * a qdisk domain's vbd bytes in the real Xen test, and under load lost them. Here each
 * domain has one question at a time, answered however late (qmp.h), and the answer is
 * matched to the vbd by the name QEMU itself gives the drive.
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
 * the QMP socket libxl opens for statistics (<qmp_dir>/qmp-libxenstat-<domid>), and waits
 * up to QDISK_ASK_MS in all for the answers, every domain's question at once. A question
 * not answered by then is not given up: it stays in `a` (qdisk_asks_new, QDISK_GIVE_UP_MS
 * outside tests) and its answer, when it comes, is
 * taken at a later sample as that sample's counts (cumulative counts, so their sums over
 * intervals hold; a rate shifts by the interval it was late). A domain gets a new question
 * only once its last is answered, failed, or went give_up_ms without an answer.
 * Sets s->has_vbd_stats when any domain has a qdisk backend, read or not, so the gaps are
 * carried. Keeps in `why` the last failure or question left waiting (one line) for the
 * caller to say once. 0, or -1 out of memory. A domain that leaves `topo` has its
 * question closed and, unless each of its samples took its own answer, its tally said
 * (xnote), as every domain's at qdisk_asks_free().
 * qdisk_asks_tally() gives one domain's counts of samples so far (all 0 when never asked);
 * qdisk_asks_free() closes every question.
 */
#ifndef XIOTOP_QDISK_STATS_H
#define XIOTOP_QDISK_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "core/sample.h"
#include "sources/topology/topology.h"

#define QDISK_ASK_MS     500   /* a sample's wait for every domain's answer */
#define QDISK_GIVE_UP_MS 30000 /* a question older than this is closed and asked again */

struct qdisk_tally {
	unsigned long samples;       /* samples the domain had a qdisk backend in */
	unsigned long answered;      /* samples that took an answer */
	unsigned long late;          /* of them, the answer to an earlier sample's question */
	unsigned long waiting;       /* samples that ended with the question in flight */
	unsigned long not_connected; /* no socket (QEMU not up, or gone), refused, backlog full */
	unsigned long failed;        /* QEMU refused, closed, or sent what is not QMP */
	unsigned long given_up;      /* questions closed after QDISK_GIVE_UP_MS */
};

struct qdisk_asks; /* the questions in flight, kept from one sample to the next */

int qdisk_stats_take(const char *blockstats, const struct xt_domain *d, struct xio_sample *s,
                     const char **problem);
struct qdisk_asks *qdisk_asks_new(int give_up_ms); /* NULL: out of memory */
int qdisk_stats_fill(struct qdisk_asks *a, const char *qmp_dir, const struct xt_topology *topo,
                     struct xio_sample *s, char *why, size_t whylen);
struct qdisk_tally qdisk_asks_tally(const struct qdisk_asks *a, uint32_t domid);
void qdisk_asks_free(struct qdisk_asks *a);

#endif
