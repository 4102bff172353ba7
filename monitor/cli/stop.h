/* stop.h - the stop signals, caught the same way by every command.
 *
 * Contract: cli_catch_stop() makes SIGINT, SIGTERM and SIGHUP (the terminal went away:
 * stop as on Ctrl-C) set cli_stop_signal to the signal's number instead of killing the
 * process, so the loop that polls it (core/loop.h's pacers, the console) ends after the
 * interval in flight and the command cleans up. cli_stop_signal stays 0 until then.
 * Masking them around a wait (record's ppoll, serve's threads) is the caller's.
 */
#ifndef XIOTOP_CLI_STOP_H
#define XIOTOP_CLI_STOP_H

#include <signal.h>

extern volatile sig_atomic_t cli_stop_signal;

void cli_catch_stop(void);

#endif
