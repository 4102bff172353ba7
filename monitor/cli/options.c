/* options.c - the option table and its parser; see options.h. */
#include "cli/options.h"

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "record/replay.h"
#include "ui/fields.h"

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
	O_DIR,
	O_PERIOD,
	O_RETAIN,
	O_RETAIN_SIZE,
	O_AGAINST,
	O_DOMAIN,
	O_CLAIM,
	O_DUMP,
	O_SYSFS,
	O_PROC,
	O_IMAGE_DIR,
	O_LISTEN,
	O_XENTOP,
	O_VMSTAT,
	O_IOSTAT,
	O_INTERVAL,
	O_START,
	O_CPUS,
	O_LATENCY,
	O_USER,
	O_WEB_CONFIG,
};

#define SOURCE_CMDS (CMD_LIVE | CMD_TOPOLOGY | CMD_RECORD | CMD_SERVE)

/* Where a plain option lands in struct cli_opts: a flag set true, or its argument kept
 * as given. Every other option is checked and converted in take(). */
enum opt_target { T_CHECKED, T_FLAG, T_STRING };

struct opt {
	enum opt_id id;
	const char *name;
	const char *arg;  /* NULL: a flag */
	unsigned cmds;    /* enum cli_cmd bits */
	const char *help; /* NULL: hidden */
	enum opt_target target;
	size_t offset; /* T_FLAG, T_STRING: the field in struct cli_opts */
};

#define FLAG(field)   T_FLAG, offsetof(struct cli_opts, field)
#define STRING(field) T_STRING, offsetof(struct cli_opts, field)

static const struct opt table[] = {
    {O_BATCH, "batch", NULL, CMD_LIVE | CMD_REPLAY, "batch lines instead of the console",
     FLAG(batch)},
    {O_DELAY, "delay", "SECONDS", CMD_LIVE | CMD_RECORD | CMD_SERVE,
     "between samples, 0.1 to 3600 (default 3; record 1)", T_CHECKED, 0},
    {O_ITER, "iterations", "COUNT", CMD_LIVE, "intervals to show, then exit", T_CHECKED, 0},
    {O_FORMAT, "format", "F", CMD_LIVE | CMD_TOPOLOGY | CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN,
     "text, csv or json (topology: text or json; explain: text, json or html)", T_CHECKED, 0},
    {O_FULL, "full-name", NULL, CMD_LIVE | CMD_EXPORT | CMD_REPLAY,
     "do not cut names (-b text: and show every column)", FLAG(full_names)},
    {O_DOM0, "dom0-first", NULL, CMD_LIVE | CMD_REPLAY, "console: Domain-0 first",
     FLAG(dom0_first)},
    {O_FROM_FILE, "from-file", "FILE", CMD_LIVE, "with -b: a recording instead of the tracer",
     STRING(from_file)},
    {O_SYNTHETIC, "synthetic", "N", CMD_LIVE | CMD_SERVE, NULL, T_CHECKED, 0},
    {O_OUTPUT, "output", "FILE", CMD_RECORD | CMD_MARK | CMD_EXPLAIN | CMD_IMPORT,
     "the recording (record, mark, import) or the report (explain)", STRING(output)},
    {O_FROM, "from", "MARK|TIME", CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN,
     "window start: a mark's label, 2024-05-01T12:00:00Z (UTC) or +SECONDS", STRING(from)},
    {O_TO, "to", "MARK|TIME", CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN, "window end, as --from",
     STRING(to)},
    {O_SPEED, "speed", "X", CMD_REPLAY, "play X times faster than recorded", T_CHECKED, 0},
    {O_DURATION, "duration", "D", CMD_RECORD, "stop after D (90, 90s, 5m, 2h, 1d)", T_CHECKED, 0},
    {O_TAIL, "tail", "SECONDS", CMD_RECORD,
     "with -- COMMAND: keep recording after it ends (default 30)", T_CHECKED, 0},
    {O_PRINT, "print", "F", CMD_RECORD, "also print each interval as -b --format F would",
     T_CHECKED, 0},
    {O_DIR, "dir", "DIR", CMD_RECORD | CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN,
     "record: one file per --period in DIR; else: read DIR's files (--from/--to: TIMEs)",
     STRING(dir)},
    {O_PERIOD, "period", "D", CMD_RECORD, "with --dir: a new file every D (default 1d)", T_CHECKED,
     0},
    {O_RETAIN, "retain", "D", CMD_RECORD, "with --dir: remove files older than D (14d)", T_CHECKED,
     0},
    {O_RETAIN_SIZE, "retain-size", "SIZE", CMD_RECORD,
     "with --dir: oldest files go while DIR holds more than SIZE (2G; 0: no limit)", T_CHECKED, 0},
    {O_AGAINST, "against", "MARK..MARK", CMD_EXPLAIN, "compare with this window of FILE",
     STRING(against)},
    {O_DOMAIN, "domain", "ID|NAME", CMD_EXPLAIN, "only this domain (repeatable)", T_CHECKED, 0},
    {O_CLAIM, "claim", "FILE[@DOMAIN]", CMD_EXPLAIN,
     "a benchmark's own output to check (dd, fio JSON, bonnie++ CSV, iozone)", T_CHECKED, 0},
    {O_DUMP, "xenstore-dump", "FILE", SOURCE_CMDS, "topology from xenstore-ls (-f) text",
     STRING(src.xenstore_dump)},
    {O_SYSFS, "sysfs-root", "DIR", SOURCE_CMDS, "fixture tree instead of /sys",
     STRING(src.roots.sysfs)},
    {O_PROC, "proc-root", "DIR", SOURCE_CMDS, "fixture tree instead of /proc",
     STRING(src.roots.proc)},
    {O_IMAGE_DIR, "image-dir", "DIR", SOURCE_CMDS,
     "(repeatable) where files named in xenstore may be, besides /dev", T_CHECKED, 0},
    {O_XENTOP, "xentop", "LOG", CMD_IMPORT, "xentop -b -d N output (Linux or NetBSD; -x -n -v)",
     T_CHECKED, 0},
    {O_VMSTAT, "vmstat", "LOG", CMD_IMPORT, "vmstat N output (procps, -t; or NetBSD)", T_CHECKED,
     0},
    {O_IOSTAT, "iostat", "LOG", CMD_IMPORT, "iostat -dx N output (sysstat, -t; or NetBSD -x)",
     T_CHECKED, 0},
    {O_INTERVAL, "interval", "S", CMD_IMPORT, "the logs' N, when no log has -t times", T_CHECKED,
     0},
    {O_START, "start", "TIME", CMD_IMPORT,
     "when logs without times started: 2026-05-01T12:00:00Z, or 2026-05-01 14:00 (local)",
     T_CHECKED, 0},
    {O_CPUS, "cpus", "N", CMD_IMPORT, "dom0's CPU count, for vmstat's CPU percentages", T_CHECKED,
     0},
    {O_LATENCY, "latency", NULL, CMD_LIVE | CMD_RECORD | CMD_SERVE,
     "also time each domain's I/O (p50/p99, histogram): costs BPF time per I/O", FLAG(src.latency)},
    {O_LISTEN, "listen", "ADDR:PORT", CMD_SERVE,
     "where /metrics is served (default 127.0.0.1:9717; [::1]:PORT for IPv6)", STRING(listen)},
    {O_USER, "user", "NAME", CMD_RECORD | CMD_SERVE,
     "once attached, run on as NAME with no capability", STRING(user)},
    {O_WEB_CONFIG, "web-config", "FILE", CMD_SERVE,
     "TLS and basic auth, as Prometheus exporters' web configuration (YAML)", STRING(web_config)},
    {O_HELP, "help", NULL, ~0u, "this help", T_CHECKED, 0},
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
    {CMD_IMPORT, "import", "-o FILE [--xentop LOG] [--vmstat LOG] [--iostat LOG] [OPTIONS]", false},
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
	o->period_s = 86400;
	o->retain_s = 14 * 86400;
	o->retain_bytes = 2.0 * 1024 * 1024 * 1024;
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
	if (!(cmd & (CMD_LIVE | CMD_REPLAY | CMD_EXPORT)))
		return;
	fprintf(out,
	        "columns of the console and -b text, with their CSV/JSON key (a narrow screen\n"
	        "and -b text's 80 columns drop the least important first; -b -f shows all):\n");
	for (int i = 0; i < FIELD_COUNT; i++) {
		char line[256];
		fields_help_line(field_get((enum field_id)i), true, line, sizeof(line));
		fprintf(out, "  %s\n", line);
	}
	if (cmd != CMD_LIVE)
		return;
	fprintf(out, "commands (each has --help):\n");
	for (size_t i = 1; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  xiotop %s %s\n", commands[i].name, commands[i].synopsis);
	fprintf(out, "  xiotop --version\n");
}

int cli_bad_usage(enum cli_cmd cmd, const char *what)
{
	int c = command_index(cmd);
	fprintf(stderr, "xiotop%s%s: %s\n", commands[c].name[0] ? " " : "", commands[c].name, what);
	cli_usage(cmd, stderr);
	return 2;
}

/* A number with one of the suffixes (each with its factor), or none; -1 if malformed. */
static double parse_scaled(const char *s, const char *const *suffixes, const double *factors)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v >= 0) || v > 1e15)
		return -1;
	if (!*end)
		return v;
	for (size_t i = 0; suffixes[i]; i++)
		if (!strcmp(end, suffixes[i]))
			return v * factors[i];
	return -1;
}

/* "90", "90s", "5m", "2h", "14d" -> seconds; -1 if malformed. */
static double parse_duration(const char *s)
{
	static const char *const suffixes[] = {"s", "m", "h", "d", NULL};
	static const double factors[] = {1, 60, 3600, 86400};
	return parse_scaled(s, suffixes, factors);
}

/* "500M", "2G", "1048576" -> bytes; -1 if malformed. */
static double parse_size(const char *s)
{
	static const char *const suffixes[] = {"K", "M", "G", "T", NULL};
	static const double factors[] = {1024.0, 1048576.0, 1073741824.0, 1099511627776.0};
	return parse_scaled(s, suffixes, factors);
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

/* The options of `xiotop import` (the last ones of enum opt_id). */
static const char *take_import(struct cli_opts *o, enum opt_id id, const char *arg)
{
	double v;
	switch (id) {
	case O_XENTOP:
		o->import_xentop = arg;
		return NULL;
	case O_VMSTAT:
		o->import_vmstat = arg;
		return NULL;
	case O_IOSTAT:
		o->import_iostat = arg;
		return NULL;
	case O_INTERVAL:
		return parse_number(arg, 0.1, 86400, &o->import_interval_s)
		           ? NULL
		           : "--interval wants seconds between 0.1 and 86400";
	case O_START:
		o->import_start = arg;
		return NULL;
	case O_CPUS:
		if (!parse_number(arg, 1, 65536, &v) || v != (double)(long)v)
			return "--cpus wants a CPU count";
		o->import_cpus = (long)v;
		return NULL;
	default:
		break;
	}
	return NULL;
}

/* One option's value into o. NULL, or what is wrong with it. */
static const char *take(struct cli_opts *o, enum opt_id id, const char *arg)
{
	double v;
	switch (id) {
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
	case O_SYNTHETIC:
		if (!parse_number(arg, 1, 100000, &v) || v != (double)(unsigned)v)
			return "--synthetic wants a count of domains";
		o->synthetic = (unsigned)v;
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
	case O_PERIOD:
		o->period_s = parse_duration(arg);
		return o->period_s >= 1 ? NULL : "--period wants 1s or more (90s, 5m, 1h, 1d)";
	case O_RETAIN:
		o->retain_s = parse_duration(arg);
		return o->retain_s >= 0 ? NULL : "--retain wants a duration (0: keep all, 7d)";
	case O_RETAIN_SIZE:
		o->retain_bytes = parse_size(arg);
		return o->retain_bytes >= 0 ? NULL : "--retain-size wants bytes (500M, 2G; 0: any)";
	case O_DOMAIN:
		return add_to_list(o->domains, &o->n_domains, arg) ? "too many --domain" : NULL;
	case O_CLAIM:
		return add_to_list(o->claims, &o->n_claims, arg) ? "too many --claim" : NULL;
	case O_IMAGE_DIR:
		if (arg[0] != '/' || o->src.roots.n_image_dirs == SOURCE_MAX_IMAGE_DIRS)
			return "--image-dir wants an absolute path (16 at most)";
		o->src.image_dirs[o->src.roots.n_image_dirs++] = arg;
		o->src.roots.image_dirs = o->src.image_dirs;
		return NULL;
	default: /* flags and plain strings: the table's offsets; import's: take_import() */
		break;
	}
	return NULL;
}

static const struct opt *find_opt(enum opt_id id)
{
	for (size_t i = 0; i < N_OPTS; i++)
		if (table[i].id == id)
			return &table[i];
	return &table[N_OPTS - 1]; /* not reached: getopt returns only the table's ids */
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
		/* explain's own format; batch output has no html */
		o->format_html = c == O_FORMAT ? !strcmp(optarg, "html") : o->format_html;
		if (o->format_html && c == O_FORMAT) {
			if (cmd != CMD_EXPLAIN)
				return cli_bad_usage(cmd, "unknown --format");
			o->format_given = true;
			continue;
		}
		const struct opt *t = find_opt((enum opt_id)c);
		const char *bad = NULL;
		if (t->target == T_FLAG)
			*(bool *)((char *)o + t->offset) = true;
		else if (t->target == T_STRING)
			*(const char **)((char *)o + t->offset) = optarg;
		else
			bad = c >= O_XENTOP ? take_import(o, (enum opt_id)c, optarg)
			                    : take(o, (enum opt_id)c, optarg);
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
