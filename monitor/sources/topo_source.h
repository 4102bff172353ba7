/* topo_source.h - where the topology comes from, picked once at start, and rebuilt from
 * it every interval.
 *
 * Contract: topo_source_open() picks, in this order: Xen live (when both libxenstat and
 * xenstore answer; a --xenstore-dump is then ignored), else the xenstore dump if one is
 * given, else nothing but the qemu processes in /proc. It prints exactly one line to
 * `say` naming the source and why (the reason Xen is not used, from the failing call),
 * or one line saying why the dump cannot be read (then it returns 2). The Xen source is
 * read again when its watch fires, the dump once. topo_source_build() gives a fresh
 * topology every time: the xenstore nodes resolved through sysfs, the qemu processes
 * running now, and each domain's generation (so a reused domid is a new domain).
 * topo_source_take_marks() hands out the guests' marks the Xen source saw while building
 * (xenlive.h); the other sources have none.
 */
#ifndef XIOTOP_TOPO_SOURCE_H
#define XIOTOP_TOPO_SOURCE_H

#include <stdio.h>

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
	bool reread_failed; /* Xen: the last read of xenstore failed (said once), retry */
	FILE *say;          /* the one line at start, and a line when xenstore fails */
};

/* 0, or exit status 2 (the dump cannot be read). `api` may be NULL (no Xen support). */
int topo_source_open(struct topo_source *src, const char *dump, const struct xt_roots *roots,
                     const struct xen_api *api, FILE *say);
/* 0, or -1 when out of memory (out is then empty). */
int topo_source_build(struct topo_source *src, struct xt_topology *out);
/* The marks moved into out, and in *refused the mark events refused so far. */
size_t topo_source_take_marks(struct topo_source *src, struct xenlive_mark *out, size_t max,
                              unsigned long *refused);
void topo_source_close(struct topo_source *src);

#endif
