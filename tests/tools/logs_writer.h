/* logs_writer.h - a recording's samples as `xentop -b -x`, `vmstat N` and `iostat -dx N`
 * would have printed them on the same host, for the import round trip (tests only).
 *
 * Contract: every function writes one block (one xentop iteration, one vmstat row, one
 * iostat report) for sample cur, from cur and the sample before it (prev, NULL for the
 * first: the tools' since-boot line, which the importer skips). Nothing is read but the
 * samples. The figures are written so that `xiotop import --interval S` gives back the
 * recording's totals:
 *   - xentop: per domain the cumulative guest bytes and requests of the model
 *     (model_compute(NULL, cur): the top of each stack, as xiotop shows them) in
 *     VBD_RD/WR and VBD_RSECT/WSECT (bytes / 512, cut down: a guest byte count that is not
 *     a whole number of sectors loses < 512 bytes over the whole run, not per interval, as
 *     the counter is cumulative); -x lines from blkback's vbd counters when the recording
 *     has them, else one xvda line (devid 51712) holding the domain's totals;
 *     CPU(sec): vCPU seconds (Domain-0: the host's busy seconds), whole, as xentop;
 *   - vmstat bi/bo: the interval's KiB / S; iostat rkB/s wkB/s, r/s w/s: the interval's
 *     figure / S, per leaf disk of cur (matched by device number; one new in cur counts
 *     from 0). They divide by S, the interval the import is told, not by the measured
 *     one as the tools do, so rate x S is the recorded delta again; they are printed with
 *     enough decimals to be exact when S is 1 or 2 s (bytes are whole sectors; bi/bo
 *     whole KiB), else within half a unit of the last printed digit per interval.
 */
#ifndef XIOTOP_TESTS_LOGS_WRITER_H
#define XIOTOP_TESTS_LOGS_WRITER_H

#include <stdio.h>

#include "core/sample.h"

struct logs_shape {
	double interval_s; /* S: what every interval is said to be (import --interval) */
	long cpus;         /* iostat's banner and vmstat's CPU split; 0 unknown */
};

/* 0, or -1 out of memory (the model could not be computed). */
int logs_xentop_block(FILE *f, const struct xio_sample *cur);
void logs_vmstat_header(FILE *f);
void logs_vmstat_row(FILE *f, const struct xio_sample *prev, const struct xio_sample *cur,
                     const struct logs_shape *shape);
void logs_iostat_banner(FILE *f, const struct logs_shape *shape);
void logs_iostat_report(FILE *f, const struct xio_sample *prev, const struct xio_sample *cur,
                        const struct logs_shape *shape);

#endif
