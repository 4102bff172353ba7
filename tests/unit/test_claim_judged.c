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

#include "explain/claim_figures.h"
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
	struct claim_figures f[EX_MAX_CLAIMS];
	size_t n;
	char err[600];
	int rc = claim_arg_figures(arg, f, EX_MAX_CLAIMS, &n, err, sizeof(err));
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = explain_add_claim(ex, &f[i], err, sizeof(err));
	if (rc)
		print_error("%s\n", err);
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
		if (!strcmp(ex.verdicts[i].id, "claim") &&
		    !strcmp(sc_fig_str(&ex.verdicts[i], "run"), "CentOS block write"))
			v = &ex.verdicts[i];
	assert_non_null(v);
	const char *text = v ? v->text : "";
	assert_non_null(strstr(text, "block write"));
	assert_string_equal(sc_fig_str(v, "direction"), "write");
	assert_true(sc_fig(v, "inflation") > 0.9 && sc_fig(v, "inflation") < 1.1);
	assert_non_null(strstr(text, "matches what the disks did"));
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
	assert_string_equal(ex.claims[0].direction_from, "the timeline");
	assert_true(ex.claims[0].located.found);
	assert_false(ex.claims[1].write);
	assert_true(ex.claims[1].located.found);
	assert_true(ex.claims[1].located.from_s > ex.claims[0].located.to_s);
	explain_verdicts(&ex);
	const struct ex_verdict *v = sc_verdict(&ex, "claim", 4);
	assert_non_null(v);
	const char *text = v ? v->text : "";
	assert_non_null(strstr(text, "the tool does not say which way, the timeline does"));
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
		if (!strcmp(ex.verdicts[i].id, "claim") &&
		    !strcmp(sc_fig_str(&ex.verdicts[i], "run"), "guest-64M block read"))
			named = strstr(ex.verdicts[i].text,
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
	if (!strstr(v->text, "was 256.0 MiB (bonnie++'s own file size, from its output)"))
		print_error("%s\n", v->text);
	assert_non_null(
	    strstr(v->text, "was 256.0 MiB (bonnie++'s own file size, from its output)"));
	explain_free(&ex);
	rec_reader_close(r);

	lv_bonnie(&ex, &r, 256, false); /* no claim: what the guest moved, 512 MiB */
	assert_int_equal(ex.doms[0].guest_wr, 512 * MiB);
	assert_null(sc_verdict(&ex, "test_size_vs_memory", 7));
	explain_free(&ex);
	rec_reader_close(r);

	lv_bonnie(&ex, &r, 768, true);
	assert_null(sc_verdict(&ex, "test_size_vs_memory", 7));
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
	    cmocka_unit_test(test_bonnie_small_file),
	    cmocka_unit_test(test_size_rule_from_claim),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
