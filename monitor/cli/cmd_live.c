/* cmd_live.c - `xiotop [-b]`: the live console or batch lines over the tracer (or
 * fabricated domains with the hidden --synthetic N), and `xiotop topology`. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/fail.h"
#include "cli/stop.h"
#include "core/loop.h"
#include "record/rec_registry.h"
#include "sources/synthetic.h"
#include "ui/console.h"

int open_live(struct live **out, const struct source_opts *o)
{
	struct xerr err = {0};
	if (live_open(out, o, &err))
		return cli_fail(&err);
	char refused[256];
	map_updates_describe(live_map_updates(*out), refused, sizeof(refused));
	if (refused[0])
		fprintf(stderr,
		        "xiotop: BPF maps refused topology entries (%s): their I/O goes to no "
		        "domain or the wrong one\n",
		        refused);
	return 0;
}

int cmd_topology(int argc, char **argv)
{
	struct cli_opts o;
	int rc = cli_begin_no_args(CMD_TOPOLOGY, argc, argv, &o);
	if (rc >= 0)
		return rc;
	struct xt_topology topo;
	struct xerr err = {0};
	if (live_load_topology(&o.src, &topo, &err))
		return cli_fail(&err);
	if (o.format == BATCH_JSON)
		topo_print_json(stdout, &topo);
	else
		topo_print_text(stdout, &topo);
	topo_free(&topo);
	return 0;
}

/* m in the live console: the mark also goes into the running recorder's file, found as
 * `xiotop mark` without -o finds it; with no recorder it stays on screen only. */
static int live_feed_mark(void *ctx, const char *label, int64_t realtime_ns, char *where,
                          size_t where_len)
{
	(void)ctx;
	char path[PATH_MAX];
	struct xerr err;
	int rc = rec_registry_mark(label, realtime_ns, "console", path, sizeof(path), &err);
	if (rc > 0)
		snprintf(where, where_len, "%s", path);
	else
		snprintf(where, where_len, "%s", rc == 0 ? "no recorder running" : err.msg);
	return rc;
}

/* The console or batch lines over an open source. */
static int watch(const struct cli_opts *o, struct sample_source src)
{
	if (!o->batch) {
		struct console_feed feed = {.source = src, .title = src.title};
		if (!o->synthetic)
			feed.mark = live_feed_mark;
		struct console_opts co = {.delay_s = o->delay_s,
		                          .iterations = o->iterations,
		                          .full_names = o->full_names,
		                          .dom0_first = o->dom0_first,
		                          .stop = &cli_stop_signal};
		struct xerr err = {0};
		int rc = console_run(&co, &feed, &err);
		cli_say(&err);
		return rc;
	}
	struct batch_sink printer = {.out = stdout,
	                             .opts = {.format = o->format, .full_names = o->full_names}};
	struct interval_sink sink = batch_sink(&printer);
	struct pace_every pace = {.delay_s = &o->delay_s, .stop = &cli_stop_signal};
	struct xerr err = {0};
	struct loop l = {.src = &src,
	                 .sinks = &sink,
	                 .n_sinks = 1,
	                 .pacer = {.ctx = &pace, .wait = pace_every_wait},
	                 .max_intervals = o->iterations,
	                 .err = &err};
	int rc = interval_loop(&l);
	cli_say(&err);
	batch_sink_free(&printer);
	return rc;
}

int cmd_live(int argc, char **argv)
{
	struct cli_opts o;
	int rc = cli_begin_no_args(CMD_LIVE, argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.from_file) {
		if (!o.batch) {
			fprintf(stderr,
			        "xiotop: --from-file goes with -b (or use xiotop replay FILE)\n");
			return 2;
		}
		if (o.src.latency) {
			fprintf(stderr, "xiotop: --latency times the live tracer; a recording "
			                "holds the latency it was recorded with\n");
			return 2;
		}
		return print_recording(o.from_file, &o);
	}
	cli_catch_stop();
	if (o.synthetic) {
		struct synthetic *syn = synthetic_open(o.synthetic);
		if (!syn) {
			fprintf(stderr, "xiotop: out of memory\n");
			return 1;
		}
		rc = watch(&o, synthetic_source(syn));
		synthetic_close(syn);
		return rc;
	}
	struct live *live;
	rc = open_live(&live, &o.src);
	if (rc)
		return rc;
	rc = watch(&o, live_source(live));
	live_close(live);
	return rc;
}
