/* fields.c - the column table and its layout; see fields.h. */
#include "ui/fields.h"

#include <stdio.h>
#include <string.h>

#include "ui/grid.h"
#include "core/clock.h"
#include "core/latency.h"

double fields_mib_per_s(uint64_t bytes, double interval_s)
{
	return interval_s > 0 ? (double)bytes / FIGURE_MIB / interval_s : 0.0;
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

/* What (unattributed) shows in a domain figure's column: dom0's for no domain. */
static const struct {
	enum figure_id column, shown;
} unattributed_shows[] = {
    {FIG_GUEST_RD_BYTES, FIG_UNATTRIBUTED_RD_BYTES},
    {FIG_GUEST_WR_BYTES, FIG_UNATTRIBUTED_WR_BYTES},
    {FIG_DOM0_CPU_NS, FIG_UNATTRIBUTED_CPU_NS},
    {FIG_DOM0_CPU_SINCE_START, FIG_UNATTRIBUTED_CPU_NS},
};

bool field_row_figure(enum row_kind kind, enum figure_id fig, enum figure_id *shown)
{
	*shown = fig;
	if (kind != ROW_UNATTRIBUTED)
		return true;
	for (size_t i = 0; i < sizeof(unattributed_shows) / sizeof(unattributed_shows[0]); i++)
		if (unattributed_shows[i].column == fig) {
			*shown = unattributed_shows[i].shown;
			return true;
		}
	return false;
}

bool field_row_known(const struct field_row *r, enum figure_id fig)
{
	if (!r->m)
		return false;
	if (r->kind == ROW_UNATTRIBUTED) {
		enum figure_id shown;
		return field_row_figure(r->kind, fig, &shown) && figure_known(shown, r->m, NULL);
	}
	bool cpu = fig == FIG_DOM0_CPU_NS || fig == FIG_DOM0_CPU_SINCE_START;
	if (r->kind == ROW_DOM0 && cpu && !figure_known(FIG_DOM0_OWN_CPU_NS, r->m, NULL))
		return false;
	return figure_known(fig, r->m, r->dom);
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

/* A rate over the interval: known when the figure is and there is an interval. */
static bool rate_known(const struct field_row *r, enum figure_id fig)
{
	return has_interval(r) && field_row_known(r, fig);
}

FIGURE_COLUMN(guest_rd, 1, rate_known(r, FIG_GUEST_RD_BYTES),
              fields_mib_per_s(r->guest_rd_bytes, r->interval_s))
FIGURE_COLUMN(guest_wr, 1, rate_known(r, FIG_GUEST_WR_BYTES),
              fields_mib_per_s(r->guest_wr_bytes, r->interval_s))
FIGURE_COLUMN(rd_iops, 0, rate_known(r, FIG_GUEST_RD_IOS), (double)r->guest_rd_ios / r->interval_s)
FIGURE_COLUMN(wr_iops, 0, rate_known(r, FIG_GUEST_WR_IOS), (double)r->guest_wr_ios / r->interval_s)
FIGURE_COLUMN(phys_wr, 1, rate_known(r, FIG_PHYS_WR_BYTES),
              fields_mib_per_s(r->phys_wr_bytes, r->interval_s))
FIGURE_COLUMN(ampl, 2, rate_known(r, FIG_AMPLIFICATION) && r->guest_wr_bytes > 0,
              (double)r->phys_wr_bytes / (double)r->guest_wr_bytes)
FIGURE_COLUMN(dbl, 1, rate_known(r, FIG_DOUBLE_COUNTED_BYTES),
              fields_mib_per_s(r->double_counted_bytes, r->interval_s))
FIGURE_COLUMN(dirty, 1, field_row_known(r, FIG_DIRTY_BACKLOG_BYTES),
              (double)r->dirty_backlog_bytes / FIGURE_MIB)
FIGURE_COLUMN(cpu_pct, 1, rate_known(r, FIG_DOM0_CPU_NS), fields_cpu_pct(r->cpu_ns, r->interval_s))
FIGURE_COLUMN(cpu_s, 1, field_row_known(r, FIG_DOM0_CPU_SINCE_START),
              (double)r->cpu_total_ns / (double)NS_PER_S)
FIGURE_COLUMN(lat_p50, 2, r->lat_p50_ns >= 0, r->lat_p50_ns / (double)NS_PER_MS)
FIGURE_COLUMN(lat_p99, 2, r->lat_p99_ns >= 0, r->lat_p99_ns / (double)NS_PER_MS)
FIGURE_COLUMN(guest_cpu, 1, rate_known(r, FIG_GUEST_CPU_NS),
              fields_cpu_pct((uint64_t)(r->guest_cpu_ns > 0 ? r->guest_cpu_ns : 0), r->interval_s))

/* A column of a figure no named column shows: its value as its unit says (a rate of
 * bytes, a CPU share of ns, MiB of a gauge of bytes, else per second or as it is). */
static bool figure_column_known(enum figure_id fig, const struct field_row *r)
{
	const struct figure *f = figure_get(fig);
	if (!r->dom || !r->m || (f->form == FORM_COUNT && !has_interval(r)))
		return false;
	return figure_known(fig, r->m, r->dom);
}

static double figure_column_value(enum figure_id fig, const struct field_row *r)
{
	const struct figure *f = figure_get(fig);
	uint64_t v = figure_value(fig, r->m, r->dom);
	bool bytes = f->unit && !strcmp(f->unit, "bytes"), ns = f->unit && !strcmp(f->unit, "ns");
	if (f->form == FORM_GAUGE)
		return bytes ? (double)v / FIGURE_MIB : (double)v;
	if (bytes)
		return fields_mib_per_s(v, r->interval_s);
	return ns ? fields_cpu_pct(v, r->interval_s) : (double)v / r->interval_s;
}

/* The named columns, in table (display) order. Ranks are distinct: what the issue puts
 * first stays longest, and among the latency columns and their neighbours the order the
 * console has always dropped them in. */
static const struct field named[FIELD_COUNT] = {
    [FIELD_NAME] = {.figure = FIG_NAME,
                    .flags = FIELD_LEFT,
                    .width = FIELD_NAME_WIDTH,
                    .rank = 0,
                    .compare = cmp_name,
                    .print = print_name},
    [FIELD_DOMID] =
        {.figure = FIG_DOMID, .width = 5, .rank = 1, .compare = cmp_domid, .print = print_domid},
    [FIELD_KIND] = {.figure = FIG_KIND,
                    .flags = FIELD_LEFT,
                    .width = 6,
                    .rank = 10,
                    .compare = cmp_kind,
                    .print = print_kind},
    [FIELD_GUEST_RD] = {.figure = FIG_GUEST_RD_BYTES,
                        .flags = FIELD_DESCENDING,
                        .width = 9,
                        .rank = 9,
                        .compare = cmp_guest_rd,
                        .print = print_guest_rd},
    [FIELD_GUEST_WR] = {.figure = FIG_GUEST_WR_BYTES,
                        .flags = FIELD_DESCENDING,
                        .width = 9,
                        .rank = 2,
                        .compare = cmp_guest_wr,
                        .print = print_guest_wr},
    [FIELD_RD_IOPS] = {.figure = FIG_GUEST_RD_IOS,
                       .flags = FIELD_DESCENDING,
                       .width = 6,
                       .rank = 12,
                       .compare = cmp_rd_iops,
                       .print = print_rd_iops},
    [FIELD_WR_IOPS] = {.figure = FIG_GUEST_WR_IOS,
                       .flags = FIELD_DESCENDING,
                       .width = 6,
                       .rank = 11,
                       .compare = cmp_wr_iops,
                       .print = print_wr_iops},
    [FIELD_PHYS_WR] = {.figure = FIG_PHYS_WR_BYTES,
                       .flags = FIELD_DESCENDING,
                       .width = 9,
                       .rank = 3,
                       .compare = cmp_phys_wr,
                       .print = print_phys_wr},
    [FIELD_AMPL] = {.figure = FIG_AMPLIFICATION,
                    .flags = FIELD_DESCENDING,
                    .width = 4,
                    .rank = 5,
                    .compare = cmp_ampl,
                    .print = print_ampl},
    [FIELD_DOUBLE] = {.figure = FIG_DOUBLE_COUNTED_BYTES,
                      .flags = FIELD_DESCENDING,
                      .width = 9,
                      .rank = 4,
                      .compare = cmp_dbl,
                      .print = print_dbl},
    [FIELD_DIRTY] = {.figure = FIG_DIRTY_BACKLOG_BYTES,
                     .flags = FIELD_DESCENDING,
                     .width = 9,
                     .rank = 7,
                     .compare = cmp_dirty,
                     .print = print_dirty},
    [FIELD_CPU_PCT] = {.figure = FIG_DOM0_CPU_NS,
                       .flags = FIELD_DESCENDING,
                       .width = 6,
                       .rank = 6,
                       .compare = cmp_cpu_pct,
                       .print = print_cpu_pct},
    [FIELD_CPU_S] = {.figure = FIG_DOM0_CPU_SINCE_START,
                     .flags = FIELD_DESCENDING,
                     .width = 8,
                     .rank = 15,
                     .compare = cmp_cpu_s,
                     .print = print_cpu_s},
    [FIELD_GUEST_CPU] = {.figure = FIG_GUEST_CPU_NS,
                         .flags = FIELD_DESCENDING,
                         .width = 6,
                         .rank = 14,
                         .compare = cmp_guest_cpu,
                         .print = print_guest_cpu},
    [FIELD_LAT_P50] = {.figure = FIG_LATENCY_P50,
                       .flags = FIELD_DESCENDING,
                       .width = 7,
                       .rank = 8,
                       .compare = cmp_lat_p50,
                       .print = print_lat_p50},
    [FIELD_LAT_P99] = {.figure = FIG_LATENCY_P99,
                       .flags = FIELD_DESCENDING,
                       .width = 7,
                       .rank = 13,
                       .compare = cmp_lat_p99,
                       .print = print_lat_p99},
};

/* Every column as the layout reads it: the named ones with their figure's header, help
 * and key, then one for each per-domain count or gauge with a header no named one shows. */
static struct field table[FIELD_MAX];
static int n_columns;

static bool shown_by_a_named_column(enum figure_id fig)
{
	for (int i = 0; i < FIELD_COUNT; i++)
		if (named[i].figure == fig)
			return true;
	return false;
}

static void complete(struct field *c, int id)
{
	const struct figure *fig = figure_get(c->figure);
	c->id = (enum field_id)id;
	c->header = fig->header;
	c->help = fig->meaning;
	c->key = fig->form == FORM_SCREEN ? NULL : fig->key;
	c->left = c->flags & FIELD_LEFT;
	c->descending = c->flags & FIELD_DESCENDING;
}

static void build_table(void)
{
	if (n_columns)
		return;
	int n = 0;
	for (; n < FIELD_COUNT; n++) {
		table[n] = named[n];
		complete(&table[n], n);
	}
	for (int fig = 0; fig < figure_count(); fig++) {
		const struct figure *f = figure_get((enum figure_id)fig);
		if (f->scope != FIGURE_DOMAIN || !f->header || !figure_is_scalar(f) ||
		    shown_by_a_named_column((enum figure_id)fig))
			continue;
		int width = (int)strlen(f->header);
		table[n] = (struct field){.figure = (enum figure_id)fig,
		                          .flags = FIELD_DESCENDING,
		                          .width = width > 8 ? width : 8,
		                          .rank = FIELD_COUNT + n};
		complete(&table[n], n);
		n++;
	}
	n_columns = n;
}

int fields_count(void)
{
	build_table();
	return n_columns;
}

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
	build_table();
	return (unsigned)id < (unsigned)n_columns ? &table[id] : &table[0];
}

int fields_name_width(const struct field_row *const *rows, size_t n, bool full_names,
                      bool ascii_only, int cap)
{
	int w = FIELD_NAME_WIDTH;
	char name[4 * XIO_NAME_MAX + 1];
	for (size_t i = 0; full_names && i < n; i++) {
		int nw =
		    text_width(grid_text(field_row_name(rows[i]), ascii_only, name, sizeof(name)));
		if (nw > w)
			w = nw;
	}
	if (cap > 0 && w > cap)
		w = cap > FIELD_NAME_WIDTH ? cap : FIELD_NAME_WIDTH;
	return w;
}

int fields_domid_width(const struct field_row *const *rows, size_t n)
{
	int w = named[FIELD_DOMID].width;
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
	fields_layout_sized(columns, name_width, named[FIELD_DOMID].width, ascii_only, out);
}

void fields_layout_sized(int columns, int name_width, int domid_width, bool ascii_only,
                         struct field_layout *out)
{
	fields_layout_for(columns, name_width, domid_width, ascii_only, false, out);
}

void fields_layout_for(int columns, int name_width, int domid_width, bool ascii_only, bool latency,
                       struct field_layout *out)
{
	bool shown[FIELD_MAX];
	int total = -1; /* n columns need n - 1 separating blanks */
	int n = fields_count();
	for (int i = 0; i < n; i++) {
		shown[i] = latency || !FIELD_IS_LATENCY(table[i].id);
		if (shown[i])
			total += width_of(&table[i], name_width, domid_width) + 1;
	}
	while (total > columns) {
		int drop = -1;
		for (int i = 1; i < n; i++)
			if (shown[i] && (drop < 0 || table[i].rank > table[drop].rank))
				drop = i;
		if (drop < 0)
			break; /* only the name is left: it is cut to the line */
		shown[drop] = false;
		total -= width_of(&table[drop], name_width, domid_width) + 1;
	}
	memset(out, 0, sizeof(*out));
	out->ascii_only = ascii_only;
	for (int i = 0; i < n; i++) {
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
		if (f->print)
			f->print(r, l->widths[i], l->ascii_only, cell, sizeof(cell));
		else if (figure_column_known(f->figure, r))
			fields_number(cell, sizeof(cell), l->widths[i],
			              figure_column_value(f->figure, r), 1);
		else
			snprintf(cell, sizeof(cell), "-");
		if (i)
			text_append_cell(buf, len, "", 1, true);
		text_append_cell(buf, len, cell, l->widths[i], f->left);
	}
}

void fields_latency_text(char *buf, size_t len, const char *op, const struct xiotop_lat *h,
                         uint32_t untimed)
{
	double p50 = latency_quantile_ns(h, 0.5), p99 = latency_quantile_ns(h, 0.99);
	if (untimed || p50 < 0) {
		snprintf(buf, len, "%s %s", op, untimed ? "not timed" : "-");
		return;
	}
	char a[16], b[16];
	fields_number(a, sizeof(a), 7, p50 / (double)NS_PER_MS, 3);
	fields_number(b, sizeof(b), 7, p99 / (double)NS_PER_MS, 3);
	snprintf(buf, len, "%s p50 %s p99 %s ms (%llu ios)", op, a, b, h->count);
}
