/* tool_claims.h - where a benchmark's own figures plug in: explain_add_claim().
 *
 * Contract: a claim is what the tool printed (struct claim_figures in explain.h: tool,
 * bytes, seconds and rate per direction, and the domain it ran in, "" for the busiest
 * one). explain_add_claim() resolves the domain and sets each direction the tool
 * reported against what dom0 saw for that domain in the window (writes: including the
 * drain after it), giving one row of claims[] per direction. Write claims set against
 * dom0's own run (the subject domain 0) also end its drain where its disks took their
 * bytes (ex_dom0_data_drain, dom0_subject.h), and that subject's rows judged over the
 * drain are judged again. Call it after
 * explain_collect() and explain_keep_domains(), before explain_verdicts(), which turns
 * each row into a `claim` verdict. The parsers that fill claim_figures from the tools'
 * output files live elsewhere; this file does not read files.
 */
#ifndef XIOTOP_EXPLAIN_TOOL_CLAIMS_H
#define XIOTOP_EXPLAIN_TOOL_CLAIMS_H

#include <stddef.h>

#include "core/error.h"
#include "explain/explain.h"

/* 0, or -1 with err (XERR_INPUT) naming c->file (unknown domain, no figures, too many
 * claims). */
int explain_add_claim(struct explain *ex, const struct claim_figures *c, struct xerr *err);

#endif
