/* main.c - which command: the first argument names it, else the live console/batch.
 *
 *   xiotop [-b] [OPTIONS]                  the console, or batch lines (cmd_live.c)
 *   xiotop topology|record|mark|export|replay|explain|import|serve ...   (commands.h)
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

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} subcommands[] = {{"record", cmd_record},     {"replay", cmd_replay},
	                   {"export", cmd_export},     {"mark", cmd_mark},
	                   {"topology", cmd_topology}, {"import", cmd_import},
	                   {"explain", cmd_explain},   {"serve", cmd_serve}};
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("xiotop %s\n", XIOTOP_VERSION);
		return 0;
	}
	for (size_t i = 0; argc > 1 && i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	return cmd_live(argc, argv);
}
