/* test_cli_stop.c - the one stop-signal setup: SIGINT, SIGTERM and SIGHUP set
 * cli_stop_signal to their number, and the process lives on to clean up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>

#include "cli/stop.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(each_stop_signal_is_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
