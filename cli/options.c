/* options.c - the option table and its parser; see options.h. */
#include "cli/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "record/replay.h"

enum opt_id {
	O_BATCH = 'b',
	O_DELAY = 'd',
	O_ITER = 'i',
	O_FULL = 'f',
	O_DOM0 = 'z',
	O_OUTPUT = 'o',
	O_HELP = 'h',
	O_FORMAT = 256,
	O_FROM_FILE,
	O_SYNTHETIC,
	O_FROM,
	O_TO,
	O_SPEED,
	O_DURATION,
	O_TAIL,
	O_PRINT,
	O_AGAINST,
	O_DOMAIN,
	O_CLAIM,
	O_DUMP,
	O_SYSFS,
	O_PROC,
	O_IMAGE_DIR,
	O_LISTEN,
};

#define SOURCE_CMDS (CMD_LIVE | CMD_TOPOLOGY | CMD_RECORD | CMD_SERVE)

struct opt {
	enum opt_id id;
	const char *name;
	const char *arg;  /* NULL: a flag */
	unsigned cmds;    /* enum cli_cmd bits */
	const char *help; /* NULL: hidden */
};

static const struct opt table[] = {
    {O_BATCH, "batch", NULL, CMD_LIVE | CMD_REPLAY, "batch lines instead of the console"},
    {O_DELAY, "delay", "SECONDS", CMD_LIVE | CMD_RECORD | CMD_SERVE,
     "between samples, 0.1 to 3600 (default 3; record 1)"},
    {O_ITER, "iterations", "COUNT", CMD_LIVE, "intervals to show, then exit"},
    {O_FORMAT, "format", "F", CMD_LIVE | CMD_TOPOLOGY | CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN,
     "text, csv or json (topology: text or json; explain: text, json or html)"},
    {O_FULL, "full-name", NULL, CMD_LIVE | CMD_EXPORT | CMD_REPLAY, "do not cut names"},
    {O_DOM0, "dom0-first", NULL, CMD_LIVE | CMD_REPLAY, "console: Domain-0 first"},
    {O_FROM_FILE, "from-file", "FILE", CMD_LIVE, "with -b: a recording instead of the tracer"},
    {O_SYNTHETIC, "synthetic", "N", CMD_LIVE | CMD_SERVE, NULL},
    {O_OUTPUT, "output", "FILE", CMD_RECORD | CMD_MARK | CMD_EXPLAIN,
     "the recording (record, mark) or the report (explain)"},
    {O_FROM, "from", "MARK|TIME", CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN,
     "window start: a mark's label, 2024-05-01T12:00:00Z (UTC) or +SECONDS"},
    {O_TO, "to", "MARK|TIME", CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN, "window end, as --from"},
    {O_SPEED, "speed", "X", CMD_REPLAY, "play X times faster than recorded"},
    {O_DURATION, "duration", "D", CMD_RECORD, "stop after D (90, 90s, 5m, 2h)"},
    {O_TAIL, "tail", "SECONDS", CMD_RECORD,
     "with -- COMMAND: keep recording after it ends (default 30)"},
    {O_PRINT, "print", "F", CMD_RECORD, "also print each interval as -b --format F would"},
    {O_AGAINST, "against", "MARK..MARK", CMD_EXPLAIN, "compare with this window of FILE"},
    {O_DOMAIN, "domain", "ID|NAME", CMD_EXPLAIN, "only this domain (repeatable)"},
    {O_CLAIM, "claim", "FILE[@DOMAIN]", CMD_EXPLAIN,
     "a benchmark's own output to check (dd, fio JSON, bonnie++ CSV, iozone)"},
    {O_DUMP, "xenstore-dump", "FILE", SOURCE_CMDS, "topology from xenstore-ls (-f) text"},
    {O_SYSFS, "sysfs-root", "DIR", SOURCE_CMDS, "fixture tree instead of /sys"},
    {O_PROC, "proc-root", "DIR", SOURCE_CMDS, "fixture tree instead of /proc"},
    {O_IMAGE_DIR, "image-dir", "DIR", SOURCE_CMDS,
     "(repeatable) where files named in xenstore may be, besides /dev"},
    {O_LISTEN, "listen", "ADDR:PORT", CMD_SERVE,
     "where /metrics is served (default 127.0.0.1:9717; [::1]:PORT for IPv6)"},
    {O_HELP, "help", NULL, ~0u, "this help"},
};
#define N_OPTS (sizeof(table) / sizeof(table[0]))

static const struct {
	enum cli_cmd cmd;
	const char *name, *synopsis;
	bool wraps; /* stops at the first non-option: what follows is a command */
} commands[] = {
    {CMD_LIVE, "", "[-b] [OPTIONS]   (the console; -b: batch lines)", false},
    {CMD_TOPOLOGY, "topology", "[OPTIONS]", false},
    {CMD_RECORD, "record", "-o FILE [OPTIONS] [-- COMMAND ARGS...]", true},
    {CMD_MARK, "mark", "[-o FILE] LABEL", false},
    {CMD_EXPORT, "export", "FILE [OPTIONS]", false},
    {CMD_REPLAY, "replay", "FILE [OPTIONS]   (the console on a terminal, else batch lines)", false},
    {CMD_EXPLAIN, "explain", "FILE [FILE2] [OPTIONS]", false},
    {CMD_SERVE, "serve", "[--listen ADDR:PORT] [OPTIONS]   (Prometheus /metrics)", false},
};

static int command_index(enum cli_cmd cmd)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].cmd == cmd)
			return (int)i;
	return 0;
}

void cli_defaults(struct cli_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->delay_s = 3.0;
	o->tail_s = 30.0;
	o->listen = "127.0.0.1:9717";
	o->format = BATCH_TEXT;
	o->src.roots = (struct xt_roots){.sysfs = "/sys", .proc = "/proc", .dev = "/dev"};
}

void cli_usage(enum cli_cmd cmd, FILE *out)
{
	int c = command_index(cmd);
	fprintf(out, "usage: xiotop%s%s %s\n", commands[c].name[0] ? " " : "", commands[c].name,
	        commands[c].synopsis);
	for (size_t i = 0; i < N_OPTS; i++) {
		const struct opt *t = &table[i];
		if (!(t->cmds & cmd) || !t->help)
			continue;
		char left[48];
		if (t->id < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", t->id, t->name,
			         t->arg ? " " : "", t->arg ? t->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", t->name, t->arg ? " " : "",
			         t->arg ? t->arg : "");
		fprintf(out, "  %-30s %s\n", left, t->help);
	}
}

int cli_bad_usage(enum cli_cmd cmd, const char *what)
{
	int c = command_index(cmd);
	fprintf(stderr, "xiotop%s%s: %s\n", commands[c].name[0] ? " " : "", commands[c].name, what);
	cli_usage(cmd, stderr);
	return 2;
}

/* "90", "90s", "5m", "2h" -> seconds; -1 if malformed. */
static double parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v >= 0))
		return -1;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		return v;
	if (!strcmp(end, "m"))
		return v * 60;
	if (!strcmp(end, "h"))
		return v * 3600;
	return -1;
}

/* A number in [lo, hi], all of arg; false if not. */
static bool parse_number(const char *arg, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v >= lo && v <= hi))
		return false;
	*out = v;
	return true;
}

static int add_to_list(const char **list, size_t *n, const char *arg)
{
	if (*n == CLI_MAX_LIST)
		return -1;
	list[(*n)++] = arg;
	return 0;
}

/* One option's value into o. NULL, or what is wrong with it. */
static const char *take(struct cli_opts *o, enum opt_id id, const char *arg)
{
	double v;
	switch (id) {
	case O_BATCH:
		o->batch = true;
		return NULL;
	case O_DELAY:
		return parse_number(arg, 0.1, 3600, &o->delay_s)
		           ? NULL
		           : "-d wants seconds between 0.1 and 3600";
	case O_ITER:
		if (!parse_number(arg, 1, 1e15, &v) || v != (double)(long)v)
			return "-i wants a positive count";
		o->iterations = (long)v;
		return NULL;
	case O_FORMAT:
		o->format_given = true;
		return batch_parse_format(arg, &o->format) ? "unknown --format" : NULL;
	case O_FULL:
		o->full_names = true;
		return NULL;
	case O_DOM0:
		o->dom0_first = true;
		return NULL;
	case O_FROM_FILE:
		o->from_file = arg;
		return NULL;
	case O_SYNTHETIC:
		if (!parse_number(arg, 1, 100000, &v) || v != (double)(unsigned)v)
			return "--synthetic wants a count of domains";
		o->synthetic = (unsigned)v;
		return NULL;
	case O_OUTPUT:
	case O_LISTEN:
		*(id == O_OUTPUT ? &o->output : &o->listen) = arg;
		return NULL;
	case O_FROM:
		o->from = arg;
		return NULL;
	case O_TO:
		o->to = arg;
		return NULL;
	case O_SPEED:
		return parse_number(arg, REPLAY_SPEED_MIN, REPLAY_SPEED_MAX, &o->speed)
		           ? NULL
		           : "--speed wants a factor from 0.125 to 64";
	case O_DURATION:
		o->duration_s = parse_duration(arg);
		return o->duration_s > 0 ? NULL : "--duration wants 90, 90s, 5m or 2h";
	case O_TAIL:
		return parse_number(arg, 0, 1e9, &o->tail_s) ? NULL
		                                             : "--tail wants seconds (0 or more)";
	case O_PRINT:
		o->print = true;
		return batch_parse_format(arg, &o->print_format) ? "unknown --print format" : NULL;
	case O_AGAINST:
		o->against = arg;
		return NULL;
	case O_DOMAIN:
		return add_to_list(o->domains, &o->n_domains, arg) ? "too many --domain" : NULL;
	case O_CLAIM:
		return add_to_list(o->claims, &o->n_claims, arg) ? "too many --claim" : NULL;
	case O_DUMP:
		o->src.xenstore_dump = arg;
		return NULL;
	case O_SYSFS:
		o->src.roots.sysfs = arg;
		return NULL;
	case O_PROC:
		o->src.roots.proc = arg;
		return NULL;
	case O_IMAGE_DIR:
		if (arg[0] != '/' || o->src.roots.n_image_dirs == SOURCE_MAX_IMAGE_DIRS)
			return "--image-dir wants an absolute path (16 at most)";
		o->src.image_dirs[o->src.roots.n_image_dirs++] = arg;
		o->src.roots.image_dirs = o->src.image_dirs;
		return NULL;
	case O_HELP:
		break;
	}
	return NULL;
}

/* The getopt tables of one command: the long options and the short-option string. */
static void build_tables(enum cli_cmd cmd, struct option *longopts, char *shortopts)
{
	size_t n = 0, s = 0;
	if (commands[command_index(cmd)].wraps)
		shortopts[s++] = '+';
	for (size_t i = 0; i < N_OPTS; i++) {
		const struct opt *t = &table[i];
		if (!(t->cmds & cmd))
			continue;
		longopts[n++] = (struct option){t->name, t->arg ? required_argument : no_argument,
		                                NULL, (int)t->id};
		if (t->id < 256) {
			shortopts[s++] = (char)t->id;
			if (t->arg)
				shortopts[s++] = ':';
		}
	}
	longopts[n] = (struct option){NULL, 0, NULL, 0};
	shortopts[s] = '\0';
}

int cli_parse(enum cli_cmd cmd, int argc, char **argv, struct cli_opts *o)
{
	struct option longopts[N_OPTS + 1];
	char shortopts[2 * N_OPTS + 2];
	build_tables(cmd, longopts, shortopts);
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == O_HELP) {
			cli_usage(cmd, stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			char what[160];
			snprintf(what, sizeof(what), "unknown option or missing value: %.100s",
			         argv[optind - 1]);
			return cli_bad_usage(cmd, what);
		}
		const char *bad = take(o, (enum opt_id)c, optarg);
		if (bad)
			return cli_bad_usage(cmd, bad);
	}
	o->args = argv + optind;
	o->n_args = argc - optind;
	/* record: a command goes after "--", never loose */
	if (commands[command_index(cmd)].wraps && o->n_args && strcmp(argv[optind - 1], "--"))
		return cli_bad_usage(cmd, "unexpected argument (a command goes after --)");
	return 0;
}
