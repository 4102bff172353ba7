/* report_claims.c - every result of every --claim file, as listed (claim_list.h): what
 * names it, what it says about how it ran, and each run judged or why not; as text (a
 * result's runs one a line, or past RUNS_LISTED the judged ones and a count of the rest
 * by reason) and as JSON (every run). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/sanitize.h"
#include "explain/claim_list.h"
#include "explain/report/prose.h"
#include "explain/report/report.h"
#include "explain/verdicts/verdicts.h"

#define RUNS_LISTED 8

static const char *const from_text[] = {
    [CLAIM_FROM_NONE] = "not given",
    [CLAIM_FROM_COMMAND] = "command",
    [CLAIM_FROM_OUTPUT] = "its output",
    [CLAIM_FROM_TOOL] = "the tool's own",
};

static const char *const from_key[] = {
    [CLAIM_FROM_NONE] = "none",
    [CLAIM_FROM_COMMAND] = "command",
    [CLAIM_FROM_OUTPUT] = "output",
    [CLAIM_FROM_TOOL] = "tool",
};

/* The settings of struct claim_said, in one table: JSON key, what on and off read as. */
static const struct {
	const char *key, *name, *on, *off; /* off NULL: a figure, on its name */
	size_t at;                         /* offsetof the setting */
	bool size;
} settings[] = {
    {"direct", "O_DIRECT", "O_DIRECT", "through the page cache",
     offsetof(struct claim_said, direct), false},
    {"sync", "sync", "synchronous writes", "no synchronous writes",
     offsetof(struct claim_said, sync), false},
    {"flush_end", "flush", "a flush in its time", "no flush in its time",
     offsetof(struct claim_said, flush_end), false},
    {"block_bytes", "request size", "requests of", NULL, offsetof(struct claim_said, block_bytes),
     true},
    {"queue_depth", "queue depth", "queue depth", NULL, offsetof(struct claim_said, queue_depth),
     false},
    {"file_bytes", "test file", "test file", NULL, offsetof(struct claim_said, file_bytes), true},
};
#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

static const struct claim_setting *setting(const struct claim_said *s, size_t i)
{
	return (const struct claim_setting *)((const char *)s + settings[i].at);
}

static const char *dir_name(unsigned dir)
{
	return dir == CLAIM_DIR_WRITE ? "write" : dir == CLAIM_DIR_READ ? "read" : NULL;
}

/* --- text ---------------------------------------------------------------------------- */

/* "says: through the page cache (command), requests of 1.00 MiB (command), ..." */
static void said_text(const struct claim_said *s, char *out, size_t outlen)
{
	size_t o = (size_t)snprintf(out, outlen, "says:");
	for (size_t i = 0; i < NSETTINGS && o < outlen; i++) {
		const struct claim_setting *v = setting(s, i);
		char what[80], b[32];
		if (v->from == CLAIM_FROM_NONE)
			snprintf(what, sizeof(what), "%s not given", settings[i].name);
		else if (settings[i].off)
			snprintf(what, sizeof(what), "%s",
			         v->value ? settings[i].on : settings[i].off);
		else if (settings[i].size)
			snprintf(what, sizeof(what), "%s %s", settings[i].on,
			         ex_bytes((double)v->value, b, sizeof(b)));
		else
			snprintf(what, sizeof(what), "%s %llu", settings[i].on,
			         (unsigned long long)v->value);
		int n = snprintf(out + o, outlen - o, "%s %s%s%s%s", i ? "," : "", what,
		                 v->from ? " (" : "", v->from ? from_text[v->from] : "",
		                 v->from ? ")" : "");
		o += n > 0 ? (size_t)n : 0;
	}
	if (s->ioengine[0] && o < outlen) {
		char engine[64];
		sanitize_text(s->ioengine, engine, sizeof(engine));
		snprintf(out + o, outlen - o, ", engine %s", engine);
	}
}

static const char *label_of(const struct ex_claim_file *cf, char *buf, size_t len)
{
	sanitize_text(cf->label, buf, len);
	return buf;
}

static void run_text(FILE *out, const struct ex_claim_file *cf, const struct ex_listed_run *lr,
                     const struct explain *ex)
{
	const struct claim_run *u = &cf->post.results[lr->result].runs[lr->run];
	char label[160], b[32], r[32], line[600];
	sanitize_text(u->label, label, sizeof(label));
	const char *dir = dir_name(u->direction);
	size_t o = (size_t)snprintf(line, sizeof(line), "%s: %s %s", label, dir ? dir : "moved",
	                            ex_bytes((double)u->bytes, b, sizeof(b)));
	if (u->seconds > 0)
		o += (size_t)snprintf(line + o, sizeof(line) - o, " in %.2f s%s", u->seconds,
		                      u->seconds_from_rate ? " (from its rate)" : "");
	if (u->rate_bytes_per_s > 0)
		o += (size_t)snprintf(line + o, sizeof(line) - o, ", %s",
		                      ex_rate(u->rate_bytes_per_s, r, sizeof(r)));
	if (lr->status == EX_RUN_JUDGED)
		snprintf(line + o, sizeof(line) - o,
		         ": judged against domain %u (its claim verdict)",
		         (unsigned)ex->claims[lr->claim_row].domid);
	else if (lr->status == EX_RUN_NOT_LABELLED)
		snprintf(line + o, sizeof(line) - o,
		         ": not judged, its result does not answer to '%s'",
		         label_of(cf, label, sizeof(label)));
	else
		snprintf(line + o, sizeof(line) - o, ": not judged, %s",
		         ex_run_status_text(lr->status));
	report_wrap(out, "      ", line);
}

/* One result: what names it, what it says, its runs. */
static void result_text(FILE *out, const struct explain *ex, const struct ex_claim_file *cf,
                        size_t i, size_t first_run)
{
	const struct claim_result *r = &cf->post.results[i];
	char machine[200], prompt[200], cmd[600], heading[400], line[1600];
	sanitize_text(r->machine, machine, sizeof(machine));
	sanitize_text(r->prompt, prompt, sizeof(prompt));
	sanitize_text(r->command, cmd, sizeof(cmd));
	sanitize_text(r->heading, heading, sizeof(heading));
	snprintf(line, sizeof(line), "#%u %s%s%s, lines %u-%u%s%s%s%s%s%s%s", r->index + 1,
	         claim_result_kind(r), machine[0] ? " " : "", machine, r->first_line, r->last_line,
	         heading[0] ? ", under \"" : "", heading, heading[0] ? "\"" : "",
	         prompt[0] || cmd[0] ? ": " : "", prompt, prompt[0] && cmd[0] ? " " : "", cmd);
	report_wrap(out, "  ", line);
	said_text(&r->said, line, sizeof(line));
	report_wrap(out, "      ", line);
	size_t listed = 0, count[EX_RUN_OVER_LIMIT + 1] = {0};
	for (size_t k = first_run; k < cf->nruns && cf->runs[k].result == i; k++) {
		const struct ex_listed_run *lr = &cf->runs[k];
		if (r->nruns <= RUNS_LISTED || lr->status == EX_RUN_JUDGED) {
			run_text(out, cf, lr, ex);
			listed++;
		} else {
			count[lr->status]++;
		}
	}
	if (listed == r->nruns)
		return;
	size_t o =
	    (size_t)snprintf(line, sizeof(line), "%zu more runs not judged:", r->nruns - listed);
	for (int s = EX_RUN_NOT_LABELLED; s <= EX_RUN_OVER_LIMIT; s++)
		if (count[s])
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s %zu %s",
			                      o > 25 ? "," : "", count[s],
			                      ex_run_status_text((enum ex_run_status)s));
	report_wrap(out, "      ", line);
}

void report_claims_text(FILE *out, const struct explain *ex)
{
	for (size_t f = 0; f < ex->n_claim_files; f++) {
		const struct ex_claim_file *cf = &ex->claim_files[f];
		char arg[700], found[200], label[200], line[1400]; /* arg, found, judged and more */
		sanitize_text(cf->arg, arg, sizeof(arg));
		sanitize_text(cf->label, label, sizeof(label));
		claim_post_summary(&cf->post, NULL, found, sizeof(found));
		static const char *const why[] = {
		    [EX_LABEL_NONE] = "",
		    [EX_LABEL_GIVEN] = "the label given",
		    [EX_LABEL_AT] = "no domain of the window but a label of the post",
		    [EX_LABEL_DOMAIN] = "the domain's name: the others are other machines'"};
		char judged[400] = "";
		if (cf->label_from != EX_LABEL_NONE)
			snprintf(judged, sizeof(judged),
			         "; judged: the results answering to '%s' (%s)", label,
			         why[cf->label_from]);
		snprintf(line, sizeof(line), "Claims of %s: %s%s; set against domain %u%s.", arg,
		         found, judged, (unsigned)cf->domid,
		         cf->domain[0] ? " (named)" : " (the busiest in the window)");
		report_wrap(out, "", line);
		size_t k = 0;
		for (size_t i = 0; i < cf->post.nresults; i++) {
			result_text(out, ex, cf, i, k);
			while (k < cf->nruns && cf->runs[k].result == i)
				k++;
		}
		for (size_t n = 0; n < cf->post.nnotes; n++) {
			char text[400];
			sanitize_text(cf->post.notes[n].text, text, sizeof(text));
			snprintf(line, sizeof(line), "line %u: %s.", cf->post.notes[n].line, text);
			report_wrap(out, "  ", line);
		}
		fputc('\n', out);
	}
}

/* --- JSON ---------------------------------------------------------------------------- */

static void put_said(FILE *out, const struct claim_said *s)
{
	fputs("{", out);
	for (size_t i = 0; i < NSETTINGS; i++) {
		const struct claim_setting *v = setting(s, i);
		fprintf(out, "%s\"%s\":", i ? "," : "", settings[i].key);
		if (v->from == CLAIM_FROM_NONE)
			fputs("null", out);
		else if (settings[i].off)
			fprintf(out, "{\"value\":%s,\"from\":\"%s\"}", v->value ? "true" : "false",
			        from_key[v->from]);
		else
			fprintf(out, "{\"value\":%llu,\"from\":\"%s\"}",
			        (unsigned long long)v->value, from_key[v->from]);
	}
	fputs(",\"ioengine\":", out);
	json_put_string(out, s->ioengine[0] ? s->ioengine : NULL);
	fputs("}", out);
}

/* A figure the tool gave (> 0), null when it gave none. */
static void put_opt_num(FILE *out, double v)
{
	if (v > 0 && isfinite(v))
		fprintf(out, "%.9g", v);
	else
		fputs("null", out);
}

static void put_opt_count(FILE *out, bool given, uint64_t v)
{
	if (given)
		fprintf(out, "%llu", (unsigned long long)v);
	else
		fputs("null", out);
}

static void put_run(FILE *out, const struct explain *ex, const struct ex_claim_file *cf,
                    const struct ex_listed_run *lr)
{
	const struct claim_run *u = &cf->post.results[lr->result].runs[lr->run];
	fputs("{\"label\":", out);
	json_put_string(out, u->label);
	fputs(",\"direction\":", out);
	json_put_string(out, dir_name(u->direction));
	fprintf(out, ",\"bytes\":%llu,\"seconds\":", (unsigned long long)u->bytes);
	put_opt_num(out, u->seconds);
	fputs(",\"rate_bytes_per_s\":", out);
	if (u->rate_bytes_per_s > 0 && u->rate_bytes_per_s < 9e18) /* as a whole count */
		put_opt_count(out, true, (uint64_t)llround(u->rate_bytes_per_s));
	else
		put_opt_num(out, u->rate_bytes_per_s);
	fprintf(out, ",\"seconds_from_rate\":%s,\"seconds_from_time\":%s,\"block_bytes\":",
	        u->seconds_from_rate ? "true" : "false", u->seconds_from_time ? "true" : "false");
	put_opt_count(out, u->block_bytes.from != CLAIM_FROM_NONE, u->block_bytes.value);
	fputs(",\"file_bytes\":", out);
	put_opt_count(out, u->file_bytes > 0, u->file_bytes);
	if (lr->status == EX_RUN_JUDGED)
		fprintf(out, ",\"judged\":true,\"domid\":%u,\"claim\":%zu,\"not_judged\":null}",
		        (unsigned)ex->claims[lr->claim_row].domid, lr->claim_row);
	else
		fprintf(out,
		        ",\"judged\":false,\"domid\":null,\"claim\":null,\"not_judged\":\"%s\"}",
		        ex_run_status_text(lr->status));
}

static void put_result(FILE *out, const struct explain *ex, const struct ex_claim_file *cf,
                       size_t i, size_t first_run)
{
	const struct claim_result *r = &cf->post.results[i];
	fprintf(out, "{\"index\":%u,\"tool\":\"%s\",\"kind\":\"%s\",\"lines\":[%u,%u],", r->index,
	        claim_tool_name(r->tool), claim_result_kind(r), r->first_line, r->last_line);
	json_put_member(out, "\"machine\":", r->machine[0] ? r->machine : NULL);
	json_put_member(out, ",\"prompt\":", r->prompt[0] ? r->prompt : NULL);
	json_put_member(out, ",\"host\":", r->host[0] ? r->host : NULL);
	json_put_member(out, ",\"heading\":", r->heading[0] ? r->heading : NULL);
	json_put_member(out, ",\"command\":", r->command[0] ? r->command : NULL);
	fputs(",\"said\":", out);
	put_said(out, &r->said);
	fputs(",\"clock\":", out);
	if (r->clock.kind == CLAIM_CLOCK_NONE)
		fputs("null", out);
	else
		fprintf(out, "{\"kind\":\"%s\",\"unix_ms\":%lld}",
		        r->clock.kind == CLAIM_CLOCK_SEED ? "bonnie++ seed" : "fio report",
		        (long long)r->clock.unix_ms);
	fputs(",\"runs\":[", out);
	for (size_t k = first_run; k < cf->nruns && cf->runs[k].result == i; k++) {
		fputs(k > first_run ? "," : "", out);
		put_run(out, ex, cf, &cf->runs[k]);
	}
	fputs("]}", out);
}

void report_claims_json(FILE *out, const struct explain *ex)
{
	fputs("\"claim_files\":[", out);
	for (size_t f = 0; f < ex->n_claim_files; f++) {
		const struct ex_claim_file *cf = &ex->claim_files[f];
		char found[200];
		claim_post_summary(&cf->post, NULL, found, sizeof(found));
		json_put_member(out, f ? ",{\"file\":" : "{\"file\":", cf->file);
		static const char *const label_from[] = {[EX_LABEL_NONE] = "none",
		                                         [EX_LABEL_GIVEN] = "given",
		                                         [EX_LABEL_AT] = "at",
		                                         [EX_LABEL_DOMAIN] = "domain name"};
		json_put_member(out, ",\"domain\":", cf->domain[0] ? cf->domain : NULL);
		json_put_member(out, ",\"label\":", cf->label[0] ? cf->label : NULL);
		fprintf(out, ",\"label_from\":\"%s\"", label_from[cf->label_from]);
		fprintf(out, ",\"domid\":%u,\"found\":\"%s\",\"results\":[", (unsigned)cf->domid,
		        found);
		size_t k = 0;
		for (size_t i = 0; i < cf->post.nresults; i++) {
			fputs(i ? "," : "", out);
			put_result(out, ex, cf, i, k);
			while (k < cf->nruns && cf->runs[k].result == i)
				k++;
		}
		fputs("],\"notes\":[", out);
		for (size_t n = 0; n < cf->post.nnotes; n++) {
			fprintf(out, "%s{\"line\":%u,", n ? "," : "", cf->post.notes[n].line);
			json_put_member(out, "\"text\":", cf->post.notes[n].text);
			fputs("}", out);
		}
		fputs("]}", out);
	}
	fputs("]", out);
}
