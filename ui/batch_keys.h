/* batch_keys.h - a domain's keys in CSV and JSON, from one ordered table.
 *
 * Contract: every per-domain key of the JSON contract (README "JSON and CSV output") and every
 * CSV column is a figure of the figure table (core/figures.h). A count or gauge prints
 * its value, or null when the figure table says it is not known (not collected, or not
 * in an imported recording); the keys of another shape (names, flags, per-role CPU,
 * layers, vbd_stats, io_latency) are written here. CSV carries every figure JSON has but
 * its lists (layers, vbd_stats, host.disks, io_latency's buckets: their length varies),
 * a record flattened into a column per member, named by its JSON path joined with '.'
 * (dom0_cpu_ns_by_role.backend, io_latency.read.p50_ns). Its columns: those it had first
 * (FIGURE_CSV_FIRST, the domain's then the host's), then every other figure in the
 * table's order, then figures added to the table after the named ones: a column added
 * never moves one that was there.
 */
#ifndef XIOTOP_BATCH_KEYS_H
#define XIOTOP_BATCH_KEYS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/figures.h"
#include "core/model.h"

/* The CSV header's columns ("domid,name,..."), in the order above; no leading or
 * trailing comma. */
void batch_keys_csv_header(FILE *out);
/* JSON: key, then v, or null when the counter was not collected (never a misleading 0). */
void batch_put_opt_u64(FILE *out, const char *key, bool known, uint64_t v);
/* One domain's CSV values with the host's, in the header's order; d NULL: the
 * (unattributed) row (its bytes and CPU where a domain has them, empty cells where a
 * domain's figure does not apply to it). */
void batch_keys_csv_row(FILE *out, const struct model_interval *m, const struct model_domain *d);
/* before, then a host figure's value, or null when it is not known. */
void batch_put_figure(FILE *out, const char *before, enum figure_id fig,
                      const struct model_interval *m);
/* One domain as a JSON object. */
void batch_keys_json(FILE *out, const struct model_interval *m, const struct model_domain *d);

#endif
