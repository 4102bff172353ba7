/* main.c - command-line dispatch: the live console, live batch output and `topology`.
 *
 *   xiotop [-d SECONDS] [-i COUNT] [-f] [-z] [SOURCE]
 *   xiotop -b [-d SECONDS] [-i COUNT] [--format text|csv|json] [-f] [SOURCE]
 *   xiotop topology [--format text|json] [SOURCE]
 *   xiotop record|replay|export|mark ...   (recordings: monitor/record/record_cmds.h)
 *   xiotop -b ... --from-file FILE         (batch output of a recording)
 *   SOURCE: --xenstore-dump FILE, --sysfs-root DIR, --proc-root DIR, --image-dir DIR
 *   (hidden) --synthetic N: N fabricated domains instead of the tracer (benchmarks)
 *
 * Exit status: 0 done, 1 runtime failure, 2 bad usage or input, or a missing
 * prerequisite (root, BPF).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "console.h"
#include "live.h"
#include "model.h"
#include "rec_registry.h"
#include "record_cmds.h"
#include "synthetic.h"

struct options {
	bool batch;
	double delay_s;
	long iterations; /* 0: until interrupted */
	enum batch_format format;
	bool full_names;
	bool dom0_first;    /* -z: console shows dom0 first */
	unsigned synthetic; /* --synthetic N: fabricated domains, no tracer */
	struct source_opts src;
	/* -b --from-file FILE: a recording instead of the tracer */
	const char *from_file;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: xiotop [-d SECONDS] [-i COUNT] [-f] [-z] [SOURCE]   (console)\n"
	        "       xiotop -b [-d SECONDS] [-i COUNT] [--format text|csv|json] [-f] [SOURCE]\n"
	        "       xiotop topology [--format text|json] [SOURCE]\n"
	        "       xiotop -b [-i COUNT] [--format text|csv|json] [-f] --from-file FILE\n"
	        "       xiotop record -o FILE [-d SECONDS] [--duration D] [-- COMMAND ARGS...]\n"
	        "       xiotop mark [-o FILE] LABEL\n"
	        "       xiotop export FILE [--format csv|json|text] [--from MARK|TIME] [--to ..]\n"
	        "       xiotop replay FILE [--speed X] [--from MARK|TIME] [--to ..]  (console)\n"
	        "SOURCE: --xenstore-dump FILE  (xenstore-ls or xenstore-ls -f text)\n"
	        "        --sysfs-root DIR --proc-root DIR  (fixture trees; default /sys, /proc)\n"
	        "        --image-dir DIR  (repeatable: the only places besides /dev where files\n"
	        "                          named in xenstore are followed; default: any path\n"
	        "                          without a \"..\" component)\n"
	        "Xen live (libxenstat + xenstore) is used when it answers, else the dump.\n");
}

enum { OPT_FORMAT = 256, OPT_SYNTHETIC, OPT_FROM_FILE };

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
	    {"batch", no_argument, NULL, 'b'},
	    {"delay", required_argument, NULL, 'd'},
	    {"iterations", required_argument, NULL, 'i'},
	    {"full-name", no_argument, NULL, 'f'},
	    {"dom0-first", no_argument, NULL, 'z'},
	    {"synthetic", required_argument, NULL, OPT_SYNTHETIC},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"from-file", required_argument, NULL, OPT_FROM_FILE},
	    SOURCE_LONGOPTS,
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	char *end;
	while ((c = getopt_long(argc, argv, "bd:i:fzh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->batch = true;
			break;
		case 'd':
			o->delay_s = strtod(optarg, &end);
			if (*end || o->delay_s < 0.1 || o->delay_s > 3600) {
				fprintf(stderr, "xiotop: -d wants seconds between 0.1 and 3600\n");
				return -1;
			}
			break;
		case 'i':
			o->iterations = strtol(optarg, &end, 10);
			if (*end || o->iterations < 1) {
				fprintf(stderr, "xiotop: -i wants a positive count\n");
				return -1;
			}
			break;
		case 'f':
			o->full_names = true;
			break;
		case 'z':
			o->dom0_first = true;
			break;
		case OPT_SYNTHETIC: {
			unsigned long n = strtoul(optarg, &end, 10);
			if (*end || n < 1 || n > SYNTHETIC_MAX_DOMAINS) {
				fprintf(stderr, "xiotop: --synthetic wants a count of domains\n");
				return -1;
			}
			o->synthetic = (unsigned)n;
			break;
		}
		case OPT_FORMAT:
			if (batch_parse_format(optarg, &o->format)) {
				fprintf(stderr, "xiotop: unknown format '%s'\n", optarg);
				return -1;
			}
			break;
		case OPT_FROM_FILE:
			o->from_file = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			if (source_opt(&o->src, c, optarg) != 1)
				return -1;
			break;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "xiotop: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static int cmd_topology(const struct options *o)
{
	struct xt_topology topo;
	int rc = live_load_topology(&o->src, &topo);
	if (rc)
		return rc;
	if (o->format == BATCH_JSON)
		topo_print_json(stdout, &topo);
	else
		topo_print_text(stdout, &topo);
	topo_free(&topo);
	return 0;
}

static void sleep_until(struct timespec *next, double delay_s)
{
	long long ns = (long long)(delay_s * 1e9);
	next->tv_sec += ns / 1000000000;
	next->tv_nsec += ns % 1000000000;
	if (next->tv_nsec >= 1000000000) {
		next->tv_sec++;
		next->tv_nsec -= 1000000000;
	}
	while (!stop_requested &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR)
		;
}

static int live_feed_sample(void *ctx, struct xs_sample *s)
{
	return live_sample(ctx, s);
}

/* m in the live console: the mark also goes into the running recorder's file, found as
 * `xiotop mark` without -o finds it; with no recorder it stays on screen only. */
static int live_feed_mark(void *ctx, const char *label, int64_t realtime_ns, char *where,
                          size_t where_len)
{
	(void)ctx;
	char path[PATH_MAX];
	struct rec_error err;
	int rc = rec_registry_mark(label, realtime_ns, "console", path, sizeof(path), &err);
	if (rc > 0)
		snprintf(where, where_len, "%s", path);
	else
		snprintf(where, where_len, "%s", rc == 0 ? "no recorder running" : err.msg);
	return rc;
}

/* The sample source: the live tracer, or fabricated domains (--synthetic). */
static int open_feed(const struct options *o, struct live *live, struct synthetic **syn,
                     struct console_feed *feed)
{
	if (o->synthetic) {
		*syn = synthetic_open(o->synthetic);
		if (!*syn) {
			fprintf(stderr, "xiotop: out of memory\n");
			return 1;
		}
		*feed = (struct console_feed){
		    .ctx = *syn, .sample = synthetic_sample, .title = "synthetic"};
		return 0;
	}
	int rc = live_open(live, &o->src);
	if (rc)
		return rc;
	*feed = (struct console_feed){
	    .ctx = live, .sample = live_feed_sample, .mark = live_feed_mark, .title = "live"};
	return 0;
}

static int batch_loop(const struct options *o, struct console_feed *feed)
{
	int rc = 0;
	struct batch_opts bo = {.format = o->format, .full_names = o->full_names};
	struct xs_sample prev, cur;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	if (feed->sample(feed->ctx, &prev)) {
		fprintf(stderr, "xiotop: cannot read counters\n");
		return 1;
	}
	for (unsigned long it = 0; !stop_requested && (!o->iterations || (long)it < o->iterations);
	     it++) {
		sleep_until(&next, o->delay_s);
		if (feed->sample(feed->ctx, &cur)) {
			fprintf(stderr, "xiotop: cannot read counters\n");
			rc = 1;
			break;
		}
		struct model_interval m;
		if (model_compute(&prev, &cur, &m) == 0) {
			batch_print(stdout, &m, &bo, it);
			model_free(&m);
		}
		sample_free(&prev);
		prev = cur;
	}
	sample_free(&prev);
	return rc;
}

static int cmd_live(const struct options *o)
{
	struct live live;
	struct synthetic *syn = NULL;
	struct console_feed feed;
	int rc = open_feed(o, &live, &syn, &feed);
	if (rc)
		return rc;
	if (o->batch) {
		rc = batch_loop(o, &feed);
	} else {
		struct console_opts co = {.delay_s = o->delay_s,
		                          .iterations = o->iterations,
		                          .full_names = o->full_names,
		                          .dom0_first = o->dom0_first,
		                          .stop = &stop_requested};
		rc = console_run(&co, &feed);
	}
	if (syn)
		synthetic_close(syn);
	else
		live_close(&live);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o = {
	    .delay_s = 3.0,
	    .format = BATCH_TEXT,
	    .src = {.roots = {.sysfs = "/sys", .proc = "/proc", .dev = "/dev"}},
	};
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} subcommands[] = {{"record", cmd_record},
	                   {"replay", cmd_replay},
	                   {"export", cmd_export},
	                   {"mark", cmd_mark}};
	for (size_t i = 0; argc > 1 && i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
		if (strcmp(argv[1], subcommands[i].name))
			continue;
		signal(SIGPIPE, SIG_IGN);
		setvbuf(stdout, NULL, _IOLBF, 0);
		return subcommands[i].run(argc - 1, argv + 1);
	}
	bool topology_cmd = argc > 1 && !strcmp(argv[1], "topology");
	if (topology_cmd) {
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	if (parse_options(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* the terminal went away: stop like Ctrl-C */
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (topology_cmd)
		return cmd_topology(&o);
	if (o.from_file) {
		if (!o.batch) {
			fprintf(stderr,
			        "xiotop: --from-file goes with -b (or use xiotop replay FILE)\n");
			return 2;
		}
		struct batch_file_opts bf = {
		    .path = o.from_file,
		    .batch = {.format = o.format, .full_names = o.full_names},
		    .iterations = o.iterations,
		};
		return batch_from_file(&bf);
	}
	return cmd_live(&o);
}
