/* options.c - the option table and its parser; see options.h. */
#include "cli/options.h"
#include "record/record.h"

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "record/replay.h"
#include "ui/fields.h"

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

/* --- the handlers: the options whose value no bounds can check ----------------- */

/* which command takes which format is checked by cli_parse (cli_command.formats) */
static const char *take_format(struct cli_opts *o, const char *arg)
{
	o->format_given = true;
	o->format_html = !strcmp(arg, "html");
	if (o->format_html)
		return NULL;
	return batch_parse_format(arg, &o->format) ? "unknown --format" : NULL;
}

static const char *take_print(struct cli_opts *o, const char *arg)
{
	o->print = true;
	return batch_parse_format(arg, &o->print_format) ? "unknown --print format" : NULL;
}

static const char *take_retain_size(struct cli_opts *o, const char *arg)
{
	o->retain_bytes = parse_size(arg);
	return o->retain_bytes >= 0 ? NULL : "--retain-size wants bytes (500M, 2G; 0: any)";
}

static const char *take_domain(struct cli_opts *o, const char *arg)
{
	return add_to_list(o->domains, &o->n_domains, arg) ? "too many --domain" : NULL;
}

static const char *take_claim(struct cli_opts *o, const char *arg)
{
	return add_to_list(o->claims, &o->n_claims, arg) ? "too many --claim" : NULL;
}

/* Latency is timed by default; --no-latency drops it, --latency (the switch before it was
 * the default) is taken and changes nothing. Either is remembered as given: a recording
 * read with -b --from-file is not timed again. */
static const char *take_no_latency(struct cli_opts *o, const char *arg)
{
	(void)arg;
	o->src.latency = false;
	o->latency_given = true;
	return NULL;
}

static const char *take_latency(struct cli_opts *o, const char *arg)
{
	(void)arg;
	o->src.latency = true;
	o->latency_given = true;
	return NULL;
}

static const char *take_image_dir(struct cli_opts *o, const char *arg)
{
	if (arg[0] != '/' || o->src.roots.n_image_dirs == SOURCE_MAX_IMAGE_DIRS)
		return "--image-dir wants an absolute path (16 at most)";
	o->src.image_dirs[o->src.roots.n_image_dirs++] = arg;
	o->src.roots.image_dirs = o->src.image_dirs;
	return NULL;
}

/* --- the tables --------------------------------------------------------------- */

/* --format's help line: the values of the command whose --help it is (format_help()) */
static const char FORMAT_HELP[] = "the output's format";

#define SOURCE_CMDS (CMD_LIVE | CMD_TOPOLOGY | CMD_RECORD | CMD_SERVE)

/* An entry's route: its field and the bounds of its value, or its handler. AT() does
 * not compile when the field is not of the type the route stores. */
#define AT(type, field)                                                                            \
	_Generic(((struct cli_opts *)0)->field, type : offsetof(struct cli_opts, field))
#define FLAG(field)                CLI_FLAG, AT(bool, field), NULL, 0, 0, NULL
#define STRING(field)              CLI_STRING, AT(const char *, field), NULL, 0, 0, NULL
#define NUMBER(field, lo, hi, bad) CLI_NUMBER, AT(double, field), NULL, lo, hi, bad
#define COUNT(field, lo, hi, bad)  CLI_COUNT, AT(long, field), NULL, lo, hi, bad
#define DURATION(field, lo, bad)   CLI_DURATION, AT(double, field), NULL, lo, 1e15, bad
#define TAKE(handler)              CLI_TAKE, 0, handler, 0, 0, NULL

const struct cli_option cli_options[] = {
    {"batch", 'b', NULL, CMD_LIVE | CMD_REPLAY, "batch lines instead of the console", FLAG(batch)},
    {"delay", 'd', "SECONDS", CMD_LIVE | CMD_RECORD | CMD_SERVE,
     "between samples, 0.1 to 3600 (default 3; record 1)",
     NUMBER(delay_s, 0.1, 3600, "-d wants seconds between 0.1 and 3600")},
    {"iterations", 'i', "COUNT", CMD_LIVE, "intervals to show, then exit",
     COUNT(iterations, 1, 1e15, "-i wants a positive count")},
    {"format", 0, "F", CMD_LIVE | CMD_TOPOLOGY | CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN, FORMAT_HELP,
     TAKE(take_format)},
    {"full-name", 'f', NULL, CMD_LIVE | CMD_EXPORT | CMD_REPLAY,
     "do not cut names (-b text: and show every column)", FLAG(full_names)},
    {"dom0-first", 'z', NULL, CMD_LIVE | CMD_REPLAY, "console: Domain-0 first", FLAG(dom0_first)},
    {"from-file", 0, "FILE", CMD_LIVE, "with -b: a recording instead of the tracer",
     STRING(from_file)},
    {"synthetic", 0, "N", CMD_LIVE | CMD_SERVE, NULL,
     COUNT(synthetic, 1, 100000, "--synthetic wants a count of domains")},
    {"output", 'o', "FILE", CMD_RECORD | CMD_MARK | CMD_EXPLAIN | CMD_IMPORT,
     "the recording (record, mark, import) or the report (explain)", STRING(output)},
    {"from", 0, "MARK|TIME", CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN,
     "window start: a mark's label, a time (2024-05-01T12:00:00Z, 2024-05-01 14:00 local, "
     "yesterday 14:00, 1h ago) or +SECONDS",
     STRING(from)},
    {"to", 0, "MARK|TIME", CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN, "window end, as --from",
     STRING(to)},
    {"speed", 0, "X", CMD_REPLAY, "play X times faster than recorded",
     NUMBER(speed, REPLAY_SPEED_MIN, REPLAY_SPEED_MAX, "--speed wants a factor from 0.125 to 64")},
    {"duration", 0, "D", CMD_RECORD, "stop after D (90, 90s, 5m, 2h, 1d)",
     DURATION(duration_s, 1e-9, "--duration wants 90, 90s, 5m or 2h")},
    {"commit-every", 0, "D", CMD_RECORD,
     "commit samples at least every D (default 10s): what a kill -9 may lose",
     DURATION(commit_s, 0.01, "--commit-every wants a duration (0.5, 10s, 1m)")},
    {"tail", 0, "SECONDS", CMD_RECORD,
     "with -- COMMAND: record SECONDS after it ends (default: until the dirty pages it left "
     "are written back)",
     NUMBER(tail_s, 0, 1e9, "--tail wants seconds (0 or more)")},
    {"print", 0, "F", CMD_RECORD, "also print each interval as -b --format F would",
     TAKE(take_print)},
    {"dir", 0, "DIR", CMD_RECORD | CMD_EXPORT | CMD_REPLAY | CMD_EXPLAIN,
     "record: one file per --period in DIR; else: read DIR's files (--from/--to: TIMEs)",
     STRING(dir)},
    {"period", 0, "D", CMD_RECORD, "with --dir: a new file every D (default 1d)",
     DURATION(period_s, 1, "--period wants 1s or more (90s, 5m, 1h, 1d)")},
    {"retain", 0, "D", CMD_RECORD, "with --dir: remove files older than D (14d)",
     DURATION(retain_s, 0, "--retain wants a duration (0: keep all, 7d)")},
    {"retain-size", 0, "SIZE", CMD_RECORD,
     "with --dir: oldest files go while DIR holds more than SIZE (2G; 0: no limit)",
     TAKE(take_retain_size)},
    {"against", 0, "MARK..MARK", CMD_EXPLAIN, "compare with this window of FILE", STRING(against)},
    {"domain", 0, "ID|NAME", CMD_EXPLAIN, "only this domain (repeatable)", TAKE(take_domain)},
    {"claim", 0, "FILE[@DOMAIN[:LABEL]]", CMD_EXPLAIN,
     "a benchmark's results as pasted, a whole post (dd, fio, bonnie++, bonnie, iozone)",
     TAKE(take_claim)},
    {"xenstore-dump", 0, "FILE", SOURCE_CMDS, "topology from xenstore-ls (-f) text",
     STRING(src.xenstore_dump)},
    {"sysfs-root", 0, "DIR", SOURCE_CMDS, "fixture tree instead of /sys", STRING(src.roots.sysfs)},
    {"proc-root", 0, "DIR", SOURCE_CMDS, "fixture tree instead of /proc", STRING(src.roots.proc)},
    {"image-dir", 0, "DIR", SOURCE_CMDS,
     "(repeatable) where files named in xenstore may be, besides /dev", TAKE(take_image_dir)},
    {"xentop", 0, "LOG", CMD_IMPORT, "xentop -b -d N output (Linux or NetBSD; -x -n -v)",
     STRING(import_xentop)},
    {"vmstat", 0, "LOG", CMD_IMPORT, "vmstat N output (procps, -t; or NetBSD)",
     STRING(import_vmstat)},
    {"iostat", 0, "LOG", CMD_IMPORT, "iostat -dx N output (sysstat, -t; or NetBSD -x)",
     STRING(import_iostat)},
    {"interval", 0, "S", CMD_IMPORT, "the logs' N, when no log has -t times",
     NUMBER(import_interval_s, 0.1, 86400, "--interval wants seconds between 0.1 and 86400")},
    {"start", 0, "TIME", CMD_IMPORT,
     "when logs without times started: 2026-05-01T12:00:00Z, or 2026-05-01 14:00 (local)",
     STRING(import_start)},
    {"cpus", 0, "N", CMD_IMPORT, "dom0's CPU count, for vmstat's CPU percentages",
     COUNT(import_cpus, 1, 65536, "--cpus wants a CPU count")},
    {"no-latency", 0, NULL, CMD_LIVE | CMD_RECORD | CMD_SERVE,
     "do not time each domain's I/O (p50/p99, histogram; timed by default: BPF time per I/O)",
     TAKE(take_no_latency)},
    {"latency", 0, NULL, CMD_LIVE | CMD_RECORD | CMD_SERVE, NULL, TAKE(take_latency)},
    {"listen", 0, "ADDR:PORT", CMD_SERVE,
     "where /metrics is served (default 127.0.0.1:9717; [::1]:PORT for IPv6)", STRING(listen)},
    {"user", 0, "NAME", CMD_RECORD | CMD_SERVE, "once attached, run on as NAME with no capability",
     STRING(user)},
    {"web-config", 0, "FILE", CMD_SERVE,
     "TLS and basic auth, as Prometheus exporters' web configuration (YAML)", STRING(web_config)},
    {"help", 'h', NULL, ~0u, "this help", CLI_HELP, 0, NULL, 0, 0, NULL},
};
#define N_OPTS (sizeof(cli_options) / sizeof(cli_options[0]))
const size_t cli_n_options = N_OPTS;

const struct cli_command cli_commands[] = {
    {.cmd = CMD_LIVE,
     .name = "",
     .synopsis = "[-b] [OPTIONS]   (the console; -b: batch lines)",
     .no_args = true,
     .formats = CLI_FORMATS_ROWS},
    {.cmd = CMD_TOPOLOGY,
     .name = "topology",
     .synopsis = "[OPTIONS]",
     .no_args = true,
     .formats = CLI_FORMAT(BATCH_TEXT) | CLI_FORMAT(BATCH_JSON)},
    {.cmd = CMD_RECORD,
     .name = "record",
     .synopsis = "(-o FILE | --dir DIR) [OPTIONS] [-- COMMAND ARGS...]",
     .wraps = true,
     .delay_s = 1.0},
    {.cmd = CMD_MARK, .name = "mark", .synopsis = "[-o FILE] LABEL"},
    {.cmd = CMD_EXPORT,
     .name = "export",
     .synopsis = "FILE [OPTIONS]",
     .format = BATCH_JSON,
     .formats = CLI_FORMATS_ROWS},
    {.cmd = CMD_REPLAY,
     .name = "replay",
     .synopsis = "FILE [OPTIONS]   (the console on a terminal, else batch lines)",
     .formats = CLI_FORMATS_ROWS},
    {.cmd = CMD_EXPLAIN,
     .name = "explain",
     .synopsis = "FILE [FILE2] [OPTIONS]",
     .formats = CLI_FORMAT(BATCH_TEXT) | CLI_FORMAT(BATCH_JSON) | CLI_FORMAT_HTML},
    {.cmd = CMD_IMPORT,
     .name = "import",
     .synopsis = "-o FILE [--xentop LOG] [--vmstat LOG] [--iostat LOG] [OPTIONS]"},
    {.cmd = CMD_SERVE,
     .name = "serve",
     .synopsis = "[--listen ADDR:PORT] [OPTIONS]   (Prometheus /metrics)",
     .no_args = true},
};
_Static_assert(sizeof(cli_commands) / sizeof(cli_commands[0]) == CLI_N_COMMANDS,
               "one cli_commands[] entry per enum cli_cmd");
const size_t cli_n_commands = CLI_N_COMMANDS;

enum cli_cmd cli_command_named(const char *name)
{
	for (size_t i = 0; name && i < cli_n_commands; i++)
		if (cli_commands[i].name[0] && !strcmp(name, cli_commands[i].name))
			return cli_commands[i].cmd;
	return CMD_LIVE;
}

static int command_index(enum cli_cmd cmd)
{
	for (size_t i = 0; i < cli_n_commands; i++)
		if (cli_commands[i].cmd == cmd)
			return (int)i;
	return 0;
}

void cli_defaults(struct cli_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->delay_s = 3.0;
	o->tail_s = -1; /* until the drain (record/rec_wrap.h) */
	o->commit_s = (double)REC_COMMIT_AGE_NS / 1e9;
	o->period_s = 86400;
	o->retain_s = 14 * 86400;
	o->retain_bytes = 2.0 * 1024 * 1024 * 1024;
	o->listen = "127.0.0.1:9717";
	o->format = BATCH_TEXT;
	o->src.latency = true; /* --no-latency */
	o->src.roots = (struct xt_roots){.sysfs = "/sys", .proc = "/proc", .dev = "/dev"};
}

/* The --format values a command takes, as its --help says them: "text, csv or json". */
static void format_help(unsigned formats, char *buf, size_t len)
{
	static const char *const names[] = {"text", "csv", "json", "html"};
	int n = 0, said = 0;
	for (unsigned f = formats; f; f &= f - 1)
		n++;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(formats & (1u << i)))
			continue;
		size_t at = strlen(buf);
		snprintf(buf + at, len - at, "%s%s",
		         !said           ? ""
		         : said == n - 1 ? " or "
		                         : ", ",
		         names[i]);
		said++;
	}
}

void cli_usage(enum cli_cmd cmd, FILE *out)
{
	int c = command_index(cmd);
	fprintf(out, "usage: xiotop%s%s %s\n", cli_commands[c].name[0] ? " " : "",
	        cli_commands[c].name, cli_commands[c].synopsis);
	for (size_t i = 0; i < cli_n_options; i++) {
		const struct cli_option *t = &cli_options[i];
		if (!(t->cmds & cmd) || !t->help)
			continue;
		char left[48];
		if (t->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", t->short_name, t->name,
			         t->arg ? " " : "", t->arg ? t->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", t->name, t->arg ? " " : "",
			         t->arg ? t->arg : "");
		char formats[64];
		format_help(cli_commands[c].formats, formats, sizeof(formats));
		fprintf(out, "  %-30s %s\n", left, t->help == FORMAT_HELP ? formats : t->help);
	}
	if (!(cmd & (CMD_LIVE | CMD_REPLAY | CMD_EXPORT)))
		return;
	fprintf(out,
	        "columns of the console and -b text, with their CSV/JSON key (a narrow screen\n"
	        "and -b text's 80 columns drop the least important first; -b -f shows all):\n");
	for (int i = 0; i < fields_count(); i++) { /* those of added figures too */
		char line[256];
		fields_help_line(field_get((enum field_id)i), true, line, sizeof(line));
		fprintf(out, "  %s\n", line);
	}
	if (cmd != CMD_LIVE)
		return;
	fprintf(out, "commands (each has --help):\n");
	for (size_t i = 1; i < cli_n_commands; i++)
		fprintf(out, "  xiotop %s %s\n", cli_commands[i].name, cli_commands[i].synopsis);
	fprintf(out, "  xiotop --version\n");
}

int cli_begin(enum cli_cmd cmd, int argc, char **argv, struct cli_opts *o)
{
	const struct cli_command *c = &cli_commands[command_index(cmd)];
	cli_defaults(o);
	if (c->delay_s > 0)
		o->delay_s = c->delay_s;
	if (c->format != BATCH_TEXT)
		o->format = c->format;
	int rc = cli_parse(cmd, argc, argv, o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (c->no_args && o->n_args)
		return cli_bad_usage(cmd, "unexpected argument");
	return -1;
}

int cli_bad_usage(enum cli_cmd cmd, const char *what)
{
	int c = command_index(cmd);
	fprintf(stderr, "xiotop%s%s: %s\n", cli_commands[c].name[0] ? " " : "",
	        cli_commands[c].name, what);
	cli_usage(cmd, stderr);
	return 2;
}

/* getopt's value for an option: its short letter, else LONG_ONLY + its index */
enum { LONG_ONLY = 256 };

static int getopt_value(size_t i)
{
	return cli_options[i].short_name ? cli_options[i].short_name : LONG_ONLY + (int)i;
}

/* The entry getopt_long returned c for; NULL for none (an unknown option). */
static const struct cli_option *option_of(int c)
{
	if (c >= LONG_ONLY)
		return (size_t)(c - LONG_ONLY) < cli_n_options ? &cli_options[c - LONG_ONLY] : NULL;
	for (size_t i = 0; i < cli_n_options; i++)
		if (cli_options[i].short_name && cli_options[i].short_name == c)
			return &cli_options[i];
	return NULL;
}

/* The getopt tables of one command: the long options and the short-option string. */
static void build_tables(enum cli_cmd cmd, struct option *longopts, char *shortopts)
{
	size_t n = 0, s = 0;
	if (cli_commands[command_index(cmd)].wraps)
		shortopts[s++] = '+';
	for (size_t i = 0; i < cli_n_options; i++) {
		const struct cli_option *t = &cli_options[i];
		if (!(t->cmds & cmd))
			continue;
		longopts[n++] = (struct option){t->name, t->arg ? required_argument : no_argument,
		                                NULL, getopt_value(i)};
		if (t->short_name) {
			shortopts[s++] = t->short_name;
			if (t->arg)
				shortopts[s++] = ':';
		}
	}
	longopts[n] = (struct option){NULL, 0, NULL, 0};
	shortopts[s] = '\0';
}

/* One option's value into o through its route. NULL, or what is wrong with it. */
static const char *route(const struct cli_option *t, struct cli_opts *o, const char *arg)
{
	void *field = (char *)o + t->offset;
	double v;
	switch (t->route) {
	case CLI_NUMBER:
		return parse_number(arg, t->lo, t->hi, (double *)field) ? NULL : t->bad;
	case CLI_COUNT:
		if (!parse_number(arg, t->lo, t->hi, &v) || v != (double)(long)v)
			return t->bad;
		*(long *)field = (long)v;
		return NULL;
	case CLI_DURATION:
		v = parse_duration(arg);
		if (!(v >= t->lo))
			return t->bad;
		*(double *)field = v;
		return NULL;
	case CLI_FLAG:
		*(bool *)field = true;
		return NULL;
	case CLI_STRING:
		*(const char **)field = arg;
		return NULL;
	case CLI_TAKE:
		return t->take(o, arg);
	case CLI_HELP:
		break;
	}
	return NULL;
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
		const struct cli_option *t = option_of(c);
		if (!t) {
			char what[160];
			snprintf(what, sizeof(what), "unknown option or missing value: %.100s",
			         argv[optind - 1]);
			return cli_bad_usage(cmd, what);
		}
		if (t->route == CLI_HELP) {
			cli_usage(cmd, stdout);
			return 1;
		}
		const char *bad = route(t, o, optarg);
		unsigned format = o->format_html ? CLI_FORMAT_HTML : CLI_FORMAT(o->format);
		char formats[64], what[96];
		if (t->help == FORMAT_HELP &&
		    (bad || !(format & cli_commands[command_index(cmd)].formats))) {
			format_help(cli_commands[command_index(cmd)].formats, formats,
			            sizeof(formats));
			snprintf(what, sizeof(what), "--format wants %s", formats);
			bad = what;
		}
		if (bad)
			return cli_bad_usage(cmd, bad);
	}
	o->args = argv + optind;
	o->n_args = argc - optind;
	/* record: a command goes after "--", never loose */
	if (cli_commands[command_index(cmd)].wraps && o->n_args && strcmp(argv[optind - 1], "--"))
		return cli_bad_usage(cmd, "unexpected argument (a command goes after --)");
	return 0;
}
