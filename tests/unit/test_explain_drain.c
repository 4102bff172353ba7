/* test_explain_drain.c - each run's own drain. Expected verdicts written from the physics
 * first:
 *   - a file-backed guest dirties 100 MiB in dom0's cache in a 4 s run (nothing written
 *     back in it) and goes on dirtying 25 MiB a second after it while dom0 writes back
 *     50 MiB a second: first in, first out, the run's own 100 MiB are on disk 2 s after
 *     it, so its drain is 2 s, its bytes were counted twice once each (vmstat 2.00x: its
 *     loop bio, then its writeback; never the next run's loop bios nor its writeback) and
 *     page_cache_inflation's factor is (4 + 2) / 4 = 1.5. (The drain taken until dom0's
 *     whole backlog fell said 4 s, 4.00x and 2.0.)
 *   - the same run in a recording that ends 1 s after it, before dom0 wrote anything back:
 *     no page_cache_inflation and no double_counting built on that part of the drain; each
 *     is named not given, saying the recording ended before the drain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <unistd.h>

#include "test_files.h"
#include "explain_scenario.h"

TEST_SCRATCH_DIR("explain-drain")

/* The run (samples 1-4), then `tail` seconds of the next run and of dom0's writeback. */
static void run_then_next(const char *path, unsigned tail, uint64_t written_back)
{
	struct scenario sc;
	sc_open(&sc, path, 4 * 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 3, "file", SC_FILE, "/images/f.img", 8 * GiB);
	for (unsigned i = 0; i <= 4 + tail; i++) {
		struct sc_step st = {0};
		if (i >= 1) /* the run, then the next one: 25 MiB a second into dom0's cache */
			st.guest_wr = st.dirtied = 25 * MiB;
		if (i >= 5) /* dom0 writes back after the run */
			st.phys_wr = st.written_back = written_back;
		if (i)
			sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_mark(&sc, "start: run", 0, "wrap", -1);
	sc_mark(&sc, "end: run (exit 0)", 4.0, "wrap", 0);
	sc_close(&sc);
}

static const char *not_given(const struct explain *ex, const char *id)
{
	for (size_t i = 0; i < ex->n_not_given; i++)
		if (!strcmp(ex->not_given[i].key, id))
			return ex->not_given[i].text;
	return NULL;
}

static void drain_is_the_runs_own(void **state)
{
	(void)state;
	const char *p = path_of("fifo.xiotop");
	run_then_next(p, 4, 50 * MiB);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	const struct ex_domain *d = &ex.doms[0];
	assert_int_equal(d->domid, 3);
	assert_int_equal(d->backlog_end, 100 * MiB);
	assert_true(d->drained);
	assert_float_equal(d->drain_s, 2.0, 1e-6);
	assert_int_equal(d->after_double_counted, 100 * MiB);
	assert_int_equal(d->after_vmstat_wr, 100 * MiB);
	const struct ex_verdict *dc = sc_verdict(&ex, "double_counting", 3);
	assert_non_null(dc);
	assert_true(sc_fig(dc, "double_counted_bytes") == 100.0 * MiB);
	assert_float_equal(sc_fig(dc, "vmstat_times"), 2.0, 1e-9);
	const struct ex_verdict *pci = sc_verdict(&ex, "page_cache_inflation", 3);
	assert_non_null(pci);
	assert_float_equal(sc_fig(pci, "inflation_factor"), 1.5, 1e-6);
	assert_float_equal(sc_fig(pci, "drain_seconds"), 2.0, 1e-6);
	explain_free(&ex);
	rec_reader_close(r);
}

static void drain_cut_short(void **state)
{
	(void)state;
	const char *p = path_of("cut.xiotop");
	run_then_next(p, 1, 0);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r, &err), 0);
	assert_false(ex.doms[0].drained);
	assert_null(sc_verdict(&ex, "page_cache_inflation", 3));
	assert_null(sc_verdict(&ex, "double_counting", 3));
	const char *why = not_given(&ex, "page_cache_inflation");
	assert_non_null(why);
	assert_non_null(strstr(why, "the recording ended 1.0 s after the run"));
	assert_non_null(strstr(why, "the drain was cut short"));
	why = not_given(&ex, "double_counting");
	assert_non_null(why);
	assert_non_null(strstr(why, "the drain was cut short"));
	explain_free(&ex);
	rec_reader_close(r);
}

int main(void)
{
	(void)sc_fig_str; /* explain_scenario.h's, no figure here is text */
	setenv("TZ", "UTC", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(drain_is_the_runs_own),
	    cmocka_unit_test(drain_cut_short),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
