/* claim_figures.h - a parsed benchmark output (claim.h) as the figures explain sets
 * against the window (explain.h's struct claim_figures).
 *
 * Contract: claim_to_figures() gives the tool's headline (the first run of dd, fio's
 * directions summed over its jobs, bonnie++'s and iozone's headline with the run's
 * totals); claim_run_to_figures() one run: its direction's bytes, seconds and rate (0:
 * unknown). A dd whose command line was not pasted does not say which way it copied:
 * direction_unknown is set and the figures are in both directions' fields, for
 * explain_add_claim() to decide from the domain's timeline. The file and domain fields
 * are left as the caller set them.
 *
 * claim_arg_figures() reads a --claim argument "FILE[@DOMAIN[:ROW]]" (the whole argument
 * is the file when a file of that name exists; "@ROW" alone picks a table row when ROW is
 * one of the table's row labels, the domain then being the default) into one
 * claim_figures per run, in the order the tool ran them. Errors: -1 and err, XERR_INPUT
 * (the parser's line, or a table's rows to pick from, or too many runs) or XERR_NOMEM.
 */
#ifndef XIOTOP_EXPLAIN_CLAIM_FIGURES_H
#define XIOTOP_EXPLAIN_CLAIM_FIGURES_H

#include "core/error.h"
#include "explain/claims/claim.h"
#include "explain/explain.h"

void claim_to_figures(const struct claim *c, struct claim_figures *out);
void claim_run_to_figures(const struct claim *c, unsigned run, struct claim_figures *out);

int claim_arg_figures(const char *arg, struct claim_figures *out, size_t max, size_t *n,
                      struct xerr *err);

#endif
