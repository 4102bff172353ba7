/* rec_wrap.h - the recorder's pace, and `record -- COMMAND`: the command run, marked and
 * followed to the end of the dirty pages it left.
 *
 * Contract:
 *   - rec_wrap_pacer() is the recorder's pacer (core/loop.h): a sample every -d seconds on
 *     the monotonic clock (no burst after a slow one); --duration ends the recording; a
 *     stop signal (*stop set) takes one last sample (unless one was just taken) and ends.
 *     Signals are let in only while it waits (ppoll with wait_mask), so none is missed
 *     between a check and the sleep; SIGCHLD reaches it through rec_wrap_on_child().
 *   - With a command: rec_wrap_sink() (an interval sink placed after the session's) runs
 *     it once the first sample is stored, marking its start ("start: CMD") and, as it
 *     ends, its end ("end: CMD (exit N)", the exit status: 128 + N for a signal), and says
 *     when it ended and what the recording waits for: by default the dirty pages the
 *     domains held in dom0's page cache as it ended written back (rec_drain.h), at most
 *     the host's writeback bound; with --tail, that many seconds. It says how that ended
 *     and marks it ("drain: ..."). The command is given what a shell gives it (default
 *     signal handling, nothing blocked).
 *   - rec_wrap_finish(): a command still running when the recording ends is passed
 *     SIGTERM when the recorder got one (SIGINT from a terminal reached it already) and
 *     waited for 2 s to mark its end; after a failed recording it is waited for (not the
 *     recorder's to stop), said.
 *   - Messages are notes (xnote); rec_wrap_status() is the command's exit status.
 */
#ifndef XIOTOP_REC_WRAP_H
#define XIOTOP_REC_WRAP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/loop.h"
#include "record/rec_drain.h"
#include "record/rec_session.h"

struct rec_wrap_opts {
	char **argv; /* the command (NULL: none) */
	double delay_s, duration_s;
	double tail_s; /* < 0: until the drain (the default) */
	int64_t drain_bound_ns;
	const volatile sig_atomic_t *stop;
	const sigset_t *wait_mask; /* signals let in while waiting */
	struct rec_session *session;
};

struct rec_wrap {
	struct rec_wrap_opts o;
	pid_t pid;      /* 0: none running */
	char line[200]; /* the command line, for marks and messages */
	int status;     /* its exit status once ended (128 + signal if killed), else -1 */
	int64_t start_ns, next_ns, last_sample_ns;
	int64_t end_ns;      /* CLOCK_MONOTONIC when it ended; -1: running, or none */
	int64_t end_real_ns; /* and the wall clock */
	enum { DRAIN_NONE, DRAIN_BEGIN, DRAIN_WAIT, DRAIN_OVER } drain;
	struct rec_drain d;
};

void rec_wrap_init(struct rec_wrap *w, const struct rec_wrap_opts *o);
/* The SIGCHLD handler the caller installs. */
void rec_wrap_on_child(int sig);
struct interval_sink rec_wrap_sink(struct rec_wrap *w);
struct pacer rec_wrap_pacer(struct rec_wrap *w);
/* failed: the recording failed (the command is waited for); stop_signal: the one that
 * stopped the recorder (0 none). */
void rec_wrap_finish(struct rec_wrap *w, bool failed, int stop_signal);
int rec_wrap_status(const struct rec_wrap *w);

#endif
