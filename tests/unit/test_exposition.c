/* test_exposition.c - the Prometheus exporter's state and text: exact exposition of a
 * synthetic interval sequence in both formats, guest-chosen names that try to break it,
 * domain churn (destroyed, reused domid), and content negotiation. */
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

static char *render(const struct metrics_state *st, enum expo_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	assert_int_equal(expo_render(mem, st, f, "9.9.9"), 0);
	fclose(mem);
	return buf;
}

static struct xio_domain info(uint32_t domid, const char *name, uint32_t generation,
                              const char *uuid)
{
	struct xio_domain d = {.domid = domid, .generation = generation};
	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.uuid, sizeof(d.uuid), "%s", uuid);
	return d;
}

static struct model_domain dom(const struct xio_domain *i, uint32_t domid, uint64_t wr)
{
	return (struct model_domain){.domid = domid,
	                             .info = i,
	                             .io.guest_wr_bytes = wr,
	                             .io.guest_rd_bytes = wr / 2,
	                             .io.phys_wr_bytes = 2 * wr,
	                             .io.double_counted_bytes = wr,
	                             .io.vmstat_wr_bytes = 2 * wr,
	                             .io.member_wr_bytes = 2 * wr, /* a mirror's two copies */
	                             .io.array_wr_bytes = wr,
	                             .io.copy_wr_bytes = wr, /* model_copies() of the above */
	                             .dirty_backlog_bytes = wr / 4,
	                             .cpu_ns_by_role = {1500000000, 0, 250, 0},
	                             .guest_cpu_ns = -1};
}

static struct model_interval interval(struct model_domain *doms, size_t n)
{
	return (struct model_interval){.interval_s = 1, .domains = doms, .n_domains = n};
}

/* The value of the first line starting with prefix, or -1 if there is none. */
static long long value_of(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
		if (!strncmp(p, prefix, n) && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

static const char om_two_intervals[] =
    "# HELP xiotop_domain_read_bytes Bytes read for the domain: at its backend (guest) or at "
    "physical devices (physical).\n"
    "# TYPE xiotop_domain_read_bytes counter\n"
    "# UNIT xiotop_domain_read_bytes bytes\n"
    "xiotop_domain_read_bytes_total{domid=\"1\",domain=\"web\",generation=\"1\",layer="
    "\"guest\"} 1500\n"
    "xiotop_domain_read_bytes_total{domid=\"1\",domain=\"web\",generation=\"1\",layer="
    "\"physical\"} 0\n"
    "# HELP xiotop_domain_written_bytes Bytes written for the domain: at its backend (guest) "
    "or at physical devices (physical).\n"
    "# TYPE xiotop_domain_written_bytes counter\n"
    "# UNIT xiotop_domain_written_bytes bytes\n"
    "xiotop_domain_written_bytes_total{domid=\"1\",domain=\"web\",generation=\"1\",layer="
    "\"guest\"} 3000\n"
    "xiotop_domain_written_bytes_total{domid=\"1\",domain=\"web\",generation=\"1\",layer="
    "\"physical\"} 6000\n"
    "# HELP xiotop_domain_double_counted_bytes Bytes vmstat pgpgout counted a second time for "
    "the domain: its writes submitted again below its loop device, by the image's writeback or "
    "loop's direct I/O.\n"
    "# TYPE xiotop_domain_double_counted_bytes counter\n"
    "# UNIT xiotop_domain_double_counted_bytes bytes\n"
    "xiotop_domain_double_counted_bytes_total{domid=\"1\",domain=\"web\",generation=\"1\"} "
    "3000\n"
    "# HELP xiotop_domain_dirty_backlog_bytes dom0 page cache the domain dirtied that is not "
    "yet written back.\n"
    "# TYPE xiotop_domain_dirty_backlog_bytes gauge\n"
    "# UNIT xiotop_domain_dirty_backlog_bytes bytes\n"
    "xiotop_domain_dirty_backlog_bytes{domid=\"1\",domain=\"web\",generation=\"1\"} 500\n"
    "# HELP xiotop_domain_dom0_cpu_seconds dom0 CPU time spent for the domain, by role: "
    "backend threads, device model, loop workers, writeback (apportioned by bytes written "
    "back).\n"
    "# TYPE xiotop_domain_dom0_cpu_seconds counter\n"
    "# UNIT xiotop_domain_dom0_cpu_seconds seconds\n"
    "xiotop_domain_dom0_cpu_seconds_total{domid=\"1\",domain=\"web\",generation=\"1\",role="
    "\"backend\"} 3.000000000\n"
    "xiotop_domain_dom0_cpu_seconds_total{domid=\"1\",domain=\"web\",generation=\"1\",role="
    "\"device_model\"} 0.000000000\n"
    "xiotop_domain_dom0_cpu_seconds_total{domid=\"1\",domain=\"web\",generation=\"1\",role="
    "\"loop\"} 0.000000500\n"
    "xiotop_domain_dom0_cpu_seconds_total{domid=\"1\",domain=\"web\",generation=\"1\",role="
    "\"writeback\"} 0.000000000\n"
    "# HELP xiotop_unattributed_dom0_cpu_seconds dom0 CPU time charged to no domain.\n"
    "# TYPE xiotop_unattributed_dom0_cpu_seconds counter\n"
    "# UNIT xiotop_unattributed_dom0_cpu_seconds seconds\n"
    "xiotop_unattributed_dom0_cpu_seconds_total 0.000000014\n"
    "# HELP xiotop_host_dom0_cpu_busy_seconds dom0 non-idle CPU time, all CPUs, steal not "
    "included.\n"
    "# TYPE xiotop_host_dom0_cpu_busy_seconds counter\n"
    "# UNIT xiotop_host_dom0_cpu_busy_seconds seconds\n"
    "xiotop_host_dom0_cpu_busy_seconds_total 12.000000000\n"
    /* dom0's own: the busy time (2 x 6 s) beyond the 2 x 7 ns charged (unattributed); the
     * interrupts' ticks are mostly inside the tasks' runtime already */
    "# HELP xiotop_host_dom0_own_cpu_seconds dom0 CPU time for its own work: busy time not "
    "charged to a domain nor unattributed.\n"
    "# TYPE xiotop_host_dom0_own_cpu_seconds counter\n"
    "# UNIT xiotop_host_dom0_own_cpu_seconds seconds\n"
    "xiotop_host_dom0_own_cpu_seconds_total 11.999999986\n"
    "# HELP xiotop_unattributed_read_bytes Bytes read by dom0 for no domain.\n"
    "# TYPE xiotop_unattributed_read_bytes counter\n"
    "# UNIT xiotop_unattributed_read_bytes bytes\n"
    "xiotop_unattributed_read_bytes_total 2\n"
    "# HELP xiotop_unattributed_written_bytes Bytes written by dom0 for no domain (bios "
    "vmstat counts).\n"
    "# TYPE xiotop_unattributed_written_bytes counter\n"
    "# UNIT xiotop_unattributed_written_bytes bytes\n"
    "xiotop_unattributed_written_bytes_total 4\n"
    "# HELP xiotop_host_vmstat_pgpgin_bytes /proc/vmstat pgpgin, in bytes.\n"
    "# TYPE xiotop_host_vmstat_pgpgin_bytes counter\n"
    "# UNIT xiotop_host_vmstat_pgpgin_bytes bytes\n"
    "xiotop_host_vmstat_pgpgin_bytes_total 8192\n"
    "# HELP xiotop_host_vmstat_pgpgout_bytes /proc/vmstat pgpgout, in bytes.\n"
    "# TYPE xiotop_host_vmstat_pgpgout_bytes counter\n"
    "# UNIT xiotop_host_vmstat_pgpgout_bytes bytes\n"
    "xiotop_host_vmstat_pgpgout_bytes_total 16384\n"
    "# HELP xiotop_lost_events Events not counted: a tracer map full, a program the kernel "
    "skipped as nested, or (latency) a request not timed.\n"
    "# TYPE xiotop_lost_events counter\n"
    "xiotop_lost_events_total 6\n"
    "# HELP xiotop_intervals Sampling intervals since start.\n"
    "# TYPE xiotop_intervals counter\n"
    "xiotop_intervals_total 2\n"
    "# HELP xiotop_host_disk_read_bytes Bytes read from a physical device (/proc/diskstats).\n"
    "# TYPE xiotop_host_disk_read_bytes counter\n"
    "# UNIT xiotop_host_disk_read_bytes bytes\n"
    "xiotop_host_disk_read_bytes_total{device=\"sda\"} 20\n"
    "# HELP xiotop_host_disk_written_bytes Bytes written to a physical device "
    "(/proc/diskstats).\n"
    "# TYPE xiotop_host_disk_written_bytes counter\n"
    "# UNIT xiotop_host_disk_written_bytes bytes\n"
    "xiotop_host_disk_written_bytes_total{device=\"sda\"} 6000\n"
    "# HELP xiotop_host_dom0_irq_seconds dom0 CPU time in hard and soft interrupts, all CPUs "
    "(/proc/stat irq + softirq).\n"
    "# TYPE xiotop_host_dom0_irq_seconds counter\n"
    "# UNIT xiotop_host_dom0_irq_seconds seconds\n"
    "xiotop_host_dom0_irq_seconds_total 1.000000000\n"
    "# HELP xiotop_host_steal_seconds Time the hypervisor ran other domains while dom0 wanted "
    "to run, all CPUs (/proc/stat steal).\n"
    "# TYPE xiotop_host_steal_seconds counter\n"
    "# UNIT xiotop_host_steal_seconds seconds\n"
    "xiotop_host_steal_seconds_total 0.500000000\n"
    "# HELP xiotop_build xiotop's version.\n"
    "# TYPE xiotop_build info\n"
    "xiotop_build_info{version=\"9.9.9\"} 1\n"
    "# HELP xiotop_hook A kernel hook the tracer runs, and how (mode).\n"
    "# TYPE xiotop_hook info\n"
    "xiotop_hook_info{hook=\"block_rq_issue\",mode=\"tp_btf\"} 1\n"
    "xiotop_hook_info{hook=\"sys_enter\",mode=\"tp_btf\"} 1\n"
    "xiotop_hook_info{hook=\"sys_exit\",mode=\"tp_btf\"} 1\n"
    "# EOF\n";

/* Interval i (0 or 1) of one domain and one disk, with CPU and dirty pages. */
struct one_interval {
	struct xio_domain web;
	struct xio_disk sda;
	struct model_domain d;
	struct model_disk disk;
	struct model_interval m;
};

static void make_interval(struct one_interval *o, int i)
{
	o->web = info(1, "web", 0, "");
	o->sda = (struct xio_disk){.dev = 8 << 20, .name = "sda"};
	o->d = dom(&o->web, 1, 1000 * (uint64_t)(i + 1));
	o->disk = (struct model_disk){.disk = &o->sda, .rd_bytes = 10, .wr_bytes = 3000};
	struct model_interval *m = &o->m;
	*m = interval(&o->d, 1);
	m->disks = &o->disk;
	m->n_disks = 1;
	m->has_cpu = m->has_dirty = true;
	m->pgpgin_bytes = 4096, m->pgpgout_bytes = 8192, m->lost_events = 3;
	m->unattr_rd_bytes = 1, m->unattr_wr_bytes = 2;
	m->host_busy_ns = 6000000000, m->cpu_unattributed_ns = 7;
	m->host_irq_ns = 500000000, m->host_steal_ns = 250000000;
	m->hooks = "tp_btf block_rq_issue sys_enter/sys_exit(while device models run)";
}

static void two_intervals(struct metrics_state *st)
{
	static struct one_interval o; /* the state keeps the domain's name */
	for (int i = 0; i < 2; i++) {
		make_interval(&o, i);
		assert_int_equal(metrics_add_interval(st, &o.m), 0);
	}
}

/* A figure's value over the two intervals as /metrics holds it: a count summed, a gauge
 * the last; ns as decimal seconds. */
static void added_value(FILE *out, enum figure_id fig)
{
	const struct figure *f = figure_get(fig);
	uint64_t v = 0;
	for (int i = 0; i < 2; i++) {
		struct one_interval o;
		make_interval(&o, i);
		uint64_t x = figure_value(fig, &o.m, f->scope == FIGURE_DOMAIN ? &o.d : NULL);
		v = f->form == FORM_GAUGE ? x : v + x;
	}
	if (f->unit && !strcmp(f->unit, "ns"))
		fprintf(out, " %llu.%09llu\n", (unsigned long long)(v / 1000000000u),
		        (unsigned long long)(v % 1000000000u));
	else
		fprintf(out, " %llu\n", (unsigned long long)v);
}

/* The families of figures added to the table after the named ones (FIGURE_NAMED and on),
 * each in a family of its own, from their entries: what comes after the named families
 * and before xiotop_build. Empty while no figure is added. */
static char *added_families(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	for (int i = FIGURE_NAMED; i < figure_count(); i++) {
		const struct figure *f = figure_get((enum figure_id)i);
		if (!f->metric.family || !figure_is_scalar(f) ||
		    !figure_known_with((enum figure_id)i, 0, NEED_CPU | NEED_DIRTY, NULL))
			continue;
		const char *fam = f->metric.family, *unit = f->unit;
		bool gauge = f->form == FORM_GAUGE;
		fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", fam, f->metric.help, fam,
		        gauge ? "gauge" : "counter");
		if (unit && (!strcmp(unit, "ns") || !strcmp(unit, "bytes")))
			fprintf(out, "# UNIT %s %s\n", fam,
			        strcmp(unit, "ns") ? "bytes" : "seconds");
		fprintf(out, "%s%s", fam, gauge ? "" : "_total");
		if (f->scope == FIGURE_DOMAIN) {
			fputs("{domid=\"1\",domain=\"web\",generation=\"1\"", out);
			if (f->metric.label && f->metric.label_value)
				fprintf(out, ",%s=\"%s\"", f->metric.label, f->metric.label_value);
			fputc('}', out);
		}
		added_value(out, (enum figure_id)i);
	}
	fclose(out);
	return buf;
}

static void test_openmetrics_exact(void **state)
{
	(void)state;
	struct metrics_state st;
	metrics_init(&st);
	two_intervals(&st);
	char *text = render(&st, EXPO_OPENMETRICS);
	/* the named families as written out above, the added ones where they go */
	static const char build[] = "# HELP xiotop_build xiotop's version.\n";
	const char *at = strstr(om_two_intervals, build);
	assert_non_null(at);
	char *added = added_families(), *want = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&want, &len);
	fprintf(out, "%.*s%s%s", (int)(at - om_two_intervals), om_two_intervals, added, at);
	fclose(out);
	assert_string_equal(text, want);
	free(want);
	free(added);
	free(text);
	metrics_free(&st);
}

static void test_prometheus_004(void **state)
{
	(void)state;
	struct metrics_state st;
	metrics_init(&st);
	two_intervals(&st);
	char *text = render(&st, EXPO_PROMETHEUS);
	assert_non_null(strstr(text, "# HELP xiotop_domain_read_bytes_total Bytes read"));
	assert_non_null(strstr(text, "# TYPE xiotop_domain_read_bytes_total counter\n"
	                             "xiotop_domain_read_bytes_total{domid=\"1\""));
	assert_non_null(strstr(text, "# TYPE xiotop_domain_dirty_backlog_bytes gauge\n"));
	assert_non_null(strstr(text, "# TYPE xiotop_build_info gauge\n"
	                             "xiotop_build_info{version=\"9.9.9\"} 1\n"));
	assert_null(strstr(text, "# UNIT"));
	assert_null(strstr(text, "# EOF"));
	/* every sample line of the OpenMetrics text, in the same order */
	char *om = render(&st, EXPO_OPENMETRICS);
	size_t n_om = 0, n_prom = 0;
	for (char *line = strtok(om, "\n"); line; line = strtok(NULL, "\n"))
		if (line[0] != '#') {
			assert_non_null(strstr(text, line));
			n_om++;
		}
	for (const char *p = text; (p = strstr(p, "\nxiotop_")); p++)
		n_prom++;
	assert_int_equal(n_om, n_prom);
	free(om);
	free(text);
	metrics_free(&st);
}

static char *label_value(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	expo_put_label_value(mem, s);
	fclose(mem);
	return buf;
}

static void test_label_escaping(void **state)
{
	(void)state;
	char *v = label_value("a\"b\\c\nd\x1b[31me\x7f\r\t\xff\xc2\x9b"
	                      "f caf\xc3\xa9 \xe2\x82\xac");
	assert_string_equal(v, "a\\\"b\\\\c\\nd\\\\x1b[31me\\\\x7f\\\\x0d\\\\x09\\\\xff\\\\xc2"
	                       "\\\\x9bf caf\xc3\xa9 \xe2\x82\xac");
	free(v);
	v = label_value("\xed\xa0\x80\xc0\xaf"); /* a surrogate and an overlong '/' */
	assert_string_equal(v, "\\\\xed\\\\xa0\\\\x80\\\\xc0\\\\xaf");
	free(v);
	v = label_value(NULL);
	assert_string_equal(v, "");
	free(v);
}

/* A guest names itself to end the line, forge a sample and end the exposition. */
static void test_hostile_name_exposition(void **state)
{
	(void)state;
	static const char hostile[] = "x\"} 1\nxiotop_lost_events_total 99\n# EOF\n\x1b]0;\\";
	struct xio_domain i = info(7, hostile, 0, "");
	struct model_domain d = dom(&i, 7, 100);
	struct model_interval m = interval(&d, 1);
	struct metrics_state st;
	metrics_init(&st);
	assert_int_equal(metrics_add_interval(&st, &m), 0);
	for (int f = 0; f < 2; f++) {
		char *text = render(&st, (enum expo_format)f);
		size_t lines = 0, eofs = 0;
		for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
			assert_true(*p == '\n' || (*p >= 0x20 && *p != 0x7f));
			lines += *p == '\n';
		}
		for (const char *p = text; (p = strstr(p, "\n# EOF\n")); p++)
			eofs++; /* a line of its own, not the name's escaped text */
		assert_int_equal(eofs, f == EXPO_OPENMETRICS);
		assert_int_equal(value_of(text, "xiotop_lost_events_total"), 0);
		assert_non_null(strstr(text, "domain=\"x\\\"} 1\\nxiotop_lost_events_total 99\\n# "
		                             "EOF\\n\\\\x1b]0;\\\\\",generation=\"1\""));
		/* every line is a comment or a sample of ours */
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
			assert_true(line[0] == '#' || !strncmp(line, "xiotop_", 7));
		assert_true(lines > 20);
		free(text);
	}
	metrics_free(&st);
}

static void add(struct metrics_state *st, struct model_domain *doms, size_t n)
{
	struct model_interval m = interval(doms, n);
	assert_int_equal(metrics_add_interval(st, &m), 0);
}

#define GUEST_WR(domid, gen)                                                                       \
	"xiotop_domain_written_bytes_total{domid=\"" domid "\",domain=\"web\",generation=\"" gen   \
	"\",layer=\"guest\"}"

/* Destroyed: gone from the next scrape. Reused domid (uuid, generation, or back after
 * leaving): a new series whose label was never used for that domid. */
static void test_churn(void **state)
{
	(void)state;
	struct metrics_state st;
	metrics_init(&st);
	struct xio_domain a = info(5, "web", 0, "aaaa"), b = info(5, "web", 0, "bbbb");
	struct xio_domain g4 = info(6, "web", 4, ""), g5 = info(6, "web", 5, "");
	struct model_domain ds[2] = {dom(&a, 5, 100), dom(&g4, 6, 10)};
	add(&st, ds, 2);
	add(&st, ds, 2);
	char *t = render(&st, EXPO_OPENMETRICS);
	assert_int_equal(value_of(t, GUEST_WR("5", "1")), 200);
	assert_int_equal(value_of(t, GUEST_WR("6", "4")), 20);
	free(t);

	ds[0] = dom(&b, 5, 7);  /* another uuid on domid 5 */
	ds[1] = dom(&g5, 6, 3); /* another hypervisor generation on domid 6 */
	add(&st, ds, 2);
	t = render(&st, EXPO_OPENMETRICS);
	assert_int_equal(value_of(t, GUEST_WR("5", "1")), -1);
	assert_int_equal(value_of(t, GUEST_WR("5", "2")), 7);
	assert_int_equal(value_of(t, GUEST_WR("6", "4")), -1);
	assert_int_equal(value_of(t, GUEST_WR("6", "5")), 3);
	free(t);

	add(&st, &ds[1], 1); /* domid 5 destroyed */
	t = render(&st, EXPO_OPENMETRICS);
	assert_null(strstr(t, "domid=\"5\""));
	assert_int_equal(value_of(t, GUEST_WR("6", "5")), 6);
	free(t);

	ds[0] = dom(&b, 5, 1); /* the same uuid again, after leaving: still a new series */
	struct model_domain nameless = {.domid = 9, .io.guest_wr_bytes = 4, .guest_cpu_ns = -1};
	struct model_domain three[3] = {ds[0], ds[1], nameless};
	add(&st, three, 3);
	t = render(&st, EXPO_OPENMETRICS);
	assert_int_equal(value_of(t, GUEST_WR("5", "3")), 1);
	assert_int_equal(value_of(t, "xiotop_domain_written_bytes_total{domid=\"9\",domain=\"\","
	                             "generation=\"1\",layer=\"guest\"}"),
	                 4);
	assert_int_equal(value_of(t, "xiotop_intervals_total"), 5);
	free(t);
	metrics_free(&st);
}

static void test_negotiation(void **state)
{
	(void)state;
	/* no preference, curl's and a browser's: the text format, as node_exporter answers */
	assert_int_equal(expo_negotiate(NULL), EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate(""), EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("*/*"), EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("text/html,application/xhtml+xml,application/xml;q=0.9,"
	                                "*/*;q=0.8"),
	                 EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("application/openmetrics-text"), EXPO_OPENMETRICS);
	assert_int_equal(expo_negotiate("text/plain"), EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("text/plain;version=0.0.4"), EXPO_PROMETHEUS);
	/* what Prometheus sends */
	assert_int_equal(expo_negotiate("application/openmetrics-text;version=1.0.0,"
	                                "application/openmetrics-text;version=0.0.1;q=0.75,"
	                                "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
	                 EXPO_OPENMETRICS);
	assert_int_equal(expo_negotiate("application/openmetrics-text; q=0.2, "
	                                "text/plain; version=0.0.4; q=0.9"),
	                 EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("TEXT/PLAIN; Q=1, application/openmetrics-text;q=0"),
	                 EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("application/json"), EXPO_PROMETHEUS);
	assert_string_equal(expo_content_type(EXPO_PROMETHEUS),
	                    "text/plain; version=0.0.4; charset=utf-8");
	assert_string_equal(expo_content_type(EXPO_OPENMETRICS),
	                    "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

/* Latency (timed by default): a histogram per domain and op, cumulative buckets from 1.024 us
 * doubling to 2.147483648 s, +Inf holding the open-ended last bucket, _sum in exact
 * seconds, _count; two intervals add up; nothing of it without has_latency. */
static void test_latency_histogram(void **state)
{
	(void)state;
	static struct xio_domain web;
	web = info(1, "web", 0, "");
	struct metrics_state st;
	metrics_init(&st);
	for (int i = 0; i < 2; i++) {
		struct model_domain d = dom(&web, 1, 1000);
		d.lat[XIOTOP_LAT_WRITE].buckets[12] = i ? 3 : 5; /* 4.096 .. 8.192 us */
		d.lat[XIOTOP_LAT_WRITE].buckets[20] = i ? 0 : 1; /* 1.048576 .. 2.097152 ms */
		d.lat[XIOTOP_LAT_WRITE].buckets[XIOTOP_LAT_BUCKETS - 1] = i ? 1 : 0; /* > 2.1 s */
		d.lat[XIOTOP_LAT_WRITE].buckets[3] = i ? 0 : 1; /* 8 ns: below the first bound */
		d.lat[XIOTOP_LAT_WRITE].count = i ? 4 : 7;
		d.lat[XIOTOP_LAT_WRITE].sum_ns = i ? 3000000000ull : 1500000;
		struct model_interval m = interval(&d, 1);
		m.has_latency = true;
		assert_int_equal(metrics_add_interval(&st, &m), 0);
	}
	char *t = render(&st, EXPO_OPENMETRICS);
	assert_non_null(strstr(t, "# TYPE xiotop_domain_io_latency_seconds histogram\n"
	                          "# UNIT xiotop_domain_io_latency_seconds seconds\n"));
#define W                                                                                          \
	"xiotop_domain_io_latency_seconds_bucket{domid=\"1\",domain=\"web\",generation=\"1\",op="  \
	"\"write\",le="
	assert_int_equal(value_of(t, W "\"0.000001024\"}"), 1);
	assert_int_equal(value_of(t, W "\"0.000004096\"}"), 1);
	assert_int_equal(value_of(t, W "\"0.000008192\"}"), 9);
	assert_int_equal(value_of(t, W "\"0.001048576\"}"), 9);
	assert_int_equal(value_of(t, W "\"0.002097152\"}"), 10);
	assert_int_equal(value_of(t, W "\"2.147483648\"}"), 10);
	assert_int_equal(value_of(t, W "\"+Inf\"}"), 11);
	assert_int_equal(value_of(t, W "\"0.000000512\"}"), -1); /* below the first bound */
#undef W
	assert_non_null(strstr(t, "xiotop_domain_io_latency_seconds_sum{domid=\"1\",domain=\"web\","
	                          "generation=\"1\",op=\"write\"} 3.001500000\n"));
	assert_int_equal(value_of(t, "xiotop_domain_io_latency_seconds_count{domid=\"1\","
	                             "domain=\"web\",generation=\"1\",op=\"write\"}"),
	                 11);
	assert_int_equal(value_of(t, "xiotop_domain_io_latency_seconds_count{domid=\"1\","
	                             "domain=\"web\",generation=\"1\",op=\"read\"}"),
	                 0);
	/* every series' buckets are cumulative: never decreasing from its first bound */
	long long last = -1;
	int buckets = 0;
	for (const char *p = t; (p = strstr(p, "_seconds_bucket{")); p++) {
		const char *first = strstr(p, "le=\"0.000001024\"");
		if (first && first < strchr(p, '\n'))
			last = -1;
		long long v = strtoll(strchr(p, '}') + 2, NULL, 10);
		assert_true(v >= last);
		last = v;
		buckets++;
	}
	assert_int_equal(buckets, 2 * 23); /* 22 bounds and +Inf, per op */
	free(t);
	t = render(&st, EXPO_PROMETHEUS);
	assert_non_null(strstr(t, "# TYPE xiotop_domain_io_latency_seconds histogram\n"));
	free(t);
	st.has_latency = false; /* an interval not timed (--no-latency): no family */
	t = render(&st, EXPO_OPENMETRICS);
	assert_null(strstr(t, "io_latency"));
	free(t);
	metrics_free(&st);
}

/* A domain whose latency was not timed (a kind of its backends timed by a hook not
 * attached: lat_untimed) has no histogram series beside one that was, which keeps its
 * own: a 0-count histogram would say it did no I/O. */
static void test_latency_untimed(void **state)
{
	(void)state;
	static struct xio_domain web, db;
	web = info(1, "web", 0, "");
	db = info(2, "db", 0, "");
	struct metrics_state st;
	metrics_init(&st);
	struct model_domain d[2] = {dom(&web, 1, 1000), dom(&db, 2, 1000)};
	d[0].lat[XIOTOP_LAT_WRITE].buckets[12] = 5;
	d[0].lat[XIOTOP_LAT_WRITE].count = 5;
	d[0].lat[XIOTOP_LAT_WRITE].sum_ns = 25000;
	d[1].lat[XIOTOP_LAT_WRITE].buckets[14] = 3; /* of another kind of its backends */
	d[1].lat[XIOTOP_LAT_WRITE].count = 3;
	d[1].lat_untimed[XIOTOP_LAT_READ] = d[1].lat_untimed[XIOTOP_LAT_WRITE] = XIO_UNTIMED_RQ;
	struct model_interval m = interval(d, 2);
	m.has_latency = true;
	assert_int_equal(metrics_add_interval(&st, &m), 0);
	char *t = render(&st, EXPO_OPENMETRICS);
	assert_int_equal(value_of(t, "xiotop_domain_io_latency_seconds_count{domid=\"1\","
	                             "domain=\"web\",generation=\"1\",op=\"write\"}"),
	                 5);
	assert_int_equal(value_of(t, "xiotop_domain_io_latency_seconds_count{domid=\"1\","
	                             "domain=\"web\",generation=\"1\",op=\"read\"}"),
	                 0); /* timed and idle: 0 is its figure */
	assert_null(strstr(t, "io_latency_seconds_bucket{domid=\"2\""));
	assert_null(strstr(t, "io_latency_seconds_sum{domid=\"2\""));
	assert_null(strstr(t, "io_latency_seconds_count{domid=\"2\""));
	/* its other families are there */
	assert_true(value_of(t, "xiotop_domain_written_bytes_total{domid=\"2\",domain=\"db\","
	                        "generation=\"1\",layer=\"guest\"}") == 1000);
	free(t);
	metrics_free(&st);
}

/* Before any interval: info metrics, families with no samples, zero host counters. */
static void test_empty_state(void **state)
{
	(void)state;
	struct metrics_state st;
	metrics_init(&st);
	char *t = render(&st, EXPO_OPENMETRICS);
	assert_int_equal(value_of(t, "xiotop_intervals_total"), 0);
	assert_null(strstr(t, "xiotop_domain_written_bytes_total"));
	assert_null(strstr(t, "cpu_seconds")); /* CPU not collected: no CPU families */
	assert_null(strstr(t, "xiotop_hook_info"));
	assert_non_null(strstr(t, "xiotop_build_info{version=\"9.9.9\"} 1\n# HELP xiotop_hook"));
	size_t n = strlen(t);
	assert_true(n > 6 && !strcmp(t + n - 6, "# EOF\n"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_openmetrics_exact),
	    cmocka_unit_test(test_prometheus_004),
	    cmocka_unit_test(test_label_escaping),
	    cmocka_unit_test(test_hostile_name_exposition),
	    cmocka_unit_test(test_churn),
	    cmocka_unit_test(test_negotiation),
	    cmocka_unit_test(test_empty_state),
	    cmocka_unit_test(test_latency_histogram),
	    cmocka_unit_test(test_latency_untimed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
