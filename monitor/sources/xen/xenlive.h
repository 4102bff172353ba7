/* xenlive.h - the live Xen source: xenstore nodes for the topology, libxenstat figures
 * for the samples, a watch for changes. Read-only.
 *
 * Contract: xenlive_open() succeeds only when both libxenstat (xenstat_init and one
 * xenstat_get_node) and xenstore (xs_open and a listing of /local/domain) answer;
 * otherwise `why` says which call failed and why, in one line. xenlive_read_store()
 * copies the nodes the xenstore resolver uses into a struct xs_store, the same one a
 * dump gives, so topo_from_xenstore() is the only interpreter of keys and values:
 *   /local/domain/<domid>/{name,vm,image/device-model-pid}
 *   /local/domain/0/backend/{vbd,qdisk}/<domid>/<devid>/<key> (the keys xstopo.c reads)
 *   /local/domain/0/libxl/<domid>/qdisk-backend-pid
 * Directory entries that are not plain xenstore names are skipped; values longer than
 * XENLIVE_VALUE_MAX are cut and flagged `truncated` (the resolver marks them).
 * xenlive_changed() never blocks: it says whether the /local/domain watch fired since
 * the last call (always true if the watch could not be set). xenlive_fill_sample() adds
 * libxenstat's figures for the domains already in the sample (guest vCPU time, memory)
 * and the counters of their qdisk vbds, asked of each one's QEMU (qdisk_stats.h; the
 * sockets are in XENLIVE_QMP_DIR, another with xenlive_set_qmp_dir()).
 * xenlive_qdisk_problem() is the last reason a qdisk's counters were not read ("" none
 * yet): the caller says it once.
 * Guest marks: a domain writes its own node /local/domain/<domid>/data/xiotop/mark (the
 * `data` directory is the domain's to write; the value is a label such as "start fio").
 * Each watch event on that exact path seen by xenlive_changed() becomes one mark of that
 * domid, timed when the event is read (so it falls in the interval being sampled): its
 * label is the value read then, sanitized (core/sanitize.h) and cut to fit a recording's
 * label; several events of one domain in one check are one mark (the node holds only the
 * last value: marks closer than one interval keep the last). Only a node the domain owns
 * counts (xenstored makes an unprivileged domain the owner of what it creates; a node
 * another domain created under this path, or one whose owner cannot be read, is refused
 * and counted); its origin is the path's domid, never the writer's word. An empty or
 * removed value is no mark. Mark events do not count as topology changes. Without the
 * watch there are no marks. xenlive_take_marks() hands out the marks kept since the last
 * take, oldest first (at most XENLIVE_MARKS_MAX wait; more are counted as refused).
 */
#ifndef XIOTOP_XENLIVE_H
#define XIOTOP_XENLIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sample.h"
#include "sources/topology/topology.h"
#include "sources/xen/xen_api.h"

#define XENLIVE_VALUE_MAX 65536 /* xenstored sends at most 4096 bytes per message */
#define XENLIVE_DIR_MAX   65536 /* entries read from one directory */
/* XEN_RUN_DIR as Debian's Xen builds it: libxl opens qmp-libxenstat-<domid> there */
#define XENLIVE_QMP_DIR "/var/run/xen"

#define XENLIVE_MARK_NODE      "data/xiotop/mark" /* under /local/domain/<domid>/ */
#define XENLIVE_MARK_LABEL_MAX 200 /* bytes of label kept (sanitized, with its escapes) */
#define XENLIVE_MARKS_MAX      64  /* marks waiting between two takes */

struct xenlive_mark {
	uint32_t domid;                         /* the path's */
	int64_t realtime_ns;                    /* when the event was read */
	char label[XENLIVE_MARK_LABEL_MAX + 1]; /* sanitized */
};

struct xenlive;

int xenlive_open(struct xenlive **out, const struct xen_api *api, char *why, size_t whylen);
/* 0, or -1 with `why` when xenstore stopped answering (out is then empty). */
int xenlive_read_store(struct xenlive *x, struct xs_store *out, char *why, size_t whylen);
bool xenlive_changed(struct xenlive *x);
/* 0, or -1 when out of memory. A libxenstat that stops answering leaves s unchanged. */
int xenlive_fill_sample(struct xenlive *x, const struct xt_topology *topo, struct xio_sample *s);
/* Moves up to max waiting marks into out; the count moved. */
size_t xenlive_take_marks(struct xenlive *x, struct xenlive_mark *out, size_t max);
/* Mark events refused so far: another domain's node, no owner, or no room to keep it. */
unsigned long xenlive_marks_refused(const struct xenlive *x);
void xenlive_set_qmp_dir(struct xenlive *x, const char *dir);
const char *xenlive_qdisk_problem(struct xenlive *x);
const char *xenlive_xen_version(const struct xenlive *x); /* "4.17.3", or "" */
bool xenlive_watching(const struct xenlive *x);           /* the watch is set */
void xenlive_close(struct xenlive *x);

#endif
