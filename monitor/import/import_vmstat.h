/* import_vmstat.h - `vmstat N` text (Linux procps, with or without -t, -w; NetBSD) into
 * rows of rates.
 *
 * Contract: imp_vmstat_parse() is pure over a buffer. Columns by header name: procps's
 * bi/bo (KiB/s read from and written to block devices over the interval, from
 * /proc/vmstat pgpgin/pgpgout, divided by N) and us/sy/id/wa/st (percent of all CPUs);
 * NetBSD's header has no bi/bo (its "disks" columns are transfers per second and pi/po
 * are pages), so only its cpu us/sy/id (the last three columns) are kept. With -t each
 * row ends with "YYYY-MM-DD HH:MM:SS" in dom0's local time (the header names the zone),
 * read with the importing process's TZ. The first row is the average since boot (procps
 * and NetBSD documentation): kept as rows[0] with since_boot set, so its time still
 * anchors the others. Repeated headers are skipped; a last line cut without its newline
 * is dropped and said in note.
 */
#ifndef XIOTOP_IMPORT_VMSTAT_H
#define XIOTOP_IMPORT_VMSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "import/import_text.h"

struct imp_vm_row {
	unsigned line;
	bool since_boot; /* the first row: not an interval's rates */
	int64_t time_ns; /* -t; -1 none */
	double bi_kbs, bo_kbs;
	double us, sy, st; /* percent; st 0 if absent */
};

struct imp_vmstat {
	struct imp_vm_row *rows;
	size_t n;
	bool netbsd;   /* NetBSD's columns: no bi/bo */
	bool has_io;   /* bi and bo present */
	bool has_time; /* -t */
	char zone[16]; /* -t's zone as the header names it */
	char note[256];
};

int imp_vmstat_parse(const char *file, const char *buf, size_t len, struct imp_vmstat *out,
                     struct xerr *err);
void imp_vmstat_free(struct imp_vmstat *v);

#endif
