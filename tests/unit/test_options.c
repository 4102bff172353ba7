/* test_options.c - the option table routes every entry: each option of cli_options[],
 * given to each command that takes it (long and short name), changes struct cli_opts,
 * and is refused (exit status 2) by each command that does not; each entry's route is
 * well formed and each command is named once. Nothing here adds an option: the table
 * is read as it is, so an entry added without a working route fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "ui/fields.h"

/* A value each placeholder accepts, unlike the default (a new placeholder: add it). */
static const char *sample_for(const char *placeholder)
{
	static const struct {
		const char *placeholder, *sample;
	} samples[] = {
	    {"SECONDS", "5"},
	    {"COUNT", "2"},
	    {"F", "json"},
	    {"FILE", "f.xrec"},
	    {"N", "3"},
	    {"MARK|TIME", "m1"},
	    {"X", "2"},
	    {"D", "5m"},
	    {"SIZE", "1G"},
	    {"DIR", "/tmp"},
	    {"MARK..MARK", "a..b"},
	    {"ID|NAME", "3"},
	    {"FILE[@DOMAIN[:LABEL]]", "dd.txt@3:DomU"},
	    {"LOG", "x.log"},
	    {"S", "2"},
	    {"TIME", "2026-05-01T12:00:00Z"},
	    {"ADDR:PORT", "127.0.0.1:1"},
	    {"NAME", "nobody"},
	};
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		if (!strcmp(placeholder, samples[i].placeholder))
			return samples[i].sample;
	return NULL;
}

static const char *command_name(enum cli_cmd cmd)
{
	for (size_t i = 0; i < cli_n_commands; i++)
		if (cli_commands[i].cmd == cmd)
			return cli_commands[i].name[0] ? cli_commands[i].name : "xiotop";
	return NULL;
}

/* The usage lines cli_parse prints go nowhere while the table is exercised. */
static int quiet(int fd)
{
	fflush(NULL);
	int saved = dup(fd);
	int null = open("/dev/null", O_WRONLY);
	dup2(null, fd);
	close(null);
	return saved;
}

static void loud(int fd, int saved)
{
	fflush(NULL);
	dup2(saved, fd);
	close(saved);
}

/* cli_parse of `CMD OPT [VALUE]`; *o as it leaves it. */
static int parse_one(enum cli_cmd cmd, const char *opt, const char *value, struct cli_opts *o)
{
	char *argv[4] = {(char *)command_name(cmd), (char *)opt, (char *)value, NULL};
	cli_defaults(o);
	int saved_out = quiet(STDOUT_FILENO), saved_err = quiet(STDERR_FILENO);
	int rc = cli_parse(cmd, value ? 3 : 2, argv, o);
	loud(STDERR_FILENO, saved_err);
	loud(STDOUT_FILENO, saved_out);
	return rc;
}

/* The entry given to cmd by NAME as an option word changed the options, or helped. */
static void check_reaches(const struct cli_option *t, enum cli_cmd cmd, const char *word)
{
	struct cli_opts defaults, o;
	cli_defaults(&defaults);
	const char *value = t->arg ? sample_for(t->arg) : NULL;
	if (t->arg && !value)
		fail_msg("--%s: no sample value for %s in test_options.c", t->name, t->arg);
	int rc = parse_one(cmd, word, value, &o);
	if (t->route == CLI_HELP) {
		assert_int_equal(rc, 1);
		return;
	}
	if (rc != 0)
		fail_msg("%s %s %s: refused (%d)", command_name(cmd), word, value ? value : "", rc);
	o.args = defaults.args; /* the positional arguments are not the option's */
	o.n_args = defaults.n_args;
	if (!memcmp(&o, &defaults, sizeof(o)))
		fail_msg("%s %s: reached no field", command_name(cmd), word);
}

/* getopt_long takes a unique prefix: --from is --from-file's for the console. */
static bool abbreviates(const char *name, enum cli_cmd cmd)
{
	for (size_t i = 0; i < cli_n_options; i++)
		if ((cli_options[i].cmds & cmd) &&
		    !strncmp(cli_options[i].name, name, strlen(name)))
			return true;
	return false;
}

static void every_entry_reaches_its_route(void **state)
{
	(void)state;
	for (size_t i = 0; i < cli_n_options; i++) {
		const struct cli_option *t = &cli_options[i];
		for (size_t c = 0; c < cli_n_commands; c++) {
			enum cli_cmd cmd = cli_commands[c].cmd;
			if (!(t->cmds & cmd)) {
				struct cli_opts o;
				char word[64];
				snprintf(word, sizeof(word), "--%s", t->name);
				const char *value = t->arg ? sample_for(t->arg) : NULL;
				if (!abbreviates(t->name, cmd) &&
				    parse_one(cmd, word, value, &o) != 2)
					fail_msg("%s %s: taken, but not the command's",
					         command_name(cmd), word);
				continue;
			}
			char word[64];
			snprintf(word, sizeof(word), "--%s", t->name);
			check_reaches(t, cmd, word);
			if (t->short_name) {
				snprintf(word, sizeof(word), "-%c", t->short_name);
				check_reaches(t, cmd, word);
			}
		}
	}
}

/* Latency is timed unless --no-latency; --latency, the switch of before, changes nothing
 * of what is timed (it is only remembered as given, for -b --from-file's refusal). */
static void latency_on_by_default(void **state)
{
	(void)state;
	const enum cli_cmd timed[] = {CMD_LIVE, CMD_RECORD, CMD_SERVE};
	for (size_t i = 0; i < sizeof(timed) / sizeof(timed[0]); i++) {
		struct cli_opts o;
		assert_int_equal(parse_one(timed[i], "-d", "5", &o), 0);
		assert_true(o.src.latency);
		assert_false(o.latency_given);
		assert_int_equal(parse_one(timed[i], "--no-latency", NULL, &o), 0);
		assert_false(o.src.latency);
		assert_true(o.latency_given);
		assert_int_equal(parse_one(timed[i], "--latency", NULL, &o), 0);
		assert_true(o.src.latency);
	}
	/* the last word wins, as for any flag given twice */
	struct cli_opts o;
	char *argv[] = {"xiotop", "--latency", "--no-latency", NULL};
	cli_defaults(&o);
	assert_int_equal(cli_parse(CMD_LIVE, 3, argv, &o), 0);
	assert_false(o.src.latency);
}

static void every_route_is_well_formed(void **state)
{
	(void)state;
	for (size_t i = 0; i < cli_n_options; i++) {
		const struct cli_option *t = &cli_options[i];
		assert_non_null(t->name);
		assert_true(t->cmds != 0);
		switch (t->route) {
		case CLI_FLAG:
			assert_null(t->arg); /* a flag has no value to store */
			assert_null(t->take);
			break;
		case CLI_STRING:
			assert_non_null(t->arg);
			assert_null(t->take);
			break;
		case CLI_NUMBER:
		case CLI_COUNT:
		case CLI_DURATION:
			assert_non_null(t->arg);
			assert_non_null(t->bad); /* what is wrong with a value out of bounds */
			assert_true(t->lo <= t->hi);
			assert_null(t->take);
			break;
		case CLI_TAKE:
			assert_non_null(t->take);
			break;
		case CLI_HELP:
			break;
		}
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(t->name, cli_options[j].name);
			if (t->short_name)
				assert_int_not_equal(t->short_name, cli_options[j].short_name);
		}
	}
}

static void every_command_is_named_once(void **state)
{
	(void)state;
	unsigned seen = 0;
	for (size_t i = 0; i < cli_n_commands; i++) {
		assert_false(seen & cli_commands[i].cmd);
		seen |= cli_commands[i].cmd;
		if (cli_commands[i].name[0])
			assert_int_equal(cli_command_named(cli_commands[i].name),
			                 cli_commands[i].cmd);
	}
	assert_int_equal(cli_command_named("-b"), CMD_LIVE);
	assert_int_equal(cli_command_named(NULL), CMD_LIVE);
	for (size_t i = 0; i < cli_n_options; i++) /* no option names a command nobody has */
		assert_true((cli_options[i].cmds & seen) != 0);
}

static void bad_values_exit_2(void **state)
{
	(void)state;
	struct cli_opts o;
	assert_int_equal(parse_one(CMD_LIVE, "--delay", "0", &o), 2);
	assert_int_equal(parse_one(CMD_LIVE, "--format", "html", &o), 2); /* explain's alone */
	assert_int_equal(parse_one(CMD_EXPLAIN, "--format", "html", &o), 0);
	assert_true(o.format_html);
	assert_int_equal(parse_one(CMD_IMPORT, "--cpus", "1.5", &o), 2);
	assert_int_equal(parse_one(CMD_RECORD, "--retain-size", "2Q", &o), 2);
	assert_int_equal(parse_one(CMD_RECORD, "--duration", "0", &o), 2);
	assert_int_equal(parse_one(CMD_RECORD, "--period", "0.5s", &o), 2);
	assert_int_equal(parse_one(CMD_RECORD, "--retain", "0", &o), 0); /* keep all */
	assert_int_equal(parse_one(CMD_LIVE, "-i", "2.5", &o), 2);
	assert_int_equal(parse_one(CMD_IMPORT, "--cpus", "8", &o), 0);
	assert_int_equal(o.import_cpus, 8);
}

static char *usage_of(enum cli_cmd cmd)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	cli_usage(cmd, out);
	fclose(out);
	return text;
}

/* Each command takes the formats its --help names and refuses the others with exit 2:
 * `topology --format csv` printed text and exited 0. */
static void formats_each_command_takes(void **state)
{
	(void)state;
	static const struct {
		enum cli_cmd cmd;
		const char *help, *refused, *taken;
	} want[] = {
	    {CMD_LIVE, "text, csv or json", "html", "csv"},
	    {CMD_TOPOLOGY, "text or json", "csv", "json"},
	    {CMD_EXPORT, "text, csv or json", "html", "text"},
	    {CMD_REPLAY, "text, csv or json", "html", "csv"},
	    {CMD_EXPLAIN, "text, json or html", "csv", "html"},
	};
	struct cli_opts o;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *text = usage_of(want[i].cmd), line[96];
		snprintf(line, sizeof(line), "--format F                 %s\n", want[i].help);
		assert_non_null(strstr(text, line));
		free(text);
		assert_int_equal(parse_one(want[i].cmd, "--format", want[i].refused, &o), 2);
		assert_int_equal(parse_one(want[i].cmd, "--format", "xml", &o), 2);
		assert_int_equal(parse_one(want[i].cmd, "--format", want[i].taken, &o), 0);
	}
}

/* record's usage names both ways to say where it records: -o FILE or --dir DIR. */
static void record_usage_names_dir(void **state)
{
	(void)state;
	char *text = usage_of(CMD_RECORD);
	assert_non_null(strstr(text, "usage: xiotop record (-o FILE | --dir DIR) [OPTIONS]"));
	assert_non_null(strstr(text, "--dir DIR "));
	free(text);
}

/* --help lists every column of the table with its key, those of figures added after the
 * named ones too. */
static void help_lists_every_column(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	cli_usage(CMD_LIVE, out);
	fclose(out);
	for (int i = 0; i < fields_count(); i++) {
		char line[256], want[260];
		fields_help_line(field_get((enum field_id)i), true, line, sizeof(line));
		snprintf(want, sizeof(want), "  %s\n", line);
		assert_non_null(strstr(text, want));
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_entry_reaches_its_route),
	    cmocka_unit_test(latency_on_by_default),
	    cmocka_unit_test(every_route_is_well_formed),
	    cmocka_unit_test(every_command_is_named_once),
	    cmocka_unit_test(bad_values_exit_2),
	    cmocka_unit_test(help_lists_every_column),
	    cmocka_unit_test(formats_each_command_takes),
	    cmocka_unit_test(record_usage_names_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
