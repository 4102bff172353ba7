/* batch_keys.h - a domain's keys in CSV and JSON, from one ordered table.
 *
 * Contract: every per-domain key of the JSON contract (README "JSON output") and of the
 * CSV columns is one entry of the table in batch_keys.c, in output order. A key whose
 * count a console column shows takes its name from that column (struct field's key in
 * fields.c); the others (missing, phys_rd_bytes, per-role CPU, page cache, layers,
 * vbd_stats) name themselves there. A counter that was not collected prints null.
 */
#ifndef XIOTOP_BATCH_KEYS_H
#define XIOTOP_BATCH_KEYS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/model.h"

/* The CSV header's domain columns: "domid,name,...", no leading or trailing comma. */
void batch_keys_csv_header(FILE *out);
/* JSON: key, then v, or null when the counter was not collected (never a misleading 0). */
void batch_put_opt_u64(FILE *out, const char *key, bool known, uint64_t v);
/* One domain's CSV values, in the header's order. */
void batch_keys_csv_row(FILE *out, const struct model_interval *m, const struct model_domain *d);
/* One domain as a JSON object. */
void batch_keys_json(FILE *out, const struct model_interval *m, const struct model_domain *d);

#endif
