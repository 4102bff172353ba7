/* fields.c - the column table and its layout; see fields.h. */
#include "ui/fields.h"

#include <stdio.h>
#include <string.h>

#include "ui/grid.h"

double fields_mb_per_s(uint64_t bytes, double interval_s)
{
	return interval_s > 0 ? (double)bytes / 1e6 / interval_s : 0.0;
}

double fields_cpu_pct(uint64_t ns, double interval_s)
{
	return interval_s > 0 ? (double)ns / 1e7 / interval_s : 0.0;
}

void fields_number(char *buf, size_t len, int width, double value, int decimals)
{
	for (int d = decimals; d >= 0; d--)
		if (snprintf(buf, len, "%.*f", d, value) <= width)
			return;
	static const char suffix[] = "kMGTP";
	for (size_t i = 0; i < sizeof(suffix) - 1; i++) {
		value /= 1000;
		if (snprintf(buf, len, "%.0f%c", value, suffix[i]) <= width)
			return;
	}
	snprintf(buf, len, "%.*s", width, "#########");
}

/* --- what each column knows, and its value ------------------------------------------ */

static bool has_interval(const struct field_row *r)
{
	return r->interval_s > 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_double(double a, double b)
{
	return a < b ? -1 : a > b;
}

/* Unknown sorts below every known value, so that "-" gathers at the end. */
static int cmp_known(bool ka, double a, bool kb, double b)
{
	if (ka != kb)
		return ka ? 1 : -1;
	return ka ? cmp_double(a, b) : 0;
}

const char *field_row_name(const struct field_row *r)
{
	if (r->kind == ROW_UNATTRIBUTED)
		return "(unattributed)";
	if (r->name && r->name[0])
		return r->name;
	return r->kind == ROW_DOM0 ? "Domain-0" : "?";
}

static int cmp_name(const struct field_row *a, const struct field_row *b)
{
	return strcmp(field_row_name(a), field_row_name(b));
}

static void print_name(const struct field_row *r, int width, bool ascii_only, char *buf, size_t len)
{
	(void)width; /* names are cut by the layout, not here */
	grid_text(field_row_name(r), ascii_only, buf, len);
}

static int cmp_domid(const struct field_row *a, const struct field_row *b)
{
	return cmp_u64(a->domid, b->domid);
}

static void print_domid(const struct field_row *r, int width, bool ascii_only, char *buf,
                        size_t len)
{
	(void)width;
	(void)ascii_only;
	if (r->kind == ROW_UNATTRIBUTED)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%u", r->domid);
}

static const char *kind_text(const struct field_row *r)
{
	if (r->kind == ROW_DOM0 && !(r->backend_kind && r->backend_kind[0]))
		return "dom0";
	return r->backend_kind && r->backend_kind[0] ? r->backend_kind : "-";
}

static int cmp_kind(const struct field_row *a, const struct field_row *b)
{
	return strcmp(kind_text(a), kind_text(b));
}

static void print_kind(const struct field_row *r, int width, bool ascii_only, char *buf, size_t len)
{
	(void)width;
	char kind[16];
	grid_text(kind_text(r), ascii_only, kind, sizeof(kind));
	/* "!": a backend could not be resolved (batch text says "!missing") */
	snprintf(buf, len, "%s%s", kind, r->missing ? "!" : "");
}

/* Figure columns: a value and whether it is known, then one compare and print each. */
#define FIGURE_COLUMN(fn, decimals, known_expr, value_expr)                                        \
	static bool fn##_known(const struct field_row *r)                                          \
	{                                                                                          \
		return known_expr;                                                                 \
	}                                                                                          \
	static double fn##_value(const struct field_row *r)                                        \
	{                                                                                          \
		return value_expr;                                                                 \
	}                                                                                          \
	static int cmp_##fn(const struct field_row *a, const struct field_row *b)                  \
	{                                                                                          \
		return cmp_known(fn##_known(a), fn##_value(a), fn##_known(b), fn##_value(b));      \
	}                                                                                          \
	static void print_##fn(const struct field_row *r, int width, bool ascii_only, char *buf,   \
	                       size_t len)                                                         \
	{                                                                                          \
		(void)ascii_only;                                                                  \
		if (fn##_known(r))                                                                 \
			fields_number(buf, len, width, fn##_value(r), decimals);                   \
		else                                                                               \
			snprintf(buf, len, "-");                                                   \
	}

FIGURE_COLUMN(guest_rd, 1, has_interval(r) && !r->guest_unknown,
              fields_mb_per_s(r->guest_rd_bytes, r->interval_s))
FIGURE_COLUMN(guest_wr, 1, has_interval(r) && !r->guest_unknown,
              fields_mb_per_s(r->guest_wr_bytes, r->interval_s))
FIGURE_COLUMN(rd_iops, 0, has_interval(r) && r->has_ios, (double)r->guest_rd_ios / r->interval_s)
FIGURE_COLUMN(wr_iops, 0, has_interval(r) && r->has_ios, (double)r->guest_wr_ios / r->interval_s)
FIGURE_COLUMN(phys_wr, 1, has_interval(r) && r->has_phys,
              fields_mb_per_s(r->phys_wr_bytes, r->interval_s))
FIGURE_COLUMN(ampl, 2, has_interval(r) && r->has_phys && r->guest_wr_bytes > 0,
              (double)r->phys_wr_bytes / (double)r->guest_wr_bytes)
FIGURE_COLUMN(dbl, 1, has_interval(r) && r->has_phys,
              fields_mb_per_s(r->double_counted_bytes, r->interval_s))
FIGURE_COLUMN(dirty, 1, r->has_dirty, (double)r->dirty_backlog_bytes / (1024.0 * 1024.0))
FIGURE_COLUMN(cpu_pct, 1, has_interval(r) && r->has_cpu, fields_cpu_pct(r->cpu_ns, r->interval_s))
FIGURE_COLUMN(cpu_s, 1, r->has_cpu, (double)r->cpu_total_ns / 1e9)
FIGURE_COLUMN(lat_p50, 2, r->lat_p50_ns >= 0, r->lat_p50_ns / 1e6)
FIGURE_COLUMN(lat_p99, 2, r->lat_p99_ns >= 0, r->lat_p99_ns / 1e6)
FIGURE_COLUMN(guest_cpu, 1, has_interval(r) && r->guest_cpu_ns >= 0,
              fields_cpu_pct((uint64_t)(r->guest_cpu_ns > 0 ? r->guest_cpu_ns : 0), r->interval_s))

/* In table (display) order. Ranks: what the issue puts first stays longest. */
static const struct field table[FIELD_COUNT] = {
    {FIELD_NAME, "NAME", FIELD_NAME_WIDTH, 0, true, false, cmp_name, print_name,
     "domain name (escaped if it holds control characters)", "name"},
    {FIELD_DOMID, "DOMID", 5, 1, false, false, cmp_domid, print_domid, "domain id", "domid"},
    {FIELD_KIND, "KIND", 6, 9, true, false, cmp_kind, print_kind,
     "backend kind (vbd, qdisk, mixed); ! a backend is missing", "kind"},
    {FIELD_GUEST_RD, "GRD_MB/s", 8, 8, false, true, cmp_guest_rd, print_guest_rd,
     "guest reads: bytes at the top of its stack", "guest_rd_bytes"},
    {FIELD_GUEST_WR, "GWR_MB/s", 8, 2, false, true, cmp_guest_wr, print_guest_wr,
     "guest writes: bytes at the top of its stack", "guest_wr_bytes"},
    {FIELD_RD_IOPS, "R_IOPS", 6, 11, false, true, cmp_rd_iops, print_rd_iops,
     "guest read requests per second", "guest_rd_ios"},
    {FIELD_WR_IOPS, "W_IOPS", 6, 10, false, true, cmp_wr_iops, print_wr_iops,
     "guest write requests per second", "guest_wr_ios"},
    {FIELD_PHYS_WR, "PWR_MB/s", 8, 3, false, true, cmp_phys_wr, print_phys_wr,
     "bytes written to physical (leaf) devices for it", "phys_wr_bytes"},
    {FIELD_AMPL, "AMPL", 5, 5, false, true, cmp_ampl, print_ampl,
     "amplification: physical / guest writes", NULL},
    {FIELD_DOUBLE, "DBL_MB/s", 8, 4, false, true, cmp_dbl, print_dbl,
     "what vmstat bo counts beyond the physical writes", "double_counted_bytes"},
    {FIELD_DIRTY, "DIRTY_MiB", 9, 7, false, true, cmp_dirty, print_dirty,
     "written into dom0 page cache, not yet written back", "dirty_backlog_bytes"},
    {FIELD_CPU_PCT, "CPU%", 6, 6, false, true, cmp_cpu_pct, print_cpu_pct,
     "dom0 CPU spent for it (100 = one core)", "dom0_cpu_ns"},
    {FIELD_CPU_S, "CPU_s", 8, 13, false, true, cmp_cpu_s, print_cpu_s,
     "dom0 CPU seconds for it since xiotop started", NULL},
    {FIELD_GUEST_CPU, "GCPU%", 6, 12, false, true, cmp_guest_cpu, print_guest_cpu,
     "the guest's own vCPU time (100 = one vCPU), where known", "guest_cpu_ns"},
    {FIELD_LAT_P50, "P50_ms", 7, 8, false, true, cmp_lat_p50, print_lat_p50,
     "median I/O latency, reads and writes (--latency)", NULL},
    {FIELD_LAT_P99, "P99_ms", 7, 12, false, true, cmp_lat_p99, print_lat_p99,
     "99th percentile I/O latency, reads and writes (--latency)", NULL},
};

void fields_help_line(const struct field *f, bool with_key, char *buf, size_t len)
{
	if (!with_key)
		snprintf(buf, len, "%-10s%s", f->header, f->help);
	else if (f->key)
		snprintf(buf, len, "%-10s%s (key %s)", f->header, f->help, f->key);
	else
		snprintf(buf, len, "%-10s%s (screen only)", f->header, f->help);
}

const struct field *field_get(enum field_id id)
{
	return (unsigned)id < FIELD_COUNT ? &table[id] : &table[0];
}

int fields_domid_width(const struct field_row *const *rows, size_t n)
{
	int w = table[FIELD_DOMID].width;
	for (size_t i = 0; i < n; i++) {
		char id[16];
		print_domid(rows[i], w, false, id, sizeof(id));
		int len = (int)strlen(id);
		if (len > w)
			w = len;
	}
	return w;
}

static int width_of(const struct field *f, int name_width, int domid_width)
{
	if (f->id == FIELD_NAME)
		return name_width;
	return f->id == FIELD_DOMID ? domid_width : f->width;
}

void fields_layout(int columns, int name_width, bool ascii_only, struct field_layout *out)
{
	fields_layout_sized(columns, name_width, table[FIELD_DOMID].width, ascii_only, out);
}

void fields_layout_sized(int columns, int name_width, int domid_width, bool ascii_only,
                         struct field_layout *out)
{
	fields_layout_for(columns, name_width, domid_width, ascii_only, false, out);
}

void fields_layout_for(int columns, int name_width, int domid_width, bool ascii_only, bool latency,
                       struct field_layout *out)
{
	bool shown[FIELD_COUNT];
	int total = -1; /* n columns need n - 1 separating blanks */
	for (int i = 0; i < FIELD_COUNT; i++) {
		shown[i] = latency || !FIELD_IS_LATENCY(table[i].id);
		if (shown[i])
			total += width_of(&table[i], name_width, domid_width) + 1;
	}
	while (total > columns) {
		int drop = -1;
		for (int i = 1; i < FIELD_COUNT; i++)
			if (shown[i] && (drop < 0 || table[i].rank > table[drop].rank))
				drop = i;
		if (drop < 0)
			break; /* only the name is left: it is cut to the line */
		shown[drop] = false;
		total -= width_of(&table[drop], name_width, domid_width) + 1;
	}
	memset(out, 0, sizeof(*out));
	out->ascii_only = ascii_only;
	for (int i = 0; i < FIELD_COUNT; i++) {
		if (!shown[i])
			continue;
		out->ids[out->n] = table[i].id;
		out->widths[out->n] = width_of(&table[i], name_width, domid_width);
		out->n++;
	}
}

void fields_header(const struct field_layout *l, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < l->n; i++) {
		const struct field *f = field_get(l->ids[i]);
		if (i)
			text_append_cell(buf, len, "", 1, true);
		text_append_cell(buf, len, f->header, l->widths[i], f->left);
	}
}

void fields_row(const struct field_layout *l, const struct field_row *r, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < l->n; i++) {
		const struct field *f = field_get(l->ids[i]);
		char cell[512];
		f->print(r, l->widths[i], l->ascii_only, cell, sizeof(cell));
		if (i)
			text_append_cell(buf, len, "", 1, true);
		text_append_cell(buf, len, cell, l->widths[i], f->left);
	}
}
