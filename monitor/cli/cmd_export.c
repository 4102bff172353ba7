/* cmd_export.c - `xiotop export` and `xiotop -b --from-file`: recorded intervals printed
 * by the same loop and sink as live batch mode, so both print exactly the lines
 * `xiotop -b` printed or would have. */
#include <stdint.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/fail.h"
#include "core/clock.h"
#include "core/loop.h"
#include "core/sanitize.h"
#include "core/when.h"
#include "record/rec_span.h"
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

/* One end of --dir's window when it is a time (core/when.h): only the files it reaches
 * are opened. A mark (or anything else) leaves that end open: every file then. */
static int64_t dir_end(const char *text, int64_t none)
{
	int64_t ns;
	return text && !when_parse(text, clock_real_ns(), &ns) ? ns : none;
}

struct rec_span *cli_open_dir_span(const struct cli_opts *o, struct xerr *err)
{
	return rec_span_open_dir(o->dir, dir_end(o->from, INT64_MIN), dir_end(o->to, INT64_MAX),
	                         err);
}

/* The window of a recording or span through the batch sink. */
static int print_span(struct rec_span *r, const struct cli_opts *o)
{
	size_t first, last;
	struct xerr err;
	if (rec_span_window(r, o->from, o->to, &first, &last, &err)) {
		char shown[1024]; /* a file name may hold anything, as a mailed file's may */
		sanitize_text(rec_span_name(r), shown, sizeof(shown));
		fprintf(stderr, "xiotop: %s: %s\n", shown, err.msg);
		return 2;
	}
	struct rec_stream stream = {.span = r, .next = first, .last = last};
	return print_source(rec_stream_source(&stream), o);
}

int print_directory(const struct cli_opts *o)
{
	struct xerr err;
	struct rec_span *r = cli_open_dir_span(o, &err);
	if (!r)
		return cli_fail(&err);
	int rc = print_span(r, o);
	rec_span_close(r);
	return rc;
}

int print_recording(const char *path, const struct cli_opts *o)
{
	struct xerr err;
	struct rec_span *r = rec_span_open_file(path, &err);
	if (!r)
		return cli_fail(&err);
	int rc = print_span(r, o);
	rec_span_close(r);
	return rc;
}

int cmd_export(struct cli_opts *o)
{
	if (o->dir && !o->n_args)
		return print_directory(o);
	if (o->n_args != 1 || o->dir)
		return cli_bad_usage(CMD_EXPORT, o->n_args
		                                     ? "one FILE only (or --dir DIR)"
		                                     : "which recording? give FILE or --dir DIR");
	return print_recording(o->args[0], o);
}
