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

/* One log read line by line (imp_read_lines): where each line and its words go, and
 * the parser that takes them. */
struct imp_reading {
	const char *file; /* as given, for messages */
	const char *tool; /* whose text the log is ("vmstat"), for messages */
	struct xerr *err;
	struct imp_line *line;
	struct imp_words *words;
	/* takes the line in *line and *words (its number: line_no): 0, or non-zero to stop */
	int (*take)(void *parser, unsigned line_no);
	void *parser;
};
/* Hands each whole line of c's buffer, split into words, to r->take in order: 0 at the
 * end, or what take returned when it stopped. A line that is no text (a NUL byte, longer
 * than IMP_LINE_MAX, more than IMP_WORDS_MAX words) stops it with -1 and "FILE:N: a line
 * of TOOL text expected". A last line cut short (no newline, not blank: the capture was
 * stopped mid-line) is not handed over: *cut_line is its number (0 when there is none).
 * c->line is the number of the last line read. */
int imp_read_lines(struct imp_cursor *c, const struct imp_reading *r, unsigned *cut_line);
/* After imp_read_lines: what every log must hold, its header (seen at header_line; 0
 * never) and two readings or more (the first is since boot). 0, or -1 with r->err saying
 * no_header (FILE: ...) or too_few (FILE:LINE: ..., line the last line read). */
int imp_log_complete(const struct imp_reading *r, unsigned header_line, size_t readings,
                     unsigned line, const char *no_header, const char *too_few);
/* A last line cut short (cut_line, from imp_read_lines; 0 none) said in note:
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
