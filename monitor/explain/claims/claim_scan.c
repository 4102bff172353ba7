/* claim_scan.c - a post read line by line (claim_post.h): where a tool's output starts,
 * the output's reader takes its lines; every other line is prose, which may hold a shell
 * prompt and a benchmark's command line, a tool's own banner line, a heading, a rate
 * written in words. What the prose says is kept per tool until that tool's next output,
 * which takes it (its command, prompt, host and what they say); the heading is carried
 * down to every output until the next one. A command no output of its tool follows, and a
 * bonnie++ 2 table row no CSV line completes, become notes. One table, kinds[], names
 * each kind of output with its finder, reader and last-line test (claim_lex.h).
 */
#include "explain/claims/claim_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/arrays.h"

static const struct claim_kind {
	enum claim_family family;
	int (*find)(const struct claim_src *file, size_t pos, unsigned lineno,
	            struct claim_extent *out);
	int (*parse)(const struct claim_src *src, struct claim_build *b);
	bool (*whole)(const struct claim_src *src, const struct claim_line *last);
} kinds[] = {
    {CLAIM_FAMILY_FIO, claim_find_fio, claim_parse_fio, claim_whole_fio},
    {CLAIM_FAMILY_FIO, claim_find_fio_text, claim_parse_fio_text, claim_whole_fio_text},
    {CLAIM_FAMILY_IOZONE, claim_find_iozone, claim_parse_iozone, claim_whole_iozone},
    {CLAIM_FAMILY_BONNIE, claim_find_bonnie_classic, claim_parse_bonnie_classic,
     claim_whole_bonnie_classic},
    {CLAIM_FAMILY_BONNIE, claim_find_bonnie_table, claim_parse_bonnie_table,
     claim_whole_bonnie_table},
    {CLAIM_FAMILY_BONNIE, claim_find_bonnie_csv, claim_parse_bonnie_csv, claim_whole_bonnie_csv},
    {CLAIM_FAMILY_DD, claim_find_dd, claim_parse_dd, claim_whole_dd},
};

static const char *const family_names[CLAIM_FAMILIES] = {[CLAIM_FAMILY_DD] = "dd",
                                                         [CLAIM_FAMILY_BONNIE] = "bonnie",
                                                         [CLAIM_FAMILY_IOZONE] = "iozone",
                                                         [CLAIM_FAMILY_FIO] = "fio"};

/* What the prose said for one tool's next output. */
struct pending {
	struct claim_context ctx; /* its heading filled when the output comes */
	bool said_any;
};

#define PROSE_RATES 3

struct scan {
	const struct claim_src *file;
	struct claim_build *b;
	struct pending pend[CLAIM_FAMILIES];
	char heading[CLAIM_HEADING_MAX];
	bool after_blank, in_command_output;
	unsigned last_output_line; /* 0 none yet */
	unsigned rates[PROSE_RATES];
	size_t nrates;
};

static int note(struct scan *s, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int note(struct scan *s, unsigned line, const char *fmt, ...)
{
	struct claim_note n = {.line = line};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(n.text, sizeof(n.text), fmt, ap);
	va_end(ap);
	struct claim_post *p = s->b->post;
	if (arrays_append((void **)&p->notes, &p->nnotes, &n, sizeof(n)))
		return claim_no_memory(s->file);
	return 0;
}

/* A command no output of its tool followed: said in a note. */
static int unused_command(struct scan *s, enum claim_family f)
{
	struct pending *p = &s->pend[f];
	if (!p->ctx.command_line)
		return 0;
	return note(s, p->ctx.command_line, "a %s command line with no %s output after it",
	            family_names[f], family_names[f]);
}

static void trimmed_copy(char *out, size_t outlen, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	snprintf(out, outlen, "%.*s", (int)n, s);
}

static int command_line(struct scan *s, const struct claim_line *l, enum claim_family f,
                        size_t prompt_len, size_t tool_at, const char *host)
{
	if (unused_command(s, f))
		return -1;
	struct pending *p = &s->pend[f];
	memset(p, 0, sizeof(*p));
	p->ctx.command_line = l->no;
	trimmed_copy(p->ctx.prompt, sizeof(p->ctx.prompt), l->s, prompt_len);
	snprintf(p->ctx.host, sizeof(p->ctx.host), "%s", host);
	/* the whole command line after the prompt: "sync; time (dd ...; sync)" */
	trimmed_copy(p->ctx.command, sizeof(p->ctx.command), l->s + prompt_len,
	             l->len - prompt_len);
	claim_command_said(f, l->s + tool_at, l->len - tool_at, CLAIM_FROM_COMMAND, &p->ctx.said,
	                   &p->ctx.dd_direction);
	return 0;
}

/* A line of prose; next: the line after it (NULL none). */
static int prose(struct scan *s, const struct claim_line *l, const struct claim_line *next)
{
	char host[CLAIM_NAME_MAX];
	size_t at;
	if (claim_blank_line(l)) {
		s->after_blank = true;
		s->in_command_output = false;
		return 0;
	}
	size_t prompt = claim_prompt(l, host, sizeof(host));
	enum claim_family f = claim_command(l, prompt, &at);
	bool after_blank = s->after_blank;
	s->after_blank = false;
	if (f != CLAIM_FAMILY_NONE || prompt) {
		s->in_command_output = true; /* what follows is the command's */
		return f != CLAIM_FAMILY_NONE ? command_line(s, l, f, prompt, at, host) : 0;
	}
	struct claim_said said = {0};
	bool not_kib = false;
	f = claim_banner(l, &said, &not_kib);
	if (f != CLAIM_FAMILY_NONE) {
		struct claim_context *c = &s->pend[f].ctx;
		claim_said_merge(&c->said, &said);
		c->not_kib_per_s |= not_kib;
		static const char used[] = "Command line used: "; /* iozone's own echo */
		const char *at = memmem(l->s, l->len, used, sizeof(used) - 1);
		if (at && !c->command[0]) {
			at += sizeof(used) - 1;
			trimmed_copy(c->command, sizeof(c->command), at,
			             (size_t)(l->s + l->len - at));
			c->command_line = l->no;
		}
		return 0;
	}
	char nhost[CLAIM_NAME_MAX];
	bool next_command = next && claim_command(next, claim_prompt(next, nhost, sizeof(nhost)),
	                                          &at) != CLAIM_FAMILY_NONE;
	if (!s->in_command_output && claim_heading(after_blank, l, next, next_command))
		trimmed_copy(s->heading, sizeof(s->heading), l->s, l->len);
	if (claim_prose_rate(l) && s->nrates < PROSE_RATES)
		s->rates[s->nrates++] = l->no;
	return 0;
}

/* The output's last line, when the file ends inside it without a newline: it must end
 * as its tool ends it. */
static int check_end(const struct scan *s, const struct claim_kind *k, const struct claim_src *sub)
{
	const struct claim_src *file = s->file;
	if (sub->buf + sub->len != file->buf + file->len || file->buf[file->len - 1] == '\n')
		return 0;
	size_t pos = 0;
	unsigned no = sub->first_line;
	struct claim_line l, last = {0};
	while (claim_next_line(sub, &pos, &no, false, &l))
		last = l;
	if (k->whole(sub, &last))
		return 0;
	char ex[48];
	claim_excerpt(&last, ex, sizeof(ex));
	return claim_fail(file, last.no,
	                  "the last line \"%s\" has no newline, as in a file cut short, and its "
	                  "last figure may be cut; expected the tool's whole output (end it with "
	                  "a newline if it is whole)",
	                  ex);
}

/* The results from `from` on that hold no run (every test skipped, rows cut short): no
 * result, a note instead. */
static int drop_empty(struct scan *s, size_t from)
{
	struct claim_post *p = s->b->post;
	size_t kept = from;
	for (size_t i = from; i < p->nresults; i++) {
		struct claim_result r = p->results[i];
		if (r.nruns) {
			r.index = (unsigned)kept;
			p->results[kept++] = r;
			continue;
		}
		int rc = note(s, r.first_line,
		              "a%s %s that holds no run with figures (every test skipped, or its "
		              "rows cut short)",
		              claim_result_kind(&r)[0] == 'i' ? "n" : "", claim_result_kind(&r));
		claim_result_release(&r);
		if (rc)
			return -1;
	}
	p->nresults = kept;
	return 0;
}

static int output(struct scan *s, const struct claim_kind *k, const struct claim_extent *e)
{
	const struct claim_src *file = s->file;
	struct claim_src sub = {.name = file->name,
	                        .buf = file->buf + e->start,
	                        .len = e->end - e->start,
	                        .first_line = e->first_line,
	                        .err = file->err};
	if (check_end(s, k, &sub))
		return -1;
	struct pending *p = &s->pend[k->family];
	s->b->ctx = p->ctx;
	snprintf(s->b->ctx.heading, sizeof(s->b->ctx.heading), "%s", s->heading);
	size_t before = s->b->post->nresults;
	if (k->parse(&sub, s->b) || drop_empty(s, before))
		return -1;
	memset(p, 0, sizeof(*p));
	s->last_output_line = e->last_line;
	s->after_blank = s->in_command_output = false;
	return 0;
}

/* The file's last line has no newline and directly follows an output it is not part of:
 * the output's next line cut short. */
static int check_tail(const struct scan *s, const struct claim_line *l)
{
	if (l->ended || !s->last_output_line || l->no != s->last_output_line + 1 ||
	    claim_blank_line(l))
		return 0;
	char ex[48];
	claim_excerpt(l, ex, sizeof(ex));
	return claim_fail(s->file, l->no,
	                  "the last line \"%s\" has no newline, right after a tool's output: "
	                  "a line of it cut short? expected the tool's whole output (end it "
	                  "with a newline if it is whole)",
	                  ex);
}

/* At the end: commands without output, and bonnie++ 2 rows without their CSV line. */
static int end_notes(struct scan *s)
{
	for (int f = CLAIM_FAMILY_DD; f < CLAIM_FAMILIES; f++)
		if (unused_command(s, (enum claim_family)f))
			return -1;
	for (size_t i = 0; i < s->b->npending; i++)
		if (!s->b->pending[i].completed &&
		    note(s, s->b->pending[i].line,
		         "a bonnie++ 2 table row (its figures rounded) without the CSV line "
		         "bonnie++ prints after it, which gives the run: paste that line too"))
			return -1;
	return 0;
}

/* No result: what the post holds instead. */
static int nothing_found(const struct scan *s)
{
	const struct claim_post *p = s->b->post;
	char found[400] = "", ex[48];
	size_t o = 0;
	for (size_t i = 0; i < p->nnotes && o < sizeof(found); i++)
		o += (size_t)snprintf(found + o, sizeof(found) - o, "%sline %u: %s", o ? "; " : "",
		                      p->notes[i].line, p->notes[i].text);
	for (size_t i = 0; i < s->nrates && o < sizeof(found); i++) {
		size_t pos = 0;
		unsigned no = s->file->first_line;
		struct claim_line l = {0};
		while (claim_next_line(s->file, &pos, &no, false, &l) && l.no < s->rates[i])
			;
		claim_excerpt(&l, ex, sizeof(ex));
		o +=
		    (size_t)snprintf(found + o, sizeof(found) - o,
		                     "%sline %u: a rate in prose, \"%s\"", o ? "; " : "", l.no, ex);
	}
	return claim_fail(s->file, 0,
	                  "no benchmark output in it%s%s; expected a tool's own output pasted "
	                  "whole (dd's records lines and summary, a bonnie table or bonnie++ CSV "
	                  "line, an iozone table, fio's group lines or JSON)",
	                  found[0] ? ", only: " : "", found);
}

int claim_scan(const struct claim_src *file, struct claim_build *b)
{
	struct scan s = {.file = file, .b = b, .after_blank = true};
	size_t pos = 0;
	unsigned no = file->first_line;
	struct claim_line l, next;
	while (pos < file->len) {
		bool taken = false;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !taken; k++) {
			struct claim_extent e;
			int rc = kinds[k].find(file, pos, no, &e);
			if (rc < 0 || (rc > 0 && output(&s, &kinds[k], &e)))
				return -1;
			if (rc > 0) {
				taken = true;
				pos = e.end;
				no = e.last_line + 1;
			}
		}
		if (taken)
			continue;
		if (!claim_next_line(file, &pos, &no, false, &l))
			break;
		size_t peek = pos;
		unsigned peekno = no;
		bool have_next = claim_next_line(file, &peek, &peekno, false, &next);
		if (prose(&s, &l, have_next ? &next : NULL) || check_tail(&s, &l))
			return -1;
	}
	if (end_notes(&s))
		return -1;
	return b->post->nresults ? 0 : nothing_found(&s);
}
