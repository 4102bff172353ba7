/* batch_keys.h - a domain's keys in CSV and JSON, from one ordered table.
 *
 * Contract: every per-domain key of the JSON contract (README "JSON output") and of the
 * CSV columns is a figure of the figure table (core/figures.h), in its order; CSV's are
 * those flagged FIGURE_CSV. A count or gauge prints its value, or null when the figure
 * table says it is not known (not collected, or not in an imported recording); the keys
 * of another shape (names, flags, per-role CPU, layers, vbd_stats, io_latency) are
 * written here. The host's CSV columns come from the same table, after the domain's;
 * an added figure's column comes after them all.
 */
#ifndef XIOTOP_BATCH_KEYS_H
#define XIOTOP_BATCH_KEYS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/figures.h"
#include "core/model.h"

/* The CSV header's columns: the domain's ("domid,name,..."), the host's
 * (",vmstat_pgpgout_bytes,..."), then those of figures added to the table after the named
 * ones, so that an added column moves none that was there; no leading or trailing
 * comma. */
void batch_keys_csv_header(FILE *out);
/* JSON: key, then v, or null when the counter was not collected (never a misleading 0). */
void batch_put_opt_u64(FILE *out, const char *key, bool known, uint64_t v);
/* One domain's CSV values with the host's, in the header's order. */
void batch_keys_csv_row(FILE *out, const struct model_interval *m, const struct model_domain *d);
/* before, then a host figure's value, or null when it is not known. */
void batch_put_figure(FILE *out, const char *before, enum figure_id fig,
                      const struct model_interval *m);
/* One domain as a JSON object. */
void batch_keys_json(FILE *out, const struct model_interval *m, const struct model_domain *d);

#endif
