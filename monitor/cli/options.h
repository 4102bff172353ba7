/* options.h - the one option parser: every command's options from one table.
 *
 * Contract: an option is described once, in cli_options[] (names, argument, help line,
 * the commands that take it, and its route: a flag or a string stored at its field of
 * struct cli_opts, or its own checking handler); cli_parse() reads argv for one command
 * into struct cli_opts through each option's route, checking each value (a bad value:
 * one line naming the option, then the command's usage on stderr, return 2), and gives
 * the positional arguments. `-h`/`--help` prints the usage generated from the tables
 * and returns 1 (the caller exits 0). Commands that wrap another command (record --
 * CMD) stop at the first non-option. The commands are named once too (cli_commands[]):
 * main.c dispatches by that name, --help lists them, and tests/check_docs.py holds the
 * man page and the bash completion to both tables. Nothing here runs a command:
 * cli/commands.h does.
 *
 * Adding an option is one entry of cli_options[] (options.c): FLAG(field) or
 * STRING(field) when the value needs no check; NUMBER, COUNT or DURATION(field, bounds,
 * message) for a bounded number; else TAKE(handler) with a handler that stores the
 * checked value and returns NULL or what is wrong. Then its line in docs/xiotop.8
 * (tests/check_docs.py fails until it is there); tests/unit/test_options.c proves the
 * entry reaches its field for every command that takes it.
 */
#ifndef XIOTOP_OPTIONS_H
#define XIOTOP_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "sources/live.h"
#include "ui/batch.h"

/* The commands, as bits: which command an option belongs to. CLI_N_COMMANDS of them:
 * cli_commands[] and main.c's dispatch are checked against it when compiled. */
enum cli_cmd {
	CMD_LIVE = 1 << 0, /* xiotop [-b] ...: the console or batch output */
	CMD_TOPOLOGY = 1 << 1,
	CMD_RECORD = 1 << 2,
	CMD_MARK = 1 << 3,
	CMD_EXPORT = 1 << 4,
	CMD_REPLAY = 1 << 5,
	CMD_EXPLAIN = 1 << 6,
	CMD_IMPORT = 1 << 7,
	CMD_SERVE = 1 << 8, /* xiotop serve: Prometheus metrics over HTTP */
};
#define CLI_N_COMMANDS 9

#define CLI_MAX_LIST 16 /* repeatable options (--domain, --claim) */

struct cli_opts {
	bool batch;      /* -b */
	double delay_s;  /* -d */
	long iterations; /* -i; 0: until interrupted */
	enum batch_format format;
	bool format_given;     /* --format was given (replay: batch lines) */
	bool format_html;      /* --format html (explain only) */
	bool full_names;       /* -f */
	bool dom0_first;       /* -z */
	long synthetic;        /* --synthetic N (hidden: benchmarks) */
	bool latency_given;    /* --latency or --no-latency (src.latency: which) */
	const char *from_file; /* -b --from-file FILE */
	const char *output;    /* -o FILE */
	const char *from, *to; /* --from / --to MARK|TIME */
	double speed;          /* replay --speed; 0: default */
	double duration_s;     /* record --duration; 0: until stopped */
	double tail_s;         /* record --tail; < 0: until the drain */
	double commit_s;       /* record --commit-every */
	bool print;            /* record --print FORMAT */
	enum batch_format print_format;
	const char *dir;     /* record --dir: rotating files; export/replay: read them */
	double period_s;     /* record --dir: one file per period (default 1 d) */
	double retain_s;     /* record --dir: remove files older (0: keep) */
	double retain_bytes; /* record --dir: keep the files under this size (0: any) */
	const char *against; /* explain --against MARK..MARK */
	const char *domains[CLI_MAX_LIST];
	size_t n_domains; /* explain --domain */
	const char *claims[CLI_MAX_LIST];
	size_t n_claims; /* explain --claim FILE[@DOMAIN[:LABEL]] */
	const char *import_xentop, *import_vmstat, *import_iostat; /* import --xentop ... */
	double import_interval_s;                                  /* import --interval; 0 */
	const char *import_start;                                  /* import --start TIME */
	long import_cpus;                                          /* import --cpus; 0 */
	const char *listen;                                        /* serve --listen ADDR:PORT */
	const char *user;       /* record, serve --user NAME: the drop after attaching */
	const char *web_config; /* serve --web-config FILE: TLS, basic auth */
	struct source_opts src;
	char **args; /* positional arguments (record: the wrapped command) */
	int n_args;
};

/* How an option's value reaches struct cli_opts. */
enum cli_route {
	CLI_FLAG,     /* a bool at offset, set true */
	CLI_STRING,   /* a const char * at offset, the argument as given */
	CLI_NUMBER,   /* a double at offset, within [lo, hi] */
	CLI_COUNT,    /* a long at offset: a whole number within [lo, hi] */
	CLI_DURATION, /* a double at offset: seconds (90, 90s, 5m, 2h, 1d), at least lo */
	CLI_TAKE,     /* take() checks and stores the argument */
	CLI_HELP,     /* prints the usage (cli_parse returns 1) */
};

struct cli_opts;
struct cli_option {
	const char *name; /* --name */
	char short_name;  /* -c, or 0: long only */
	const char *arg;  /* the argument's placeholder; NULL: a flag */
	unsigned cmds;    /* enum cli_cmd bits: the commands that take it */
	const char *help; /* NULL: hidden (benchmarks' own options) */
	enum cli_route route;
	size_t offset; /* all but CLI_TAKE, CLI_HELP: the field in struct cli_opts */
	/* CLI_TAKE: stores arg (NULL for a flag) in o; NULL, or what is wrong with it */
	const char *(*take)(struct cli_opts *o, const char *arg);
	double lo, hi;   /* CLI_NUMBER, CLI_COUNT, CLI_DURATION: the bounds */
	const char *bad; /* and what is wrong with a value out of them */
};
extern const struct cli_option cli_options[];
extern const size_t cli_n_options;

struct cli_command {
	enum cli_cmd cmd;
	const char *name;     /* "" for the live console */
	const char *synopsis; /* after "xiotop NAME" */
	bool wraps;           /* stops at the first non-option: what follows is a command */
	bool no_args;         /* takes options only: an argument is bad usage */
	/* its own defaults over cli_defaults' (0: those): record samples every second,
	 * export writes JSON */
	double delay_s;
	enum batch_format format;
	/* the --format values it takes (CLI_FORMAT bits): its --help names them, cli_parse()
	 * refuses any other (bad usage) */
	unsigned formats;
};
/* A --format value as a bit of cli_command.formats: the batch formats', and html. */
#define CLI_FORMAT(f)    (1u << (f))
#define CLI_FORMAT_HTML  (1u << 3)
#define CLI_FORMATS_ROWS (CLI_FORMAT(BATCH_TEXT) | CLI_FORMAT(BATCH_CSV) | CLI_FORMAT(BATCH_JSON))
extern const struct cli_command cli_commands[];
extern const size_t cli_n_commands;

/* The command argv[1] names, or CMD_LIVE when it names none (options, or nothing). */
enum cli_cmd cli_command_named(const char *name);

/* The defaults every command starts from (-d 3, text, /sys /proc /dev). */
void cli_defaults(struct cli_opts *o);
/* argv[0] is the command's name. 0 parsed; 1 help was printed (exit 0); 2 bad usage
 * (said on stderr, with the usage). */
int cli_parse(enum cli_cmd cmd, int argc, char **argv, struct cli_opts *o);
/* Every command starts here (main.c): the defaults, the command's own (cli_commands[]),
 * then cli_parse(), and no argument where the command takes none. -1: go on; else the
 * exit status (0 after --help, 2 bad usage, said). */
int cli_begin(enum cli_cmd cmd, int argc, char **argv, struct cli_opts *o);
/* The usage of one command, generated from the table. */
void cli_usage(enum cli_cmd cmd, FILE *out);
/* Says "xiotop CMD: what" and the usage on stderr; returns 2. */
int cli_bad_usage(enum cli_cmd cmd, const char *what);

#endif
