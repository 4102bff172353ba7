/* cmd_export.c - `xiotop export` and `xiotop -b --from-file`: recorded intervals printed
 * by the same loop and sink as live batch mode, so both print exactly the lines
 * `xiotop -b` printed or would have. */
#include <stdio.h>

#include "cli/commands.h"
#include "core/sanitize.h"
#include "core/loop.h"
#include "record/rec_stream.h"

int print_recording(const char *path, const struct cli_opts *o)
{
	struct rec_error err;
	struct rec_reader *r = rec_open(path, &err);
	if (!r) {
		fprintf(stderr, "xiotop: %s\n", err.msg);
		return 2;
	}
	size_t first, last;
	int rc = 2;
	if (rec_resolve_window(r, o->from, o->to, &first, &last, &err)) {
		char shown[1024]; /* a file name may hold anything, as a mailed file's may */
		sanitize_text(path, shown, sizeof(shown));
		fprintf(stderr, "xiotop: %s: %s\n", shown, err.msg);
	} else {
		struct rec_stream stream = {.reader = r, .next = first, .last = last};
		struct sample_source src = rec_stream_source(&stream);
		struct batch_sink printer = {
		    .out = stdout, .opts = {.format = o->format, .full_names = o->full_names}};
		struct interval_sink sink = batch_sink(&printer);
		struct loop l = {
		    .src = &src, .sinks = &sink, .n_sinks = 1, .max_intervals = o->iterations};
		rc = interval_loop(&l);
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
	if (o.n_args != 1)
		return cli_bad_usage(CMD_EXPORT,
		                     o.n_args ? "one FILE only" : "which recording? give FILE");
	return print_recording(o.args[0], &o);
}
