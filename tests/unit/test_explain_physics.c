/* test_explain_physics.c - explain's physics on recordings built through the recorder and
 * on imported logs. Each case's expected verdicts are written from the physics first:
 *   - seed 001 (dd bs=4096 in a guest; "file based >450 MB/s, block device 150 MB/s"):
 *     the file-backed guest's 4 KiB requests reach the disk as 512 KiB writebacks from
 *     dom0's page cache (128x fewer): request_size, merged (share 0: a mechanism, as path);
 *     the guest on an LV (phy:) has its 4 KiB requests taken as issued: request_size;
 *   - that LV guest writes 600 MiB with 256 MiB of memory on a 12 GiB dom0: dom0 caches
 *     nothing on phy:, so only the guest's memory counts and 600 MiB > 2 x 256 MiB: no
 *     test_size_vs_memory (the old rule, 2 x (dom0 + guest), called it a cache test);
 *   - the cheapest domain by dom0 CPU per GiB is found when it spent CPU in the window
 *     and in its drain (cheapest() skipped exactly those);
 *   - a guest on an LV issuing 4 KiB requests that the block layer merged into 128 KiB
 *     ones on its disk (diskstats: 32x fewer) had them merged, not "taken as issued" (the
 *     leaf's bios before merging said so);
 *   - two file-backed guests written back to one disk in the same window: its diskstats
 *     requests are both domains', so request_size is not given for them (said why);
 *   - an import whose iostat shows md0 (RAID1 of sda and sdb) with loop0 and dm-0 on it:
 *     the members take every byte twice (256 MiB), vmstat bo 192 MiB, the guests wrote
 *     128 MiB: 64 MiB counted beyond the guests' own writes, not hidden by the mirror. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <unistd.h>

#include "test_files.h"
#include "explain/verdicts/compare.h"
#include "explain_scenario.h"
#include "import/import_build.h"

TEST_SCRATCH_DIR("explain-physics")

/* 8 s of dd bs=4096 at 50 MiB/s into a file-backed guest; dom0 writes the 400 MiB back
 * in 512 KiB bios after dd returned (in the drain, not the window). */
static void seed001_file(const char *path)
{
	struct scenario sc;
	sc_open(&sc, path, 12 * 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 1, "wsrv-file", SC_FILE, "/images/disk0.raw", 4 * GiB);
	for (unsigned i = 0; i <= 16; i++) {
		struct sc_step st = {0};
		if (i >= 2 && i <= 9) {
			st.guest_wr = st.dirtied = 50 * MiB;
			st.guest_wr_ios = 50 * MiB / 4096;
			st.cpu_ns[XIO_CPU_LOOP] = 50000000;
		}
		if (i >= 10 && i <= 13) { /* written back after dd returned */
			st.phys_wr = st.written_back = 100 * MiB;
			st.disk_wr_ios = 100 * MiB / (512 * 1024);
		}
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "start: dd", 1.0, "wrap", -1);
	sc_mark(&sc, "end: dd (exit 0)", 9.0, "wrap", 0);
	sc_close(&sc);
}

/* 8 s of dd bs=4096 at 75 MiB/s into a guest on an LV (phy:), 256 MiB of memory. */
static void seed001_phy(const char *path)
{
	struct scenario sc;
	sc_open(&sc, path, 12 * 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 2, "wsrv-bd", SC_PHY, NULL, 256 * MiB);
	for (unsigned i = 0; i <= 12; i++) {
		struct sc_step st = {0};
		if (i >= 2 && i <= 9) {
			st.guest_wr = 75 * MiB;
			st.guest_wr_ios = st.disk_wr_ios = 75 * MiB / 4096;
			st.cpu_ns[XIO_CPU_BACKEND] = 20000000;
		}
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "start: dd", 1.0, "wrap", -1);
	sc_mark(&sc, "end: dd (exit 0)", 9.0, "wrap", 0);
	sc_close(&sc);
}

static void seed001_request_size(void **state)
{
	(void)state;
	const char *a = path_of("001-file.xiotop"), *b = path_of("001-phy.xiotop");
	seed001_file(a);
	seed001_phy(b);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(a, NULL, NULL, &ex, &r, &err), 0);
	const struct ex_verdict *v = sc_verdict(&ex, "request_size", 1);
	assert_non_null(v);
	assert_string_equal(sc_fig_str(v, "direction"), "write");
	assert_true(sc_fig(v, "guest_avg_request_bytes") == 4096);
	assert_true(sc_fig(v, "disk_avg_request_bytes") == 512 * 1024);
	assert_true(sc_fig(v, "merge_ratio") == 128);
	assert_true(v->share == 0); /* a mechanism: ranked below the discrepancies */
	assert_non_null(strstr(sc_text(&ex, v), "dom0's page cache merged them"));
	/* the writeback's bios counted with the drain, not only the window's */
	assert_true(sc_fig(v, "disk_requests") == 400 * MiB / (512 * 1024));
	explain_free(&ex);
	rec_reader_close(r);

	assert_int_equal(sc_explain(b, NULL, NULL, &ex, &r, &err), 0);
	v = sc_verdict(&ex, "request_size", 2);
	assert_non_null(v);
	assert_true(sc_fig(v, "merge_ratio") == 1);
	assert_true(v->share == 0);
	assert_non_null(strstr(sc_text(&ex, v), "about as issued"));
	/* the comparison's path cause says how each side's disk took the requests */
	static struct explain fa;
	struct rec_reader *ra;
	assert_int_equal(sc_explain(a, NULL, NULL, &fa, &ra, &err), 0);
	struct ex_compare c;
	struct xerr msg;
	assert_int_equal(explain_compare(&fa, NULL, &ex, NULL, &c, &msg), 0);
	bool said = false;
	for (size_t i = 0; i < c.n_causes; i++)
		said |= !strcmp(ex_verdict_key(c.causes[i].id), "path") &&
		        strstr(sc_cause_text(&c, i),
		               "the guest's requests averaged 4 KiB on A and 4 KiB "
		               "on B, the disk's own 512 KiB and 4 KiB") != NULL;
	assert_true(said);
	explain_free(&fa);
	rec_reader_close(ra);
	/* 600 MiB on phy: against the guest's 256 MiB only: not a cache test */
	assert_int_equal(ex.doms[0].io.guest_wr_bytes, 600 * MiB);
	assert_null(sc_verdict(&ex, "test_size_vs_memory", 2));
	explain_free(&ex);
	rec_reader_close(r);
}

/* 8 s of 4 KiB writes at 40 MiB/s on an LV whose disk took them as 128 KiB requests
 * (its diskstats), the tracer's bios being the guest's 4 KiB ones. */
static void lv_merged_by_block_layer(void **state)
{
	(void)state;
	const char *p = path_of("lv-merged.xiotop");
	struct scenario sc;
	sc_open(&sc, p, 4 * 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 5, "lv-4k", SC_PHY, NULL, 8 * GiB);
	for (unsigned i = 0; i <= 10; i++) {
		struct sc_step st = {0};
		if (i >= 1 && i <= 8) {
			st.guest_wr = 40 * MiB;
			st.guest_wr_ios = 40 * MiB / 4096;
			st.disk_wr_ios = 40 * MiB / (128 * 1024);
		}
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "start: dd", 0, "wrap", -1);
	sc_mark(&sc, "end: dd (exit 0)", 8.0, "wrap", 0);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	const struct ex_verdict *v = sc_verdict(&ex, "request_size", 5);
	assert_non_null(v);
	assert_true(sc_fig(v, "disk_avg_request_bytes") == 128 * 1024);
	assert_true(sc_fig(v, "disk_requests") == 320 * MiB / (128 * 1024));
	assert_true(sc_fig(v, "merge_ratio") == 32);
	assert_non_null(strstr(sc_text(&ex, v), "The block layer merged them"));
	assert_null(strstr(sc_text(&ex, v), "about as issued"));
	explain_free(&ex);
	rec_reader_close(r);
}

/* Two file-backed guests written back to sda in one window: sda's requests are both
 * domains', and diskstats does not say whose: request_size not given, and why. */
static void shared_leaf_no_request_size(void **state)
{
	(void)state;
	const char *p = path_of("shared-leaf.xiotop");
	struct scenario sc;
	sc_open(&sc, p, 4 * 1024 * 1024);
	struct sc_dom *a = sc_add_dom(&sc, 6, "file-a", SC_FILE, "/images/a.img", 8 * GiB);
	struct sc_dom *b = sc_add_dom(&sc, 7, "file-b", SC_FILE, "/images/b.img", 8 * GiB);
	for (unsigned i = 0; i <= 10; i++) {
		struct sc_step st = {0};
		if (i >= 1 && i <= 8) {
			st.guest_wr = st.dirtied = st.phys_wr = st.written_back = 32 * MiB;
			st.guest_wr_ios = 32 * MiB / 4096;
		}
		if (i) {
			sc_step(&sc, a, &st);
			sc_step(&sc, b, &st);
		}
		sc_append(&sc);
	}
	sc_mark(&sc, "start: run", 0, "wrap", -1);
	sc_mark(&sc, "end: run (exit 0)", 8.0, "wrap", 0);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	assert_null(sc_verdict(&ex, "request_size", 6));
	assert_null(sc_verdict(&ex, "request_size", 7));
	const char *why = NULL;
	for (size_t i = 0; i < ex.n_not_given; i++)
		if (!strcmp(ex.not_given[i].key, "request_size"))
			why = ex.not_given[i].text;
	assert_non_null(why);
	assert_non_null(strstr(why, "sda also served other domains or dom0"));
	explain_free(&ex);
	rec_reader_close(r);
}

/* Two domains in one window: domain 3 (file) costs 1 s of loop CPU in the window and 1 s
 * of writeback CPU in its drain for 1 GiB (2 s per GiB), domain 4 (phy) 8 s for 1 GiB. */
static void cheapest_with_drain_cpu(void **state)
{
	(void)state;
	const char *p = path_of("cheap.xiotop");
	struct scenario sc;
	sc_open(&sc, p, 4 * 1024 * 1024);
	struct sc_dom *f = sc_add_dom(&sc, 3, "file", SC_FILE, "/images/f.img", 8 * GiB);
	struct sc_dom *l = sc_add_dom(&sc, 4, "lv", SC_PHY, NULL, 8 * GiB);
	for (unsigned i = 0; i <= 12; i++) {
		struct sc_step fs = {0}, ls = {0};
		if (i >= 1 && i <= 4) {
			fs.guest_wr = fs.dirtied = 256 * MiB;
			fs.cpu_ns[XIO_CPU_LOOP] = 250000000;
			ls.guest_wr = 256 * MiB;
			ls.cpu_ns[XIO_CPU_BACKEND] = 2000000000;
		}
		if (i >= 5 && i <= 8) { /* after the window: the drain */
			fs.phys_wr = fs.written_back = 256 * MiB;
			fs.cpu_ns[XIO_CPU_WRITEBACK] = 250000000;
		}
		if (i) {
			sc_step(&sc, f, &fs);
			sc_step(&sc, l, &ls);
		}
		sc_append(&sc);
	}
	sc_mark(&sc, "start: run", 0, "wrap", -1);
	sc_mark(&sc, "end: run (exit 0)", 4.0, "wrap", 0);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	const struct ex_verdict *v = sc_verdict(&ex, "dom0_cpu_cost", 4);
	assert_non_null(v);
	assert_true(sc_fig(v, "cheapest_domid") == 3);
	assert_float_equal(sc_fig(v, "ratio_to_cheapest"), 4, 1e-6);
	assert_float_equal(v->share, 0.75, 1e-6);
	explain_free(&ex);
	rec_reader_close(r);
}

static void md_mirror_does_not_hide_loop(void **state)
{
	(void)state;
	struct imp_xentop x;
	struct imp_vmstat v;
	struct imp_iostat io;
	struct xerr ierr;
	size_t len;
	char *bx = test_import_fixture("xentop-stacked-linux.txt", &len);
	assert_int_equal(imp_xentop_parse("xt", bx, len, &x, &ierr), 0);
	char *bv = test_import_fixture("vmstat-stacked-linux.txt", &len);
	assert_int_equal(imp_vmstat_parse("vm", bv, len, &v, &ierr), 0);
	char *bi = test_import_fixture("iostat-dx-md-linux.txt", &len);
	assert_int_equal(imp_iostat_parse("io", bi, len, &io, &ierr), 0);
	struct imp_logs in = {.xentop = &x,
	                      .vmstat = &v,
	                      .iostat = &io,
	                      .xentop_file = "xt",
	                      .vmstat_file = "vm",
	                      .iostat_file = "io",
	                      .interval_s = 2,
	                      .has_start = true,
	                      .start_ns = T0};
	struct imp_result res;
	assert_int_equal(imp_build(&in, &res, &ierr), 0);
	const char *p = path_of("md.xiotop");
	struct xerr err;
	assert_int_equal(imp_write(p, &res, &err), 0);
	imp_result_free(&res);
	static struct explain ex;
	struct rec_reader *r;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	assert_int_equal(ex.disk_wr, 256 * MiB); /* sda + sdb: each byte twice */
	const struct ex_verdict *dc = sc_verdict(&ex, "double_counting", EX_NO_DOMAIN);
	assert_non_null(dc);
	assert_true(sc_fig(dc, "double_counted_bytes") == 64.0 * MiB);
	assert_true(sc_fig(dc, "host_disk_wr_bytes") == -1); /* null: not set against bo */
	assert_non_null(strstr(sc_text(&ex, dc), "sit under md"));
	/* the mirrored leaves took every byte: no cache verdict from them */
	assert_null(sc_verdict(&ex, "page_cache_inflation", 1));
	explain_free(&ex);
	rec_reader_close(r);
	free(bx);
	free(bv);
	free(bi);
	imp_xentop_free(&x);
	imp_vmstat_free(&v);
	imp_iostat_free(&io);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(seed001_request_size),
	    cmocka_unit_test(lv_merged_by_block_layer),
	    cmocka_unit_test(shared_leaf_no_request_size),
	    cmocka_unit_test(cheapest_with_drain_cpu),
	    cmocka_unit_test(md_mirror_does_not_hide_loop),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
