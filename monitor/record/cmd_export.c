/* cmd_export.c - `xiotop export` and `xiotop -b --from-file`: recorded intervals printed
 * by the same code as live batch mode (model_compute + batch_print over consecutive
 * samples), so both print exactly the lines `xiotop -b` printed or would have. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "record.h"
#include "record_cmds.h"

int print_interval(FILE *out, const struct xs_sample *prev, const struct xs_sample *cur,
                   const struct batch_opts *bo, unsigned long iteration)
{
	struct model_interval m;
	if (model_compute(prev, cur, &m))
		return -1;
	batch_print(out, &m, bo, iteration);
	model_free(&m);
	return 0;
}

/* Intervals first+1..last (at most max_intervals, 0: all). Exit status. */
static int print_window(struct rec_reader *r, size_t first, size_t last,
                        const struct batch_opts *bo, long max_intervals)
{
	struct rec_error err;
	struct xs_sample prev, cur;
	if (rec_read(r, first, &prev, &err)) {
		fprintf(stderr, "xiotop: %s\n", err.msg);
		return 2;
	}
	int rc = 0;
	unsigned long it = 0;
	for (size_t i = first + 1; i <= last && (!max_intervals || (long)it < max_intervals);
	     i++, it++) {
		if (rec_read(r, i, &cur, &err)) {
			fprintf(stderr, "xiotop: %s\n", err.msg);
			rc = 2;
			break;
		}
		if (print_interval(stdout, &prev, &cur, bo, it)) {
			fprintf(stderr, "xiotop: out of memory\n");
			sample_free(&cur);
			rc = 1;
			break;
		}
		sample_free(&prev);
		prev = cur;
		if (ferror(stdout)) {
			/* A reader that went away (| head) is not a failure; a full disk is. */
			if (errno != EPIPE) {
				fprintf(stderr, "xiotop: cannot write the output: %s\n",
				        strerror(errno));
				rc = 1;
			}
			break;
		}
	}
	sample_free(&prev);
	return rc;
}

int batch_from_file(const struct batch_file_opts *o)
{
	struct rec_error err;
	struct rec_reader *r = rec_open(o->path, &err);
	if (!r) {
		fprintf(stderr, "xiotop: %s\n", err.msg);
		return 2;
	}
	size_t first, last;
	int rc = 2;
	if (rec_resolve_window(r, o->from, o->to, &first, &last, &err))
		fprintf(stderr, "xiotop: %s: %s\n", o->path, err.msg);
	else
		rc = print_window(r, first, last, &o->batch, o->iterations);
	rec_reader_close(r);
	return rc;
}

static void export_usage(FILE *out)
{
	fprintf(out,
	        "usage: xiotop export FILE [--format json|csv|text] [--from MARK|TIME] "
	        "[--to MARK|TIME] [-f]\n"
	        "  prints the recorded intervals exactly as `xiotop -b --format F` prints them\n"
	        "  MARK: a mark's label; TIME: 2024-05-01T12:00:00Z (UTC) or +SECONDS from the "
	        "start\n");
}

enum { OPT_FORMAT = 256, OPT_FROM, OPT_TO };

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"from", required_argument, NULL, OPT_FROM},
	    {"to", required_argument, NULL, OPT_TO},
	    {"full-name", no_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct batch_file_opts o = {.batch = {.format = BATCH_JSON}};
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "fh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (batch_parse_format(optarg, &o.batch.format)) {
				fprintf(stderr, "xiotop export: unknown format '%s'\n", optarg);
				export_usage(stderr);
				return 2;
			}
			break;
		case OPT_FROM:
			o.from = optarg;
			break;
		case OPT_TO:
			o.to = optarg;
			break;
		case 'f':
			o.batch.full_names = true;
			break;
		case 'h':
			export_usage(stdout);
			return 0;
		default:
			export_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "xiotop export: %s\n",
		        optind >= argc ? "which recording? give FILE" : "one FILE only");
		export_usage(stderr);
		return 2;
	}
	o.path = argv[optind];
	return batch_from_file(&o);
}
