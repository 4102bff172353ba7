/* test_claim_judged.c - claims' runs set against a recording (explain_add_claim): each
 * bonnie++ phase judged over its own stretch of the domain's timeline, and a dd log of
 * two runs whose command lines were not pasted given its directions by the timeline. The
 * expected figures are the scenario's own (what the guest did each second). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/claim_list.h"
#include "explain/tool_claims.h"
#include "explain_scenario.h"

static char path[64];

static const char *fixture(const char *name)
{
	static char buf[1024];
	const char *dir = getenv("XIOTOP_FIXTURES");
	snprintf(buf, sizeof(buf), "%s/claims/%s", dir ? dir : "tests/fixtures", name);
	return buf;
}

/* Each second, `kib_s` KiB/s of a phase moving `total` bytes, until it is done. */
static void phase(struct scenario *sc, struct sc_dom *d, uint64_t total, double kib_s, bool wr,
                  bool rd)
{
	uint64_t per_s = (uint64_t)(kib_s * 1024);
	for (uint64_t left = total; left;) {
		uint64_t now = left < per_s ? left : per_s;
		struct sc_step st = {0};
		st.guest_wr = wr ? now : 0;
		st.guest_rd = rd ? now : 0;
		st.cpu_ns[XIO_CPU_BACKEND] = now / 128;
		sc_step(sc, d, &st);
		sc_append(sc);
		left -= now;
	}
}

static void idle(struct scenario *sc, unsigned seconds)
{
	for (unsigned i = 0; i < seconds; i++)
		sc_append(sc);
}

static const struct ex_claim *claim_of(const struct explain *ex, const char *run, bool write)
{
	for (size_t i = 0; i < ex->n_claims; i++)
		if (!strcmp(ex->claims[i].fig.run, run) && ex->claims[i].write == write)
			return &ex->claims[i];
	return NULL;
}

static void add_file(struct explain *ex, const char *arg)
{
	struct xerr err;
	int rc = explain_add_claim_file(ex, arg, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
}

/* Seed 000's bonnie++ in a domU on an LV (no dom0 cache): each phase at the rate bonnie++
 * printed. Before, its block write rate was set against every write of the window
 * (block write + rewrite over 82 s): "1.5x what the disks did", with no cache involved. */
static void test_bonnie_lv_phases(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "claim-judged-%d.xiotop", (int)getpid());
	struct scenario sc;
	sc_open(&sc, path, 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 3, "CentOS", SC_PHY, NULL, GiB);
	sc_append(&sc);
	idle(&sc, 3);
	phase(&sc, d, 2 * GiB, 78784, true, false);  /* block write */
	phase(&sc, d, 2 * GiB, 48588, true, true);   /* rewrite: reads and writes */
	phase(&sc, d, 2 * GiB, 190338, false, true); /* block read */
	idle(&sc, 3);
	sc_mark(&sc, "bonnie++ -s 2G, by hand", 1.0, "cli", -1); /* a label, not a window */
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	char arg[1100];
	snprintf(arg, sizeof(arg), "%s@3", fixture("seed000-domu-lvm-bonnie.txt"));
	add_file(&ex, arg);
	assert_int_equal(ex.n_claims, 4);
	const struct ex_claim *bw = claim_of(&ex, "CentOS block write", true);
	assert_non_null(bw);
	assert_true(bw->located.found);
	/* the scenario's block write: seconds 3 .. 30 (2 GiB at 78784 KiB/s = 26.6 s) */
	assert_true(fabs(bw->located.from_s - 3) < 1.01 && fabs(bw->located.to_s - 30) < 1.01);
	assert_int_equal(bw->located.guest_bytes, 2 * GiB);
	assert_true(bw->inflation > 0.9 && bw->inflation < 1.1);
	const struct ex_claim *rw = claim_of(&ex, "CentOS rewrite (write)", true);
	assert_non_null(rw);
	assert_true(rw->located.found && rw->located.from_s > bw->located.to_s - 1.01);
	assert_true(rw->inflation > 0.9 && rw->inflation < 1.1);
	const struct ex_claim *br = claim_of(&ex, "CentOS block read", false);
	assert_non_null(br);
	assert_true(br->located.found);
	assert_true(br->inflation > 0.9 && br->inflation < 1.1);
	explain_verdicts(&ex);
	const struct ex_verdict *v = NULL;
	for (size_t i = 0; i < ex.n_verdicts && !v; i++)
		if (!strcmp(ex_verdict_key(ex.verdicts[i].id), "claim") &&
		    !strcmp(sc_fig_str(&ex.verdicts[i], "run"), "CentOS block write"))
			v = &ex.verdicts[i];
	assert_non_null(v);
	const char *text = v ? sc_text(&ex, v) : "";
	assert_non_null(strstr(text, "block write"));
	assert_string_equal(sc_fig_str(v, "direction"), "write");
	assert_true(sc_fig(v, "inflation") > 0.9 && sc_fig(v, "inflation") < 1.1);
	assert_non_null(strstr(text, "matches what the disks did"));
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path);
}

/* A dd log with the write run and the read run, no command lines: the timeline gives
 * each its direction (before: both taken as writes, the read one matching nothing). */
static void test_dd_undirected(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "claim-judged-dd-%d.xiotop", (int)getpid());
	struct scenario sc;
	sc_open(&sc, path, 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 4, "guest", SC_PHY, NULL, GiB);
	sc_append(&sc);
	idle(&sc, 2);
	phase(&sc, d, 64 * MiB, 32 * 1024, true, false);
	idle(&sc, 4);
	phase(&sc, d, 64 * MiB, 64 * 1024, false, true);
	idle(&sc, 2);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	add_file(&ex, fixture("gnu-dd-two-runs-no-command.txt"));
	assert_int_equal(ex.n_claims, 2);
	assert_true(ex.claims[0].write);
	assert_int_equal(ex.claims[0].direction_from, EXD_TIMELINE);
	assert_true(ex.claims[0].located.found);
	assert_false(ex.claims[1].write);
	assert_true(ex.claims[1].located.found);
	assert_true(ex.claims[1].located.from_s > ex.claims[0].located.to_s);
	explain_verdicts(&ex);
	const struct ex_verdict *v = sc_verdict(&ex, "claim", 4);
	assert_non_null(v);
	const char *text = v ? sc_text(&ex, v) : "";
	assert_non_null(strstr(text, "the tool does not say which way, the timeline does"));
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path);
}

/* The Xen test's dd on an LV: a 0.54 s synced write of 48 MiB, then a 0.33 s read, both
 * starting in one second of the sampling, the write's bytes 64 KiB over the claim (its
 * journal), the read's exact, the read running into the next second. Before, the tie on
 * the start went to the nearer in bytes: run 1 taken as the read, run 2 as the write. */
static void test_dd_runs_in_one_interval(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "claim-judged-dd1-%d.xiotop", (int)getpid());
	struct scenario sc;
	sc_open(&sc, path, 1536 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 2, "x-lv", SC_PHY, NULL, 448 * MiB);
	sc_append(&sc);
	idle(&sc, 2);
	struct sc_step both = {.guest_wr = 48 * MiB + 64 * 1024, .guest_rd = 24 * MiB};
	both.phys_wr = both.guest_wr;
	both.phys_rd = both.guest_rd;
	sc_step(&sc, d, &both);
	sc_append(&sc);
	struct sc_step rest = {.guest_rd = 24 * MiB, .phys_rd = 24 * MiB};
	sc_step(&sc, d, &rest);
	sc_append(&sc);
	idle(&sc, 2);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	char arg[1100];
	snprintf(arg, sizeof(arg), "%s@x-lv", fixture("xen-gnu-dd-sync-then-read.txt"));
	add_file(&ex, arg);
	assert_int_equal(ex.n_claims, 2);
	assert_true(ex.claims[0].write);
	assert_false(ex.claims[1].write);
	/* 0.54 s synced to the disk, seen over a whole second: no inflation can be told
	 * (before: "1.7x what the disks did", "the guest's own cache") */
	assert_true(ex.claims[0].below_resolution);
	assert_true(ex.claims[0].inflation < 0);
	explain_verdicts(&ex);
	for (size_t i = 0; i < ex.n_verdicts; i++)
		if (!strcmp(ex_verdict_key(ex.verdicts[i].id), "claim") && ex.verdicts[i].share > 0)
			fail_msg("a claim below the resolution has a share: %s",
			         sc_text(&ex, &ex.verdicts[i]));
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path);
}

/* bonnie++ -s 64 in a guest of 448 MiB: its writes reach dom0, its reads never do (the
 * guest's own cache). Before, the read claim was hedged "outside the window, or the
 * guest's own cache"; now the file is set against the guest's memory. */
static void test_bonnie_small_file(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "claim-judged-small-%d.xiotop", (int)getpid());
	struct scenario sc;
	sc_open(&sc, path, 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 6, "guest", SC_PHY, NULL, 448 * MiB);
	sc_append(&sc);
	idle(&sc, 2);
	phase(&sc, d, 64 * MiB, 32 * 1024, true, false); /* block write */
	phase(&sc, d, 64 * MiB, 32 * 1024, true, false); /* rewrite: its reads from the cache */
	idle(&sc, 2);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	add_file(&ex, fixture("bonnie-2.00a-64M.txt"));
	const struct ex_claim *bw = claim_of(&ex, "guest-64M block write", true);
	const struct ex_claim *br = claim_of(&ex, "guest-64M block read", false);
	assert_non_null(bw);
	assert_non_null(br);
	assert_true(bw->located.found);
	assert_int_equal(bw->located.guest_bytes, 64 * MiB);
	assert_false(br->located.found);
	explain_verdicts(&ex);
	bool named = false;
	for (size_t i = 0; i < ex.n_verdicts; i++)
		if (!strcmp(ex_verdict_key(ex.verdicts[i].id), "claim") &&
		    !strcmp(sc_fig_str(&ex.verdicts[i], "run"), "guest-64M block read"))
			named = strstr(sc_text(&ex, &ex.verdicts[i]),
			               "fits in the guest's 448.0 MiB of memory, "
			               "so the guest's own cache served them") != NULL;
	assert_true(named);
	/* "+++++": bonnie++ gives no rate, so no seconds either: null, never 0 */
	const struct ex_verdict *v = NULL;
	for (size_t i = 0; i < ex.n_verdicts && !v; i++)
		if (!strcmp(sc_fig_str(&ex.verdicts[i], "run"), "guest-64M block read"))
			v = &ex.verdicts[i];
	assert_true(sc_fig(v, "claimed_seconds") == -1); /* sc_fig: -1 is null */
	assert_true(sc_fig(v, "claimed_rate_bytes_per_s") == -1);
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path);
}

/* bonnie++ -s FILE_MIB -f in a guest of 256 MiB on an LV (phy:), on a dom0 of 12 GiB:
 * block write at 64 MiB/s, rewrite at 32 MiB/s (reads and writes), block read at
 * 128 MiB/s; the claim is bonnie++'s CSV line. */
static void lv_bonnie(struct explain *ex, struct rec_reader **r, unsigned file_mib, bool claim)
{
	snprintf(path, sizeof(path), "claim-judged-size-%d.xiotop", (int)getpid());
	unlink(path); /* the previous case's */
	struct scenario sc;
	sc_open(&sc, path, 12 * 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 7, "lv256", SC_PHY, NULL, 256 * MiB);
	sc_append(&sc);
	idle(&sc, 2);
	uint64_t file = (uint64_t)file_mib * MiB;
	phase(&sc, d, file, 64 * 1024, true, false);  /* block write */
	phase(&sc, d, file, 32 * 1024, true, true);   /* rewrite */
	phase(&sc, d, file, 128 * 1024, false, true); /* block read */
	idle(&sc, 2);
	sc_close(&sc);
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, ex, r, &err), 0);
	if (claim) {
		char csv[64];
		snprintf(csv, sizeof(csv), "claim-judged-size-%d.csv", (int)getpid());
		FILE *f = fopen(csv, "w");
		assert_non_null(f);
		fprintf(f,
		        "1.98,2.00a,lv256,1,1796339830,%uM,,8192,5,,,65536,40,32768,30,,,131072,"
		        "20,+++++,+++,,,,,,,,,,,,,,,,,,528ms,14868us,24163us,145ms,8048us,26555us,"
		        ",,,,,\n",
		        file_mib);
		fclose(f);
		char arg[128];
		snprintf(arg, sizeof(arg), "%s@7", csv);
		add_file(ex, arg);
		unlink(csv);
	}
	explain_verdicts(ex);
}

/* The benchmark's own size rule, from its file: expected from the physics first.
 *   -s 256M on a 256 MiB guest on phy: the file is 1x the guest's memory, under bonnie's
 *     2x: a cache test, test_size_vs_memory from the claim's 256 MiB, cache 256 MiB (dom0
 *     caches nothing on phy:). The guest moved 512 MiB each way (block + rewrite), which
 *     the old rule took as the test's size: 2x, no verdict; without a claim it still is.
 *   -s 768M: 3x the guest's memory; dom0's 12 GiB is not on a phy: path, so no verdict
 *     (2 x (dom0 + guest) would have called it one). */
static void test_size_rule_from_claim(void **state)
{
	(void)state;
	static struct explain ex;
	struct rec_reader *r;
	lv_bonnie(&ex, &r, 256, true);
	const struct ex_verdict *v = sc_verdict(&ex, "test_size_vs_memory", 7);
	assert_non_null(v);
	assert_true(sc_fig(v, "test_bytes") == 256 * MiB);
	assert_string_equal(sc_fig_str(v, "test_bytes_from"), "claim");
	assert_true(sc_fig(v, "cache_bytes") == 256 * MiB);
	assert_true(sc_fig(v, "dom0_caches_path") == 0);
	assert_true(sc_fig(v, "test_to_cache") == 1);
	if (!strstr(sc_text(&ex, v), "was 256.0 MiB (bonnie++'s own file size, from its output)"))
		print_error("%s\n", sc_text(&ex, v));
	assert_non_null(
	    strstr(sc_text(&ex, v), "was 256.0 MiB (bonnie++'s own file size, from its output)"));
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);

	lv_bonnie(&ex, &r, 256, false); /* no claim: what the guest moved, 512 MiB */
	assert_int_equal(ex.doms[0].io.guest_wr_bytes, 512 * MiB);
	assert_null(sc_verdict(&ex, "test_size_vs_memory", 7));
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);

	lv_bonnie(&ex, &r, 768, true);
	assert_null(sc_verdict(&ex, "test_size_vs_memory", 7));
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path);
}

/* fio --end_fsync=1 in a guest whose disk is a file on loop (the Xen test's phase X):
 * 48 MiB written in 3 s while dom0's cache took them, 16 MiB on the disk by then, the
 * closing fsync flushing the other 32 MiB in the next second, the guest idle. fio's rate
 * (14.4 MiB/s over 3.34 s) includes that fsync. Before, only the run's own 16 MiB were
 * set against it: "2.7x what the disks did", for a tool whose data was on disk at its
 * end. */
static void test_fio_end_fsync_on_disk(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "claim-judged-fio-%d.xiotop", (int)getpid());
	struct scenario sc;
	sc_open(&sc, path, 1536 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 1, "x-file", SC_FILE, "/mnt/x/x-file.img", 448 * MiB);
	sc_append(&sc);
	idle(&sc, 2);
	for (int i = 0; i < 3; i++) {
		struct sc_step st = {.guest_wr = 16 * MiB, .dirtied = 16 * MiB};
		if (i == 2)
			st.phys_wr = st.written_back = 16 * MiB;
		sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	/* the guest's journal commit after the fsync: 14 KiB, not a new run */
	struct sc_step flush = {
	    .guest_wr = 14 * 1024, .phys_wr = 32 * MiB, .written_back = 32 * MiB};
	sc_step(&sc, d, &flush);
	sc_append(&sc);
	idle(&sc, 3);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	char arg[1100];
	snprintf(arg, sizeof(arg), "%s@1", fixture("xen-fio-end-fsync.txt"));
	add_file(&ex, arg);
	assert_int_equal(ex.n_claims, 1);
	const struct ex_claim *c = &ex.claims[0];
	assert_true(c->write && c->located.found);
	assert_int_equal(c->located.guest_bytes, 48 * MiB);
	assert_int_equal(c->observed_phys, 48 * MiB);                         /* its fsync's too */
	assert_true(fabs(c->located.on_disk_s - c->located.to_s - 1) < 0.01); /* one more second */
	assert_true(c->inflation > 1.0 && c->inflation < 1.25);
	explain_verdicts(&ex);
	for (size_t i = 0; i < ex.n_verdicts; i++)
		if (!strcmp(ex_verdict_key(ex.verdicts[i].id), "claim"))
			assert_non_null(
			    strstr(sc_text(&ex, &ex.verdicts[i]), "until it was on disk"));
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path);
}

/* A guest that marked its tools itself ("start dd" ... "end bonnie" in its xenstore
 * node): dd read 48 MiB from its disk, then bonnie++ read its 48 MiB file from the guest's
 * own cache (nothing reached dom0). Before, bonnie's block read was located on dd's read,
 * the only 48 MiB of reads in the window. */
static void test_claim_within_tool_marks(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "claim-judged-marks-%d.xiotop", (int)getpid());
	struct scenario sc;
	sc_open(&sc, path, 1536 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 2, "x-lv", SC_PHY, NULL, 448 * MiB);
	sc_append(&sc);
	idle(&sc, 1);
	phase(&sc, d, 48 * MiB, 24 * 1024, true, false); /* dd write, 2 s */
	phase(&sc, d, 48 * MiB, 24 * 1024, false, true); /* dd read, 2 s */
	idle(&sc, 2);
	phase(&sc, d, 48 * MiB, 24 * 1024, true, false); /* bonnie's writes */
	idle(&sc, 3);                                    /* its reads: the guest's cache */
	sc_mark(&sc, "start dd", 1.5, "domain 2", -1);
	sc_mark(&sc, "end dd", 5.5, "domain 2", -1);
	sc_mark(&sc, "start bonnie", 7.5, "domain 2", -1);
	sc_mark(&sc, "end bonnie", 12.5, "domain 2", -1);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	struct claim_figures f = {.rd_bytes = 48 * MiB, .rd_seconds = 0.05, .file_bytes = 48 * MiB};
	snprintf(f.tool, sizeof(f.tool), "bonnie++");
	snprintf(f.run, sizeof(f.run), "block read");
	snprintf(f.domain, sizeof(f.domain), "x-lv");
	struct xerr msg;
	assert_int_equal(explain_add_claim(&ex, &f, &msg), 0);
	struct claim_figures dd = {.rd_bytes = 48 * MiB, .rd_seconds = 2};
	snprintf(dd.tool, sizeof(dd.tool), "dd");
	snprintf(dd.domain, sizeof(dd.domain), "x-lv");
	assert_int_equal(explain_add_claim(&ex, &dd, &msg), 0);
	assert_int_equal(ex.n_claims, 2);
	assert_false(ex.claims[0].located.found); /* not dd's read */
	assert_true(ex.claims[1].located.found);  /* dd's, within its own marks */
	assert_true(ex.claims[1].located.from_s < 4.01);
	explain_verdicts(&ex);
	for (size_t i = 0; i < ex.n_verdicts; i++)
		if (!strcmp(ex_verdict_key(ex.verdicts[i].id), "claim") &&
		    !strcmp(sc_fig_str(&ex.verdicts[i], "tool"), "bonnie++"))
			assert_non_null(
			    strstr(sc_text(&ex, &ex.verdicts[i]), "guest's own cache served them"));
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bonnie_lv_phases),
	    cmocka_unit_test(test_dd_undirected),
	    cmocka_unit_test(test_dd_runs_in_one_interval),
	    cmocka_unit_test(test_bonnie_small_file),
	    cmocka_unit_test(test_size_rule_from_claim),
	    cmocka_unit_test(test_fio_end_fsync_on_disk),
	    cmocka_unit_test(test_claim_within_tool_marks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
