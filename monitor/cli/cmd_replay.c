/* cmd_replay.c - `xiotop replay FILE` and `xiotop replay --dir DIR`: a recording, or the
 * files of a directory as one timeline (record/rec_span.h), played back through the
 * replay cursor (replay.h). On a terminal it is the console over it (replay_feed.h: the
 * console's replay keys move the cursor). Otherwise (a pipe, a file, CI), or with -b or
 * --format, the replayed intervals are printed as batch output (text by default) with the
 * marks between them in text form, as fast as they are read or, with --speed X, paced X
 * times faster than recorded, so that scripts never wait on a terminal. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/fail.h"
#include "cli/stop.h"
#include "core/clock.h"
#include "core/loop.h"
#include "core/sanitize.h"
#include "record/rec_span.h"
#include "record/rec_stream.h"
#include "record/record.h"
#include "record/replay.h"
#include "record/replay_feed.h"
#include "ui/console.h"

/* Text output: the marks recorded before a sample, printed before its interval. */
struct mark_printer {
	struct rec_span *span;
	size_t pos; /* the index of the next sample handed out */
};

static int print_marks_at(void *ctx, const struct xio_sample *s, bool first)
{
	(void)s;
	struct mark_printer *p = ctx;
	size_t pos = p->pos++;
	if (first)
		return LOOP_GO_ON;
	const struct rec_mark *m = rec_span_marks(p->span);
	for (size_t i = 0; i < rec_span_n_marks(p->span); i++) {
		if (m[i].at_or_after != pos && !(pos == 1 && m[i].at_or_after == 0))
			continue;
		char label[300];
		sanitize_text(m[i].label, label, sizeof(label));
		if (m[i].exit_status >= 0)
			printf("mark: %s (exit %d)\n", label, m[i].exit_status);
		else
			printf("mark: %s\n", label);
	}
	return LOOP_GO_ON;
}

/* --speed X: each interval waits until the cursor, playing, has reached it. */
struct replay_pace {
	struct replay_cursor cursor;
	size_t due; /* the sample whose interval is next */
};

static enum pace replay_pace_wait(void *ctx)
{
	struct replay_pace *p = ctx;
	while (p->cursor.pos < p->due && p->cursor.playing) {
		clock_sleep_ns(replay_wait_ns(&p->cursor, clock_mono_ns()), NULL);
		replay_tick(&p->cursor, clock_mono_ns());
	}
	p->due++;
	return PACE_DUE;
}

struct replay_opts {
	const char *path; /* the file or the directory */
	const struct cli_opts *cli;
	struct batch_opts batch;
	double speed;    /* 0: no pacing (batch), x1 (console) */
	bool want_batch; /* -b or --format */
	bool dom0_first; /* -z (console) */
};

/* --from/--to into samples [first, last]; -1 after saying why. */
static int resolve_window(struct rec_span *r, const struct replay_opts *o, size_t *first,
                          size_t *last)
{
	struct xerr err;
	if (rec_span_window(r, o->cli->from, o->cli->to, first, last, &err) == 0)
		return 0;
	char shown[1024]; /* a file name may hold anything, as a mailed file's may */
	sanitize_text(o->path, shown, sizeof(shown));
	fprintf(stderr, "xiotop: %s: %s\n", shown, err.msg);
	return -1;
}

/* Batch lines of the window, paced by --speed or as fast as they are read. */
static int play(struct rec_span *r, const struct replay_opts *o)
{
	size_t first, last;
	if (resolve_window(r, o, &first, &last))
		return 2;
	size_t n_marks = rec_span_n_marks(r);
	size_t *mark_pos = calloc(n_marks ? n_marks : 1, sizeof(*mark_pos));
	if (!mark_pos)
		return 1;
	for (size_t i = 0; i < n_marks; i++)
		mark_pos[i] = rec_span_marks(r)[i].at_or_after;
	struct replay_pace pace;
	replay_init(&pace.cursor, rec_span_times(r), rec_span_count(r), mark_pos, n_marks);
	int64_t t = clock_mono_ns();
	/* pos 1 + first: the window's first interval */
	size_t start = replay_step(&pace.cursor, (long)first, t);
	if (o->speed > 0)
		replay_set_speed(&pace.cursor, o->speed, t);
	if (start < last)
		replay_toggle_play(&pace.cursor, t);
	pace.due = start;

	struct rec_stream stream = {.span = r, .next = start - 1, .last = last};
	struct sample_source src = rec_stream_source(&stream);
	struct mark_printer marks = {.span = r, .pos = start - 1};
	struct batch_sink printer = {.out = stdout, .opts = o->batch};
	struct interval_sink sinks[2] = {{.ctx = &marks, .sample = print_marks_at},
	                                 batch_sink(&printer)};
	bool text = o->batch.format == BATCH_TEXT;
	struct xerr err = {0};
	struct loop l = {.src = &src,
	                 .sinks = text ? sinks : sinks + 1,
	                 .n_sinks = text ? 2 : 1,
	                 .pacer = {.ctx = &pace, .wait = o->speed > 0 ? replay_pace_wait : NULL},
	                 .err = &err};
	int rc = interval_loop(&l);
	cli_say(&err);
	batch_sink_free(&printer);
	free(mark_pos);
	return rc;
}

/* The console over the window: Ctrl-C and a closed terminal end it with the terminal
 * restored, as in the live console. */
static int browse(struct rec_span *r, const struct replay_opts *o)
{
	struct xerr err;
	size_t first, last;
	if (resolve_window(r, o, &first, &last))
		return 2;
	struct replay_feed *f = replay_feed_open(r, first, last, o->speed, &err);
	if (!f) {
		return cli_fail(&err);
	}
	const char *base = strrchr(o->path, '/');
	char title[300];
	if (rec_span_files(r) > 1)
		snprintf(title, sizeof(title), "replay %s (%zu files)", base ? base + 1 : o->path,
		         rec_span_files(r));
	else
		snprintf(title, sizeof(title), "replay %s", base ? base + 1 : o->path);
	struct console_feed feed = {
	    .navigate = replay_feed_navigate, .navigate_ctx = f, .title = title};
	struct console_opts co = {.delay_s = 1,
	                          .full_names = o->batch.full_names,
	                          .dom0_first = o->dom0_first,
	                          .stop = &cli_stop_signal};
	cli_catch_stop();
	struct xerr shown_err = {0};
	int rc = console_run(&co, &feed, &shown_err);
	cli_say(&shown_err);
	if (rc == 1 && replay_feed_error(f)[0]) {
		fprintf(stderr, "xiotop: %s\n", replay_feed_error(f));
		rc = 2; /* a bad file, as everywhere else */
	}
	replay_feed_close(f);
	return rc;
}

int cmd_replay(struct cli_opts *cli)
{
	int rc;
	if (cli->n_args != (cli->dir ? 0 : 1))
		return cli_bad_usage(CMD_REPLAY, "give one FILE (or --dir DIR)");
	struct replay_opts o = {
	    .path = cli->dir ? cli->dir : cli->args[0],
	    .cli = cli,
	    .batch = {.format = cli->format, .full_names = cli->full_names},
	    .speed = cli->speed,
	    .want_batch = cli->batch || cli->format_given,
	    .dom0_first = cli->dom0_first,
	};
	struct xerr err;
	struct rec_span *r =
	    cli->dir ? cli_open_dir_span(cli, &err) : rec_span_open_file(o.path, &err);
	if (!r)
		return cli_fail(&err);
	bool terminal = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	rc = o.want_batch || !terminal ? play(r, &o) : browse(r, &o);
	rec_span_close(r);
	return rc;
}
