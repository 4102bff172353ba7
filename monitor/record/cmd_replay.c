/* cmd_replay.c - `xiotop replay FILE`: a recording played back through the replay cursor
 * (replay.h). On a terminal it is the console over the recording (replay_feed.h: the
 * console's replay keys move the cursor). Otherwise (a pipe, a file, CI), or with -b or
 * --format, the replayed intervals are printed as batch output (text by default) with the
 * marks between them in text form, as fast as they are read or, with --speed X, paced X
 * times faster than recorded, so that scripts never wait on a terminal. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "console.h"
#include "record.h"
#include "record_cmds.h"
#include "replay.h"
#include "replay_feed.h"
#include "sanitize.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void print_marks_at(struct rec_reader *r, size_t pos)
{
	const struct rec_mark *m = rec_marks(r);
	for (size_t i = 0; i < rec_n_marks(r); i++) {
		if (m[i].at_or_after != pos && !(pos == 1 && m[i].at_or_after == 0))
			continue;
		char label[300];
		sanitize_text(m[i].label, label, sizeof(label));
		if (m[i].exit_status >= 0)
			printf("mark: %s (exit %d)\n", label, m[i].exit_status);
		else
			printf("mark: %s\n", label);
	}
}

struct replay_opts {
	const char *path, *from, *to;
	struct batch_opts batch;
	double speed;    /* 0: no pacing (batch), x1 (console) */
	bool want_batch; /* -b or --format */
	bool dom0_first; /* -z (console) */
};

static int play(struct rec_reader *r, const struct replay_opts *o)
{
	struct rec_error err;
	size_t first, last;
	if (rec_resolve_window(r, o->from, o->to, &first, &last, &err)) {
		fprintf(stderr, "xiotop: %s: %s\n", o->path, err.msg);
		return 2;
	}
	size_t n_marks = rec_n_marks(r);
	size_t *mark_pos = calloc(n_marks ? n_marks : 1, sizeof(*mark_pos));
	if (!mark_pos)
		return 1;
	for (size_t i = 0; i < n_marks; i++)
		mark_pos[i] = rec_marks(r)[i].at_or_after;
	struct replay_cursor cur;
	replay_init(&cur, rec_times(r), rec_count(r), mark_pos, n_marks);
	int64_t t = now_ns();
	/* pos 1 + first: the window's first interval */
	size_t start = replay_step(&cur, (long)first, t);
	if (o->speed > 0)
		replay_set_speed(&cur, o->speed, t);
	if (start < last)
		replay_toggle_play(&cur, t);

	struct xs_sample prev, sample;
	int rc = 0;
	if (rec_read(r, start - 1, &prev, &err)) {
		fprintf(stderr, "xiotop: %s\n", err.msg);
		free(mark_pos);
		return 2;
	}
	unsigned long it = 0;
	for (size_t shown = start; shown <= last; shown++, it++) {
		/* Paced: wait until the cursor has reached this interval; unpaced: go on. */
		while (o->speed > 0 && cur.pos < shown && cur.playing) {
			int64_t wait = replay_wait_ns(&cur, now_ns());
			if (wait > 0)
				sleep_ns(wait);
			replay_tick(&cur, now_ns());
		}
		if (rec_read(r, shown, &sample, &err)) {
			fprintf(stderr, "xiotop: %s\n", err.msg);
			rc = 2;
			break;
		}
		if (o->batch.format == BATCH_TEXT)
			print_marks_at(r, shown);
		print_interval(stdout, &prev, &sample, &o->batch, it);
		sample_free(&prev);
		prev = sample;
	}
	sample_free(&prev);
	free(mark_pos);
	return rc;
}

static volatile sig_atomic_t stop_console;

static void on_stop(int sig)
{
	(void)sig;
	stop_console = 1;
}

/* The console over the window: Ctrl-C and a closed terminal end it with the terminal
 * restored, as in the live console. */
static int browse(struct rec_reader *r, const struct replay_opts *o)
{
	struct rec_error err;
	size_t first, last;
	if (rec_resolve_window(r, o->from, o->to, &first, &last, &err)) {
		fprintf(stderr, "xiotop: %s: %s\n", o->path, err.msg);
		return 2;
	}
	struct replay_feed *f = replay_feed_open(r, first, last, o->speed, &err);
	if (!f) {
		fprintf(stderr, "xiotop: %s\n", err.msg);
		return err.code == REC_ERR_NOMEM ? 1 : 2;
	}
	const char *base = strrchr(o->path, '/');
	char title[300];
	snprintf(title, sizeof(title), "replay %s", base ? base + 1 : o->path);
	struct console_feed feed = {.ctx = f, .navigate = replay_feed_navigate, .title = title};
	struct console_opts co = {.delay_s = 1,
	                          .full_names = o->batch.full_names,
	                          .dom0_first = o->dom0_first,
	                          .stop = &stop_console};
	struct sigaction sa = {.sa_handler = on_stop};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	int rc = console_run(&co, &feed);
	if (rc == 1 && replay_feed_error(f)[0]) {
		fprintf(stderr, "xiotop: %s\n", replay_feed_error(f));
		rc = 2; /* a bad file, as everywhere else */
	}
	replay_feed_close(f);
	return rc;
}

static void replay_usage(FILE *out)
{
	fprintf(out, "usage: xiotop replay FILE [--speed X] [--from MARK|TIME] [--to MARK|TIME] "
	             "[-f] [-z] [-b] [--format text|csv|json]\n"
	             "  on a terminal: the console over the recording (h for its keys);\n"
	             "  otherwise, or with -b or --format: batch lines\n");
}

enum { OPT_FORMAT = 256, OPT_FROM, OPT_TO, OPT_SPEED };

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"from", required_argument, NULL, OPT_FROM},
	    {"to", required_argument, NULL, OPT_TO},
	    {"speed", required_argument, NULL, OPT_SPEED},
	    {"full-name", no_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct replay_opts o = {.batch = {.format = BATCH_TEXT}};
	int c;
	char *end;
	optind = 0;
	while ((c = getopt_long(argc, argv, "bfhz", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (batch_parse_format(optarg, &o.batch.format)) {
				fprintf(stderr, "xiotop replay: unknown format '%s'\n", optarg);
				return 2;
			}
			o.want_batch = true;
			break;
		case 'b':
			o.want_batch = true;
			break;
		case 'z':
			o.dom0_first = true;
			break;
		case OPT_FROM:
			o.from = optarg;
			break;
		case OPT_TO:
			o.to = optarg;
			break;
		case OPT_SPEED:
			o.speed = strtod(optarg, &end);
			if (*end || !(o.speed >= REPLAY_SPEED_MIN && o.speed <= REPLAY_SPEED_MAX)) {
				fprintf(stderr,
				        "xiotop replay: --speed wants a factor from %g to %g\n",
				        REPLAY_SPEED_MIN, REPLAY_SPEED_MAX);
				return 2;
			}
			break;
		case 'f':
			o.batch.full_names = true;
			break;
		case 'h':
			replay_usage(stdout);
			return 0;
		default:
			replay_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		replay_usage(stderr);
		return 2;
	}
	o.path = argv[optind];
	struct rec_error err;
	struct rec_reader *r = rec_open(o.path, &err);
	if (!r) {
		fprintf(stderr, "xiotop: %s\n", err.msg);
		return 2;
	}
	bool terminal = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	int rc = o.want_batch || !terminal ? play(r, &o) : browse(r, &o);
	rec_reader_close(r);
	return rc;
}
