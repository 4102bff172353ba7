/* run_source.c - what the commands over a live or synthetic source share: opening it
 * (open_live, cli_with_source) and the paced interval loop into one sink (cli_run_paced);
 * see commands.h. */
#include <stdio.h>

#include "cli/commands.h"
#include "cli/fail.h"
#include "cli/stop.h"
#include "core/loop.h"
#include "sources/synthetic.h"

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

void close_live(struct live *l)
{
	if (!l)
		return;
	char lost[512];
	live_lost_describe(l, lost, sizeof(lost));
	if (lost[0])
		fprintf(stderr, "xiotop: events lost: %s\n", lost);
	live_close(l);
}

int cli_with_source(const struct cli_opts *o, const char *who, cli_source_run run, void *ctx)
{
	if (o->synthetic) {
		struct synthetic *syn = synthetic_open(o->synthetic, o->src.latency);
		if (!syn) {
			fprintf(stderr, "%s: out of memory\n", who);
			return 1;
		}
		int rc = run(ctx, synthetic_source(syn));
		synthetic_close(syn);
		return rc;
	}
	struct live *live;
	int rc = open_live(&live, &o->src);
	if (rc)
		return rc;
	rc = run(ctx, live_source(live));
	close_live(live);
	return rc;
}

int cli_run_paced(const struct cli_opts *o, struct sample_source src, struct interval_sink sink,
                  long max_intervals)
{
	struct pace_every pace = {.delay_s = &o->delay_s, .stop = &cli_stop_signal};
	struct xerr err = {0};
	struct loop l = {.src = &src,
	                 .sinks = &sink,
	                 .n_sinks = 1,
	                 .pacer = {.ctx = &pace, .wait = pace_every_wait},
	                 .max_intervals = max_intervals,
	                 .err = &err};
	int rc = interval_loop(&l);
	cli_say(&err);
	return rc;
}
