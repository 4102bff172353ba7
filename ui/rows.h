/* rows.h - the rows of the per-domain table of one interval, and dom0 CPU totals per row,
 * shared by the console and batch text so that both show the same rows and figures.
 *
 * Contract: field_rows_build() gives one row per guest domain (model order), then
 * Domain-0 (its own CPU: the host's busy time beyond what is charged to a domain or left
 * unattributed) and (unattributed). A row totals key is its domid (Domain-0 0,
 * unattributed XIOTOP_DOM_NONE); cpu_totals_add() adds an interval's CPU of each row that
 * has CPU figures, cpu_totals_fill() puts the sums into the rows' cpu_total_ns.
 */
#ifndef XIOTOP_ROWS_H
#define XIOTOP_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "ui/fields.h"

/* Rows of m into *rows (grown as needed, *cap its capacity); *n their count. 0, or -1
 * out of memory (the rows are then unchanged). */
int field_rows_build(const struct model_interval *m, struct field_row **rows, size_t *cap,
                     size_t *n);

/* dom0 CPU nanoseconds accumulated per row key, sorted by key. */
struct cpu_total {
	uint32_t key;
	uint64_t ns;
};
struct cpu_totals {
	struct cpu_total *v;
	size_t n;
};

/* Adds each row's cpu_ns (rows whose CPU is known). Out of memory: a total stays short. */
void cpu_totals_add(struct cpu_totals *t, const struct field_row *rows, size_t n);
void cpu_totals_fill(const struct cpu_totals *t, struct field_row *rows, size_t n);
void cpu_totals_clear(struct cpu_totals *t); /* all totals back to none, memory kept */
void cpu_totals_free(struct cpu_totals *t);

#endif
