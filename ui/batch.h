/* batch.h - scriptable output like `xentop -b`: text, CSV or JSON lines per interval.
 *
 * Contract: one call prints one interval. JSON is one object per line whose field names
 * are a contract other tools parse (README "JSON and CSV output"); its per-domain keys and CSV's
 * columns come from the figure table (core/figures.h, batch_keys.h). Text is the
 * console's table (fields.h: same rows and columns): fitted as the console fits it (the
 * columns dropped by rank, names cut) only on a terminal, to its width; into a file or a
 * pipe, or with full_names, every column and whole names, as `xentop -b` prints. Its
 * CPU_s counts from the sink's first interval. Every guest-controlled string is escaped
 * (sanitize.h, grid.h). CSV prints its header once.
 */
#ifndef XIOTOP_BATCH_H
#define XIOTOP_BATCH_H

#include <stdbool.h>
#include <stdio.h>

#include "core/loop.h"
#include "core/model.h"
#include "ui/rows.h"

enum batch_format { BATCH_TEXT, BATCH_CSV, BATCH_JSON };

struct batch_opts {
	enum batch_format format;
	bool full_names; /* text: do not cut names and show every column (xentop -f) */
	/* text: fit into this many columns; 0: a terminal's width on one, else every column */
	int columns;
};

/* "text", "csv", "json" -> format; -1 if unknown */
int batch_parse_format(const char *s, enum batch_format *out);
/* One interval on its own: text's CPU_s then counts this interval only (the sink's count
 * from its first interval). */
void batch_print(FILE *out, const struct model_interval *m, const struct batch_opts *o,
                 unsigned long iteration);

/* The interval loop's sink that prints each interval (iteration = the loop's index, so
 * CSV's header comes first). It ends the loop when the output fails: a reader that went
 * away (EPIPE, `| head`) quietly (0), anything else (a full disk) with its sentence in err
 * for the loop to hand on (1). */
struct batch_memory { /* text: the rows, and dom0 CPU per row since the first interval */
	struct field_row *rows;
	size_t cap_rows;
	const struct field_row **order;
	size_t cap_order;
	struct cpu_totals totals;
};
struct batch_sink {
	FILE *out;
	struct batch_opts opts;
	struct batch_memory mem; /* zero to start; batch_sink_free() frees it */
	struct xerr err;         /* why the output failed */
};
struct interval_sink batch_sink(struct batch_sink *b);
void batch_sink_free(struct batch_sink *b);

#endif
