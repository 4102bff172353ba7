/* commands.h - the commands, dispatched from main.c; each is the interval loop (core/loop.h)
 * with its own source, pacer and sinks.
 *
 * Contract: each cmd_NAME takes its options as main.c parsed them (cli_begin: one parser,
 * cli/options.h), prints its usage on bad usage, and returns the process exit
 * status: 0 done, 1 runtime failure, 2 bad usage, a bad or unreadable recording (one
 * clear message), a full disk, or a missing prerequisite. `xiotop record` in wrap mode
 * returns the command's exit status when the recording itself went well.
 */
#ifndef XIOTOP_COMMANDS_H
#define XIOTOP_COMMANDS_H

#include "cli/options.h"
#include "record/rec_span.h"

int cmd_live(struct cli_opts *o); /* xiotop [-b] ...: the console or batch lines */
int cmd_topology(struct cli_opts *o);
int cmd_record(struct cli_opts *o);
int cmd_mark(struct cli_opts *o);
int cmd_export(struct cli_opts *o);
int cmd_replay(struct cli_opts *o);
int cmd_import(struct cli_opts *o); /* logs of xentop, vmstat, iostat -> a recording */
int cmd_explain(struct cli_opts *o);
int cmd_serve(struct cli_opts *o); /* Prometheus /metrics over HTTP (cmd_serve.c) */

/* live_open() for a command: 0, or the exit status after its failure was said. Says too
 * which topology entries the BPF maps refused at once: they fall in the first sample,
 * which no interval's lost_events counts. */
int open_live(struct live **out, const struct source_opts *o);
/* live_close() for a command: first says on stderr which kinds of events were lost, when
 * any were (the samples hold only their sum, lost_events). NULL: nothing. */
void close_live(struct live *l);
/* Opens the source o names (--synthetic N, else the live tracer), runs run(ctx, source)
 * over it and closes it: run's status, or the exit status after an open failed (`who`
 * prefixes the message). */
typedef int (*cli_source_run)(void *ctx, struct sample_source src);
int cli_with_source(const struct cli_opts *o, const char *who, cli_source_run run, void *ctx);
/* The interval loop over src into one sink, a sample every o->delay_s until a stop signal
 * or max_intervals (0: no limit); a failure said on stderr. Returns the loop's status. */
int cli_run_paced(const struct cli_opts *o, struct sample_source src, struct interval_sink sink,
                  long max_intervals);

/* Recorded intervals of FILE's window [o->from, o->to] as `xiotop -b` prints them (at
 * most o->iterations; 0: all): `xiotop export` and `xiotop -b --from-file`. */
int print_recording(const char *path, const struct cli_opts *o);
/* The same over the recordings of o->dir within --from/--to, as one recording. */
int print_directory(const struct cli_opts *o);
/* The recordings of o->dir as one (record/rec_span.h): only the files --from and --to
 * reach when they are times, all of them when one is a mark. NULL with err. */
struct rec_span *cli_open_dir_span(const struct cli_opts *o, struct xerr *err);

#endif
