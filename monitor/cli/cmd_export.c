/* cmd_export.c - `xiotop export` and `xiotop -b --from-file`: recorded intervals printed
 * by the same loop and sink as live batch mode, so both print exactly the lines
 * `xiotop -b` printed or would have. */
#include <stdint.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/fail.h"
#include "core/sanitize.h"
#include "core/loop.h"
#include "record/rec_dir.h"
#include "record/rec_stream.h"

/* The recorded intervals of one source through the batch sink. */
static int print_source(struct sample_source src, const struct cli_opts *o)
{
	struct batch_sink printer = {.out = stdout,
	                             .opts = {.format = o->format, .full_names = o->full_names}};
	struct interval_sink sink = batch_sink(&printer);
	struct xerr err = {0};
	struct loop l = {
	    .src = &src, .sinks = &sink, .n_sinks = 1, .max_intervals = o->iterations, .err = &err};
	int rc = interval_loop(&l);
	cli_say(&err);
	batch_sink_free(&printer);
	return rc;
}

/* A --from/--to TIME for a directory of recordings (marks are per file). */
static int dir_time(const char *what, const char *text, int64_t none, int64_t *ns)
{
	if (!text) {
		*ns = none;
		return 0;
	}
	if (rec_dir_parse_time(text, ns) == 0)
		return 0;
	fprintf(stderr,
	        "xiotop: %s %.200s: with --dir a TIME is wanted, as 2026-05-01 14:00 (local) or "
	        "2026-05-01T12:00:00Z\n",
	        what, text);
	return -1;
}

int print_directory(const struct cli_opts *o)
{
	int64_t from, to;
	if (dir_time("--from", o->from, INT64_MIN, &from) ||
	    dir_time("--to", o->to, INT64_MAX, &to))
		return 2;
	struct rec_dir_stream stream;
	struct xerr err;
	if (rec_dir_stream_open(&stream, o->dir, from, to, &err)) {
		return cli_fail(&err);
	}
	int rc = print_source(rec_dir_stream_source(&stream), o);
	rec_dir_stream_close(&stream);
	return rc;
}

int print_recording(const char *path, const struct cli_opts *o)
{
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	if (!r) {
		return cli_fail(&err);
	}
	size_t first, last;
	int rc = 2;
	if (rec_resolve_window(r, o->from, o->to, &first, &last, &err)) {
		char shown[1024]; /* a file name may hold anything, as a mailed file's may */
		sanitize_text(path, shown, sizeof(shown));
		fprintf(stderr, "xiotop: %s: %s\n", shown, err.msg);
	} else {
		struct rec_stream stream = {.reader = r, .next = first, .last = last};
		rc = print_source(rec_stream_source(&stream), o);
	}
	rec_reader_close(r);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct cli_opts o;
	cli_defaults(&o);
	o.format = BATCH_JSON;
	int rc = cli_parse(CMD_EXPORT, argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.dir && !o.n_args)
		return print_directory(&o);
	if (o.n_args != 1 || o.dir)
		return cli_bad_usage(CMD_EXPORT, o.n_args
		                                     ? "one FILE only (or --dir DIR)"
		                                     : "which recording? give FILE or --dir DIR");
	return print_recording(o.args[0], &o);
}
