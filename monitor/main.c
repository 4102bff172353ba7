/* main.c - command-line dispatch: live batch output and `topology`.
 *
 *   xiotop -b [-d SECONDS] [-i COUNT] [--format text|csv|json] [-f] [SOURCE]
 *   xiotop topology [--format text|json] [SOURCE]
 *   SOURCE: --xenstore-dump FILE, --sysfs-root DIR, --proc-root DIR
 *
 * Exit status: 0 done, 1 runtime failure, 2 bad usage or input, or a missing
 * prerequisite (root, BPF).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "live.h"
#include "model.h"

struct options {
	bool batch;
	double delay_s;
	long iterations; /* 0: until interrupted */
	enum batch_format format;
	bool full_names;
	struct source_opts src;
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
	        "usage: xiotop -b [-d SECONDS] [-i COUNT] [--format text|csv|json] [-f] [SOURCE]\n"
	        "       xiotop topology [--format text|json] [SOURCE]\n"
	        "SOURCE: --xenstore-dump FILE  (xenstore-ls or xenstore-ls -f text)\n"
	        "        --sysfs-root DIR --proc-root DIR  (fixture trees; default /sys, /proc)\n");
}

enum { OPT_FORMAT = 256, OPT_DUMP, OPT_SYSFS, OPT_PROC };

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
	    {"batch", no_argument, NULL, 'b'},
	    {"delay", required_argument, NULL, 'd'},
	    {"iterations", required_argument, NULL, 'i'},
	    {"full-name", no_argument, NULL, 'f'},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"xenstore-dump", required_argument, NULL, OPT_DUMP},
	    {"sysfs-root", required_argument, NULL, OPT_SYSFS},
	    {"proc-root", required_argument, NULL, OPT_PROC},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	char *end;
	while ((c = getopt_long(argc, argv, "bd:i:fh", longopts, NULL)) != -1) {
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
		case OPT_FORMAT:
			if (batch_parse_format(optarg, &o->format)) {
				fprintf(stderr, "xiotop: unknown format '%s'\n", optarg);
				return -1;
			}
			break;
		case OPT_DUMP:
			o->src.xenstore_dump = optarg;
			break;
		case OPT_SYSFS:
			o->src.roots.sysfs = optarg;
			break;
		case OPT_PROC:
			o->src.roots.proc = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
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

static int cmd_live(const struct options *o)
{
	struct live live;
	int rc = live_open(&live, &o->src);
	if (rc)
		return rc;
	struct batch_opts bo = {.format = o->format, .full_names = o->full_names};
	struct xs_sample prev, cur;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	if (live_sample(&live, &prev)) {
		fprintf(stderr, "xiotop: cannot read counters\n");
		live_close(&live);
		return 1;
	}
	for (unsigned long it = 0; !stop_requested && (!o->iterations || (long)it < o->iterations);
	     it++) {
		sleep_until(&next, o->delay_s);
		if (live_sample(&live, &cur)) {
			fprintf(stderr, "xiotop: cannot read counters\n");
			rc = 1;
			break;
		}
		struct model_interval m;
		if (model_compute(&prev, &cur, &m) == 0) {
			bo.hooks = m.hooks;
			batch_print(stdout, &m, &bo, it);
			model_free(&m);
		}
		sample_free(&prev);
		prev = cur;
	}
	sample_free(&prev);
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
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (topology_cmd)
		return cmd_topology(&o);
	if (!o.batch)
		fprintf(stderr, "xiotop: the console is not built yet; showing batch output\n");
	return cmd_live(&o);
}
