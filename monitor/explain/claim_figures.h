/* claim_figures.h - a parsed benchmark output (claim.h) as the figures explain sets
 * against the window (explain.h's struct claim_figures).
 *
 * Contract: per direction the tool reported, the bytes it says it moved over the whole
 * run, its seconds and its rate where it printed them (0: unknown). fio: each
 * direction summed over its jobs (io_bytes, bw_bytes), seconds the longest job's
 * runtime. bonnie++ and iozone: their headline (block write, else read; first row)
 * with the run's totals. dd: its output does not say which side was the disk; a guest
 * benchmark's dd writes (of=FILE), so a dd claim is taken as a write — a read test
 * (if=FILE of=/dev/null) shows as a write the domain did not do (the verdict says so).
 * The file and domain fields are left as the caller set them.
 */
#ifndef XIOTOP_EXPLAIN_CLAIM_FIGURES_H
#define XIOTOP_EXPLAIN_CLAIM_FIGURES_H

#include "explain/claim.h"
#include "explain/explain.h"

void claim_to_figures(const struct claim *c, struct claim_figures *out);

#endif
