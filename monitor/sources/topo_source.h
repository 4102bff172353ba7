/* topo_source.h - where the topology comes from, picked once at start, and rebuilt from
 * it every interval.
 *
 * Contract: topo_source_open() picks, in this order: Xen live (when both libxenstat and
 * xenstore answer; a --xenstore-dump is then ignored), else the xenstore dump if one is
 * given, else nothing but the qemu processes in /proc. It notes (core/error.h xnote)
 * exactly one sentence naming the source and why (the reason Xen is not used, from the
 * failing call), or fills err (bad input) with why the dump cannot be read. It prints
 * nothing itself: cli/ says both. The Xen source is read again when its watch fires (a
 * failed read and its recovery are noted once each), the dump once. topo_source_build() gives a
 * fresh topology every time: the xenstore nodes resolved through sysfs, the qemu processes running
 * now, and each domain's generation (so a reused domid is a new domain).
 * topo_source_take_marks() hands out the guests' marks the Xen source saw while building
 * (xenlive.h); the other sources have none.
 */
#ifndef XIOTOP_TOPO_SOURCE_H
#define XIOTOP_TOPO_SOURCE_H

#include "core/error.h"
#include "sources/topology/topology.h"
#include "sources/xen/xenlive.h"

enum topo_source_kind {
	TOPO_SRC_XEN,  /* live xenstore + libxenstat */
	TOPO_SRC_DUMP, /* --xenstore-dump FILE */
	TOPO_SRC_PROC, /* qemu processes only */
};

struct topo_source {
	enum topo_source_kind kind;
	struct xt_roots roots;
	struct xenlive *xen;   /* TOPO_SRC_XEN, else NULL */
	struct xs_store store; /* the xenstore nodes: last read (Xen), or the dump */
	struct topo_generations generations;
	bool reread_failed; /* Xen: the last read of xenstore failed (noted once), retry */
};

/* 0, or -1 with err filled (XERR_INPUT: the dump cannot be read). `api` may be NULL (no
 * Xen support). */
int topo_source_open(struct topo_source *src, const char *dump, const struct xt_roots *roots,
                     const struct xen_api *api, struct xerr *err);
/* 0, or -1 when out of memory (out is then empty). */
int topo_source_build(struct topo_source *src, struct xt_topology *out);
/* The marks moved into out, and in *refused the mark events refused so far. */
size_t topo_source_take_marks(struct topo_source *src, struct xenlive_mark *out, size_t max,
                              unsigned long *refused);
void topo_source_close(struct topo_source *src);

#endif
