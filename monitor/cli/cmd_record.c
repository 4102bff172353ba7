/* cmd_record.c - `xiotop record`: live samples (live.h) into a recording (record.h).
 *
 *   xiotop record -o FILE [-d SECONDS] [--duration D] [--tail SECONDS] [--print FORMAT]
 *                 [--xenstore-dump FILE] [-- COMMAND ARGS...]
 *
 * One sample right away, then one every -d seconds, each committed on its own, so a
 * kill -9 loses at most the interval in flight. Wrap mode runs COMMAND, marks its start
 * and its end (with its exit status) and records --tail seconds more so the writeback
 * that follows a benchmark is in the file; it returns COMMAND's exit status. SIGINT and
 * SIGTERM stop after one last sample. With -o a full disk ends the recording cleanly
 * (exit 2) but never the wrapped command: it is waited for. With --dir the recorder goes
 * on: samples that find no room are lost, counted and said (once, then at most once a
 * minute), and the first sample that fits a new file ends the loss. The file removed or
 * renamed under the recorder (checked at every sample): it ends with that sample and the
 * recording goes on in a new file (--dir: the directory made again if gone), said once.
 * --user NAME drops to
 * NAME once the tracer is attached (cli/privdrop.h). --print F also prints each recorded
 * interval as `xiotop -b --format F` would, from the samples as recorded (tests compare
 * it with `xiotop export`).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/fail.h"
#include "cli/stop.h"
#include "cli/privdrop.h"
#include "core/clock.h"
#include "core/loop.h"
#include "sources/live.h"
#include "record/rec_registry.h"
#include "record/rec_dir.h"
#include "record/record.h"

static volatile sig_atomic_t child_changed; /* SIGCHLD arrived */

static void on_child(int sig)
{
	(void)sig;
	child_changed = 1;
}

/* The wrapped command, reaped through SIGCHLD. */
struct wrapped {
	pid_t pid;      /* 0: none running */
	char line[200]; /* the command line, for marks */
	int status;     /* exit status once ended (128 + signal if killed), else -1 */
};

static void command_line(char **argv, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; argv[i] && used + 1 < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int spawn(struct wrapped *w, char **argv, const sigset_t *child_mask)
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
		sigprocmask(SIG_SETMASK, child_mask, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "xiotop record: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	w->pid = pid;
	w->status = -1;
	return 0;
}

/* Collects the command if it ended; marks its end. True if it ended now. */
static bool reap(struct wrapped *w, struct rec_writer *rec)
{
	int status;
	if (!w->pid || waitpid(w->pid, &status, WNOHANG) != w->pid)
		return false;
	w->pid = 0;
	char label[256];
	if (WIFSIGNALED(status)) {
		w->status = 128 + WTERMSIG(status);
		snprintf(label, sizeof(label), "end: %.200s (killed by signal %d)", w->line,
		         WTERMSIG(status));
	} else {
		w->status = WEXITSTATUS(status);
		snprintf(label, sizeof(label), "end: %.200s (exit %d)", w->line, w->status);
	}
	struct xerr err;
	if (rec && rec_add_mark_from(rec, label, clock_real_ns(), "wrap", w->status, &err))
		cli_say(&err);
	return true;
}

/* Sleeps until the monotonic deadline, or until a signal needs handling. Signals are
 * blocked everywhere else and let in only here (ppoll), so none is missed between a check
 * and the sleep. */
static void wait_until(int64_t deadline, const sigset_t *wait_mask)
{
	while (!cli_stop_signal && !child_changed) {
		int64_t left = deadline - clock_mono_ns();
		if (left <= 0)
			return;
		struct timespec ts = {.tv_sec = left / 1000000000, .tv_nsec = left % 1000000000};
		ppoll(NULL, 0, &ts, wait_mask);
	}
}

struct session {
	const struct cli_opts *o;
	struct live *live;
	struct rec_writer *rec;
	struct wrapped cmd;
	sigset_t wait_mask;
	int64_t start_ns, next_ns, last_sample_ns;
	int64_t command_end_ns; /* -1: the command runs, or there is none */
	int status;             /* 2 once the recording failed (disk full, file trouble) */
	struct rec_host_facts facts;
	char path[4096];       /* the file being written */
	int64_t period_end_ns; /* --dir: the wall-clock time the next file starts */
	int open_error;        /* REC_ERR_* of the last file that could not be created */
	long lost, lost_run;   /* --dir, disk full: samples lost in all, and since the last file */
	int64_t lost_said_ns;  /* when the loss was last said (monotonic); 0: not yet */
	bool stored_at_rotation; /* the sample crossing the period went into the old file */
	bool said_refused_marks; /* a guest mark was refused: said once */
};

static int start_command(struct session *s);

/* The recorder's sink: every sample is stored, each committed on its own. */
static int open_file(struct session *s, int64_t realtime_ns);

/* --dir: the sample that crosses a period's end is the last of its file and the first of
 * the next (readers hand it out once), so each file holds its whole period. The same when
 * the file was removed or renamed under the recorder (-o too): the old file ends with
 * this sample and is closed, so a renamed one stands alone, its WAL folded in. */
static int rotate(struct session *s, const struct xio_sample *cur)
{
	struct xerr err;
	s->stored_at_rotation = false;
	if (s->rec) { /* full: said by disk_full() */
		s->stored_at_rotation = !rec_append(s->rec, cur, &err);
		if ((!s->stored_at_rotation || rec_close(s->rec, &err)) && err.code != REC_ERR_FULL)
			cli_say(&err);
		s->rec = NULL;
	}
	if (open_file(s, cur->realtime_ns))
		return -1;
	const struct cli_opts *o = s->o;
	if (o->dir && rec_dir_prune(o->dir, cur->realtime_ns, (int64_t)(o->retain_s * 1e9),
	                            (uint64_t)o->retain_bytes, s->path) < 0)
		fprintf(stderr, "xiotop: cannot prune %s: %s\n", o->dir, strerror(errno));
	return 0;
}

/* --dir on a full disk: the file in hand keeps what it committed (closed; removed when
 * it holds no sample), the retention rule runs now rather than at the next file, and the
 * sample is lost (unless it ended the previous file: stored): counted, and said once,
 * then at most once a minute. Every later sample tries a new file; the first stored ends
 * the loss, said too. */
static int disk_full(struct session *s, const struct xio_sample *cur, bool stored)
{
	const struct cli_opts *o = s->o;
	if (s->rec) {
		size_t stored = rec_writer_count(s->rec);
		rec_close(s->rec, NULL);
		s->rec = NULL;
		if (!stored)
			rec_remove(s->path);
	}
	rec_dir_prune(o->dir, cur->realtime_ns, (int64_t)(o->retain_s * 1e9),
	              (uint64_t)o->retain_bytes, s->path);
	if (stored)
		return LOOP_GO_ON;
	s->lost++;
	s->lost_run++;
	int64_t now = clock_mono_ns();
	if (!s->lost_said_ns || now - s->lost_said_ns >= 60 * (int64_t)1000000000) {
		fprintf(stderr,
		        "xiotop: %s is full: %ld samples lost (%ld in all); trying a new file at "
		        "every sample\n",
		        o->dir, s->lost_run, s->lost);
		s->lost_said_ns = now;
	}
	return LOOP_GO_ON;
}

/* The marks guests wrote into their xenstore node (sources/xen/xenlive.h), each timed
 * before the sample just stored: they fall in its interval. Refused ones are said once. */
static void store_guest_marks(struct session *s)
{
	struct xenlive_mark marks[XENLIVE_MARKS_MAX];
	unsigned long refused = 0;
	size_t n = live_take_marks(s->live, marks, XENLIVE_MARKS_MAX, &refused);
	for (size_t i = 0; i < n; i++) {
		char origin[16];
		struct xerr err;
		snprintf(origin, sizeof(origin), "domain %u", (unsigned)marks[i].domid);
		if (rec_add_mark_from(s->rec, marks[i].label, marks[i].realtime_ns, origin, -1,
		                      &err))
			cli_say(&err);
	}
	if (refused && !s->said_refused_marks) {
		xnote("a guest mark was refused: its xenstore node is not its domain's own (or "
		      "too many waited); said once");
		s->said_refused_marks = true;
	}
}

static int store_sample(void *ctx, const struct xio_sample *cur, bool first)
{
	struct session *s = ctx;
	struct xerr err;
	s->last_sample_ns = clock_mono_ns();
	char moved_from[sizeof(s->path)] = "";
	if (s->rec && rec_writer_moved(s->rec))
		snprintf(moved_from, sizeof(moved_from), "%s", s->path);
	if ((moved_from[0] || (s->o->dir && (!s->rec || cur->realtime_ns >= s->period_end_ns))) &&
	    rotate(s, cur)) {
		/* EXISTS: a file named by the same second, cut short by the full disk */
		if (s->o->dir && (s->open_error == REC_ERR_FULL ||
		                  (s->lost_run && s->open_error == REC_ERR_EXISTS)))
			return disk_full(s, cur, s->stored_at_rotation);
		s->status = 2;
		return 2;
	}
	if (moved_from[0])
		fprintf(stderr,
		        "xiotop: %s was removed or renamed under the recorder (what it holds ends "
		        "with this sample); recording goes on in a new file %s\n",
		        moved_from, s->path);
	if (rec_append(s->rec, cur, &err)) {
		if (err.code == REC_ERR_FULL && s->o->dir)
			return disk_full(s, cur, false);
		fprintf(stderr, "xiotop: %s\n", err.msg);
		if (err.code == REC_ERR_BUSY)
			return LOOP_GO_ON;
		s->status = 2;
		return 2;
	}
	store_guest_marks(s);
	if (s->lost_run) {
		fprintf(stderr,
		        "xiotop: recording again in %s after %ld samples lost (%ld in all)\n",
		        s->path, s->lost_run, s->lost);
		s->lost_run = 0;
		s->lost_said_ns = 0;
	}
	if (first && s->o->n_args && start_command(s)) {
		s->status = 2;
		return 2;
	}
	return LOOP_GO_ON;
}

/* The recorder's pacer: a sample every -d seconds; the command's end is marked as it
 * happens; a stop signal takes one last sample (unless one was just taken: it would add
 * an empty interval); --duration and --tail end the recording. */
static enum pace record_wait(void *ctx)
{
	struct session *s = ctx;
	const struct cli_opts *o = s->o;
	int64_t delay = (int64_t)(o->delay_s * 1e9), now = clock_mono_ns();
	if (o->duration_s > 0 && s->last_sample_ns - s->start_ns >= (int64_t)(o->duration_s * 1e9))
		return PACE_STOP;
	if (s->command_end_ns >= 0 &&
	    s->last_sample_ns - s->command_end_ns >= (int64_t)(o->tail_s * 1e9))
		return PACE_STOP;
	s->next_ns += delay;
	if (s->next_ns <= now) /* fell behind (a slow sample): skip, do not burst */
		s->next_ns = now + delay;
	for (;;) {
		wait_until(s->next_ns, &s->wait_mask);
		if (child_changed) {
			child_changed = 0;
			if (reap(&s->cmd, s->rec))
				s->command_end_ns = clock_mono_ns();
		}
		now = clock_mono_ns();
		if (cli_stop_signal)
			return now - s->last_sample_ns > 10000000 ? PACE_LAST : PACE_STOP;
		if (now >= s->next_ns)
			return PACE_DUE;
	}
}

static void store_meta(struct session *s)
{
	const struct cli_opts *o = s->o;
	char buf[256];
	struct xerr err;
	snprintf(buf, sizeof(buf), "%g", o->delay_s);
	rec_set_meta(s->rec, "interval_s", buf, &err);
	rec_set_meta(s->rec, "tracer_mode", live_tracer_mode(s->live), &err);
	rec_set_meta(s->rec, "tracer_hooks", live_tracer_hooks(s->live), &err);
	if (o->src.xenstore_dump)
		rec_set_meta(s->rec, "xenstore_dump", o->src.xenstore_dump, &err);
	if (o->n_args) {
		command_line(o->args, buf, sizeof(buf));
		rec_set_meta(s->rec, "command", buf, &err);
	}
}

/* After the recording failed: the wrapped command is not ours to stop; wait for it. */
static void wait_for_command(struct wrapped *w)
{
	if (!w->pid)
		return;
	fprintf(stderr, "xiotop: waiting for %s to end (not recording)\n", w->line);
	int status;
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
}

/* Wrap mode, once the first sample is stored: mark the start, run the command. */
static int start_command(struct session *s)
{
	struct xerr err;
	char label[256];
	command_line(s->o->args, s->cmd.line, sizeof(s->cmd.line));
	snprintf(label, sizeof(label), "start: %s", s->cmd.line);
	if (rec_add_mark_from(s->rec, label, clock_real_ns(), "wrap", -1, &err))
		cli_say(&err);
	if (spawn(&s->cmd, s->o->args, &s->wait_mask) == 0)
		return 0;
	fprintf(stderr, "xiotop record: cannot start %s: %s\n", s->o->args[0], strerror(errno));
	return -1;
}

/* Signals are blocked everywhere but in the pacer's wait (ppoll), so none is missed. */
static void catch_signals(sigset_t *wait_mask)
{
	sigset_t blocked;
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGCHLD);
	sigprocmask(SIG_BLOCK, &blocked, wait_mask);
	cli_catch_stop();
	struct sigaction child_sa = {.sa_handler = on_child};
	sigaction(SIGCHLD, &child_sa, NULL);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGCHLD);
}

/* A new file at s->path (--dir: named by realtime_ns), its meta, and the registry entry
 * `xiotop mark` finds. 0, or -1 (said). */
static int open_file(struct session *s, int64_t realtime_ns)
{
	const struct cli_opts *o = s->o;
	if (o->dir) {
		/* made again if it was removed (or renamed) under the recorder */
		if (mkdir(o->dir, 0750) == 0)
			fprintf(stderr, "xiotop: --dir %s was gone: made it again\n", o->dir);
		int64_t period = (int64_t)(o->period_s * 1e9);
		s->period_end_ns = rec_dir_period_start(realtime_ns, period) + period;
		if (rec_dir_file_name(o->dir, realtime_ns, s->path, sizeof(s->path))) {
			fprintf(stderr, "xiotop: --dir %s: path too long\n", o->dir);
			return -1;
		}
	}
	struct xerr err;
	s->rec = rec_create(s->path, &s->facts, &err);
	if (!s->rec) {
		s->open_error = err.code;
		/* what store_sample() hands to disk_full() is said there; anything else ends
		 * the recording and is said here */
		if (!o->dir ||
		    !(err.code == REC_ERR_FULL || (s->lost_run && err.code == REC_ERR_EXISTS)))
			cli_say(&err);
		return -1;
	}
	if (s->live)
		store_meta(s);
	char why[512];
	if (rec_registry_publish(s->path, why, sizeof(why)))
		fprintf(stderr, "xiotop: `xiotop mark` will need -o %s (%s)\n", s->path, why);
	return 0;
}

/* The file (or directory) first: a place that cannot take it is found before the tracer
 * loads; only what the tracer needs at all (root) is said before it. */
static int open_session(struct session *s)
{
	const struct cli_opts *o = s->o;
	struct xerr err = {0};
	if (live_can_open(&err))
		return cli_fail(&err);
	rec_host_facts_read(o->src.roots.proc, &s->facts);
	if (o->dir) {
		/* with --user that user writes it (root may hold no CAP_DAC_OVERRIDE for a
		 * directory given to it by an earlier run): checked after the drop */
		if ((mkdir(o->dir, 0750) && errno != EEXIST) ||
		    (!o->user && access(o->dir, W_OK | X_OK))) {
			fprintf(stderr, "xiotop: --dir %s: %s\n", o->dir, strerror(errno));
			return 2;
		}
	} else {
		snprintf(s->path, sizeof(s->path), "%s", o->output);
		if (open_file(s, 0))
			return 2;
	}
	int rc = open_live(&s->live, &o->src);
	if (rc) {
		/* Nothing recorded: leave no file behind that looks like a recording. */
		if (s->rec) {
			rec_close(s->rec, NULL);
			unlink(s->path);
		}
		return rc;
	}
	if (s->rec)
		store_meta(s);
	return 0;
}

/* The sampling loop: the recorder, and with --print the batch lines too. */
static int run(struct session *s)
{
	struct batch_sink printer = {.out = stdout, .opts = {.format = s->o->print_format}};
	struct interval_sink sinks[2] = {{.ctx = s, .sample = store_sample}, batch_sink(&printer)};
	struct sample_source src = live_source(s->live);
	s->start_ns = s->next_ns = clock_mono_ns();
	s->command_end_ns = -1;
	struct xerr err = {0};
	struct loop l = {.src = &src,
	                 .sinks = sinks,
	                 .n_sinks = s->o->print ? 2 : 1,
	                 .pacer = {.ctx = s, .wait = record_wait},
	                 .err = &err};
	int rc = interval_loop(&l);
	cli_say(&err);
	batch_sink_free(&printer);
	return s->status ? s->status : rc;
}

/* On a stop signal the command may still run: SIGTERM (sent to us alone) is passed on;
 * SIGINT from a terminal reached it already. Waits briefly to mark its end. */
static void stop_command(struct wrapped *cmd, struct rec_writer *rec)
{
	if (!cmd->pid)
		return;
	if (cli_stop_signal == SIGTERM)
		kill(cmd->pid, SIGTERM);
	for (int i = 0; i < 40 && cmd->pid; i++) {
		struct timespec ts = {0, 50000000};
		nanosleep(&ts, NULL);
		reap(cmd, rec);
	}
	if (cmd->pid) {
		struct xerr err;
		char label[256];
		snprintf(label, sizeof(label), "recorder stopped; %.200s still running", cmd->line);
		rec_add_mark_from(rec, label, clock_real_ns(), "wrap", -1, &err);
		fprintf(stderr, "xiotop: %s is still running (pid %d)\n", cmd->line, (int)cmd->pid);
	}
}

/* --user: once attached, the recorder goes on as that user, owning what it writes: the
 * directory (or the file, with its WAL and shared-memory files) and the registry's. */
static int drop_privileges(const struct session *s, const struct priv_user *user)
{
	if (!user->name)
		return 0;
	char wal[sizeof(s->path) + 8], shm[sizeof(s->path) + 8];
	snprintf(wal, sizeof(wal), "%s-wal", s->path);
	snprintf(shm, sizeof(shm), "%s-shm", s->path);
	if (mkdir(rec_registry_dir(), 0755) && errno != EEXIST)
		fprintf(stderr, "xiotop: cannot create %s: %s\n", rec_registry_dir(),
		        strerror(errno));
	const char *dir_paths[] = {s->o->dir, rec_registry_dir()};
	const char *file_paths[] = {s->path, wal, shm, rec_registry_dir()};
	if (s->o->dir ? priv_drop("record", user, dir_paths, 2)
	              : priv_drop("record", user, file_paths, 4))
		return -1;
	if (s->o->dir && access(s->o->dir, W_OK | X_OK)) {
		fprintf(stderr, "xiotop: --dir %s: %s (as %s)\n", s->o->dir, strerror(errno),
		        user->name);
		return -1;
	}
	char why[512]; /* -o: published as root, maybe refused; again as the user */
	if (!s->o->dir && rec_registry_publish(s->path, why, sizeof(why)))
		fprintf(stderr, "xiotop: `xiotop mark` will need -o %s (%s)\n", s->path, why);
	return 0;
}

int cmd_record(struct cli_opts *o)
{
	int rc;
	if (!o->output == !o->dir)
		return cli_bad_usage(CMD_RECORD, "where to? give -o FILE or --dir DIR");
	if (o->dir && o->n_args)
		return cli_bad_usage(CMD_RECORD, "--dir records continuously: no -- COMMAND");
	if (o->user && o->n_args)
		return cli_bad_usage(CMD_RECORD,
		                     "--user would run the -- COMMAND as that user too");
	struct priv_user user;
	rc = priv_lookup("record", o->user, &user);
	if (rc)
		return rc;
	struct session s = {.o = o, .cmd = {.status = -1}};
	rc = open_session(&s);
	if (rc)
		return rc;
	if (drop_privileges(&s, &user)) {
		rec_close(s.rec, NULL);
		rec_registry_withdraw();
		close_live(s.live);
		return 1;
	}
	catch_signals(&s.wait_mask);
	fprintf(stderr,
	        "xiotop: recording to %s every %g s; Ctrl-C stops; `xiotop mark LABEL` adds a "
	        "mark\n",
	        o->dir ? o->dir : o->output, o->delay_s);
	rc = run(&s);
	if (rc)
		wait_for_command(&s.cmd);
	else
		stop_command(&s.cmd, s.rec);

	struct xerr err;
	size_t n = s.rec ? rec_writer_count(s.rec) : 0;
	if (rec_close(s.rec, &err) && !rc) {
		cli_say(&err); /* 2 whatever the kind (a full disk too), as record always said */
		rc = 2;
	}
	rec_registry_withdraw();
	close_live(s.live);
	if (s.lost)
		fprintf(stderr, "xiotop: %ld samples lost to a full %s\n", s.lost, o->dir);
	fprintf(stderr, "xiotop: %s: %zu samples (%zu intervals)\n", s.path, n, n ? n - 1 : 0);
	if (!rc && o->n_args && s.cmd.status >= 0)
		return s.cmd.status;
	return rc;
}
