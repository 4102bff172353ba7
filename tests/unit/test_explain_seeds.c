/* test_explain_seeds.c - explain on recordings built through the recorder for seeds 000
 * (dom0 dd vs domU dd on a file image vs bonnie++: double counting, a 2 GiB bonnie on a
 * 1 GiB dom0, reads from dom0's cache; dd's own figures as a claim), 003 (an LV guest's dd
 * "faster than dom0": the guest's own cache, seen through the claim), 004 (an HVM guest
 * through qemu-dm: the path and its dom0 CPU), claims by hand, and escaping of names and
 * labels in text, JSON and HTML. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <unistd.h>

#include "test_files.h"
#include "explain/report/report.h"
#include "explain/verdicts/compare.h"
#include "explain/tool_claims.h"
#include "explain_scenario.h"

TEST_SCRATCH_DIR("explain-seeds")

/* Seed 000: a domU (1 GiB) on a file image, dom0 1 GiB. dd 10 GiB in 192 s with dom0
 * writing back behind it (about 213 MiB dirty), then bonnie++ 2 GiB: writes, and reads of
 * which 40 % dom0's cache serves. */
static void seed000(const char *path)
{
	struct scenario sc;
	sc_open(&sc, path, 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 5, "DomU", SC_FILE, "/mnt/xen/VM01-disk.img", GiB);
	uint64_t backlog = 0, per_s = 10240 * MiB / 192;
	unsigned i = 0;
	for (; i <= 200; i++) {
		struct sc_step st = {0};
		if (i >= 2 && i <= 193) {
			st.guest_wr = st.dirtied = per_s;
			backlog += per_s;
			st.cpu_ns[XIO_CPU_BACKEND] = 40000000;
			st.cpu_ns[XIO_CPU_LOOP] = 80000000;
		}
		uint64_t wb = i < 6                 ? 0
		              : i <= 193            ? per_s
		              : backlog < 120 * MiB ? backlog
		                                    : 120 * MiB;
		if (wb > backlog)
			wb = backlog;
		st.phys_wr = st.written_back = wb;
		backlog -= wb;
		st.cpu_ns[XIO_CPU_WRITEBACK] = wb / 64;
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	for (; i <= 240; i++) { /* bonnie: 2 GiB written in 20 s, read back in 12 s */
		struct sc_step st = {0};
		if (i >= 202 && i <= 221) {
			st.guest_wr = st.dirtied = st.phys_wr = st.written_back = 2 * GiB / 20;
			st.cpu_ns[XIO_CPU_LOOP] = 90000000;
		}
		if (i >= 222 && i <= 233) {
			st.guest_rd = 2 * GiB / 12;
			st.phys_rd = st.guest_rd * 6 / 10;
			st.cpu_ns[XIO_CPU_LOOP] = 50000000;
		}
		sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "dd start", 1.2, "cli", -1);
	sc_mark(&sc, "dd end", 193.6, "cli", -1);
	sc_mark(&sc, "bonnie start", 201.2, "cli", -1);
	sc_mark(&sc, "bonnie end", 233.5, "cli", -1);
	sc_close(&sc);
}

static void seed000_dd_and_bonnie(void **state)
{
	(void)state;
	const char *p = path_of("000.xiotop");
	seed000(p);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, "dd start", "dd end", &ex, &r, &err), 0);
	const struct ex_verdict *dc = sc_verdict(&ex, "double_counting", 5);
	assert_non_null(dc);
	assert_true(sc_fig(dc, "vmstat_times") > 1.98 && sc_fig(dc, "vmstat_times") < 2.02);
	/* 10 GiB through a 1 GiB dom0: dom0 keeps up; no inflation, not a cache test */
	assert_null(sc_verdict(&ex, "page_cache_inflation", 5));
	assert_null(sc_verdict(&ex, "test_size_vs_memory", 5));
	assert_non_null(sc_verdict(&ex, "dom0_cpu_cost", 5));
	/* dd's own figures, by hand: 10737418240 bytes in 192.556 s, 55.8 MB/s */
	struct claim_figures dd = {
	    .wr_bytes = 10737418240ull, .wr_seconds = 192.556, .wr_rate_bps = 55.8e6};
	snprintf(dd.file, sizeof(dd.file), "domU-dd.txt");
	snprintf(dd.tool, sizeof(dd.tool), "dd");
	snprintf(dd.domain, sizeof(dd.domain), "DomU");
	struct xerr msg;
	assert_int_equal(explain_add_claim(&ex, &dd, &msg), 0);
	explain_verdicts(&ex);
	assert_int_equal(ex.n_claims, 1);
	assert_int_equal(ex.claims[0].domid, 5);
	assert_true(ex.claims[0].write);
	assert_true(ex.claims[0].inflation > 0.95 && ex.claims[0].inflation < 1.05);
	const struct ex_verdict *cl = sc_verdict(&ex, "claim", 5);
	assert_non_null(cl);
	assert_non_null(strstr(sc_text(&ex, cl), "matches what the disks did"));
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);
	assert_int_equal(report_json(f, &ex), 0);
	fclose(f);
	assert_non_null(strstr(json, "\"claims\":[{\"file\":\"domU-dd.txt\",\"tool\":\"dd\","
	                             "\"domid\":5,\"direction\":\"write\",\"bytes\":10737418240,"
	                             "\"seconds\":192.556,\"rate_bytes_per_s\":55800000,"));
	assert_non_null(strstr(json, "\"observed_guest_bytes\":"));
	assert_non_null(strstr(json, "{\"id\":\"claim\",\"domid\":5,"));
	free(json);
	explain_free(&ex);
	rec_reader_close(r);

	assert_int_equal(sc_explain(p, "bonnie start", "bonnie end", &ex, &r, &err), 0);
	const struct ex_verdict *ts = sc_verdict(&ex, "test_size_vs_memory", 5);
	assert_non_null(ts);
	/* bonnie's file is 2 GiB (written, then read back): not the 4 GiB it moved; against
	 * the guest's 1 GiB and, dom0 caching this file path, dom0's 1 GiB */
	assert_true(sc_fig(ts, "test_bytes") > 2.0 * GiB - 64 &&
	            sc_fig(ts, "test_bytes") <= 2.0 * GiB);
	assert_true(sc_fig(ts, "dom0_mem_bytes") == 1.0 * GiB);
	assert_true(sc_fig(ts, "dom0_caches_path") == 1);
	assert_true(sc_fig(ts, "cache_bytes") == 2.0 * GiB);
	assert_non_null(strstr(sc_text(&ex, ts), "measures the caches"));
	const struct ex_verdict *rc = sc_verdict(&ex, "read_cache", 5);
	assert_non_null(rc);
	assert_true(rc->share > 0.39 && rc->share < 0.41);
	explain_free(&ex);
	rec_reader_close(r);
}

/* Seed 003: a domU on an LV (phy) whose dd says 4 GiB in 14.75 s, but only 2.5 GiB
 * reached dom0 during it: the guest's own page cache (4 GiB, balloons to 12). */
static void seed003_guest_cache_seen_through_the_claim(void **state)
{
	(void)state;
	const char *p = path_of("003.xiotop");
	struct scenario sc;
	sc_open(&sc, p, 4 * 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 7, "domU", SC_PHY, NULL, 4 * GiB);
	for (unsigned i = 0; i <= 30; i++) {
		struct sc_step st = {0};
		if (i >= 2 && i <= 16)
			st.guest_wr = 2560 * MiB / 15;
		if (i >= 17 && i <= 22)
			st.guest_wr = 1536 * MiB / 6; /* the guest's flush, after dd returned */
		st.cpu_ns[XIO_CPU_BACKEND] = st.guest_wr / 128;
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "start: dd if=/dev/zero of=testfile bs=1m count=4096", 1.25, "wrap", -1);
	sc_mark(&sc, "end: dd if=/dev/zero of=testfile bs=1m count=4096 (exit 0)", 16.0, "wrap", 0);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	assert_null(sc_verdict(&ex, "page_cache_inflation", 7));
	assert_null(sc_verdict(&ex, "double_counting", 7));
	assert_string_equal(sc_fig_str(sc_verdict(&ex, "path", 7), "path"), "phy");
	assert_non_null(sc_verdict(&ex, "test_size_vs_memory", 7)); /* 2.5 GiB on 4 GiB */
	struct claim_figures dd = {
	    .wr_bytes = 4294967296ull, .wr_seconds = 14.750, .wr_rate_bps = 291184223};
	snprintf(dd.file, sizeof(dd.file), "dd.txt");
	snprintf(dd.tool, sizeof(dd.tool), "dd");
	struct xerr msg;
	assert_int_equal(explain_add_claim(&ex, &dd, &msg), 0); /* busiest: 7 */
	explain_verdicts(&ex);
	const struct ex_verdict *cl = sc_verdict(&ex, "claim", 7);
	assert_non_null(cl);
	/* the run located in the timeline: its 2.5 GiB during dd and the guest's 1.5 GiB
	 * flush after dd returned, 4 GiB from 1 s to 22 s (not just the marked window) */
	assert_true(sc_fig(cl, "observed_guest_bytes") > 4096.0 * MiB - 64);
	assert_true(sc_fig(cl, "observed_guest_bytes") <= 4096.0 * MiB);
	assert_true(sc_fig(cl, "located_to_s") > 20.5 && sc_fig(cl, "located_to_s") < 21.5);
	assert_true(sc_fig(cl, "inflation") > 1.3);
	assert_non_null(strstr(sc_text(&ex, cl), "the guest's own cache"));
	/* a claim for a domain the window does not have */
	snprintf(dd.domain, sizeof(dd.domain), "nosuch");
	assert_int_equal(explain_add_claim(&ex, &dd, &msg), -1);
	assert_non_null(strstr(msg.msg, "dd.txt: no domain 'nosuch'"));
	struct claim_figures empty = {0};
	snprintf(empty.file, sizeof(empty.file), "empty.txt");
	assert_int_equal(explain_add_claim(&ex, &empty, &msg), -1);
	assert_non_null(strstr(msg.msg, "empty.txt: the benchmark output holds no byte count"));
	explain_free(&ex);
	rec_reader_close(r);
}

/* Seed 004: an HVM guest (2 GiB) through qemu-dm on a file image, dom0 256 MiB: bonnie
 * 2 GiB writes at about 10 MiB/s, qemu busy in dom0, the flusher writing its image back. */
/* Seed 004's comparison, as posted: bonnie -s 256 in a NetBSD dom0 of 256 MB against
 * bonnie -s 2048 in an HVM guest of 2 GB (qemu-dm on a file image, cache=writeback): each
 * sized its file to its own memory, not twice it. Expected, written before the change:
 * dom0's test, 256 MiB written and read back, against its 256 MiB (the caches on its
 * path: dom0's memory, as it reads); the guest's 2 GiB against its 2 GiB and dom0's
 * 256 MiB (dom0 caches the image): both under bonnie's 2x, each measured its own caches,
 * and they differ: `explain dom0 domU` names the comparison's flaw with both figures
 * (before: never said). The device model's CPU per GiB is named by role beside it. */
static void seed004_comparison_flaw(void **state)
{
	(void)state;
	const char *pa = path_of("004-dom0.xiotop"), *pb = path_of("004-domu.xiotop");
	struct scenario sc;
	sc_open(&sc, pa, 256 * 1024);
	for (unsigned i = 0; i <= 12; i++) {
		if (i >= 1 && i <= 4) /* bonnie's file written at 64 MiB/s, then read */
			sc.unattr_wr += 64 * MiB;
		if (i >= 5 && i <= 8)
			sc.unattr_rd += 64 * MiB;
		sc.pgpgout_kb = sc.unattr_wr / 1024;
		sc_append(&sc);
	}
	sc_mark(&sc, "start: bonnie -s 256", 0.5, "wrap", -1);
	sc_mark(&sc, "end: bonnie -s 256 (exit 0)", 8.5, "wrap", 0);
	sc_close(&sc);
	sc_open(&sc, pb, 256 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 9, "banksy", SC_QEMU, "/domU/banksy/ad1", 2 * GiB);
	for (unsigned i = 0; i <= 70; i++) {
		struct sc_step st = {0};
		if (i >= 1 && i <= 32) { /* 64 MiB/s written into dom0's cache of the image */
			st.guest_wr = st.phys_wr = st.dirtied = st.written_back = 64 * MiB;
			st.cpu_ns[XIO_CPU_DEVICE_MODEL] = 850000000;
		}
		if (i >= 33 && i <= 64) { /* and read back */
			st.guest_rd = st.phys_rd = 64 * MiB;
			st.cpu_ns[XIO_CPU_DEVICE_MODEL] = 850000000;
		}
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "start: bonnie -s 2048", 0.5, "wrap", -1);
	sc_mark(&sc, "end: bonnie -s 2048 (exit 0)", 64.5, "wrap", 0);
	sc_close(&sc);
	static struct explain a, b;
	struct rec_reader *ra, *rb;
	struct xerr err;
	assert_int_equal(sc_explain(pa, NULL, NULL, &a, &ra, &err), 0);
	assert_int_equal(sc_explain(pb, NULL, NULL, &b, &rb, &err), 0);
	struct ex_compare c;
	assert_int_equal(explain_compare(&a, "dom0", &b, "banksy", &c, &err), 0);
	assert_true(c.a.test_bytes == 256 * MiB && c.a.cache_bytes == 256 * MiB);
	assert_true(c.b.test_bytes == 2 * GiB && c.b.cache_bytes == 2 * GiB + 256 * MiB);
	assert_true(c.a.under_rule && c.b.under_rule && c.size_flaw);
	const char *text = sc_compare_text(&c);
	assert_non_null(strstr(text, "The comparison's flaw"));
	assert_non_null(strstr(text, "256.0 MiB against the 256.0 MiB"));
	assert_non_null(strstr(text, "2.00 GiB against the 2.25 GiB"));
	bool named = false;
	for (size_t i = 0; i < c.n_causes; i++)
		if (c.causes[i].id == EXV_DOM0_CPU_COST)
			named = strstr(sc_cause_text(&c, i), "device_model") != NULL;
	assert_true(named);
	explain_free(&a);
	explain_free(&b);
	rec_reader_close(ra);
	rec_reader_close(rb);
}

static void seed004_qemu_path(void **state)
{
	(void)state;
	const char *p = path_of("004.xiotop");
	struct scenario sc;
	sc_open(&sc, p, 256 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 9, "banksy", SC_QEMU, "/domU/banksy/ad1", 2 * GiB);
	for (unsigned i = 0; i <= 60; i++) {
		struct sc_step st = {0};
		if (i >= 2 && i <= 50) {
			st.guest_wr = st.phys_wr = 2 * GiB / 49;
			st.cpu_ns[XIO_CPU_DEVICE_MODEL] = 850000000;
			st.cpu_ns[XIO_CPU_WRITEBACK] =
			    20000000; /* the image's pages, cache=writeback */
		}
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "start: bonnie -s 2048", 1.1, "wrap", -1);
	sc_mark(&sc, "end: bonnie -s 2048 (exit 0)", 50.2, "wrap", 0);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	const struct ex_verdict *path = sc_verdict(&ex, "path", 9);
	assert_string_equal(sc_fig_str(path, "path"), "qemu");
	assert_non_null(strstr(sc_text(&ex, path), "emulated by qemu"));
	const struct ex_verdict *cpu = sc_verdict(&ex, "dom0_cpu_cost", 9);
	assert_non_null(cpu);
	assert_true(sc_fig(cpu, "device_model_s_per_gib") > 20.8 &&
	            sc_fig(cpu, "device_model_s_per_gib") < 20.9); /* 41.65 s for 2 GiB */
	assert_non_null(strstr(sc_text(&ex, cpu), "qemu emulates the disk"));
	/* no loop device on this path (before: "The loop device's kworkers and the flusher",
	 * said of the live test's device model too) */
	assert_null(strstr(sc_text(&ex, cpu), "loop"));
	assert_non_null(strstr(sc_text(&ex, cpu), "The flusher writes back"));
	assert_non_null(sc_verdict(&ex, "test_size_vs_memory", 9));
	assert_null(sc_verdict(&ex, "double_counting", 9));
	explain_free(&ex);
	rec_reader_close(r);
}

static char *report(const struct explain *ex, int (*fn)(FILE *, const struct explain *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(fn(f, ex), 0);
	fclose(f);
	return buf;
}

/* Every text of the report's chart inside its picture: the axis's caption was drawn below
 * it. (Not inlined: gcc then takes a pointer into the report for dangling.) */
__attribute__((noinline)) static void caption_inside(const char *html)
{
	int height = 0, caption_y = 0;
	const char *svg = strstr(html, "<svg"), *cap = strstr(html, "\">seconds from the window");
	assert_non_null(svg);
	assert_non_null(cap);
	assert_int_equal(sscanf(svg,
	                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%*d\" "
	                        "height=\"%d\"",
	                        &height),
	                 1);
	while (cap > html && strncmp(cap, " y=\"", 4))
		cap--;
	assert_int_equal(sscanf(cap, " y=\"%d\"", &caption_y), 1);
	assert_true(caption_y > 0 && caption_y <= height);
}

/* Guest-controlled names and user labels never reach a report raw. */
static void names_and_labels_escaped(void **state)
{
	(void)state;
	const char *p = path_of("evil.xiotop");
	struct scenario sc;
	sc_open(&sc, p, 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 4, "evil\033[2J<b>\"x'&", SC_FILE,
	                              "/img/<script>alert(1)</script>\n.img", GiB);
	for (unsigned i = 0; i <= 8; i++) {
		struct sc_step st = {0};
		if (i >= 2 && i <= 3)
			st.guest_wr = st.dirtied = 64 * MiB;
		if (i >= 5 && i <= 6) /* written back in the recording: the drain is whole */
			st.phys_wr = st.written_back = 64 * MiB;
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "start: <i>\033]0;x\a", 1.5, "wrap", -1);
	sc_mark(&sc, "end: x (exit 0)", 3.5, "wrap", 0);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	char *text = report(&ex, report_text), *json = report(&ex, report_json);
	char *html = report(&ex, report_html);
	char *outs[] = {text, json, html};
	for (int i = 0; i < 3; i++) {
		assert_null(strchr(outs[i], '\033'));
		assert_null(strchr(outs[i], '\a'));
	}
	assert_non_null(strstr(text, "evil\\e[2J<b>"));
	assert_non_null(strstr(json, "\"name\":\"evil\\u001b[2J<b>\\\"x'&\""));
	assert_null(strstr(html, "<script>"));
	assert_null(strstr(html, "<b>\""));
	assert_null(strstr(html, "<i>"));
	assert_non_null(strstr(html, "evil\\e[2J&lt;b&gt;&quot;x&#39;&amp;"));
	assert_non_null(strstr(html, "<svg"));
	/* the names explain's sentences and headings hold are sanitized once: no escape of an
	 * escape ("evil\\\\e" in the heading and the verdicts, before) */
	assert_null(strstr(html, "\\\\"));
	assert_non_null(strstr(html, "<h3>evil\\e[2J&lt;b&gt;&quot;x&#39;&amp; (domain 4)</h3>"));
	caption_inside(html);
	assert_non_null(strstr(json, "{\"id\":\"page_cache_inflation\",\"domid\":4"));
	free(text);
	free(json);
	free(html);
	explain_free(&ex);
	rec_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(seed000_dd_and_bonnie),
	    cmocka_unit_test(seed003_guest_cache_seen_through_the_claim),
	    cmocka_unit_test(seed004_qemu_path),
	    cmocka_unit_test(seed004_comparison_flaw),
	    cmocka_unit_test(names_and_labels_escaped),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
