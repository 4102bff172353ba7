/* import_xentop.h - `xentop -b` text (Linux or NetBSD dom0; -d N; with -x, -n, -v, -r, -f)
 * into per-iteration blocks of per-domain cumulative figures.
 *
 * Contract: imp_xentop_parse() is pure over a buffer. Columns are found by their header
 * names (NAME and CPU(sec) required; STATE, MEM(k), VBDS, VBD_OO, VBD_RD, VBD_WR,
 * VBD_RSECT, VBD_WSECT used when present: xentop before Xen 3.5 has no VBD_RSECT/WSECT),
 * so a layout with other or reordered columns still parses. What xentop prints, from its
 * source (tools/xentop/xentop.c): in batch mode no summary and no times; one header per
 * iteration (or before every domain with -r); per domain a row, then with -v a
 * "VCPUs(sec):" line (continued every 5 vCPUs), with -n "NetN RX: ... TX: ..." lines, with
 * -x one "VBD <type> <devid> [maj:min] OO: RD: WR: RSECT: WSECT:" line per vbd (no
 * [maj:min] off Linux). MAXMEM(k) may read "no limit" (two words); a VBD figure "-" means
 * every vbd of the domain failed to be read. Names are cut at 10 characters without -f:
 * two domains printed alike in one iteration are an error (capture with -f).
 * NetBSD's libxenstat collects no vbd or network statistics: there VBDS is 0 everywhere,
 * which the importer reports as "not collected", never as "no I/O".
 * Iterations: split at headers; when every header is followed by one domain (-r, or one
 * domain only) an iteration ends where a name repeats. A last line cut without its
 * newline, or a last iteration with fewer domains than the one before, is dropped and
 * said in `note`.
 */
#ifndef XIOTOP_IMPORT_XENTOP_H
#define XIOTOP_IMPORT_XENTOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sample.h"
#include "import/import_text.h"

struct imp_xt_vbd {
	uint32_t devid;
	uint64_t oo, rd, wr, rsect, wsect;
	bool has_sect; /* RSECT and WSECT were printed */
};

struct imp_xt_dom {
	char name[XIO_NAME_MAX]; /* raw: escape before showing */
	unsigned line;
	uint64_t cpu_s; /* CPU(sec): whole seconds, cumulative */
	uint64_t mem_kb;
	bool has_mem;
	uint64_t n_vbds; /* VBDS; 0 if the column is absent */
	bool vbd_known;  /* VBD_RD/WR were numbers (not "-", not absent) */
	bool sect_known; /* VBD_RSECT/WSECT were numbers */
	uint64_t oo, rd, wr, rsect, wsect;
	struct imp_xt_vbd *vbds; /* -x lines */
	size_t n_vbd_lines;
};

struct imp_xt_block {
	struct imp_xt_dom *doms;
	size_t n;
};

struct imp_xentop {
	struct imp_xt_block *blocks;
	size_t n_blocks;
	bool has_sect_columns; /* the header has VBD_RSECT and VBD_WSECT */
	bool has_rdwr_columns; /* VBD_RD and VBD_WR */
	bool has_vbd_lines;    /* -x */
	bool any_vbds;         /* some domain has VBDS > 0 (NetBSD: never) */
	bool linux_vbd_lines;  /* VBD lines carry [maj:min] (xentop built for Linux) */
	char note[256];        /* a dropped partial last block, "" none */
	/* the domains' own storage */
	struct imp_xt_dom *rows;
	size_t n_rows;
};

/* 0, or -1 with err ("FILE:LINE: what was expected"). file names the log in messages. */
int imp_xentop_parse(const char *file, const char *buf, size_t len, struct imp_xentop *out,
                     struct xerr *err);
void imp_xentop_free(struct imp_xentop *x);

#endif
