/* test_explain_placement.c - a benchmark's runs placed in the timeline by evidence, and a
 * run that cannot be placed given no rate (issue 43). Expected from what each guest did,
 * written before the change:
 *   - bonnie++ (64 MiB file) in a guest that ran a 64 MiB dd before it, no marks: dd wrote
 *     for 2 s at 32 MiB/s, bonnie++'s block write for 4 s at 16 MiB/s, its rewrite read
 *     and wrote for 4 s, its block read came from the guest's own cache (448 MiB). The
 *     block write is bonnie's stretch (its 4 s, and the rewrite's stretch after it), not
 *     dd's: "likely", by its bytes, its duration and the file's order; its rate matches
 *     the disks'. The block read is in no stretch: not placed, no inflation, no rate
 *     against it, share 0; it fits the guest's memory: its own cache. Before: nothing
 *     said how a run was placed, and an unplaced run was set against the whole window.
 *   - two 64 MiB writes of 2 s each, one claim of a 64 MiB block write at 32 MiB/s: both
 *     stretches fit it; nothing tells which is its: not placed (before: pinned on the
 *     first, by bytes). With the guest's own marks "start bonnie" .. "end bonnie" around
 *     the second: placed there, sure.
 *   - a claim that matches nothing (48 MiB read at 1 GB/s in a window whose guest wrote
 *     48 MiB) is no verdict's first: before, "the tool's rate is 996x what the disks did"
 *     ranked it first.
 *   - marks made in dom0 (xiotop mark "dd start" .. the console's "end dd") place a dd
 *     run, sure. */
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

static char path[64], csv[64];

/* Each second, `mib_s` MiB/s of a phase moving `total` bytes, until it is done. */
static void phase(struct scenario *sc, struct sc_dom *d, uint64_t total, uint64_t mib_s, bool wr,
                  bool rd)
{
	for (uint64_t left = total; left;) {
		uint64_t now = left < mib_s * MiB ? left : mib_s * MiB;
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

/* bonnie++'s CSV line of a 64 MiB run: block write, rewrite, block read in KiB/s ("":
 * not run). */
static void bonnie_csv(const char *bw, const char *rw, const char *br)
{
	snprintf(csv, sizeof(csv), "placement-%d.csv", (int)getpid());
	FILE *f = fopen(csv, "w");
	assert_non_null(f);
	fprintf(f,
	        "1.98,2.00a,guest,1,1796339830,64M,,8192,5,,,%s,%s,%s,%s,,,%s,%s,+++++,+++,,,,,,,,"
	        ",,,,,,,,,,528ms,14868us,24163us,145ms,8048us,26555us,,,,,,\n",
	        bw, bw[0] ? "40" : "", rw, rw[0] ? "30" : "", br, br[0] ? "20" : "");
	fclose(f);
}

static const struct ex_claim *row(const struct explain *ex, const char *run, bool write)
{
	for (size_t i = 0; i < ex->n_claims; i++)
		if (strstr(ex->claims[i].fig.run, run) && ex->claims[i].write == write)
			return &ex->claims[i];
	fail_msg("no row %s", run);
	return NULL;
}

static const struct ex_verdict *claim_verdict(const struct explain *ex, const char *run)
{
	for (size_t i = 0; i < ex->n_verdicts; i++)
		if (!strcmp(ex_verdict_key(ex->verdicts[i].id), "claim") &&
		    strstr(sc_fig_str(&ex->verdicts[i], "run"), run))
			return &ex->verdicts[i];
	fail_msg("no claim verdict %s", run);
	return NULL;
}

static void add(struct explain *ex, const char *arg)
{
	struct xerr err;
	if (explain_add_claim_file(ex, arg, &err))
		fail_msg("%s", err.msg);
}

static void done(struct explain *ex, struct rec_reader *r)
{
	ex_claim_files_free(ex);
	explain_free(ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path), unlink(csv);
}

static void test_bonnie_not_on_dd(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "placement-a-%d.xiotop", (int)getpid());
	struct scenario sc;
	sc_open(&sc, path, 1536 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 2, "guest", SC_PHY, NULL, 448 * MiB);
	sc_append(&sc);
	idle(&sc, 1);
	phase(&sc, d, 64 * MiB, 32, true, false); /* dd: t 1..3 */
	idle(&sc, 2);
	phase(&sc, d, 64 * MiB, 16, true, false); /* bonnie's block write: t 5..9 */
	phase(&sc, d, 64 * MiB, 16, true, true);  /* its rewrite: t 9..13 */
	idle(&sc, 3);                             /* its block read: the guest's cache */
	sc_close(&sc);
	bonnie_csv("16384", "16384", "1000000");
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	add(&ex, csv);
	const struct ex_claim *bw = row(&ex, "block write", true);
	assert_true(bw->located.found);
	assert_int_equal(bw->placed_how, EXS_LIKELY);
	assert_true(bw->placed_by & EXPE_BYTES);
	assert_true(bw->placed_by & EXPE_DURATION);
	assert_true(bw->located.from_s > 4.9 && bw->located.to_s < 9.1); /* not dd's 1..3 */
	assert_true(bw->inflation > 0.9 && bw->inflation < 1.1);
	const struct ex_claim *br = row(&ex, "block read", false);
	assert_false(br->located.found);
	assert_int_equal(br->placed_how, EXS_NOT_PLACED);
	assert_true(br->inflation < 0);
	explain_verdicts(&ex);
	const struct ex_verdict *v = claim_verdict(&ex, "block read");
	assert_true(v->share == 0);
	assert_true(sc_fig(v, "inflation") == -1);           /* null */
	assert_true(sc_fig(v, "observed_phys_bytes") == -1); /* null */
	assert_string_equal(sc_fig_str(v, "placed"), "not placed");
	const char *text = sc_text(&ex, v);
	assert_null(strstr(text, "what the disks did"));
	assert_non_null(strstr(text, "the guest's own cache served them"));
	assert_non_null(strstr(text, "Not placed in the timeline, so no rate is set against it"));
	/* nothing of it left the guest: no mark would place it */
	assert_null(strstr(text, "xenstore-write"));
	const struct ex_verdict *w = claim_verdict(&ex, "block write");
	assert_string_equal(sc_fig_str(w, "placed"), "likely");
	assert_non_null(strstr(sc_text(&ex, w), "placed (likely) by its bytes, its duration"));
	done(&ex, r);
}

/* Two 64 MiB writes of 2 s each; marks (the guest's, when `marked`) around the second. */
static void two_writes(struct explain *ex, struct rec_reader **r, bool marked)
{
	snprintf(path, sizeof(path), "placement-b-%d.xiotop", (int)getpid());
	unlink(path);
	struct scenario sc;
	sc_open(&sc, path, 1536 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 2, "guest", SC_PHY, NULL, 448 * MiB);
	sc_append(&sc);
	idle(&sc, 1);
	phase(&sc, d, 64 * MiB, 32, true, false); /* t 1..3 */
	idle(&sc, 3);
	phase(&sc, d, 64 * MiB, 32, true, false); /* t 6..8 */
	idle(&sc, 3);
	if (marked) {
		sc_mark(&sc, "start bonnie", 5.5, "domain 2", -1);
		sc_mark(&sc, "end bonnie", 8.5, "domain 2", -1);
	}
	sc_close(&sc);
	bonnie_csv("32768", "", ""); /* its rewrite and read not run (-f: empty columns) */
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, ex, r, &err), 0);
	add(ex, csv);
}

static void test_ambiguous_not_placed(void **state)
{
	(void)state;
	static struct explain ex;
	struct rec_reader *r;
	two_writes(&ex, &r, false);
	const struct ex_claim *bw = row(&ex, "block write", true);
	assert_false(bw->located.found);
	assert_int_equal(bw->n_stretches, 2);
	assert_true(bw->inflation < 0);
	explain_verdicts(&ex);
	const struct ex_verdict *v = claim_verdict(&ex, "block write");
	assert_non_null(strstr(sc_text(&ex, v), "nothing tells which is its"));
	/* a mark would tell: said, with the tool's name */
	assert_non_null(
	    strstr(sc_text(&ex, v), "xenstore-write data/xiotop/mark \"start bonnie++\""));
	assert_true(sc_fig(v, "located_from_s") == -1);
	done(&ex, r);
	two_writes(&ex, &r, true);
	bw = row(&ex, "block write", true);
	assert_true(bw->located.found);
	assert_int_equal(bw->placed_how, EXS_SURE);
	assert_true(bw->placed_by & EXPE_GUEST_MARKS);
	/* the window is the guest's marks (5.5 s .. 8.5 s): its second write, 6 s .. 8 s */
	assert_true(bw->located.from_s > 0.4 && bw->located.to_s < 2.6);
	done(&ex, r);
}

/* A read the guest's own cache served, set in a window the guest wrote in. */
static void test_unplaced_not_first(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "placement-c-%d.xiotop", (int)getpid());
	struct scenario sc;
	sc_open(&sc, path, 1536 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 2, "x-lv", SC_PHY, NULL, 448 * MiB);
	sc_append(&sc);
	idle(&sc, 1);
	phase(&sc, d, 48 * MiB, 1, true, false); /* 48 s of slow writes */
	idle(&sc, 2);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	struct claim_figures f = {.rd_bytes = 48 * MiB, .rd_seconds = 0.05};
	snprintf(f.file, sizeof(f.file), "bonnie.txt");
	snprintf(f.tool, sizeof(f.tool), "bonnie++");
	snprintf(f.run, sizeof(f.run), "block read");
	snprintf(f.domain, sizeof(f.domain), "x-lv");
	assert_int_equal(explain_add_claim(&ex, &f, &err), 0);
	explain_verdicts(&ex);
	assert_non_null(sc_verdict(&ex, "path", 2));
	assert_string_not_equal(ex_verdict_key(ex.verdicts[0].id), "claim");
	const struct ex_verdict *v = claim_verdict(&ex, "block read");
	assert_true(v->share == 0);
	assert_null(strstr(sc_text(&ex, v), "x what the disks did"));
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path);
}

/* dom0's own marks (xiotop mark, the console) around a guest's dd, two same writes. */
static void test_dom0_marks_place(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "placement-d-%d.xiotop", (int)getpid());
	struct scenario sc;
	sc_open(&sc, path, 1536 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 2, "guest", SC_PHY, NULL, 448 * MiB);
	sc_append(&sc);
	idle(&sc, 1);
	phase(&sc, d, 64 * MiB, 32, true, false);
	idle(&sc, 3);
	phase(&sc, d, 64 * MiB, 32, true, false);
	idle(&sc, 2);
	sc_mark(&sc, "dd start", 5.5, "cli", -1); /* "start dd" or "dd start" */
	sc_mark(&sc, "end dd", 8.5, "console", -1);
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	struct claim_figures f = {.wr_bytes = 64 * MiB, .wr_seconds = 2};
	snprintf(f.file, sizeof(f.file), "dd.txt");
	snprintf(f.tool, sizeof(f.tool), "dd");
	assert_int_equal(explain_add_claim(&ex, &f, &err), 0);
	assert_true(ex.claims[0].located.found);
	assert_int_equal(ex.claims[0].placed_how, EXS_SURE);
	assert_true(ex.claims[0].placed_by & EXPE_DOM0_MARKS);
	assert_true(ex.claims[0].located.from_s > 5.9);
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bonnie_not_on_dd),
	    cmocka_unit_test(test_ambiguous_not_placed),
	    cmocka_unit_test(test_unplaced_not_first),
	    cmocka_unit_test(test_dom0_marks_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
