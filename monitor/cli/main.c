/* main.c - which command: the first argument names it, else the live console/batch.
 *
 *   xiotop [-b] [OPTIONS]                  the console, or batch lines (cmd_live.c)
 *   xiotop COMMAND ...                     a command named in options.c's cli_commands[]
 *   xiotop COMMAND --help                  each command's options (options.c)
 *   xiotop --version
 *
 * Exit status: 0 done, 1 runtime failure, 2 bad usage or input, or a missing
 * prerequisite (root, BPF).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/fail.h"

/* What runs each command cli_commands[] (options.c) names; the live console is the
 * rest. Checked against CLI_N_COMMANDS when compiled. */
static const struct {
	enum cli_cmd cmd;
	int (*run)(struct cli_opts *o);
} runs[] = {
    {CMD_TOPOLOGY, cmd_topology}, {CMD_RECORD, cmd_record}, {CMD_MARK, cmd_mark},
    {CMD_EXPORT, cmd_export},     {CMD_REPLAY, cmd_replay}, {CMD_EXPLAIN, cmd_explain},
    {CMD_IMPORT, cmd_import},     {CMD_SERVE, cmd_serve},
};
_Static_assert(sizeof(runs) / sizeof(runs[0]) == CLI_N_COMMANDS - 1,
               "a run for every command but the live console");

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	xnote_set_sink(cli_note);
	/* line-buffered, in 64 KiB: a JSON interval of 1,000 domains is one ~900 KB line,
	 * which the pipe's 4 KiB default wrote in ~220 system calls */
	static char stdout_buf[64 * 1024];
	setvbuf(stdout, stdout_buf, _IOLBF, sizeof(stdout_buf));
	if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("xiotop %s\n", XIOTOP_VERSION);
		return 0;
	}
	enum cli_cmd cmd = cli_command_named(argc > 1 ? argv[1] : NULL);
	/* argv[0] names the command for cli_parse: "xiotop" for the live console */
	int shift = cmd == CMD_LIVE ? 0 : 1;
	struct cli_opts o;
	int rc = cli_begin(cmd, argc - shift, argv + shift, &o);
	if (rc >= 0)
		return rc;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		if (runs[i].cmd == cmd)
			return runs[i].run(&o);
	return cmd_live(&o);
}
