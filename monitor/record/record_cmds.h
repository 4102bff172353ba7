/* record_cmds.h - the subcommands over recordings, dispatched from main.c.
 *
 * Contract: each cmd_NAME takes argv[0] == "NAME" and the subcommand's own options, prints
 * its usage on bad usage, and returns the process exit status: 0 done, 1 runtime failure,
 * 2 bad usage, a bad or unreadable recording (one clear message), a full disk, or a
 * missing prerequisite. `xiotop record` in wrap mode returns the command's exit status
 * when the recording itself went well.
 *
 *   xiotop record -o FILE [-d SECONDS] [--duration D] [--tail SECONDS] [--print FORMAT]
 *                 [--xenstore-dump FILE] [-- COMMAND ARGS...]
 *   xiotop mark [-o FILE] LABEL
 *   xiotop export FILE --format text|csv|json [--from MARK|TIME] [--to MARK|TIME]
 *   xiotop replay FILE [--speed X] [--from ..] [--to ..] [-f] [-z] [-b] [--format F]
 *                 (the console on a terminal, else or with -b/--format batch lines)
 *   xiotop -b --from-file FILE ...   (batch_from_file)
 */
#ifndef XIOTOP_RECORD_CMDS_H
#define XIOTOP_RECORD_CMDS_H

#include <stdio.h>

#include "batch.h"
#include "sample.h"

int cmd_record(int argc, char **argv);
int cmd_mark(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_replay(int argc, char **argv);

/* `xiotop -b [--format F] [-f] [-i COUNT] --from-file FILE`: the same lines live batch
 * mode prints for the recorded samples (iterations 0: all). */
struct batch_file_opts {
	const char *path;
	struct batch_opts batch;
	long iterations;
	const char *from, *to; /* NULL: whole recording */
};
int batch_from_file(const struct batch_file_opts *o);

/* One interval (prev, cur] through model_compute() and batch_print(), exactly as live
 * batch mode prints it; iteration 0 prints the CSV header. 0 or -1 (ENOMEM). */
int print_interval(FILE *out, const struct xs_sample *prev, const struct xs_sample *cur,
                   const struct batch_opts *bo, unsigned long iteration);

#endif
