/* test_figures.c - the figure table against every sink: each figure of the table shows
 * where its entry says, in the console (the pure render into a text grid), `-b` text,
 * CSV, JSON and the /metrics exposition, with its value; a figure not known prints null,
 * "-" or no family, never 0. A figure added to the table is enumerated here with no
 * change to this file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/figures.h"
#include "export/exposition.h"
#include "export/metrics.h"
#include "ui/batch.h"
#include "ui/console_render.h"
#include "ui/console_state.h"
#include "ui/grid.h"

/* One guest domain and the host, every counter a distinct value, everything collected. */
struct world {
	struct xio_domain info;
	struct model_layer layer;
	struct xio_disk disk;
	struct model_disk mdisk;
	struct model_vbd vbd;
	struct model_domain dom;
	struct model_interval m;
};

static void make_world(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->info = (struct xio_domain){.domid = 3, .name = "web", .kind = "vbd", .generation = 1};
	w->layer = (struct model_layer){.role = ROLE_BACKEND, .name = "loop0", .wr_bytes = 1};
	w->disk = (struct xio_disk){.dev = 8 << 20, .name = "sda"};
	w->mdisk = (struct model_disk){.disk = &w->disk, .rd_bytes = 3000013, .wr_bytes = 3000014};
	w->vbd = (struct model_vbd){.devid = 51712, .xiotop_known = true};
	struct model_domain *d = &w->dom;
	d->domid = 3;
	d->info = &w->info;
	d->io.guest_rd_bytes = 1000001, d->io.guest_wr_bytes = 1000002;
	d->io.guest_rd_ios = 1003, d->io.guest_wr_ios = 1004;
	d->io.phys_rd_bytes = 1000005, d->io.phys_wr_bytes = 1000006;
	d->io.double_counted_bytes = 1000007;
	d->cpu_ns = 100000008;
	d->cpu_ns_by_role[XIO_CPU_BACKEND] = 100000008;
	d->guest_cpu_ns = 100000009;
	d->dirty_backlog_bytes = 1000010, d->dirtied_bytes = 1000011;
	d->written_back_bytes = 1000012;
	d->lat[XIOTOP_LAT_READ].count = 1;
	d->lat[XIOTOP_LAT_READ].buckets[20] = 1;
	d->layers = &w->layer, d->n_layers = 1;
	d->vbds = &w->vbd, d->n_vbds = 1;
	struct model_interval *m = &w->m;
	m->interval_s = 1;
	m->realtime_ns = 1764669600123000000;
	m->pgpgout_bytes = 2000001, m->pgpgin_bytes = 2000002;
	m->lost_events = 7;
	m->unattr_rd_bytes = 2000004, m->unattr_wr_bytes = 2000005;
	m->has_cpu = m->has_dirty = m->has_vbd_stats = m->has_latency = true;
	m->host_busy_ns = 900000000, m->cpu_unattributed_ns = 2000006;
	m->hooks = "tp_btf block_bio_queue";
	m->disks = &w->mdisk, m->n_disks = 1;
	m->domains = d, m->n_domains = 1;
}

static char *batch(const struct model_interval *m, enum batch_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	struct batch_opts o = {.format = f}; /* into a pipe: every column, whole names */
	batch_print(out, m, &o, 0);
	fclose(out);
	return buf;
}

static char *metrics(const struct model_interval *m)
{
	struct metrics_state st;
	metrics_init(&st);
	assert_int_equal(metrics_add_interval(&st, m), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	assert_int_equal(expo_render(out, &st, EXPO_OPENMETRICS, "test"), 0);
	fclose(out);
	metrics_free(&st);
	return buf;
}

/* The console's screen, wide enough for every column, as one text. */
static char *console(const struct model_interval *m)
{
	struct console_state st;
	struct console_state_opts o = {.delay_s = 1, .title = "t", .full_names = true};
	console_state_init(&st, &o);
	assert_true(console_state_interval(&st, m));
	struct grid g;
	assert_int_equal(grid_init(&g, 400, 30), 0);
	console_render(&st, &g);
	size_t cap = 30 * (4 * 400 + 1) + 1, n = 0;
	char *text = calloc(1, cap);
	assert_non_null(text);
	for (int y = 0; y < g.h; y++)
		n += (size_t)snprintf(text + n, cap - n, "%s\n", g.lines[y]);
	grid_free(&g);
	console_state_free(&st);
	return text;
}

/* The line of text holding `word` as a whole cell (blank or line edge on both sides). */
static bool has_cell(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = text; (p = strstr(p, word)); p++) {
		bool start = p == text || p[-1] == ' ' || p[-1] == '\n';
		bool end = p[n] == ' ' || p[n] == '\n' || p[n] == '\0';
		if (start && end)
			return true;
	}
	return false;
}

static bool has_member(const char *json, const char *name, const char *value)
{
	char want[160];
	snprintf(want, sizeof(want), "\"%s\":%s", name, value ? value : "");
	return strstr(json, want) != NULL;
}

static void test_every_figure_in_every_sink(void **state)
{
	(void)state;
	struct world w;
	make_world(&w);
	char *screen = console(&w.m), *text = batch(&w.m, BATCH_TEXT);
	char *csv = batch(&w.m, BATCH_CSV), *json = batch(&w.m, BATCH_JSON);
	char *expo = metrics(&w.m);
	/* a length, not a pointer: gcc -O3 takes one into csv for dangling */
	size_t csv_header_len = strcspn(csv, "\n");
	assert_int_equal(csv[csv_header_len], '\n');
	assert_true(figure_count() >= FIGURE_NAMED);
	for (int i = 0; i < figure_count(); i++) {
		const struct figure *f = figure_get((enum figure_id)i);
		const struct model_domain *d = f->scope == FIGURE_DOMAIN ? &w.dom : NULL;
		print_message("figure %d %s\n", i, f->key ? f->key : f->header);
		assert_non_null(f->meaning);
		assert_true(f->header || f->key || f->json); /* shown somewhere */
		assert_true(figure_known((enum figure_id)i, &w.m, d));
		if (f->header) {
			assert_true(has_cell(screen, f->header));
			assert_true(has_cell(text, f->header));
		}
		if (f->key && (figure_is_scalar(f) || f->form == FORM_TEXT)) {
			/* every count, gauge and text with a key is a CSV column (a record's
			 * members too: test_fields) */
			char col[80];
			snprintf(col, sizeof(col), ",%s,", f->key);
			char *h = strndup(csv, csv_header_len + 1);
			h[strlen(h) - 1] = ',';
			assert_non_null(strstr(h, col));
			free(h);
		}
		char value[32];
		snprintf(value, sizeof(value), "%llu",
		         (unsigned long long)figure_value((enum figure_id)i, &w.m, d));
		if ((f->key || f->json) && f->form != FORM_SCREEN)
			assert_true(has_member(
			    json, figure_json_name(f),
			    figure_is_scalar(f) && !strchr(f->json ? f->json : "", '[') ? value
			                                                                : NULL));
		if (f->metric.family) {
			char type[160];
			snprintf(type, sizeof(type), "# TYPE %s ", f->metric.family);
			assert_non_null(strstr(expo, type));
		}
	}
	free(screen);
	free(text);
	free(csv);
	free(json);
	free(expo);
}

/* The figures the samples do not hold print null in JSON, "-" in text, and leave their
 * family out of /metrics: what the table's absent bits say, for each bit. */
static void test_unknown_is_never_zero(void **state)
{
	(void)state;
	static const uint32_t bits[] = {XIO_ABSENT_GUEST_IO, XIO_ABSENT_STACK, XIO_ABSENT_VMSTAT,
	                                XIO_ABSENT_DISKS};
	for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
		struct world w;
		make_world(&w);
		w.m.absent = bits[b];
		char *json = batch(&w.m, BATCH_JSON), *expo = metrics(&w.m);
		for (int i = 0; i < figure_count(); i++) {
			const struct figure *f = figure_get((enum figure_id)i);
			if (!(f->absent & bits[b]))
				continue;
			const struct model_domain *d = f->scope == FIGURE_DOMAIN ? &w.dom : NULL;
			assert_false(figure_known((enum figure_id)i, &w.m, d));
			if (f->key && figure_is_scalar(f) && !(f->json && strchr(f->json, '[')))
				assert_true(has_member(json, figure_json_name(f), "null"));
			if (!f->metric.family)
				continue;
			/* a family is out when none of its figures is known */
			bool any = false;
			for (int j = 0; j < figure_count(); j++) {
				const char *fam = figure_get((enum figure_id)j)->metric.family;
				any |= fam && !strcmp(fam, f->metric.family) &&
				       figure_known((enum figure_id)j, &w.m, &w.dom);
			}
			char type[160];
			snprintf(type, sizeof(type), "# TYPE %s ", f->metric.family);
			assert_true(!strstr(expo, type) == !any);
		}
		free(json);
		free(expo);
	}
}

/* Does json hold text as the last member of the host object: followed by "}", or by ","
 * where a figure added to the table after the named ones has its place in "host"? */
static bool last_in_host(const char *json, const char *text)
{
	bool added = false;
	for (int i = FIGURE_NAMED; i < figure_count(); i++) {
		const char *path = figure_get((enum figure_id)i)->json;
		added |= path && !strncmp(path, "host.", 5) && !strchr(path, '[');
	}
	const char *at = strstr(json, text);
	return at && at[strlen(text)] == (added ? ',' : '}');
}

/* -b text with the busy time unknown: the host line and Domain-0's CPU% and CPU_s say
 * "-". (Not inlined: gcc -O3 then takes a pointer into the text for dangling.) */
__attribute__((noinline)) static void domain0_cpu_unknown(const char *text)
{
	assert_non_null(strstr(text, "dom0 CPU -"));
	const char *dom0 = strstr(text, "\nDomain-0 ");
	assert_non_null(dom0);
	char row[256];
	snprintf(row, sizeof(row), "%.*s", (int)strcspn(dom0 + 1, "\n"), dom0 + 1);
	assert_non_null(strstr(row, "      -        -"));
}

/* dom0's own CPU, from the model once: the busy time beyond what is charged, in JSON and
 * /metrics; checked against the sum the definition gives. */
static void test_dom0_own_cpu(void **state)
{
	(void)state;
	struct world w;
	make_world(&w);
	uint64_t own = 900000000 - 100000008 - 2000006;
	assert_int_equal(model_dom0_own_cpu_ns(&w.m), own);
	char *json = batch(&w.m, BATCH_JSON), *expo = metrics(&w.m);
	assert_non_null(
	    strstr(json, "\"unattributed_cpu_ns\":2000006,\"dom0_own_cpu_ns\":797999986,"));
	assert_non_null(strstr(expo, "\nxiotop_host_dom0_own_cpu_seconds_total 0.797999986\n"));
	free(json);
	free(expo);
	w.m.has_cpu = false;
	json = batch(&w.m, BATCH_JSON);
	assert_non_null(strstr(json, "\"dom0_own_cpu_ns\":null"));
	free(json);
	w.m.has_cpu = true;
	/* /proc/stat not read (host_busy_ns 0: unknown): the busy time and dom0's own work are
	 * unknown everywhere, Domain-0's CPU columns too, never 0 */
	w.m.host_busy_ns = 0;
	json = batch(&w.m, BATCH_JSON);
	assert_non_null(strstr(json, "\"dom0_cpu_busy_ns\":null"));
	assert_non_null(strstr(json, "\"dom0_own_cpu_ns\":null"));
	free(json);
	char *text = batch(&w.m, BATCH_TEXT);
	domain0_cpu_unknown(text);
	free(text);
	w.m.host_busy_ns = 900000000;
	/* interrupt time is shown apart, not taken from dom0's own: its ticks are mostly in the
	 * interrupted tasks' runtime (no CONFIG_IRQ_TIME_ACCOUNTING) */
	w.m.host_irq_ns = 97999986;
	assert_int_equal(model_dom0_own_cpu_ns(&w.m), own);
	json = batch(&w.m, BATCH_JSON);
	assert_true(last_in_host(json, "\"dom0_cpu_busy_ns\":900000000,\"dom0_irq_ns\":97999986,"
	                               "\"steal_ns\":0"));
	assert_non_null(strstr(json, "\"dom0_own_cpu_ns\":797999986,"));
	free(json);
	w.m.host_irq_ns = 0;
	w.m.absent = XIO_ABSENT_HOST_CPU; /* a recording made before them */
	json = batch(&w.m, BATCH_JSON);
	assert_true(last_in_host(json, "\"dom0_irq_ns\":null,\"steal_ns\":null"));
	free(json);
	w.m.absent = 0;
	w.m.interval_s = 0; /* the first sample: nothing before it */
	assert_int_equal(model_dom0_own_cpu_ns(&w.m), 0);
}

/* Ranks are distinct, every column names a figure with a header, and the header fits. */
static void test_columns_from_the_figures(void **state)
{
	(void)state;
	for (int i = 0; i < fields_count(); i++) {
		const struct field *a = field_get((enum field_id)i);
		assert_int_equal(a->id, i);
		assert_string_equal(a->header, figure_get(a->figure)->header);
		assert_true((int)strlen(a->header) <= a->width);
		for (int j = i + 1; j < fields_count(); j++)
			assert_int_not_equal(a->rank, field_get((enum field_id)j)->rank);
	}
}

/* Into a file or a pipe, -b text has every column and whole names; fitted only when
 * asked (a terminal). */
static void test_batch_text_not_a_terminal(void **state)
{
	(void)state;
	struct world w;
	make_world(&w);
	snprintf(w.info.name, sizeof(w.info.name), "a-rather-long-domain-name");
	char *text = batch(&w.m, BATCH_TEXT);
	for (int i = 0; i < fields_count(); i++)
		assert_true(has_cell(text, field_get((enum field_id)i)->header));
	assert_true(has_cell(text, "a-rather-long-domain-name"));
	free(text);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct batch_opts o = {.format = BATCH_TEXT, .columns = 80};
	batch_print(out, &w.m, &o, 0);
	fclose(out);
	assert_false(has_cell(buf, "CPU_s"));
	assert_false(has_cell(buf, "a-rather-long-domain-name"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_figure_in_every_sink),
	    cmocka_unit_test(test_unknown_is_never_zero),
	    cmocka_unit_test(test_dom0_own_cpu),
	    cmocka_unit_test(test_columns_from_the_figures),
	    cmocka_unit_test(test_batch_text_not_a_terminal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
