/* import_text.c - lines, words, numbers and errors for the log parsers, over the one text
 * scanner (core/text_scan.h); see import_text.h. */
#include "import/import_text.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sanitize.h"
#include "core/text_scan.h"

void imp_quote(const char *text, char *out, size_t outlen)
{
	char cut[96];
	snprintf(cut, sizeof(cut), "%s", text);
	sanitize_text(cut, out, outlen);
}

static void vfail(struct xerr *err, const char *file, unsigned line, const char *fmt, va_list ap)
{
	char what[300], safe_file[160];
	vsnprintf(what, sizeof(what), fmt, ap);
	sanitize_text(file ? file : "(input)", safe_file, sizeof(safe_file));
	err->kind = XERR_INPUT;
	err->code = 0;
	if (line)
		snprintf(err->msg, sizeof(err->msg), "%s:%u: %s", safe_file, line, what);
	else
		snprintf(err->msg, sizeof(err->msg), "%s: %s", safe_file, what);
}

void imp_fail_logs(struct xerr *err, const char *fmt, ...)
{
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	xerr_set(err, XERR_INPUT, "%s", what);
}

void imp_fail(struct xerr *err, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(err, file, line, fmt, ap);
	va_end(ap);
}

void imp_log_fail(struct imp_log *log, unsigned line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(log->err, log->file, line, fmt, ap);
	va_end(ap);
}

int imp_log_double(struct imp_log *log, const struct imp_words *w, int i, unsigned line,
                   double *out)
{
	if (imp_double(w->w[i], out))
		return 0;
	imp_log_fail(log, line, "a number in column %d expected", i + 1);
	return -1;
}

int imp_next_line(struct imp_cursor *c, struct imp_line *l)
{
	struct text_span line;
	bool newline;
	if (!text_next_line(c->buf, c->len, &c->pos, false, &line, &newline))
		return 0;
	size_t n = line.len;
	c->line++;
	l->terminated = newline;
	l->has_nul = memchr(line.s, '\0', n) != NULL;
	l->too_long = n >= sizeof(l->text);
	if (l->too_long)
		n = sizeof(l->text) - 1;
	memcpy(l->text, line.s, n);
	if (n && l->text[n - 1] == '\r')
		n--;
	l->text[n] = '\0';
	return 1;
}

/* Each kind of log: whose text it is, and what every log of it must hold, said when it
 * does not: its header (as "FILE: no_header") and two readings or more (the first is
 * since boot; as "FILE:LINE: too_few"). */
static const struct {
	const char *tool, *no_header, *too_few;
} kinds[] = {
    [IMP_XENTOP] = {"xentop -b", "no xentop -b header (NAME STATE CPU(sec) ...) found",
                    "two iterations or more expected (xentop -b -d N)"},
    [IMP_VMSTAT] = {"vmstat", "no vmstat header (r b ... us sy id) found",
                    "two rows or more expected (vmstat N: the first is since boot)"},
    [IMP_IOSTAT] = {"iostat", "no iostat -x header (Device ... rkB/s ... wkB/s) found",
                    "two reports or more expected (iostat -dx N: the first is since boot)"},
};

/* Each whole line of c's buffer to log->take: 0 at the end, or what take returned. */
static int read_lines(struct imp_cursor *c, struct imp_log *log, struct imp_line *line,
                      struct imp_words *words, unsigned *cut_line)
{
	*cut_line = 0;
	while (imp_next_line(c, line)) {
		if (!line->terminated && !imp_blank(line->text)) {
			*cut_line = c->line;
			return 0;
		}
		imp_split(line->text, words);
		if (line->has_nul || line->too_long || words->overflow)
			return imp_log_fail(log, c->line, "a line of %s text expected",
			                    kinds[log->kind].tool),
			       -1;
		int rc = log->take(log, line, words, c->line);
		if (rc)
			return rc;
	}
	return 0;
}

/* imp_parse_log but for its drop on a failure: 0, or -1 with log->err said. */
static int parse_whole(struct imp_log *log, const char *buf, size_t len)
{
	/* a line and its words: two IMP_LINE_MAX buffers, not on the stack */
	struct {
		struct imp_line line;
		struct imp_words words;
	} *text = calloc(1, sizeof(*text));
	if (!text)
		return imp_log_fail(log, 0, "out of memory"), -1;
	struct imp_cursor c = {.buf = buf, .len = len};
	unsigned cut_line;
	bool stopped =
	    read_lines(&c, log, &text->line, &text->words, &cut_line) || log->finish(log, cut_line);
	free(text);
	if (stopped)
		return -1;
	if (!log->header_line)
		return imp_log_fail(log, 0, "%s", kinds[log->kind].no_header), -1;
	if (*log->readings < 2)
		return imp_log_fail(log, c.line, "%s", kinds[log->kind].too_few), -1;
	return 0;
}

int imp_parse_log(struct imp_log *log, const char *file, const char *buf, size_t len,
                  struct xerr *err)
{
	log->file = file;
	log->err = err;
	log->header_line = 0;
	if (!parse_whole(log, buf, len))
		return 0;
	log->drop(log);
	return -1;
}

void imp_note_cut(char *note, size_t len, const char *file, unsigned cut_line)
{
	if (!cut_line)
		return;
	char safe[160];
	imp_quote(file, safe, sizeof(safe));
	snprintf(note, len, "%s:%u: the last line is cut short: ignored", safe, cut_line);
}

bool imp_blank(const char *text)
{
	for (; *text; text++)
		if (!isspace((unsigned char)*text))
			return false;
	return true;
}

void imp_split(const char *text, struct imp_words *out)
{
	snprintf(out->copy, sizeof(out->copy), "%s", text);
	out->n = 0;
	out->overflow = false;
	size_t len = strlen(out->copy), pos = 0, start;
	while (text_next_word(out->copy, len, &pos, &start, " \t\v\f")) {
		if (out->n == IMP_WORDS_MAX) {
			out->overflow = true;
			return;
		}
		out->w[out->n++] = out->copy + start;
		if (pos < len)
			out->copy[pos++] = '\0'; /* the blank after it ends the word */
	}
}

int imp_find_word(const struct imp_words *w, const char *name, int from)
{
	for (int i = from < 0 ? 0 : from; i < w->n; i++)
		if (!strcmp(w->w[i], name))
			return i;
	return -1;
}

bool imp_u64(const char *word, uint64_t *out)
{
	struct text_cur c = {word, word + strlen(word)};
	uint64_t v;
	if (!text_u64(&c, &v) || !text_at_end(&c))
		return false;
	*out = v;
	return true;
}

bool imp_double(const char *word, double *out)
{
	if (!isdigit((unsigned char)word[0]))
		return false;
	char *end;
	double v = strtod(word, &end);
	if (*end || !isfinite(v) || v < 0)
		return false;
	*out = v;
	return true;
}

int64_t imp_local_ns(int year, int mon, int day, int hour, int min, int sec)
{
	/* a garbled time must not overflow ns since the epoch */
	if (year < 1970 || year > 2200 || mon < 1 || mon > 12 || day < 1 || day > 31 || hour < 0 ||
	    hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 60)
		return -1;
	struct tm tm = {.tm_year = year - 1900,
	                .tm_mon = mon - 1,
	                .tm_mday = day,
	                .tm_hour = hour,
	                .tm_min = min,
	                .tm_sec = sec,
	                .tm_isdst = -1};
	time_t t = mktime(&tm);
	return t == (time_t)-1 ? -1 : (int64_t)t * 1000000000ll;
}
