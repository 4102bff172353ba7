/* stop.c - the stop signals; see stop.h. */
#include "cli/stop.h"

volatile sig_atomic_t cli_stop_signal;

static void on_stop(int sig)
{
	cli_stop_signal = sig;
}

void cli_catch_stop(void)
{
	struct sigaction sa = {.sa_handler = on_stop};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
