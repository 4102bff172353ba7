/* fields.h - the column table of the per-domain view, shared by the console and batch.
 *
 * Contract: one table describes every column: id, the figure it shows (core/figures.h
 * gives its header, help and CSV/JSON key), width, rank, alignment and natural sort
 * direction as named flags, a compare and a print function. Ranks are distinct: rank 0 is
 * the most important column; on a narrow terminal the column with the highest rank drops
 * first (fields_layout), and the name column never drops. A per-domain count or gauge of
 * the figure table that no named column shows gets a column of its own after them
 * (fields_count() counts both), shown as a rate, a CPU share or MiB by its unit, and
 * dropped before any named one. Columns read a struct field_row, a flat view of one row
 * filled by the caller from a model_interval, so one table serves guest domains, dom0 and
 * the unattributed row. A print function writes only the cell's text; a figure that was
 * not collected, or has no interval yet, prints "-". Guest-controlled text goes through
 * grid_text(): no control character comes out.
 */
#ifndef XIOTOP_FIELDS_H
#define XIOTOP_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/figures.h"
#include "core/model.h"

enum field_id {
	FIELD_NAME,
	FIELD_DOMID,
	FIELD_KIND,
	FIELD_GUEST_RD,
	FIELD_GUEST_WR,
	FIELD_RD_IOPS,
	FIELD_WR_IOPS,
	FIELD_PHYS_WR,
	FIELD_AMPL,
	FIELD_DOUBLE,
	FIELD_DIRTY,
	FIELD_CPU_PCT,
	FIELD_CPU_S,
	FIELD_GUEST_CPU,
	FIELD_LAT_P50, /* only laid out when the interval has latency (not --no-latency) */
	FIELD_LAT_P99,
	FIELD_COUNT
};

/* At most this many columns: the named ones and one per figure beyond them. */
#define FIELD_MAX (FIELD_COUNT + FIGURE_MAX)

/* A column of the latency figures, laid out only when latency was timed. */
#define FIELD_IS_LATENCY(id) ((id) == FIELD_LAT_P50 || (id) == FIELD_LAT_P99)

enum row_kind { ROW_DOMAIN, ROW_DOM0, ROW_UNATTRIBUTED };

/* One row as the columns see it: its values. Whether each is known is not held here but
 * asked of the figure table (field_row_known). */
struct field_row {
	enum row_kind kind;
	uint32_t domid;
	const char *name;         /* raw, guest-controlled; NULL if unknown */
	const char *backend_kind; /* "vbd", "qdisk", "mixed"; NULL or "" if unknown */
	bool missing;             /* a backend could not be resolved */
	double interval_s;        /* 0: no interval yet, rates print "-" */
	uint64_t guest_rd_bytes, guest_wr_bytes; /* (unattributed): dom0's bytes for no domain */
	uint64_t guest_rd_ios, guest_wr_ios;
	uint64_t phys_wr_bytes, double_counted_bytes;
	uint64_t dirty_backlog_bytes;
	uint64_t cpu_ns;       /* dom0 CPU for this row, this interval (Domain-0: its own too) */
	uint64_t cpu_total_ns; /* dom0 CPU for this row since the console started */
	int64_t guest_cpu_ns;  /* vCPU time this interval; -1 unknown */
	/* I/O latency of reads and writes together this interval (ns; -1: none timed) */
	double lat_p50_ns, lat_p99_ns;
	const struct model_domain *dom; /* the model's domain, NULL if none (drill-down) */
	const struct model_interval *m; /* the interval of the row, NULL if none */
};

/* A column's flags. */
enum field_flag {
	FIELD_LEFT = 1u << 0,       /* left-aligned (text) */
	FIELD_DESCENDING = 1u << 1, /* natural sort order: biggest first for figures */
};

struct field {
	enum field_id id; /* FIELD_COUNT and above: a column of a figure no named one shows */
	enum figure_id figure;
	unsigned flags; /* enum field_flag */
	int width;
	int rank; /* 0 most important; the highest rank drops first; distinct */
	/* <0, 0, >0 in ascending order; unknown figures ("-") sort below every known one */
	int (*compare)(const struct field_row *a, const struct field_row *b);
	/* The cell text into buf (no padding), at most `width` columns for figures. */
	void (*print)(const struct field_row *r, int width, bool ascii_only, char *buf, size_t len);
	/* from the figure table (core/figures.h) */
	const char *header;
	const char *help;
	/* The CSV/JSON key of the count this column shows, NULL for a figure only the screen
	 * shows (a ratio, a total since the start). */
	const char *key;
	bool left, descending; /* the flags, as the console's sorting reads them */
};

/* Any column, named or not (an id below fields_count()). */
const struct field *field_get(enum field_id id);
/* How many columns there are: FIELD_COUNT and the figures' own. */
int fields_count(void);
/* The raw name a row shows: its domain's, "Domain-0", "(unattributed)" or "?". */
const char *field_row_name(const struct field_row *r);
/* The figure a row of `kind` shows in a domain figure's column: that figure, but for
 * (unattributed), whose guest bytes and dom0 CPU are dom0's for no domain
 * (unattributed_rd_bytes, ...); false when the column does not apply to the row (any other
 * of (unattributed)'s). The table and CSV read it. */
bool field_row_figure(enum row_kind kind, enum figure_id fig, enum figure_id *shown);
/* Is a domain figure (a named column's) known in this row? The figure table says, of the
 * figure the row shows there (core/figures.h figure_known): a guest's own; Domain-0's,
 * its CPU being its own as a domain plus dom0's own work (both known); (unattributed)'s
 * bytes and CPU are dom0's for no domain, and no other figure applies to it. False for
 * a row without an interval (m NULL). */
bool field_row_known(const struct field_row *r, enum figure_id fig);

/* Which columns are shown, in table order, and how wide each is. */
struct field_layout {
	size_t n;
	enum field_id ids[FIELD_MAX];
	int widths[FIELD_MAX];
	bool ascii_only; /* escape non-ASCII in text cells (terminal is not UTF-8) */
};

#define FIELD_NAME_WIDTH 14 /* default width of the name column */

/* Fit the columns into `columns` terminal columns with the name column `name_width` wide
 * (FIELD_NAME_WIDTH, or wider for full names). */
void fields_layout(int columns, int name_width, bool ascii_only, struct field_layout *out);
/* The same with the DOMID column `domid_width` wide (fields_domid_width). */
void fields_layout_sized(int columns, int name_width, int domid_width, bool ascii_only,
                         struct field_layout *out);
/* The same, with the latency columns laid out too when `latency` (the interval has it). */
void fields_layout_for(int columns, int name_width, int domid_width, bool ascii_only, bool latency,
                       struct field_layout *out);
/* The name column's width: FIELD_NAME_WIDTH, or with full names the widest of these rows'
 * (escaped as shown) up to `cap` columns (0: no cap). */
int fields_name_width(const struct field_row *const *rows, size_t n, bool full_names,
                      bool ascii_only, int cap);
/* The DOMID column's width for these rows: its own (5, every Xen domid), or the widest id
 * among them (a KVM-style domain, 1000000 + its pid, takes 7), so no id is ever cut. */
int fields_domid_width(const struct field_row *const *rows, size_t n);
/* The header line / one row as screen text into buf (at least 4 bytes a column + 1). */
void fields_header(const struct field_layout *l, char *buf, size_t len);
void fields_row(const struct field_layout *l, const struct field_row *r, char *buf, size_t len);

/* A column's help line, "HEADER    what it shows" (the console's h); with_key adds its
 * CSV/JSON key, or says the figure is only on screen (--help). */
void fields_help_line(const struct field *f, bool with_key, char *buf, size_t len);

/* Rate and percentage helpers shared with the console's header and drill-down. */
double fields_mib_per_s(uint64_t bytes, double interval_s); /* MiB/s (core/figures.h) */
double fields_cpu_pct(uint64_t ns, double interval_s);
/* A number in at most `width` characters: fewer decimals, then a k/M/G suffix. */
void fields_number(char *buf, size_t len, int width, double value, int decimals);
/* "rd p50 0.12 p99 0.50 ms (1234 ios)": one op's latency this interval, "rd -" without
 * I/O, "rd not timed" when `untimed` (enum xio_untimed: unknown, never 0 requests). */
void fields_latency_text(char *buf, size_t len, const char *op, const struct xiotop_lat *h,
                         uint32_t untimed);

#endif
