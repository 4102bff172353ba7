/* rec_wrap.c - the recorder's pace and its wrapped command; see rec_wrap.h. */
#include "record/rec_wrap.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/when.h"

#define MiB (1024.0 * 1024.0)

static volatile sig_atomic_t child_changed; /* SIGCHLD arrived */

void rec_wrap_on_child(int sig)
{
	(void)sig;
	child_changed = 1;
}

void rec_wrap_init(struct rec_wrap *w, const struct rec_wrap_opts *o)
{
	memset(w, 0, sizeof(*w));
	w->o = *o;
	w->status = -1;
	w->end_ns = -1;
	size_t used = 0;
	for (int i = 0; o->argv && o->argv[i] && used + 1 < sizeof(w->line); i++) {
		int n = snprintf(w->line + used, sizeof(w->line) - used, "%s%s", i ? " " : "",
		                 o->argv[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	w->start_ns = w->next_ns = clock_mono_ns();
}

int rec_wrap_status(const struct rec_wrap *w)
{
	return w->status;
}

static int spawn(struct rec_wrap *w)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* The command gets what it would get from a shell: default signal handling,
		 * nothing blocked (exec keeps both masks and ignored signals). */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		sigprocmask(SIG_SETMASK, w->o.wait_mask, NULL);
		execvp(w->o.argv[0], w->o.argv);
		fprintf(stderr, "xiotop record: cannot run %s: %s\n", w->o.argv[0],
		        strerror(errno));
		_exit(127);
	}
	w->pid = pid;
	return 0;
}

/* Collects the command if it ended; marks its end. True if it ended now. */
static bool reap(struct rec_wrap *w)
{
	int status;
	if (!w->pid || waitpid(w->pid, &status, WNOHANG) != w->pid)
		return false;
	w->pid = 0;
	w->end_ns = clock_mono_ns();
	w->end_real_ns = clock_real_ns();
	char label[256];
	if (WIFSIGNALED(status)) {
		w->status = 128 + WTERMSIG(status);
		snprintf(label, sizeof(label), "end: %.200s (killed by signal %d)", w->line,
		         WTERMSIG(status));
	} else {
		w->status = WEXITSTATUS(status);
		snprintf(label, sizeof(label), "end: %.200s (exit %d)", w->line, w->status);
	}
	rec_session_mark(w->o.session, label, w->end_real_ns, "wrap", w->status);
	w->drain = DRAIN_BEGIN;
	return true;
}

/* "ls ended at 14:02:03 CET (exit 0)" */
static void ended_text(const struct rec_wrap *w, char *buf, size_t len)
{
	char at[64];
	if (when_clock_text(w->end_real_ns, at, sizeof(at)))
		snprintf(at, sizeof(at), "?");
	snprintf(buf, len, "%.200s ended at %s (%s %d)", w->line, at,
	         w->status > 128 ? "killed by signal" : "exit",
	         w->status > 128 ? w->status - 128 : w->status);
}

/* The domains followed, as "1, 3, 7". */
static void domains_text(const struct rec_drain *d, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < d->n && used + 16 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? ", " : "",
		                         (unsigned)d->dom[i].domid);
}

/* The first sample after the end: what the recording waits for, said. */
static void drain_begins(struct rec_wrap *w, const struct xio_sample *cur)
{
	char ended[320], doms[128];
	ended_text(w, ended, sizeof(ended));
	double bound_s = (double)w->o.drain_bound_ns / 1e9;
	w->drain = DRAIN_WAIT;
	if (w->o.tail_s >= 0) {
		xnote("%s; recording %g s more (--tail)", ended, w->o.tail_s);
		return;
	}
	rec_drain_begin(&w->d, cur);
	if (!w->d.counted) {
		xnote("%s; dom0's dirty pages are not counted here: recording %.0f s more, the "
		      "host's writeback bound (vm.dirty_expire_centisecs + "
		      "vm.dirty_writeback_centisecs + %.0f s)",
		      ended, bound_s, (double)REC_DRAIN_MARGIN_NS / 1e9);
		return;
	}
	if (!w->d.backlog) {
		xnote("%s; nothing it left is dirty in dom0's page cache: stopping", ended);
		w->drain = DRAIN_OVER;
		return;
	}
	domains_text(&w->d, doms, sizeof(doms));
	xnote("%s; recording until the %.1f MiB dirty in dom0's page cache (domain%s %s) is "
	      "written back, at most %.0f s (vm.dirty_expire_centisecs + "
	      "vm.dirty_writeback_centisecs + %.0f s)",
	      ended, (double)w->d.backlog / MiB, w->d.n > 1 ? "s" : "", doms, bound_s,
	      (double)REC_DRAIN_MARGIN_NS / 1e9);
}

/* A sample while waiting: the drain done, said and marked. */
static void drain_goes_on(struct rec_wrap *w, const struct xio_sample *cur)
{
	if (w->o.tail_s >= 0)
		return;
	bool done = rec_drain_check(&w->d, cur);
	if (!done)
		return;
	double after_s = (double)(clock_mono_ns() - w->end_ns) / 1e9;
	char label[128];
	snprintf(label, sizeof(label), "drain: %.1f MiB written back in %.1f s",
	         (double)w->d.backlog / MiB, after_s);
	xnote("the %.1f MiB were written back %.1f s after the end: stopping",
	      (double)w->d.backlog / MiB, after_s);
	rec_session_mark(w->o.session, label, clock_real_ns(), "wrap", -1);
	w->drain = DRAIN_OVER;
}

static int wrap_sample(void *ctx, const struct xio_sample *cur, bool first)
{
	struct rec_wrap *w = ctx;
	w->last_sample_ns = clock_mono_ns();
	if (first && w->o.argv) {
		char label[256];
		snprintf(label, sizeof(label), "start: %s", w->line);
		rec_session_mark(w->o.session, label, clock_real_ns(), "wrap", -1);
		if (spawn(w)) {
			xnote("cannot start %s: %s", w->o.argv[0], strerror(errno));
			return 2;
		}
	}
	if (w->drain == DRAIN_BEGIN)
		drain_begins(w, cur);
	else if (w->drain == DRAIN_WAIT)
		drain_goes_on(w, cur);
	return LOOP_GO_ON;
}

struct interval_sink rec_wrap_sink(struct rec_wrap *w)
{
	return (struct interval_sink){.ctx = w, .sample = wrap_sample};
}

/* Sleeps until the monotonic deadline, or until a signal needs handling. */
static void wait_until(struct rec_wrap *w, int64_t deadline)
{
	while (!*w->o.stop && !child_changed) {
		int64_t left = deadline - clock_mono_ns();
		if (left <= 0)
			return;
		struct timespec ts = {.tv_sec = left / NS_PER_S, .tv_nsec = left % NS_PER_S};
		ppoll(NULL, 0, &ts, w->o.wait_mask);
	}
}

/* After the end: whether the recording has what it waited for (said when cut short). */
static bool waited_enough(struct rec_wrap *w)
{
	int64_t after = w->last_sample_ns - w->end_ns;
	if (w->drain == DRAIN_BEGIN)
		return false; /* no sample after the end yet */
	if (w->o.tail_s >= 0)
		return after >= (int64_t)(w->o.tail_s * 1e9);
	if (w->drain == DRAIN_OVER)
		return true;
	if (after < w->o.drain_bound_ns)
		return false;
	char label[192];
	if (w->d.counted && w->d.left) {
		snprintf(label, sizeof(label), "drain: cut at %.0f s, %.1f MiB not written back",
		         (double)after / 1e9, (double)w->d.left / MiB);
		xnote(
		    "%.1f MiB of the %.1f MiB dirty at the end not written back after %.0f s, the "
		    "host's writeback bound (pages dropped before writeback, or a slow disk): "
		    "stopping",
		    (double)w->d.left / MiB, (double)w->d.backlog / MiB, (double)after / 1e9);
		rec_session_mark(w->o.session, label, clock_real_ns(), "wrap", -1);
	} else if (w->d.counted) {
		/* all queued, but never seen taken: a device never idle at a sample, or no
		 * in-flight counts (rec_drain.h) */
		char why[96];
		if (w->d.busy_dev)
			snprintf(why, sizeof(why), "I/O in progress on %s", w->d.busy_name);
		else
			snprintf(why, sizeof(why), "the disks' I/O in progress not known");
		snprintf(label, sizeof(label), "drain: cut at %.0f s, %.1f MiB queued, %s",
		         (double)after / 1e9, (double)w->d.backlog / MiB, why);
		xnote(
		    "the %.1f MiB dirty at the end were queued to be written back, but at every "
		    "sample since, %s, after %.0f s, the host's writeback bound (the last of them "
		    "may not be in the recording's disk counts): stopping",
		    (double)w->d.backlog / MiB, why, (double)after / 1e9);
		rec_session_mark(w->o.session, label, clock_real_ns(), "wrap", -1);
	}
	return true;
}

/* A sample every -d seconds; the command's end marked as it happens; a stop signal takes
 * one last sample (unless one was just taken: it would add an empty interval);
 * --duration, --tail and the drain end the recording. */
static enum pace wrap_wait(void *ctx)
{
	struct rec_wrap *w = ctx;
	int64_t delay = (int64_t)(w->o.delay_s * 1e9), now = clock_mono_ns();
	if (w->o.duration_s > 0 &&
	    w->last_sample_ns - w->start_ns >= (int64_t)(w->o.duration_s * 1e9))
		return PACE_STOP;
	if (w->end_ns >= 0 && waited_enough(w))
		return PACE_STOP;
	w->next_ns += delay;
	if (w->next_ns <= now) /* fell behind (a slow sample): skip, do not burst */
		w->next_ns = now + delay;
	for (;;) {
		wait_until(w, w->next_ns);
		if (child_changed) {
			child_changed = 0;
			reap(w);
		}
		now = clock_mono_ns();
		if (*w->o.stop)
			return now - w->last_sample_ns > 10000000 ? PACE_LAST : PACE_STOP;
		if (now >= w->next_ns)
			return PACE_DUE;
	}
}

struct pacer rec_wrap_pacer(struct rec_wrap *w)
{
	return (struct pacer){.ctx = w, .wait = wrap_wait};
}

void rec_wrap_finish(struct rec_wrap *w, bool failed, int stop_signal)
{
	if (!w->pid)
		return;
	if (failed) {
		xnote("waiting for %s to end (not recording)", w->line);
		int status;
		while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
			;
		w->pid = 0;
		return;
	}
	if (stop_signal == SIGTERM)
		kill(w->pid, SIGTERM);
	for (int i = 0; i < 40 && w->pid; i++) {
		struct timespec ts = {0, 50000000};
		nanosleep(&ts, NULL);
		reap(w);
	}
	if (w->pid) {
		char label[256];
		snprintf(label, sizeof(label), "recorder stopped; %.200s still running", w->line);
		rec_session_mark(w->o.session, label, clock_real_ns(), "wrap", -1);
		xnote("%s is still running (pid %d)", w->line, (int)w->pid);
	}
}
