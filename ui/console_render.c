/* console_render.c - state + shown interval -> text grid; see console_render.h. */
#include "ui/console_render.h"
#include "ui/console_help.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/figures.h"
#include "core/when.h"

/* --- small formatters -------------------------------------------------------------- */

static const char *rate(char *buf, size_t len, uint64_t bytes, double interval_s)
{
	if (interval_s <= 0)
		snprintf(buf, len, "-");
	else
		fields_number(buf, len, 8, fields_mib_per_s(bytes, interval_s), 1);
	return buf;
}

/* "12.5%", or "-" when not known. */
static const char *pct(char *buf, size_t len, bool known, uint64_t ns, double interval_s)
{
	char num[16];
	if (!known || interval_s <= 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	fields_number(num, sizeof(num), 6, fields_cpu_pct(ns, interval_s), 1);
	snprintf(buf, len, "%s%%", num);
	return buf;
}

static const char *bytes_text(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)bytes;
	size_t u = 0;
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 "B", bytes);
	else
		snprintf(buf, len, "%.1f%s", v, units[u]);
	return buf;
}

/* The clock with its zone ("14:00:03 CEST"). */
static void clock_text(char *buf, size_t len, int64_t realtime_ns)
{
	if (!realtime_ns || when_clock_text(realtime_ns, buf, len))
		snprintf(buf, len, "--:--:--");
}

/* --- header ------------------------------------------------------------------------ */

/* A host figure's screen header (core/figures.h). */
static const char *head(enum figure_id fig)
{
	return figure_get(fig)->header;
}

static size_t count_domains(const struct console_state *st)
{
	size_t n = 0;
	for (size_t i = 0; i < st->n_rows; i++)
		n += st->rows[i].kind == ROW_DOMAIN;
	return n;
}

/* "x1", "x0.5", "x64": a speed factor as people say it. */
static void speed_text(char *buf, size_t len, double speed)
{
	snprintf(buf, len, "x%g", speed);
}

/* "10m", "1h", "1d": a step period as people say it. */
static void period_text(char *buf, size_t len, int64_t ns)
{
	static const struct {
		int64_t s;
		char unit;
	} units[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
	int64_t s = ns / NS_PER_S;
	size_t i = 0;
	while (i < 3 && (s < units[i].s || s % units[i].s))
		i++;
	snprintf(buf, len, "%lld%c", (long long)(s / units[i].s), units[i].unit);
}

/* Replay: when the shown interval ends (the time shown, with its zone), which sample,
 * playing or not, the step period, the nearest mark. */
static void render_replay_line(const struct console_state *st, struct grid *g, int y)
{
	const struct seek_pos *p = &st->replay;
	char line[LINE_MAX_BYTES], when[64] = "", state[48], mark[4 * SEEK_MARK_LABEL_MAX + 64];
	if (when_text(p->recorded_ns, when, sizeof(when)))
		snprintf(when, sizeof(when), "?");
	if (p->playing) {
		char speed[32];
		speed_text(speed, sizeof(speed), p->speed);
		snprintf(state, sizeof(state), "playing %s", speed);
	} else {
		snprintf(state, sizeof(state), "paused");
	}
	if (p->mark[0]) {
		char label[4 * SEEK_MARK_LABEL_MAX], where[48];
		grid_text(p->mark, st->o.ascii_only, label, sizeof(label));
		long d = p->mark_offset; /* in intervals */
		if (d == 0)
			snprintf(where, sizeof(where), "here");
		else
			snprintf(where, sizeof(where), "%lu %s", (unsigned long)(d < 0 ? -d : d),
			         d < 0 ? "back" : "ahead");
		/* the label last: a long one is what the screen's edge cuts */
		snprintf(mark, sizeof(mark), "mark %s \"%s\"", where, label);
	} else {
		snprintf(mark, sizeof(mark), "no marks");
	}
	char period[24] = "";
	if (p->period_ns > 0) {
		char step[16];
		period_text(step, sizeof(step), p->period_ns);
		snprintf(period, sizeof(period), "  step %s", step);
	}
	snprintf(line, sizeof(line), "%s  sample %zu/%zu  %s%s  %s", when, p->sample, p->last,
	         state, period, mark);
	grid_put(g, y, line, GRID_PLAIN);
}

/* The header; returns how many lines it took. */
static int render_header(const struct console_state *st, struct grid *g)
{
	const struct model_interval *m = st->m;
	const struct field *sf = field_get(st->sort);
	char line[LINE_MAX_BYTES], when[48], title[128], filter[4 * CONSOLE_TEXT_MAX];
	clock_text(when, sizeof(when), m ? m->realtime_ns : 0);
	grid_text(st->o.title ? st->o.title : "", st->o.ascii_only, title, sizeof(title));
	grid_text(st->filter, st->o.ascii_only, filter, sizeof(filter));
	size_t n_dom = count_domains(st);
	char pace[48], speed[32], shown[32] = "";
	if (st->filter[0])
		snprintf(shown, sizeof(shown), " (%zu shown)", st->n_shown);
	/* a replay has no delay: its pace is the speed factor */
	speed_text(speed, sizeof(speed), st->replay.speed);
	if (st->o.replay)
		snprintf(pace, sizeof(pace), "speed %s", speed);
	else
		snprintf(pace, sizeof(pace), "delay %.1fs", st->delay_s);
	/* what changes how to read the screen first: a cut line loses only the pace */
	snprintf(line, sizeof(line), "xiotop%s%s  %s%s  %zu domain%s%s  sort %s %s%s%s%s  %s",
	         title[0] ? " " : "", title, when, st->paused ? "  PAUSED" : "", n_dom,
	         n_dom == 1 ? "" : "s", shown, sf->header,
	         sf->descending != st->reverse ? "desc" : "asc", st->filter[0] ? "  filter \"" : "",
	         filter, st->filter[0] ? "\"" : "", pace);
	grid_put(g, 0, line, GRID_PLAIN);
	int lines = CONSOLE_HEADER_LINES;
	if (st->o.replay)
		render_replay_line(st, g, lines++);
	if (!m) {
		grid_put(g, 1, "waiting for the first sample", GRID_PLAIN);
		return lines;
	}

	double s = m->interval_s;
	struct model_host_totals t;
	model_host_totals(m, &t);
	char a[32], b[32], c[32], d[32], e[32];
	/* a figure the recording does not hold (an import's) shows "-", as before a rate */
	if (s > 0 && m->pgpgout_bytes && figure_known(FIG_UNATTRIBUTED_WR_BYTES, m, NULL))
		snprintf(e, sizeof(e), "%.1f%%",
		         100.0 * (double)m->unattr_wr_bytes / (double)m->pgpgout_bytes);
	else
		snprintf(e, sizeof(e), "-");
	double disk_s = figure_known(FIG_DISKS_RD_BYTES, m, NULL) && t.disks_complete ? s : 0;
	double vm_s = figure_known(FIG_VMSTAT_PGPGOUT_BYTES, m, NULL) ? s : 0;
	double stack_s = figure_known(FIG_DOUBLE_COUNTED_TOTAL, m, NULL) ? s : 0;
	snprintf(line, sizeof(line), "MiB/s  %s %s %s %s  %s %s  %s %s  %s %s",
	         head(FIG_DISKS_RD_BYTES), rate(a, sizeof(a), t.disk_rd_bytes, disk_s),
	         head(FIG_DISKS_WR_BYTES), rate(b, sizeof(b), t.disk_wr_bytes, disk_s),
	         head(FIG_VMSTAT_PGPGOUT_BYTES), rate(c, sizeof(c), m->pgpgout_bytes, vm_s),
	         head(FIG_DOUBLE_COUNTED_TOTAL),
	         rate(d, sizeof(d), t.double_counted_bytes, stack_s),
	         head(FIG_UNATTRIBUTED_WR_BYTES), e);
	/* a leaf keeping no diskstats (a ram disk): the disks' totals are unknown, "-"; its
	 * name, from a recording in a replay, is escaped as every name is */
	char leaf[4 * sizeof(m->unaccounted_leaf)];
	grid_text(m->unaccounted_leaf, st->o.ascii_only, leaf, sizeof(leaf));
	if (!t.disks_complete)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
		         "  (disks: %s keeps no diskstats)", leaf);
	grid_put(g, 1, line, GRID_PLAIN);

	char hooks[512];
	grid_text(m->hooks ? m->hooks : "", st->o.ascii_only, hooks, sizeof(hooks));
	/* a replay's marks are the recording's, the live console's those added here */
	snprintf(line, sizeof(line), "%s %s  %s %s  %s %s  %s %" PRIu64 "  marks %zu  hooks: %s",
	         head(FIG_HOST_BUSY_NS),
	         pct(a, sizeof(a), figure_known(FIG_HOST_BUSY_NS, m, NULL), m->host_busy_ns, s),
	         head(FIG_HOST_IRQ_NS),
	         pct(b, sizeof(b), figure_known(FIG_HOST_IRQ_NS, m, NULL), m->host_irq_ns, s),
	         head(FIG_HOST_STEAL_NS),
	         pct(c, sizeof(c), figure_known(FIG_HOST_STEAL_NS, m, NULL), m->host_steal_ns, s),
	         head(FIG_LOST_EVENTS), m->lost_events,
	         st->o.replay ? st->replay.n_marks : st->n_marks, hooks[0] ? hooks : "-");
	grid_put(g, 2, line, GRID_PLAIN);
	return lines;
}

/* --- the table --------------------------------------------------------------------- */

/* The name column: whole names with -f, up to half the line so the columns after it
 * still show. */
static int name_width(const struct console_state *st, int columns)
{
	int cap = columns / 2 > FIELD_NAME_WIDTH ? columns / 2 : FIELD_NAME_WIDTH;
	return fields_name_width(st->shown, st->n_shown, st->o.full_names, st->o.ascii_only, cap);
}

static void render_table(struct console_state *st, struct grid *g, int top, int bottom)
{
	struct field_layout layout;
	char line[LINE_MAX_BYTES];
	fields_layout_for(g->w, name_width(st, g->w), fields_domid_width(st->shown, st->n_shown),
	                  st->o.ascii_only, st->m && st->m->has_latency, &layout);
	fields_header(&layout, line, sizeof(line));
	grid_put(g, top, line, GRID_HEADER);
	int page = bottom - top - 1;
	st->page_rows = page > 1 ? page : 1;
	if (page <= 0)
		return;
	/* keep the selection on screen, and the screen full when it can be */
	if (st->sel_pos < st->scroll)
		st->scroll = st->sel_pos;
	if (st->sel_pos >= st->scroll + (size_t)page)
		st->scroll = st->sel_pos - (size_t)page + 1;
	if (st->n_shown <= (size_t)page)
		st->scroll = 0;
	else if (st->scroll > st->n_shown - (size_t)page)
		st->scroll = st->n_shown - (size_t)page;
	for (int i = 0; i < page && st->scroll + (size_t)i < st->n_shown; i++) {
		size_t pos = st->scroll + (size_t)i;
		fields_row(&layout, st->shown[pos], line, sizeof(line));
		bool sel = st->have_sel && pos == st->sel_pos;
		grid_put(g, top + 1 + i, line, sel ? GRID_SELECTED : GRID_PLAIN);
	}
	if (!st->n_shown)
		grid_put(g, top + 1, st->filter[0] ? "no row matches the filter" : "no domains",
		         GRID_PLAIN);
}

/* --- drill-down -------------------------------------------------------------------- */

/* Depth of a role in the tree: how many roles present in the stack come above it. */
static int role_depth(const struct model_domain *d, enum model_role role)
{
	bool present[4] = {false};
	for (size_t i = 0; i < d->n_layers; i++)
		if ((unsigned)d->layers[i].role < 4)
			present[d->layers[i].role] = true;
	int depth = 0;
	for (int r = 0; r < (int)role; r++)
		depth += present[r];
	return depth;
}

/* One layer line: tree prefix + name, role, rates, bytes. */
static void layer_line(const struct console_state *st, char *line, size_t len, int name_w,
                       const char *prefix, const char *raw_name, const char *role, uint64_t rd,
                       uint64_t wr)
{
	char name[1024], cell[1100], a[32], b[32], c[32], d[32];
	double s = st->m->interval_s;
	grid_text(raw_name, st->o.ascii_only, name, sizeof(name));
	snprintf(cell, sizeof(cell), "%s%s", prefix, name);
	line[0] = '\0';
	text_append_cell(line, len, cell, name_w, true);
	text_append_cell(line, len, "", 1, true);
	text_append_cell(line, len, role, 12, true);
	text_append_cell(line, len, rate(a, sizeof(a), rd, s), 9, false);
	text_append_cell(line, len, rate(b, sizeof(b), wr, s), 9, false);
	text_append_cell(line, len, bytes_text(c, sizeof(c), rd), 11, false);
	text_append_cell(line, len, bytes_text(d, sizeof(d), wr), 11, false);
}

static int layer_name_width(int columns)
{
	int w = columns - 53;
	return w < 12 ? 12 : w > 60 ? 60 : w;
}

static void layer_header(struct grid *g, int y, const char *first)
{
	char line[LINE_MAX_BYTES] = "";
	text_append_cell(line, sizeof(line), first, layer_name_width(g->w), true);
	text_append_cell(line, sizeof(line), "", 1, true);
	text_append_cell(line, sizeof(line), "ROLE", 12, true);
	text_append_cell(line, sizeof(line), "RD_MiB/s", 9, false);
	text_append_cell(line, sizeof(line), "WR_MiB/s", 9, false);
	text_append_cell(line, sizeof(line), "RD_BYTES", 11, false);
	text_append_cell(line, sizeof(line), "WR_BYTES", 11, false);
	grid_put(g, y, line, GRID_HEADER);
}

static int render_layers(const struct console_state *st, struct grid *g, int y, int bottom,
                         const struct model_domain *d)
{
	char line[LINE_MAX_BYTES];
	int name_w = layer_name_width(g->w);
	layer_header(g, y++, "LAYER");
	if (!d || !d->n_layers) {
		grid_put(g, y++, "no I/O charged to it this interval", GRID_PLAIN);
		return y;
	}
	for (size_t i = 0; i < d->n_layers && y < bottom; i++) {
		const struct model_layer *l = &d->layers[i];
		char prefix[64] = "", role[32];
		int depth = role_depth(d, l->role);
		if (depth > 0)
			snprintf(prefix, sizeof(prefix), "%*s`- ", 2 * (depth - 1), "");
		snprintf(role, sizeof(role), "%s%s", model_role_name(l->role),
		         l->is_leaf && l->role != ROLE_LEAF ? "+leaf" : "");
		const char *name = l->name;
		if (l->is_file)
			name = d->info && d->info->file[0] ? d->info->file : "(backing file)";
		layer_line(st, line, sizeof(line), name_w, prefix, name, role, l->rd_bytes,
		           l->wr_bytes);
		grid_put(g, y++, line, GRID_PLAIN);
	}
	return y;
}

/* The domain's I/O latency by op (only when latency was timed: not --no-latency). */
static int render_latency(const struct console_state *st, struct grid *g, int y, int bottom,
                          const struct model_domain *dom)
{
	if (!st->m || !st->m->has_latency || !dom || y >= bottom)
		return y;
	char line[LINE_MAX_BYTES], rd[128], wr[128];
	fields_latency_text(rd, sizeof(rd), "rd", &dom->lat[XIOTOP_LAT_READ],
	                    dom->lat_untimed[XIOTOP_LAT_READ]);
	fields_latency_text(wr, sizeof(wr), "wr", &dom->lat[XIOTOP_LAT_WRITE],
	                    dom->lat_untimed[XIOTOP_LAT_WRITE]);
	uint32_t untimed = dom->lat_untimed[XIOTOP_LAT_READ] | dom->lat_untimed[XIOTOP_LAT_WRITE];
	snprintf(line, sizeof(line), "latency    %s   %s%s%s%s", rd, wr, untimed ? "   (" : "",
	         xio_untimed_hook(untimed), untimed ? " not active)" : "");
	grid_put(g, y++, line, GRID_PLAIN);
	return y;
}

static void render_domain_summary(const struct console_state *st, struct grid *g, int y, int bottom,
                                  const struct field_row *r)
{
	char line[LINE_MAX_BYTES], a[32], b[32], c[32], d[32];
	const struct model_domain *dom = r->dom;
	double s = r->interval_s;
	const struct field *ampl = field_get(FIELD_AMPL), *dirty = field_get(FIELD_DIRTY);
	const struct field *rd_iops = field_get(FIELD_RD_IOPS), *wr_iops = field_get(FIELD_WR_IOPS);
	char ampl_s[32], dirty_s[32], ri[32], wi[32];
	ampl->print(r, 8, false, ampl_s, sizeof(ampl_s));
	dirty->print(r, 10, false, dirty_s, sizeof(dirty_s));
	rd_iops->print(r, 8, false, ri, sizeof(ri));
	wr_iops->print(r, 8, false, wi, sizeof(wi));

	y++;
	snprintf(line, sizeof(line), "guest      rd %s  wr %s MiB/s   iops rd %s  wr %s",
	         rate(a, sizeof(a), r->guest_rd_bytes, s), rate(b, sizeof(b), r->guest_wr_bytes, s),
	         ri, wi);
	if (y < bottom)
		grid_put(g, y++, line, GRID_PLAIN);
	snprintf(line, sizeof(line),
	         "physical   wr %s MiB/s   double-counted %s MiB/s   amplification %s",
	         rate(a, sizeof(a), r->phys_wr_bytes, s),
	         rate(b, sizeof(b), r->double_counted_bytes, s), ampl_s);
	if (y < bottom)
		grid_put(g, y++, line, GRID_PLAIN);
	y = render_latency(st, g, y, bottom, dom);
	if (field_row_known(r, FIG_DIRTIED_BYTES) && dom)
		snprintf(line, sizeof(line),
		         "dirty      backlog %s MiB   dirtied %s MiB/s   written back %s MiB/s",
		         dirty_s, rate(a, sizeof(a), dom->dirtied_bytes, s),
		         rate(b, sizeof(b), dom->written_back_bytes, s));
	else
		snprintf(line, sizeof(line), "dirty      backlog %s MiB", dirty_s);
	if (y < bottom)
		grid_put(g, y++, line, GRID_PLAIN);

	bool cpu = field_row_known(r, FIG_DOM0_CPU_NS);
	if (cpu)
		snprintf(c, sizeof(c), "%.1f", (double)r->cpu_total_ns / (double)NS_PER_S);
	else
		snprintf(c, sizeof(c), "-");
	snprintf(line, sizeof(line), "dom0 CPU   %s   %s s since start",
	         pct(a, sizeof(a), cpu, r->cpu_ns, s), c);
	if (y < bottom)
		grid_put(g, y++, line, GRID_PLAIN);
	if (cpu && dom && field_row_known(r, FIG_DOM0_CPU_NS_BY_ROLE)) {
		size_t n = (size_t)snprintf(line, sizeof(line), "  by role");
		for (int i = 0; i < XIO_CPU_ROLES && n < sizeof(line); i++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "  %s %s",
			                      figure_cpu_role_text((enum xio_cpu_role)i),
			                      pct(a, sizeof(a), true, dom->cpu_ns_by_role[i], s));
		if (y < bottom)
			grid_put(g, y++, line, GRID_PLAIN);
	}
	snprintf(line, sizeof(line), "guest CPU  %s",
	         pct(d, sizeof(d), field_row_known(r, FIG_GUEST_CPU_NS),
	             (uint64_t)(r->guest_cpu_ns > 0 ? r->guest_cpu_ns : 0), s));
	if (y < bottom)
		grid_put(g, y++, line, GRID_PLAIN);
	if (dom && dom->info && dom->info->file[0] && y < bottom) {
		char file[1024];
		grid_text(dom->info->file, st->o.ascii_only, file, sizeof(file));
		snprintf(line, sizeof(line), "file       %s", file);
		grid_put(g, y++, line, GRID_PLAIN);
	}
	if (r->missing && y < bottom)
		grid_put(g, y, "missing    a backend of this domain could not be resolved",
		         GRID_PLAIN);
}

static void render_unattributed(const struct console_state *st, struct grid *g, int y, int bottom,
                                const struct field_row *r)
{
	const struct model_interval *m = st->m;
	char line[LINE_MAX_BYTES], a[32], b[32], c[32];
	double s = m->interval_s;
	grid_put(g, y++, "(unattributed)  bios dom0 submitted for no domain; the host's disks",
	         GRID_PLAIN);
	int name_w = layer_name_width(g->w);
	layer_header(g, y++, "DISK");
	for (size_t i = 0; i < m->n_disks && y < bottom; i++) {
		layer_line(st, line, sizeof(line), name_w, "", m->disks[i].disk->name, "leaf",
		           m->disks[i].rd_bytes, m->disks[i].wr_bytes);
		grid_put(g, y++, line, GRID_PLAIN);
	}
	y++;
	if (s > 0 && m->pgpgout_bytes)
		snprintf(c, sizeof(c), "%.1f%%",
		         100.0 * (double)m->unattr_wr_bytes / (double)m->pgpgout_bytes);
	else
		snprintf(c, sizeof(c), "-");
	snprintf(line, sizeof(line), "unattributed  rd %s  wr %s MiB/s   share of vmstat bo %s",
	         rate(a, sizeof(a), r->guest_rd_bytes, s), rate(b, sizeof(b), r->guest_wr_bytes, s),
	         c);
	if (y < bottom)
		grid_put(g, y++, line, GRID_PLAIN);
	snprintf(line, sizeof(line), "CPU charged to no domain %s",
	         pct(a, sizeof(a), field_row_known(r, FIG_DOM0_CPU_NS), r->cpu_ns, s));
	if (y < bottom)
		grid_put(g, y, line, GRID_PLAIN);
}

static void render_drill(const struct console_state *st, struct grid *g, int top, int bottom)
{
	const struct field_row *r = console_state_selected(st);
	if (!r || !st->m) {
		grid_put(g, top, "no row selected", GRID_PLAIN);
		return;
	}
	if (r->kind == ROW_UNATTRIBUTED) {
		render_unattributed(st, g, top, bottom, r);
		return;
	}
	char line[LINE_MAX_BYTES], name[1024], kind[64];
	grid_text(field_row_name(r), st->o.ascii_only, name, sizeof(name));
	grid_text(r->backend_kind && r->backend_kind[0] ? r->backend_kind : "-", st->o.ascii_only,
	          kind, sizeof(kind));
	snprintf(line, sizeof(line), "%s  domain %u  %s%s", name, r->domid,
	         r->kind == ROW_DOM0 ? "dom0" : kind, r->missing ? "  (a backend is missing)" : "");
	grid_put(g, top, line, GRID_PLAIN);
	int y = render_layers(st, g, top + 1, bottom, r->dom);
	render_domain_summary(st, g, y, bottom, r);
}

/* --- bottom line and the whole screen ---------------------------------------------- */

/* the bottom line's keys, by mode */
static const char KEYS_DRILL[] = "Esc/q back  Up/Down other rows  m mark  p pause  h help";
static const char KEYS_DRILL_REPLAY[] =
    "Esc/q back  Up/Down other rows  Left/Right step  space play  h help";
static const char KEYS_REPLAY[] =
    "h help  q quit  Left/Right step  [ ] period  g go to  n/N mark  space play";
static const char KEYS_LIVE[] =
    "h help  q quit  < > sort  r reverse  Enter drill  f filter  m mark  p pause  +/- delay";

/* what each prompt asks for */
static const char *const prompt_text[] = {
    [PROMPT_MARK] = "mark label",
    [PROMPT_FILTER] = "filter by name",
    [PROMPT_GOTO] = "go to (a time: 14:00, 2026-05-01 14:00, 1h ago; a mark; start; end)",
};

static void render_bottom(const struct console_state *st, struct grid *g)
{
	char line[LINE_MAX_BYTES], input[4 * CONSOLE_TEXT_MAX];
	int y = g->h - 1;
	if (st->prompt != PROMPT_NONE) {
		/* typed text is printable ASCII (the prompt takes nothing else); escaped anyway */
		grid_text(st->input, st->o.ascii_only, input, sizeof(input));
		snprintf(line, sizeof(line), "%s: %s_", prompt_text[st->prompt], input);
		grid_put(g, y, line, GRID_PLAIN);
	} else if (st->status[0]) {
		grid_put(g, y, st->status, GRID_PLAIN);
	} else if (st->help) {
		grid_put(g, y, "any key: back", GRID_PLAIN);
	} else if (st->drilled) {
		grid_put(g, y, st->o.replay ? KEYS_DRILL_REPLAY : KEYS_DRILL, GRID_PLAIN);
	} else {
		grid_put(g, y, st->o.replay ? KEYS_REPLAY : KEYS_LIVE, GRID_PLAIN);
	}
}

void console_render(struct console_state *st, struct grid *g)
{
	grid_clear(g);
	int bottom = g->h - 1; /* the last line is the bottom line */
	if (st->help) {
		console_render_help(st, g, bottom);
		render_bottom(st, g);
		return;
	}
	int top = render_header(st, g);
	if (st->drilled)
		render_drill(st, g, top, bottom);
	else
		render_table(st, g, top, bottom);
	render_bottom(st, g);
}
