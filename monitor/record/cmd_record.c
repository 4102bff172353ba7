/* cmd_record.c - `xiotop record`: live samples (live.h) into a recording (record.h).
 *
 *   xiotop record -o FILE [-d SECONDS] [--duration D] [--tail SECONDS] [--print FORMAT]
 *                 [--xenstore-dump FILE] [-- COMMAND ARGS...]
 *
 * One sample right away, then one every -d seconds, each committed on its own, so a
 * kill -9 loses at most the interval in flight. Wrap mode runs COMMAND, marks its start
 * and its end (with its exit status) and records --tail seconds more so the writeback
 * that follows a benchmark is in the file; it returns COMMAND's exit status. SIGINT and
 * SIGTERM stop after one last sample. A full disk ends the recording cleanly (exit 2) but
 * never the wrapped command: it is waited for. --print F also prints each recorded
 * interval as `xiotop -b --format F` would, from the samples as recorded (tests compare
 * it with `xiotop export`).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "rec_registry.h"
#include "record.h"
#include "record_cmds.h"

struct record_opts {
	const char *out;
	double delay_s;
	double duration_s; /* 0: until stopped (or the command's tail ends) */
	double tail_s;
	bool print;
	enum batch_format print_format;
	struct source_opts src;
	char **command; /* NULL: no wrap mode */
};

static volatile sig_atomic_t stop_signal;   /* the signal that asked us to stop */
static volatile sig_atomic_t child_changed; /* SIGCHLD arrived */

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
	child_changed = 1;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void record_usage(FILE *out)
{
	fprintf(out,
	        "usage: xiotop record -o FILE [-d SECONDS] [--duration D] [--tail SECONDS]\n"
	        "                     [--print text|csv|json] [--xenstore-dump FILE] "
	        "[-- COMMAND ARGS...]\n"
	        "  -d SECONDS      between samples (default 1)\n"
	        "  --duration D    stop after D (90, 90s, 5m, 2h)\n"
	        "  -- COMMAND      run COMMAND, mark its start and end, record --tail SECONDS\n"
	        "                  (default 30) after it ends; exit with its status\n"
	        "  --xenstore-dump, --sysfs-root, --proc-root, --image-dir: as for xiotop -b\n"
	        "  `xiotop mark LABEL` from another shell adds a mark to the running recording\n");
}

/* "90", "90s", "5m", "2h" -> seconds; -1 if malformed. */
static double parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || v < 0)
		return -1;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		return v;
	if (!strcmp(end, "m"))
		return v * 60;
	if (!strcmp(end, "h"))
		return v * 3600;
	return -1;
}

enum { OPT_DURATION = 256, OPT_TAIL, OPT_PRINT };

static int parse_record_options(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"delay", required_argument, NULL, 'd'},
	    {"duration", required_argument, NULL, OPT_DURATION},
	    {"tail", required_argument, NULL, OPT_TAIL},
	    {"print", required_argument, NULL, OPT_PRINT},
	    SOURCE_LONGOPTS,
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	char *end;
	optind = 0;
	/* "+": stop at the first non-option, so COMMAND's own options stay its own. */
	while ((c = getopt_long(argc, argv, "+o:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'd':
			o->delay_s = strtod(optarg, &end);
			if (*end || o->delay_s < 0.1 || o->delay_s > 3600) {
				fprintf(stderr,
				        "xiotop record: -d wants seconds between 0.1 and 3600\n");
				return -1;
			}
			break;
		case OPT_DURATION:
			o->duration_s = parse_duration(optarg);
			if (o->duration_s <= 0) {
				fprintf(stderr,
				        "xiotop record: --duration wants 90, 90s, 5m or 2h\n");
				return -1;
			}
			break;
		case OPT_TAIL:
			o->tail_s = strtod(optarg, &end);
			if (*end || o->tail_s < 0) {
				fprintf(stderr,
				        "xiotop record: --tail wants seconds (0 or more)\n");
				return -1;
			}
			break;
		case OPT_PRINT:
			o->print = true;
			if (batch_parse_format(optarg, &o->print_format)) {
				fprintf(stderr, "xiotop record: unknown format '%s'\n", optarg);
				return -1;
			}
			break;
		case 'h':
			record_usage(stdout);
			exit(0);
		default:
			if (source_opt(&o->src, c, optarg) != 1)
				return -1;
			break;
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--")) {
			fprintf(
			    stderr,
			    "xiotop record: unexpected argument '%s' (a command goes after --)\n",
			    argv[optind]);
			return -1;
		}
		o->command = &argv[optind];
	}
	if (!o->out) {
		fprintf(stderr, "xiotop record: where to? give -o FILE\n");
		return -1;
	}
	return 0;
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
	struct rec_error err;
	if (rec && rec_add_mark_from(rec, label, real_ns(), "wrap", w->status, &err))
		fprintf(stderr, "xiotop: %s\n", err.msg);
	return true;
}

/* Sleeps until the monotonic deadline, or until a signal needs handling. Signals are
 * blocked everywhere else and let in only here (ppoll), so none is missed between a check
 * and the sleep. */
static void wait_until(int64_t deadline, const sigset_t *wait_mask)
{
	while (!stop_signal && !child_changed) {
		int64_t left = deadline - mono_ns();
		if (left <= 0)
			return;
		struct timespec ts = {.tv_sec = left / 1000000000, .tv_nsec = left % 1000000000};
		ppoll(NULL, 0, &ts, wait_mask);
	}
}

struct session {
	const struct record_opts *o;
	struct live live;
	struct rec_writer *rec;
	struct xs_sample prev; /* the last sample stored */
	bool have_prev;
	unsigned long printed;
};

/* Takes one sample and stores it. 0, 1 (runtime failure) or 2 (the recording ended:
 * disk full, file trouble). */
static int record_one(struct session *s)
{
	struct xs_sample cur;
	struct rec_error err;
	if (live_sample(&s->live, &cur)) {
		fprintf(stderr, "xiotop: cannot read counters\n");
		return 1;
	}
	if (rec_append(s->rec, &cur, &err)) {
		fprintf(stderr, "xiotop: %s\n", err.msg);
		sample_free(&cur);
		return err.code == REC_ERR_BUSY ? 0 : 2;
	}
	if (s->o->print && s->have_prev) {
		struct batch_opts bo = {.format = s->o->print_format};
		print_interval(stdout, &s->prev, &cur, &bo, s->printed++);
	}
	if (s->have_prev)
		sample_free(&s->prev);
	s->prev = cur;
	s->have_prev = true;
	return 0;
}

static void store_meta(struct session *s)
{
	const struct record_opts *o = s->o;
	char buf[256];
	struct rec_error err;
	snprintf(buf, sizeof(buf), "%g", o->delay_s);
	rec_set_meta(s->rec, "interval_s", buf, &err);
	rec_set_meta(s->rec, "tracer_mode", tracer_mode(s->live.tracer), &err);
	rec_set_meta(s->rec, "tracer_hooks", tracer_hooks(s->live.tracer), &err);
	if (o->src.xenstore_dump)
		rec_set_meta(s->rec, "xenstore_dump", o->src.xenstore_dump, &err);
	if (o->command) {
		command_line(o->command, buf, sizeof(buf));
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

/* The sampling loop. Exit status so far (0, 1, 2). */
static int run(struct session *s, struct wrapped *cmd, const sigset_t *wait_mask)
{
	const struct record_opts *o = s->o;
	int64_t delay = (int64_t)(o->delay_s * 1e9);
	int64_t start = mono_ns(), next = start + delay, last_sample = start;
	int64_t command_end = -1;
	for (;;) {
		wait_until(next, wait_mask);
		if (child_changed) {
			child_changed = 0;
			if (reap(cmd, s->rec))
				command_end = mono_ns();
		}
		int64_t now = mono_ns();
		if (!stop_signal && now < next)
			continue; /* woken by the command's end: keep the cadence */
		/* A stop right after a sample adds no information: skip an empty interval. */
		if (!stop_signal || now - last_sample > 10000000) {
			int rc = record_one(s);
			if (rc)
				return rc;
			last_sample = now;
		}
		if (stop_signal)
			return 0;
		if (o->duration_s > 0 && now - start >= (int64_t)(o->duration_s * 1e9))
			return 0;
		if (command_end >= 0 && now - command_end >= (int64_t)(o->tail_s * 1e9))
			return 0;
		next += delay;
		if (next <= now) /* fell behind (a slow sample): skip, do not burst */
			next = now + delay;
	}
}

/* On a stop signal the command may still run: SIGTERM (sent to us alone) is passed on;
 * SIGINT from a terminal reached it already. Waits briefly to mark its end. */
static void stop_command(struct wrapped *cmd, struct rec_writer *rec)
{
	if (!cmd->pid)
		return;
	if (stop_signal == SIGTERM)
		kill(cmd->pid, SIGTERM);
	for (int i = 0; i < 40 && cmd->pid; i++) {
		struct timespec ts = {0, 50000000};
		nanosleep(&ts, NULL);
		reap(cmd, rec);
	}
	if (cmd->pid) {
		struct rec_error err;
		char label[256];
		snprintf(label, sizeof(label), "recorder stopped; %.200s still running", cmd->line);
		rec_add_mark_from(rec, label, real_ns(), "wrap", -1, &err);
		fprintf(stderr, "xiotop: %s is still running (pid %d)\n", cmd->line, (int)cmd->pid);
	}
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {
	    .delay_s = 1.0,
	    .tail_s = 30.0,
	    .src = {.roots = {.sysfs = "/sys", .proc = "/proc", .dev = "/dev"}},
	};
	if (parse_record_options(argc, argv, &o)) {
		record_usage(stderr);
		return 2;
	}
	struct session s = {.o = &o};
	/* The file first: a place that cannot take it is found before the tracer loads. */
	struct rec_host_facts facts;
	rec_host_facts_read(o.src.roots.proc, &facts);
	struct rec_error err;
	s.rec = rec_create(o.out, &facts, &err);
	if (!s.rec) {
		fprintf(stderr, "xiotop: %s\n", err.msg);
		return 2;
	}
	int rc = live_open(&s.live, &o.src);
	if (rc) {
		/* Nothing recorded: leave no file behind that looks like a recording. */
		rec_close(s.rec, NULL);
		unlink(o.out);
		return rc;
	}
	store_meta(&s);
	char why[512];
	if (rec_registry_publish(o.out, why, sizeof(why)))
		fprintf(stderr, "xiotop: `xiotop mark` will need -o %s (%s)\n", o.out, why);

	sigset_t blocked, wait_mask;
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGCHLD);
	sigprocmask(SIG_BLOCK, &blocked, &wait_mask);
	struct sigaction stop_sa = {.sa_handler = on_stop}, child_sa = {.sa_handler = on_child};
	sigaction(SIGINT, &stop_sa, NULL);
	sigaction(SIGTERM, &stop_sa, NULL);
	sigaction(SIGHUP, &stop_sa, NULL);
	sigaction(SIGCHLD, &child_sa, NULL);
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGCHLD);

	fprintf(stderr,
	        "xiotop: recording to %s every %g s; Ctrl-C stops; `xiotop mark LABEL` adds a "
	        "mark\n",
	        o.out, o.delay_s);
	struct wrapped cmd = {.status = -1};
	rc = record_one(&s);
	if (!rc && o.command) {
		char label[256];
		command_line(o.command, cmd.line, sizeof(cmd.line));
		snprintf(label, sizeof(label), "start: %s", cmd.line);
		if (rec_add_mark_from(s.rec, label, real_ns(), "wrap", -1, &err))
			fprintf(stderr, "xiotop: %s\n", err.msg);
		if (spawn(&cmd, o.command, &wait_mask)) {
			fprintf(stderr, "xiotop record: cannot start %s: %s\n", o.command[0],
			        strerror(errno));
			rc = 2;
		}
	}
	if (!rc)
		rc = run(&s, &cmd, &wait_mask);
	if (rc)
		wait_for_command(&cmd);
	else
		stop_command(&cmd, s.rec);

	size_t n = rec_writer_count(s.rec);
	if (rec_close(s.rec, &err) && !rc) {
		fprintf(stderr, "xiotop: %s\n", err.msg);
		rc = 2;
	}
	rec_registry_withdraw();
	if (s.have_prev)
		sample_free(&s.prev);
	live_close(&s.live);
	fprintf(stderr, "xiotop: %s: %zu samples (%zu intervals)\n", o.out, n, n ? n - 1 : 0);
	if (!rc && o.command && cmd.status >= 0)
		return cmd.status;
	return rc;
}
