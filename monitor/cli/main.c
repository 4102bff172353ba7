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

/* The command cli_commands[] (options.c) names; the compiler checks that each has one. */
static int run(enum cli_cmd cmd, int argc, char **argv)
{
	switch (cmd) {
	case CMD_LIVE:
		break;
	case CMD_TOPOLOGY:
		return cmd_topology(argc - 1, argv + 1);
	case CMD_RECORD:
		return cmd_record(argc - 1, argv + 1);
	case CMD_MARK:
		return cmd_mark(argc - 1, argv + 1);
	case CMD_EXPORT:
		return cmd_export(argc - 1, argv + 1);
	case CMD_REPLAY:
		return cmd_replay(argc - 1, argv + 1);
	case CMD_EXPLAIN:
		return cmd_explain(argc - 1, argv + 1);
	case CMD_IMPORT:
		return cmd_import(argc - 1, argv + 1);
	case CMD_SERVE:
		return cmd_serve(argc - 1, argv + 1);
	}
	return cmd_live(argc, argv);
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("xiotop %s\n", XIOTOP_VERSION);
		return 0;
	}
	return run(cli_command_named(argc > 1 ? argv[1] : NULL), argc, argv);
}
