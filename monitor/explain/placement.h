/* placement.h - a claim's run placed in its domain's timeline by evidence, and how sure.
 *
 * Contract: ex_place_claim() sets row->located (the stretch, when placed), placed_how,
 * placed_by and n_stretches from, in order of strength:
 *   - marks naming the tool around its run: the guest's own ("start TOOL" .. "end TOOL"
 *     in its xenstore node), dom0's (xiotop mark, the console's m), or the recorder's
 *     wrapped command when it is the tool (`record -- dd ...`): EXS_SURE;
 *   - the tool's own clock (fio's report time, bonnie++'s seed), when it falls in the
 *     recording (the guest's clock is taken as dom0's): EXS_SURE;
 *   - else the stretches of the domain's guest I/O that way holding the run's bytes
 *     (within EX_LOCATE_BYTES_TOLERANCE), after the same file's runs before it, none
 *     another run's: EXS_LIKELY when exactly one of them also fits the run's own duration
 *     (its seconds, or bytes / its rate: within two intervals and a quarter) and, where
 *     the file has a run after it, leaves that run a stretch after it; and more than its
 *     bytes tie it there (a duration, or a run of the file around it). Otherwise
 *     EXS_NOT_PLACED: bytes alone place nothing (a 64 MiB bonnie++ write is no 64 MiB dd).
 * Rows of ex->claims before `row` count as placed (order, stretches taken); the rows
 * after it of its file as its successors. Pure: reads ex, writes row.
 */
#ifndef XIOTOP_EXPLAIN_PLACEMENT_H
#define XIOTOP_EXPLAIN_PLACEMENT_H

#include "explain/explain.h"

void ex_place_claim(const struct explain *ex, const struct ex_domain *d, struct ex_claim *row);

#endif
