/* options.h - the one option parser: every command's options from one table.
 *
 * Contract: an option is described once (names, argument, help line, and the commands
 * that take it); cli_parse() reads argv for one command into struct cli_opts, checking
 * each value (a bad value: one line naming the option, then the command's usage on
 * stderr, return 2), and gives the positional arguments. `-h`/`--help` prints the usage
 * generated from the table and returns 1 (the caller exits 0). Commands that wrap
 * another command (record -- CMD) stop at the first non-option. Nothing here runs a
 * command: cli/commands.h does.
 */
#ifndef XIOTOP_OPTIONS_H
#define XIOTOP_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "sources/live.h"
#include "ui/batch.h"

/* The commands, as bits: which command an option belongs to. */
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
	unsigned synthetic;    /* --synthetic N (hidden: benchmarks) */
	const char *from_file; /* -b --from-file FILE */
	const char *output;    /* -o FILE */
	const char *from, *to; /* --from / --to MARK|TIME */
	double speed;          /* replay --speed; 0: default */
	double duration_s;     /* record --duration; 0: until stopped */
	double tail_s;         /* record --tail */
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
	size_t n_claims; /* explain --claim FILE[@DOMAIN] */
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

/* The defaults every command starts from (-d 3, text, /sys /proc /dev). */
void cli_defaults(struct cli_opts *o);
/* argv[0] is the command's name. 0 parsed; 1 help was printed (exit 0); 2 bad usage
 * (said on stderr, with the usage). */
int cli_parse(enum cli_cmd cmd, int argc, char **argv, struct cli_opts *o);
/* The usage of one command, generated from the table. */
void cli_usage(enum cli_cmd cmd, FILE *out);
/* Says "xiotop CMD: what" and the usage on stderr; returns 2. */
int cli_bad_usage(enum cli_cmd cmd, const char *what);

#endif
