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

int cmd_topology(struct cli_opts *o)
{
	struct xt_topology topo;
	struct xerr err = {0};
	if (live_load_topology(&o->src, &topo, &err))
		return cli_fail(&err);
	if (o->format == BATCH_JSON)
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
	int rc = cli_run_paced(o, src, batch_sink(&printer), o->iterations);
	batch_sink_free(&printer);
	return rc;
}

static int watch_source(void *o, struct sample_source src)
{
	return watch(o, src);
}

int cmd_live(struct cli_opts *o)
{
	if (o->from_file) {
		if (!o->batch) {
			fprintf(stderr,
			        "xiotop: --from-file goes with -b (or use xiotop replay FILE)\n");
			return 2;
		}
		if (o->latency_given) {
			fprintf(stderr,
			        "xiotop: --%s chooses what the live tracer times; a "
			        "recording holds the latency it was recorded with\n",
			        o->src.latency ? "latency" : "no-latency");
			return 2;
		}
		return print_recording(o->from_file, o);
	}
	cli_catch_stop();
	return cli_with_source(o, "xiotop", watch_source, o);
}
