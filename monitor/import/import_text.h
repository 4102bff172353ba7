/* import_text.h - what every log parser of import/ shares: lines of a buffer, words of a
 * line, numbers, times, and the one-line error that names FILE:LINE.
 *
 * Contract: pure functions over a caller's buffer (no I/O, no globals), so the parsers are
 * unit-testable and fuzzable. Lines, words and integers are read by the one text scanner
 * (core/text_scan.h) that explain's claims use too. A line is at most IMP_LINE_MAX bytes;
 * words are split on blanks. Numbers must be whole words: an integer that fits 64 bits
 * (a larger one is refused, not cut), a decimal by strtod with nothing left over, never
 * negative, NaN or infinite. Every error message is escaped (core/sanitize.h): log text
 * may hold anything.
 */
#ifndef XIOTOP_IMPORT_TEXT_H
#define XIOTOP_IMPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define IMP_LINE_MAX  4096
#define IMP_WORDS_MAX 128

/* Fills err (core/error.h) as bad input: "FILE:LINE: what was expected", escaped, or a
 * FILE-only message (line 0). */
void imp_fail(struct xerr *err, const char *file, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Bad input of the logs together, no one file to name: the sentence alone (the command
 * says whose it is, as every command's failure: core/error.h). */
void imp_fail_logs(struct xerr *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A log's own text, escaped and cut, for quoting in a message. */
void imp_quote(const char *text, char *out, size_t outlen);

struct imp_cursor {
	const char *buf;
	size_t len, pos;
	unsigned line; /* of the line last returned, from 1 */
};
struct imp_line {
	char text[IMP_LINE_MAX]; /* NUL terminated, without its newline; CR dropped */
	bool terminated;         /* it ended with a newline (not cut at the end of the file) */
	bool too_long;
	bool has_nul; /* a NUL byte: not a text log */
};
/* The next line: 1, or 0 at the end of the buffer. */
int imp_next_line(struct imp_cursor *c, struct imp_line *l);
bool imp_blank(const char *text);

struct imp_words {
	char copy[IMP_LINE_MAX];
	char *w[IMP_WORDS_MAX];
	int n;
	bool overflow; /* more than IMP_WORDS_MAX words */
};
void imp_split(const char *text, struct imp_words *out);

/* The logs import reads, each a tool's text. */
enum imp_kind { IMP_XENTOP, IMP_VMSTAT, IMP_IOSTAT };

/* One log being parsed: the first member of each importer's parser, which take, finish
 * and drop get (as the parser); take and finish fill it. Whose text it is names the tool
 * in messages and what every log of it must hold (import_text.c's table: its header, two
 * readings or more). */
struct imp_log {
	enum imp_kind kind;
	/* takes one whole line and its words (its number: line_no): 0, or non-zero to stop */
	int (*take)(void *parser, const struct imp_line *line, struct imp_words *words,
	            unsigned line_no);
	/* after the last whole line (cut_line: the number of a last line cut short, not
	 * taken; 0 none): the parser's result tidied (a partial last reading dropped) and
	 * its note said; 0, or -1 with err said. Not called once take stopped */
	int (*finish)(void *parser, unsigned cut_line);
	/* on a failure (imp_parse_log's -1, from any step): the parser's result and its own
	 * allocations freed, so the importer's caller has nothing to free. Called at most
	 * once: after take stopped, after finish, or before either ran (out of memory) */
	void (*drop)(void *parser);
	const size_t *readings; /* the parser's count of readings (the first is since boot) */
	/* set by imp_parse_log */
	const char *file; /* as given, for messages */
	struct xerr *err;
	unsigned header_line; /* the line of its first header; 0 none yet (take sets it) */
};
/* Parses the log named file (for messages) whole: hands each whole line of buf, split
 * into words, to log->take in order, then calls
 * log->finish, and checks what every log must hold: its header and two readings or more
 * (read after finish). 0, or -1 with log->err said: by take or finish, as "FILE: no
 * TOOL header (...) found" or "FILE:LINE: two readings or more expected (...)" (LINE the
 * last line read), "out of memory", or "FILE:N: a line of TOOL text expected" for a line
 * that is no text (a NUL byte, longer than IMP_LINE_MAX, more than IMP_WORDS_MAX words).
 * On -1 it has called log->drop: what the parser built is freed. A last line cut short
 * (no newline, not blank: the capture was stopped mid-line) is not taken: finish gets its
 * number. */
int imp_parse_log(struct imp_log *log, const char *file, const char *buf, size_t len,
                  struct xerr *err);
/* imp_fail for the log being parsed: "FILE:LINE: what was expected" in its err. */
void imp_log_fail(struct imp_log *log, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Word i of a row (line) as a decimal (imp_double): 0, or -1 with "FILE:LINE: a number in
 * column N expected" said, N counted from 1. */
int imp_log_double(struct imp_log *log, const struct imp_words *w, int i, unsigned line,
                   double *out);
/* A last line cut short (cut_line, from imp_parse_log; 0 none) said in note:
 * "FILE:LINE: the last line is cut short: ignored", FILE quoted (imp_quote). */
void imp_note_cut(char *note, size_t len, const char *file, unsigned cut_line);
/* Index of the first word equal to name at or after from, or -1. */
int imp_find_word(const struct imp_words *w, const char *name, int from);

bool imp_u64(const char *word, uint64_t *out);
bool imp_double(const char *word, double *out);

/* Local-time fields to ns since the epoch (mktime: the TZ of the importing process); -1
 * for a field out of range (years 1970 to 2200). */
int64_t imp_local_ns(int year, int mon, int day, int hour, int min, int sec);

#endif
