/* test_cli_base.c - cli/'s shared parts: the one stop-signal setup (SIGINT, SIGTERM and
 * SIGHUP set cli_stop_signal to their number, and the process lives on to clean up), and
 * the one place a library failure becomes a line and an exit status (cli/fail.h); with
 * the interval loop handing a source's failure to it instead of printing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/fail.h"
#include "cli/stop.h"
#include "core/loop.h"

static void each_stop_signal_is_kept(void **state)
{
	(void)state;
	cli_catch_stop();
	const int signals[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		cli_stop_signal = 0;
		assert_int_equal(raise(signals[i]), 0);
		assert_int_equal(cli_stop_signal, signals[i]);
	}
	cli_stop_signal = 0;
}

static void each_kind_has_its_exit_status(void **state)
{
	(void)state;
	struct xerr e = {0};
	assert_int_equal(cli_fail(&e), 0);
	xerr_set(&e, XERR_INPUT, "%s is corrupt", "a.xrec");
	assert_string_equal(e.msg, "a.xrec is corrupt");
	assert_int_equal(cli_fail(&e), 2);
	xerr_set(&e, XERR_PREREQ, "needs root");
	assert_int_equal(cli_fail(&e), 2);
	xerr_set(&e, XERR_RUNTIME, "cannot read counters");
	assert_int_equal(cli_fail(&e), 1);
	xerr_set(&e, XERR_NOMEM, "out of memory");
	assert_int_equal(cli_fail(&e), 1);
	xerr_set(NULL, XERR_NOMEM, "nowhere"); /* a caller that wants no sentence */
}

/* A recording-like source: one good sample, then a failure with its sentence. */
struct failing {
	int handed;
	bool has_why;
};

static int failing_next(void *ctx, struct xio_sample *out)
{
	struct failing *f = ctx;
	if (f->handed++ == 1)
		return SOURCE_FAILED;
	memset(out, 0, sizeof(*out));
	out->monotonic_ns = (uint64_t)f->handed * 1000000000ull;
	return 0;
}

static const char *failing_why(void *ctx)
{
	(void)ctx;
	return "run.xrec is corrupt: sample 1 is incomplete";
}

static void the_loop_hands_the_failure_over(void **state)
{
	(void)state;
	struct failing f = {.has_why = true};
	struct sample_source src = {
	    .ctx = &f, .next = failing_next, .fail_status = 2, .why = failing_why};
	struct xerr err = {0};
	struct loop l = {.src = &src, .err = &err};
	assert_int_equal(interval_loop(&l), 2);
	assert_int_equal(err.kind, XERR_INPUT);
	assert_string_equal(err.msg, "run.xrec is corrupt: sample 1 is incomplete");

	struct failing quiet = {0};
	struct sample_source mute = {.ctx = &quiet, .next = failing_next, .fail_status = 1};
	struct xerr none = {0};
	l = (struct loop){.src = &mute, .err = &none};
	assert_int_equal(interval_loop(&l), 1);
	assert_int_equal(none.kind, XERR_NONE); /* no why: nothing to say */
}

/* A sink whose output fails at the first interval, saying why. */
struct broken_sink {
	struct xerr err;
	int intervals;
};

static int broken_interval(void *ctx, struct model_interval *m, unsigned long index)
{
	(void)m;
	(void)index;
	struct broken_sink *b = ctx;
	b->intervals++;
	xerr_set(&b->err, XERR_RUNTIME, "cannot write the output: No space left on device");
	return 1;
}

static const struct xerr *broken_failure(void *ctx)
{
	return &((struct broken_sink *)ctx)->err;
}

static void a_sinks_failure_is_handed_over(void **state)
{
	(void)state;
	struct failing f = {0};
	struct sample_source src = {.ctx = &f, .next = failing_next, .fail_status = 1};
	struct broken_sink b = {0};
	struct interval_sink sink = {
	    .ctx = &b, .interval = broken_interval, .failure = broken_failure};
	struct xerr err = {0};
	struct loop l = {.src = &src, .sinks = &sink, .n_sinks = 1, .err = &err};
	f.handed = -1; /* two good samples: one interval */
	assert_int_equal(interval_loop(&l), 1);
	assert_int_equal(b.intervals, 1);
	assert_int_equal(err.kind, XERR_RUNTIME);
	assert_string_equal(err.msg, "cannot write the output: No space left on device");
}

/* Notes go to the one sink cli/ installs, and nowhere without one. */
static char noted[600];
static int n_noted;
static void keep_note(const char *sentence)
{
	snprintf(noted, sizeof(noted), "%s", sentence);
	n_noted++;
}

static void notes_go_to_the_installed_sink(void **state)
{
	(void)state;
	xnote("dropped: %d", 1);
	assert_int_equal(n_noted, 0);
	xnote_set_sink(keep_note);
	xnote("hook %s not active (%s)", "iter/task", "not loaded");
	assert_int_equal(n_noted, 1);
	assert_string_equal(noted, "hook iter/task not active (not loaded)");
	xnote_set_sink(NULL);
	xnote("dropped again");
	assert_int_equal(n_noted, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(each_stop_signal_is_kept),
	    cmocka_unit_test(each_kind_has_its_exit_status),
	    cmocka_unit_test(the_loop_hands_the_failure_over),
	    cmocka_unit_test(a_sinks_failure_is_handed_over),
	    cmocka_unit_test(notes_go_to_the_installed_sink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
