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
 */
#ifndef XIOTOP_XENLIVE_H
#define XIOTOP_XENLIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/sample.h"
#include "sources/topology/topology.h"
#include "sources/xen/xen_api.h"

#define XENLIVE_VALUE_MAX 65536 /* xenstored sends at most 4096 bytes per message */
#define XENLIVE_DIR_MAX   65536 /* entries read from one directory */
/* XEN_RUN_DIR as Debian's Xen builds it: libxl opens qmp-libxenstat-<domid> there */
#define XENLIVE_QMP_DIR "/var/run/xen"

struct xenlive;

int xenlive_open(struct xenlive **out, const struct xen_api *api, char *why, size_t whylen);
/* 0, or -1 with `why` when xenstore stopped answering (out is then empty). */
int xenlive_read_store(struct xenlive *x, struct xs_store *out, char *why, size_t whylen);
bool xenlive_changed(struct xenlive *x);
/* 0, or -1 when out of memory. A libxenstat that stops answering leaves s unchanged. */
int xenlive_fill_sample(struct xenlive *x, const struct xt_topology *topo, struct xio_sample *s);
void xenlive_set_qmp_dir(struct xenlive *x, const char *dir);
const char *xenlive_qdisk_problem(struct xenlive *x);
const char *xenlive_xen_version(const struct xenlive *x); /* "4.17.3", or "" */
bool xenlive_watching(const struct xenlive *x);           /* the watch is set */
void xenlive_close(struct xenlive *x);

#endif
