/* test_explain.c - explain on recordings built through the recorder: seed 001 in
 * miniature (a file-backed guest "3x faster" than an LV one: page-cache inflation, double
 * counting for the file only, the comparison ranks inflation first), seed 002 (dom0 CPU
 * per GiB of both, their ratio), the default window (wrap marks), --domain, and bad
 * input (foreign and garbage files, unknown mark, empty window, unknown domain). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <unistd.h>

#include "test_files.h"
#include "explain/verdicts/compare.h"
#include "explain/report/report.h"
#include "explain/tool_claims.h"
#include "explain_scenario.h"

TEST_SCRATCH_DIR("explain")

/* Seed 001, A: a file-backed guest writes 1 GiB in 4 s into dom0's page cache (wrapped
 * command from 1.5 s to 5.5 s); dom0 writes it back at 100 MiB/s from 8 s on. */
static void seed001_file(const char *path)
{
	struct scenario sc;
	sc_open(&sc, path, 12 * 1024 * 1024);
	struct sc_dom *d =
	    sc_add_dom(&sc, 1, "wsrv-file", SC_FILE, "/var/lib/xen/disk0.raw", 4 * GiB);
	uint64_t backlog = 0;
	for (unsigned i = 0; i <= 25; i++) {
		struct sc_step st = {0};
		if (i >= 2 && i <= 5) {
			st.guest_wr = st.dirtied = 256 * MiB;
			st.cpu_ns[XIO_CPU_BACKEND] = 50000000;
			st.cpu_ns[XIO_CPU_LOOP] = 100000000;
			backlog += 256 * MiB;
		}
		if (i >= 8 && backlog) {
			uint64_t wb = backlog < 100 * MiB ? backlog : 100 * MiB;
			st.phys_wr = st.written_back = wb;
			st.cpu_ns[XIO_CPU_WRITEBACK] = 20000000;
			backlog -= wb;
		}
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "start: dd if=/dev/zero of=test.bin bs=4096", 1.5, "wrap", -1);
	sc_mark(&sc, "end: dd if=/dev/zero of=test.bin bs=4096 (exit 0)", 5.5, "wrap", 0);
	sc_close(&sc);
}

/* Seed 001, B: a guest on an LV (phy) writes 1040 MiB at 80 MiB/s, straight to disk. */
static void seed001_phy(const char *path)
{
	struct scenario sc;
	sc_open(&sc, path, 12 * 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 2, "wsrv-bd", SC_PHY, NULL, 4 * GiB);
	for (unsigned i = 0; i <= 20; i++) {
		struct sc_step st = {0};
		if (i >= 2 && i <= 14) {
			st.guest_wr = 80 * MiB;
			st.cpu_ns[XIO_CPU_BACKEND] = 30000000;
		}
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "start: dd", 1.5, "wrap", -1);
	sc_mark(&sc, "end: dd (exit 0)", 14.5, "wrap", 0);
	sc_close(&sc);
}

static void seed001_inflation_and_double_count(void **state)
{
	(void)state;
	const char *a = path_of("001-file.xiotop");
	seed001_file(a);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(a, NULL, NULL, &ex, &r, &err), 0);
	/* the default window is the wrapped command's: 1.5 s to 5.5 s */
	assert_true(ex.win.seconds > 3.99 && ex.win.seconds < 4.01);
	assert_int_equal(ex.n_doms, 1);
	const struct ex_domain *d = &ex.doms[0];
	assert_int_equal(d->io.guest_wr_bytes, 1024 * MiB);
	assert_int_equal(d->io.phys_wr_bytes, 0);
	assert_int_equal(d->backlog_end, 1024 * MiB);
	assert_true(d->drained);
	assert_true(d->drain_s > 12.49 && d->drain_s < 12.51); /* drained at 18 s */
	const struct ex_verdict *v = sc_verdict(&ex, "page_cache_inflation", 1);
	assert_non_null(v);
	assert_ptr_equal(v, &ex.verdicts[0]); /* ranked first */
	double factor = sc_fig(v, "inflation_factor");
	assert_true(factor > 4.12 && factor < 4.13); /* 256 MiB/s against 1 GiB / 16.5 s */
	assert_true(sc_fig(v, "dirty_backlog_end_bytes") == 1024.0 * MiB);
	assert_true(sc_fig(v, "drain_seconds") > 12.49);
	assert_non_null(strstr(sc_text(&ex, v), "inflated 4.1x"));
	assert_non_null(strstr(sc_text(&ex, v), "12.5 s later"));
	const struct ex_verdict *dc = sc_verdict(&ex, "double_counting", 1);
	assert_non_null(dc);
	assert_true(sc_fig(dc, "vmstat_times") > 1.99 && sc_fig(dc, "vmstat_times") < 2.01);
	assert_string_equal(sc_fig_str(dc, "path"), "file via loop");
	assert_string_equal(sc_fig_str(sc_verdict(&ex, "path", 1), "path"), "file via loop");
	explain_free(&ex);
	rec_reader_close(r);

	const char *b = path_of("001-phy.xiotop");
	seed001_phy(b);
	assert_int_equal(sc_explain(b, NULL, NULL, &ex, &r, &err), 0);
	assert_null(sc_verdict(&ex, "page_cache_inflation", 2));
	assert_null(sc_verdict(&ex, "double_counting", 2));
	assert_string_equal(sc_fig_str(sc_verdict(&ex, "path", 2), "path"), "phy");
	explain_free(&ex);
	rec_reader_close(r);
}

static void seed001_comparison_ranks_inflation_first(void **state)
{
	(void)state;
	const char *pa = path_of("001c-file.xiotop"), *pb = path_of("001c-phy.xiotop");
	seed001_file(pa);
	seed001_phy(pb);
	static struct explain a, b;
	struct rec_reader *ra, *rb;
	struct xerr err;
	assert_int_equal(sc_explain(pa, NULL, NULL, &a, &ra, &err), 0);
	assert_int_equal(sc_explain(pb, NULL, NULL, &b, &rb, &err), 0);
	struct ex_compare c;
	struct xerr msg;
	assert_int_equal(explain_compare(&a, NULL, &b, NULL, &c, &msg), 0);
	assert_null(c.a.also_active); /* one domain in each: nothing else to name */
	assert_null(c.b.also_active);
	assert_true(c.ratio > 3.19 && c.ratio < 3.21); /* 256 MiB/s against 80 */
	/* seen: A 4 s per GiB, B 12.8 (difference 8.8); the cache hid 12.5 s per GiB of A's
	 * (drained 12.5 s after its 4 s), so counted to disk A was 3.7 s per GiB slower: CPU
	 * and path share those 3.7, against the difference. One scale: the causes' seconds
	 * as magnitudes are 12.5 + 3.7 = 16.2, the cache's share 12.5 / 16.2. */
	assert_float_equal(c.difference_s_per_gib, 8.8, 0.02);
	assert_string_equal(ex_verdict_key(c.causes[0].id), "page_cache_inflation");
	assert_float_equal(c.causes[0].s_per_gib, 12.5, 0.02);
	assert_float_equal(c.causes[0].share, 12.5 / 16.2, 0.002);
	assert_false(c.causes[0].against);
	assert_float_equal(c.causes_s_per_gib, 16.2, 0.03);
	double sum = 0, signed_sum = 0;
	for (size_t i = 0; i < c.n_causes; i++) {
		assert_true(c.causes[i].share >= 0 && c.causes[i].share <= 1);
		assert_true(i == 0 || c.causes[i].share <= c.causes[i - 1].share);
		if (i)
			assert_true(c.causes[i].against || c.causes[i].s_per_gib == 0);
		sum += c.causes[i].share;
		signed_sum += c.causes[i].s_per_gib;
	}
	assert_true(sum > 0.999 && sum < 1.001);
	assert_float_equal(signed_sum, c.difference_s_per_gib, 1e-9);
	assert_non_null(strstr(sc_compare_text(&c), "How they add up"));
	explain_free(&a);
	explain_free(&b);
	rec_reader_close(ra);
	rec_reader_close(rb);
}

/* Seed 002: the same 900 MiB from a file-backed domain (52 s of dom0 CPU: loop kworkers,
 * flusher, backend) and an LV one (16 s, backend only), one after the other. */
static void seed002_cpu_per_gib(void **state)
{
	(void)state;
	const char *p = path_of("002.xiotop");
	struct scenario sc;
	sc_open(&sc, p, 256 * 1024);
	struct sc_dom *file = sc_add_dom(&sc, 1, "loopback", SC_FILE, "/xen/domu.img", 64 * MiB);
	struct sc_dom *lvm = sc_add_dom(&sc, 3, "lvm", SC_PHY, NULL, 64 * MiB);
	for (unsigned i = 0; i <= 14; i++) {
		struct sc_step f = {0}, l = {0};
		if (i >= 2 && i <= 4) {
			f.guest_wr = f.dirtied = f.phys_wr = f.written_back = 300 * MiB;
			f.cpu_ns[XIO_CPU_BACKEND] = 2000000000;
			f.cpu_ns[XIO_CPU_LOOP] = 9000000000;
			f.cpu_ns[XIO_CPU_WRITEBACK] = 6000000000ull + (i == 4 ? 1000000000ull : 0);
		}
		if (i >= 8 && i <= 10) {
			l.guest_wr = 300 * MiB;
			l.cpu_ns[XIO_CPU_BACKEND] = 16000000000ull / 3 + (i == 10 ? 1 : 0);
		}
		if (i) {
			sc_step(&sc, file, &f);
			sc_step(&sc, lvm, &l);
		}
		sc_append(&sc);
	}
	sc_mark(&sc, "start: iozone -KoMe -s900m -r256k -i0 -i1 -i2", 1.5, "wrap", -1);
	sc_mark(&sc, "end: iozone -KoMe -s900m -r256k -i0 -i1 -i2 (exit 0)", 12.5, "wrap", 0);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	const struct ex_verdict *vf = sc_verdict(&ex, "dom0_cpu_cost", 1);
	const struct ex_verdict *vl = sc_verdict(&ex, "dom0_cpu_cost", 3);
	assert_non_null(vf);
	assert_non_null(vl);
	assert_true(sc_fig(vf, "dom0_cpu_s") > 51.99 && sc_fig(vf, "dom0_cpu_s") < 52.01);
	assert_true(sc_fig(vl, "dom0_cpu_s") > 15.99 && sc_fig(vl, "dom0_cpu_s") < 16.01);
	double per_gib = 52.0 / (900.0 / 1024);
	assert_true(sc_fig(vf, "dom0_cpu_s_per_gib") > per_gib - 0.01);
	assert_true(sc_fig(vf, "dom0_cpu_s_per_gib") < per_gib + 0.01);
	assert_true(sc_fig(vf, "ratio_to_cheapest") > 3.24 &&
	            sc_fig(vf, "ratio_to_cheapest") < 3.26);
	assert_true(sc_fig(vf, "loop_s_per_gib") > 30);
	assert_non_null(strstr(sc_text(&ex, vf), "3.2x what lvm (domain 3)"));
	assert_true(vl->share == 0);                       /* the cheapest */
	assert_true(vf->share > 0.69 && vf->share < 0.70); /* 1 - 16/52 */
	/* both domains moved 900 MiB: a side taken as the busiest names the other one (a
	 * busy dom0 or a second guest is not the subject unseen); a named side names none */
	struct ex_compare c;
	struct xerr msg;
	char *text = NULL;
	size_t text_len = 0;
	assert_int_equal(explain_compare(&ex, NULL, &ex, "3", &c, &msg), 0);
	assert_non_null(c.a.also_active);
	assert_int_not_equal(c.a.also_active->domid, c.a.dom->domid);
	assert_null(c.b.also_active);
	FILE *out = open_memstream(&text, &text_len);
	assert_int_equal(report_compare_text(out, &c), 0);
	fclose(out);
	assert_non_null(strstr(text, "(A is its recording's busiest domain"));
	assert_null(strstr(text, "(B is its recording's busiest domain"));
	free(text);
	/* so does a claim without @DOMAIN, set against the busiest; one naming its domain not */
	struct claim_figures dd = {.wr_bytes = 900ull << 20, .wr_seconds = 10, .wr_rate_bps = 94e6};
	snprintf(dd.file, sizeof(dd.file), "dd.txt");
	snprintf(dd.tool, sizeof(dd.tool), "dd");
	assert_int_equal(explain_add_claim(&ex, &dd, &msg), 0);
	snprintf(dd.domain, sizeof(dd.domain), "3");
	assert_int_equal(explain_add_claim(&ex, &dd, &msg), 0);
	explain_verdicts(&ex);
	assert_int_equal(ex.n_claims, 2);
	uint32_t busiest = ex.claims[0].domid;
	assert_int_equal(ex.claims[0].also_active_domid, busiest == 1 ? 3 : 1);
	assert_int_equal(ex.claims[1].also_active_domid, EX_NO_DOMAIN);
	const struct ex_verdict *cv = sc_verdict(&ex, "claim", busiest);
	assert_non_null(cv);
	assert_non_null(strstr(sc_text(&ex, cv), "(Set against "));
	assert_non_null(strstr(sc_text(&ex, cv), "--claim FILE@DOMAIN names the one meant.)"));
	explain_free(&ex);
	rec_reader_close(r);
}

static void domain_filter_and_window_by_time(void **state)
{
	(void)state;
	const char *p = path_of("001d.xiotop");
	seed001_file(p);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, "+0", "+25", &ex, &r, &err), 0);
	assert_true(ex.win.seconds > 24.99 && ex.win.seconds < 25.01);
	assert_int_equal(ex.doms[0].io.phys_wr_bytes, 1024 * MiB); /* the writeback is inside */
	const char *names[] = {"wsrv-file"};
	assert_int_equal(explain_keep_domains(&ex, names, 1, &err), 0);
	assert_int_equal(ex.n_doms, 1);
	const char *bad[] = {"nosuch"};
	assert_int_equal(explain_keep_domains(&ex, bad, 1, &err), -1);
	assert_int_equal(err.code, REC_ERR_RANGE);
	assert_non_null(strstr(err.msg, "no domain 'nosuch'"));
	explain_free(&ex);
	rec_reader_close(r);
}

static void bad_input(void **state)
{
	(void)state;
	const char *p = path_of("001e.xiotop");
	seed001_file(p);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, "no such mark", NULL, &ex, &r, &err), -1);
	assert_int_equal(err.code, REC_ERR_RANGE);
	assert_non_null(strstr(err.msg, "neither a mark"));
	/* a window with no complete interval */
	assert_int_equal(sc_explain(p, "+3", "+3", &ex, &r, &err), -1);
	assert_int_equal(err.code, REC_ERR_RANGE);
	/* a foreign SQLite file and garbage: rec_open's one sentence */
	const char *foreign = path_of("foreign.db");
	sqlite3 *db;
	assert_int_equal(sqlite3_open(foreign, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (a)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(sc_explain(foreign, NULL, NULL, &ex, &r, &err), -1);
	assert_int_equal(err.code, REC_ERR_FOREIGN);
	const char *garbage = path_of("garbage.xiotop");
	FILE *f = fopen(garbage, "w");
	for (int i = 0; i < 5000; i++)
		fputc((i * 7919) & 0xff, f);
	fclose(f);
	assert_int_equal(sc_explain(garbage, NULL, NULL, &ex, &r, &err), -1);
	assert_int_equal(err.code, REC_ERR_GARBAGE);
	assert_non_null(strstr(err.msg, garbage));
}

/* A partition of a file-backed loop device: vmstat counts each byte twice (loop, then
 * the disk under the file), iostat three times (the partition, its whole loop device, the
 * disk). */
static void partition_counted_three_times_by_iostat(void **state)
{
	(void)state;
	const char *p = path_of("part.xiotop");
	struct scenario sc;
	sc_open(&sc, p, 4 * 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 2, "guest2", SC_PART, "/img/dom2.img", GiB);
	for (unsigned i = 0; i <= 6; i++) {
		struct sc_step st = {0};
		if (i >= 2 && i <= 4)
			st.guest_wr = st.phys_wr = st.dirtied = st.written_back = 64 * MiB;
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	const struct ex_verdict *dc = sc_verdict(&ex, "double_counting", 2);
	assert_non_null(dc);
	assert_true(sc_fig(dc, "vmstat_times") > 1.99 && sc_fig(dc, "vmstat_times") < 2.01);
	assert_true(sc_fig(dc, "iostat_times") > 2.99 && sc_fig(dc, "iostat_times") < 3.01);
	assert_string_equal(sc_fig_str(dc, "path"), "file via loop, partition");
	assert_non_null(strstr(sc_text(&ex, dc), "whole disk"));
	assert_null(sc_verdict(&ex, "page_cache_inflation", 2)); /* written back at once */
	explain_free(&ex);
	rec_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(seed001_inflation_and_double_count),
	    cmocka_unit_test(seed001_comparison_ranks_inflation_first),
	    cmocka_unit_test(seed002_cpu_per_gib),
	    cmocka_unit_test(domain_filter_and_window_by_time),
	    cmocka_unit_test(partition_counted_three_times_by_iostat),
	    cmocka_unit_test(bad_input),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
