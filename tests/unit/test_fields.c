/* test_fields.c - the column table where its users meet: a KVM-style domid (1000000 +
 * pid, 7 digits) shown whole by the console and batch text, a Xen-only host keeping
 * its 5-wide column; batch text as the console's table (KIND, DIRTY, CPU_s since the
 * first interval, GCPU%), CSV and JSON keys from the table, help lines with keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/figures.h"
#include "ui/batch.h"
#include "ui/console_render.h"
#include "ui/console_state.h"
#include "ui/fields.h"
#include "ui/grid.h"

#define KVM_DOMID 1005732u /* XT_KVM_DOMID_BASE + pid 5732 */

struct world {
	struct xio_domain info[2];
	struct model_domain doms[2];
	struct model_interval m;
};

/* Two guests, 2 s: Xen domain 3 and, when kvm, a qemu-only domain 1005732. */
static void make_world(struct world *w, bool kvm)
{
	memset(w, 0, sizeof(*w));
	uint32_t ids[2] = {3, kvm ? KVM_DOMID : 4};
	const char *names[2] = {"xen-guest", "kvm-guest"};
	for (int i = 0; i < 2; i++) {
		w->info[i].domid = ids[i];
		snprintf(w->info[i].name, sizeof(w->info[i].name), "%s", names[i]);
		snprintf(w->info[i].kind, sizeof(w->info[i].kind), "%s", i ? "qdisk" : "vbd");
		w->doms[i].domid = ids[i];
		w->doms[i].info = &w->info[i];
		w->doms[i].io.guest_wr_bytes = 4000000;
		w->doms[i].guest_cpu_ns = i ? -1 : 1000000000; /* 50 % of a vCPU over 2 s */
		w->doms[i].cpu_ns = 500000000;
	}
	w->m = (struct model_interval){.interval_s = 2.0,
	                               .realtime_ns = 1764669600000000000,
	                               .domains = w->doms,
	                               .n_domains = 2,
	                               .has_cpu = true};
}

/* The console's table line of the row named name, rendered at width x 24. */
static void console_line(const struct world *w, int width, const char *name, char *out, size_t len)
{
	struct console_state st;
	struct console_state_opts o = {.delay_s = 2.0, .title = "test"};
	console_state_init(&st, &o);
	assert_true(console_state_interval(&st, &w->m));
	struct grid g;
	assert_int_equal(grid_init(&g, width, 24), 0);
	console_render(&st, &g);
	out[0] = '\0';
	for (int y = 0; y < g.h; y++)
		if (!strncmp(g.lines[y], name, strlen(name)))
			snprintf(out, len, "%s", g.lines[y]);
	grid_free(&g);
	console_state_free(&st);
}

static void test_console_kvm_domid_whole(void **state)
{
	(void)state;
	struct world w;
	make_world(&w, true);
	char line[1024];
	console_line(&w, 80, "kvm-guest", line, sizeof(line));
	assert_non_null(strstr(line, " 1005732 "));
	assert_true(strlen(line) <= 80);
	console_line(&w, 200, "kvm-guest", line, sizeof(line));
	assert_non_null(strstr(line, " 1005732 "));
	/* the Xen guest beside it lines up under the same, wider column */
	console_line(&w, 200, "xen-guest", line, sizeof(line));
	assert_non_null(strstr(line, "       3 "));
}

static void test_domid_width(void **state)
{
	(void)state;
	struct field_row xen = {.kind = ROW_DOMAIN, .domid = 32767};
	struct field_row kvm = {.kind = ROW_DOMAIN, .domid = KVM_DOMID};
	struct field_row none = {.kind = ROW_UNATTRIBUTED, .domid = 0xffffffffu};
	const struct field_row *rows[3] = {&xen, &none, &kvm};
	assert_int_equal(fields_domid_width(rows, 2), 5); /* a Xen-only host: as before */
	assert_int_equal(fields_domid_width(rows, 3), 7);

	struct field_layout l;
	fields_layout_sized(200, FIELD_NAME_WIDTH, 7, false, &l);
	char buf[1024];
	fields_row(&l, &kvm, buf, sizeof(buf));
	assert_non_null(strstr(buf, " 1005732 "));
	fields_header(&l, buf, sizeof(buf));
	assert_non_null(strstr(buf, "   DOMID "));
}

/* The batch sink's text over `n` copies of the interval: every column (full), or fitted
 * as on an 80-column terminal. */
static char *batch_text(const struct world *w, bool full, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct batch_sink b = {.out = out,
	                       .opts = {.format = BATCH_TEXT, .full_names = full, .columns = 80}};
	struct interval_sink sink = batch_sink(&b);
	struct model_interval m = w->m;
	for (int i = 0; i < n; i++)
		assert_int_equal(sink.interval(sink.ctx, &m, (unsigned long)i), LOOP_GO_ON);
	batch_sink_free(&b);
	fclose(out);
	return buf;
}

/* The cell of column `header` in the last row starting with `name` ("" if none). */
static void cell(const char *text, const char *name, const char *header, char *out, size_t len)
{
	char heads[32][64], cells[32][64];
	int col = -1, n_heads = 0;
	out[0] = '\0';
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		char copy[1024];
		snprintf(copy, sizeof(copy), "%.*s", (int)(nl ? nl - line : (long)strlen(line)),
		         line);
		int n = 0;
		char *save, *tok = strtok_r(copy, " ", &save);
		for (; tok && n < 32; tok = strtok_r(NULL, " ", &save), n++)
			snprintf(cells[n], sizeof(cells[n]), "%s", tok);
		if (n && !strcmp(cells[0], "NAME")) {
			n_heads = n;
			for (int i = 0; i < n; i++) {
				snprintf(heads[i], sizeof(heads[i]), "%s", cells[i]);
				if (!strcmp(heads[i], header))
					col = i;
			}
		} else if (n == n_heads && col >= 0 && !strcmp(cells[0], name)) {
			snprintf(out, len, "%s", cells[col]);
		}
		line = nl ? nl + 1 : line + strlen(line);
	}
}

static void test_batch_text_is_the_console_table(void **state)
{
	(void)state;
	struct world w;
	make_world(&w, true);
	char *text = batch_text(&w, true, 2);
	char c[64];
	cell(text, "xen-guest", "KIND", c, sizeof(c));
	assert_string_equal(c, "vbd");
	cell(text, "kvm-guest", "DOMID", c, sizeof(c));
	assert_string_equal(c, "1005732");
	cell(text, "xen-guest", "CPU%", c, sizeof(c));
	assert_string_equal(c, "25.0");
	cell(text, "xen-guest", "CPU_s", c, sizeof(c)); /* 0.5 s a interval, since the first */
	assert_string_equal(c, "1.0");
	cell(text, "xen-guest", "GCPU%", c, sizeof(c));
	assert_string_equal(c, "50.0");
	cell(text, "kvm-guest", "GCPU%", c, sizeof(c));
	assert_string_equal(c, "-");
	cell(text, "xen-guest", "DIRTY_MiB", c, sizeof(c)); /* not collected here */
	assert_string_equal(c, "-");
	cell(text, "(unattributed)", "DOMID", c, sizeof(c));
	assert_string_equal(c, "-");
	cell(text, "Domain-0", "DOMID", c, sizeof(c));
	assert_string_equal(c, "0");
	free(text);

	/* 80 columns: the console's choice of columns (GRD_MiB/s, the highest rank left, does
	 * not fit), every line fits */
	text = batch_text(&w, false, 1);
	assert_non_null(strstr(text, "\nNAME             DOMID GWR_MiB/s PWR_MiB/s AMPL DBL_MiB/s "
	                             "DIRTY_MiB   CPU%\n"));
	cell(text, "kvm-guest", "DOMID", c, sizeof(c));
	assert_string_equal(c, "1005732");
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		assert_true((nl ? (size_t)(nl - line) : strlen(line)) <= 80);
		line = nl ? nl + 1 : line + strlen(line);
	}
	assert_null(strstr(text, "!missing"));
	free(text);

	/* a domain with a backend not resolved is named below the table */
	w.info[0].missing = true;
	text = batch_text(&w, false, 1);
	assert_non_null(strstr(text, "\n!missing: a backend of domain 3\n"));
	free(text);
	text = batch_text(&w, true, 1);
	cell(text, "xen-guest", "KIND", c, sizeof(c));
	assert_string_equal(c, "vbd!");
	free(text);
}

static char *capture(const struct world *w, enum batch_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct batch_opts o = {.format = f};
	batch_print(out, &w->m, &o, 0);
	fclose(out);
	return buf;
}

/* The keys figures added after the named ones (FIGURE_NAMED and on) give, from their
 * table entries: CSV's columns (",key", domain or host, a count or gauge; after all the
 * named columns, so that none of those moves) or a domain's JSON members
 * (",\"key\":value"). The named keys stay written out below: their order is the
 * published format. */
static void added_keys(const struct model_interval *m, const struct model_domain *d, bool csv,
                       char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = FIGURE_NAMED; i < figure_count(); i++) {
		const struct figure *f = figure_get((enum figure_id)i);
		bool domain = f->scope == FIGURE_DOMAIN && f->form != FORM_SCREEN;
		if (!f->key || !(domain || (csv && f->scope == FIGURE_HOST)))
			continue;
		if (csv && figure_is_scalar(f))
			n += (size_t)snprintf(buf + n, len - n, ",%s", f->key);
		else if (!csv && figure_known((enum figure_id)i, m, d))
			n += (size_t)snprintf(
			    buf + n, len - n, ",\"%s\":%llu", f->key,
			    (unsigned long long)figure_value((enum figure_id)i, m, d));
		else if (!csv)
			n += (size_t)snprintf(buf + n, len - n, ",\"%s\":null", f->key);
		assert_true(n < len);
	}
}

static void test_csv_json_keys(void **state)
{
	(void)state;
	struct world w;
	make_world(&w, false);
	char *csv = capture(&w, BATCH_CSV);
	char added[1024], want[4096];
	added_keys(&w.m, NULL, true, added, sizeof(added));
	/* CSV's first columns (the domain's, the host's), every other figure JSON has (a record
	 * flattened by its JSON path, no list), then those of figures added to the table */
	snprintf(want, sizeof(want), "%s%s\n",
	         "time,interval_s,domid,name,guest_rd_bytes,guest_wr_bytes,guest_rd_ios,"
	         "guest_wr_ios,phys_rd_bytes,phys_wr_bytes,double_counted_bytes,"
	         "vmstat_pgpgout_bytes,unattributed_wr_bytes,lost_events,dom0_irq_ns,steal_ns,"
	         "kind,missing,dom0_cpu_ns,dom0_cpu_ns_by_role.backend,"
	         "dom0_cpu_ns_by_role.device_model,dom0_cpu_ns_by_role.loop,"
	         "dom0_cpu_ns_by_role.writeback,guest_cpu_ns,dirty_backlog_bytes,dirtied_bytes,"
	         "written_back_bytes,io_latency.read.ios,io_latency.read.sum_ns,"
	         "io_latency.read.p50_ns,io_latency.read.p99_ns,io_latency.write.ios,"
	         "io_latency.write.sum_ns,io_latency.write.p50_ns,io_latency.write.p99_ns,"
	         "vmstat_pgpgin_bytes,dom0_cpu_busy_ns,unattributed_rd_bytes,unattributed_cpu_ns,"
	         "dom0_own_cpu_ns",
	         added);
	assert_memory_equal(csv, want, strlen(want));
	free(csv);
	char *json = capture(&w, BATCH_JSON);
	added_keys(&w.m, &w.doms[0], false, added, sizeof(added));
	/* the contract's keys, in its order (README "JSON and CSV output") */
	snprintf(want, sizeof(want), "%s%s}",
	         "{\"domid\":3,\"name\":\"xen-guest\",\"kind\":\"vbd\","
	         "\"missing\":false,\"guest_rd_bytes\":0,"
	         "\"guest_wr_bytes\":4000000,\"guest_rd_ios\":0,"
	         "\"guest_wr_ios\":0,\"phys_rd_bytes\":0,\"phys_wr_bytes\":0,"
	         "\"double_counted_bytes\":0,\"dom0_cpu_ns\":500000000,"
	         "\"dom0_cpu_ns_by_role\":{\"backend\":0,\"device_model\":0,"
	         "\"loop\":0,\"writeback\":0},\"guest_cpu_ns\":1000000000,"
	         "\"dirty_backlog_bytes\":null,\"dirtied_bytes\":null,"
	         "\"written_back_bytes\":null,\"layers\":[]",
	         added);
	assert_non_null(strstr(json, want));
	assert_null(strstr(json, "vbd_stats")); /* only on a Xen dom0 */
	free(json);
	w.m.has_vbd_stats = true;
	json = capture(&w, BATCH_JSON);
	snprintf(want, sizeof(want), "\"layers\":[],\"vbd_stats\":[]%s}", added);
	assert_non_null(strstr(json, want));
	free(json);
}

/* The names of the rows of a text block ("NAME" header on), of CSV (its 4th column) or
 * of JSON's domains[] (then "+unattributed" for its unattributed object), joined by '|'. */
static void row_names(const char *out, enum batch_format f, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	bool table = false;
	for (const char *line = out; *line && n < len;) {
		const char *nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line);
		char copy[4096];
		snprintf(copy, sizeof(copy), "%.*s", (int)ll, line);
		char *save = NULL, *name = NULL;
		if (f == BATCH_TEXT) {
			if (table && !ll)
				break;
			char *tok = strtok_r(copy, " ", &save);
			if (table && tok)
				name = tok;
			table |= tok && !strcmp(tok, "NAME");
		} else if (f == BATCH_CSV && line != out) {
			char *tok = strtok_r(copy, ",", &save);
			for (int col = 1; tok && col < 4; col++)
				tok = strsep(&save, ",");
			name = tok;
		}
		if (name)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", name);
		line = nl ? nl + 1 : line + ll;
	}
	for (const char *p = out; f == BATCH_JSON && (p = strstr(p, "\"name\":")); p += 7) {
		const char *v = p + 7;
		size_t vl = *v == '"' ? strcspn(v + 1, "\"") : strcspn(v, ",}");
		n += (size_t)snprintf(buf + n, len - n, "%s%.*s", n ? "|" : "", (int)vl,
		                      v + (*v == '"'));
	}
	if (f == BATCH_JSON && strstr(out, "\"unattributed\":{\"rd_bytes\":"))
		snprintf(buf + n, len - n, "|+unattributed");
}

/* Text, CSV and JSON print the same rows: Domain-0 (stood in for when the interval holds
 * no domain 0: no Xen here, nothing charged to it) and (unattributed) included, once. */
static void test_same_rows_in_every_format(void **state)
{
	(void)state;
	struct world w;
	make_world(&w, false);
	for (int with_dom0 = 0; with_dom0 < 2; with_dom0++) {
		char *text = capture(&w, BATCH_TEXT), *csv = capture(&w, BATCH_CSV);
		char *json = capture(&w, BATCH_JSON), names[512];
		const char *guests = with_dom0 ? "Domain-0|kvm-guest" : "xen-guest|kvm-guest";
		char want[512];
		snprintf(want, sizeof(want), "%s%s|(unattributed)", with_dom0 ? "" : "Domain-0|",
		         guests);
		row_names(csv, BATCH_CSV, names, sizeof(names));
		assert_string_equal(names, want);
		snprintf(want, sizeof(want), "%s%s|+unattributed", with_dom0 ? "" : "Domain-0|",
		         guests);
		row_names(json, BATCH_JSON, names, sizeof(names));
		assert_string_equal(names, want);
		row_names(text, BATCH_TEXT, names, sizeof(names));
		assert_string_equal(names, with_dom0
		                               ? "Domain-0|kvm-guest|(unattributed)"
		                               : "Domain-0|xen-guest|kvm-guest|(unattributed)");
		if (!with_dom0) {
			/* the stand-in: nothing charged to it, its vCPU time not known */
			assert_non_null(strstr(json,
			                       "[{\"domid\":0,\"name\":\"Domain-0\",\"kind\":null,"
			                       "\"missing\":false,\"guest_rd_bytes\":0,"));
			assert_non_null(strstr(csv, ",0,Domain-0,0,0,0,0,0,0,0,"));
			/* (unattributed): no domid, its bytes where a domain's are, its CPU in
			 * dom0_cpu_ns, empty where a domain's figure does not apply */
			assert_non_null(strstr(csv, ",,(unattributed),0,0,,,,,,"));
		}
		free(text);
		free(csv);
		free(json);
		/* a domain 0 the interval holds (a Xen dom0, or dom0's own bios charged to it) */
		w.doms[0].domid = w.info[0].domid = 0;
		snprintf(w.info[0].name, sizeof(w.info[0].name), "Domain-0");
	}
}

static void test_help_lines(void **state)
{
	(void)state;
	char line[256];
	fields_help_line(field_get(FIELD_GUEST_WR), false, line, sizeof(line));
	assert_string_equal(line, "GWR_MiB/s guest writes: bytes at the top of its stack");
	fields_help_line(field_get(FIELD_GUEST_WR), true, line, sizeof(line));
	assert_string_equal(
	    line, "GWR_MiB/s guest writes: bytes at the top of its stack (key guest_wr_bytes)");
	fields_help_line(field_get(FIELD_AMPL), true, line, sizeof(line));
	assert_non_null(strstr(line, "(screen only)"));
	for (int i = 0; i < FIELD_COUNT; i++)
		assert_non_null(field_get((enum field_id)i)->help);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_domid_width),
	    cmocka_unit_test(test_console_kvm_domid_whole),
	    cmocka_unit_test(test_batch_text_is_the_console_table),
	    cmocka_unit_test(test_csv_json_keys),
	    cmocka_unit_test(test_same_rows_in_every_format),
	    cmocka_unit_test(test_help_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
