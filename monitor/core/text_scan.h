/* text_scan.h - the one scanner of text other programs wrote: the benchmark outputs
 * explain reads as claims (explain/claims/claim_lex.h) and the logs import reads
 * (import/import_text.h). Lines, words, literals and locale-free numbers.
 *
 * Contract: pure functions over a caller's bytes (no I/O, no allocation, no globals, no
 * locale): nothing reads at or past the end it is given, a NUL byte inside is a byte like
 * another (never a blank, never an end). A number reader takes digits only (no sign, no
 * blank before it) and refuses a value that does not fit: no overflow, no wrap, no
 * saturation.
 */
#ifndef XIOTOP_TEXT_SCAN_H
#define XIOTOP_TEXT_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A piece of a caller's buffer (not NUL terminated). */
struct text_span {
	const char *s;
	size_t len;
};

/* The line of buf[0, len) starting at *pos, without its terminator: it ends at '\n' (or,
 * with split_cr, also at '\r'). *newline: it ended at a '\n'. *pos moves past the
 * terminator. false when *pos is at the end. */
bool text_next_line(const char *buf, size_t len, size_t *pos, bool split_cr, struct text_span *line,
                    bool *newline);

/* The next word of s[0, len) from *pos, words separated by any byte of `blanks`: true
 * with *start at its first byte and *pos just past it; false when only blanks are left. */
bool text_next_word(const char *s, size_t len, size_t *pos, size_t *start, const char *blanks);

/* Does buf[0, len) hold needle (not empty)? */
bool text_contains(const char *buf, size_t len, const char *needle);

/* A cursor over [p, end). */
struct text_cur {
	const char *p, *end;
};

void text_skip_blanks(struct text_cur *c);          /* spaces and tabs */
bool text_lit(struct text_cur *c, const char *lit); /* consumes lit if it is next */
bool text_at_end(const struct text_cur *c);
/* Unsigned decimal integer; false if absent or > UINT64_MAX. */
bool text_u64(struct text_cur *c, uint64_t *out);
/* Decimal number "12", "1.5" (and "1,5" with comma_ok); at most 18 digits each side of
 * the point. No sign, no exponent. */
bool text_decimal(struct text_cur *c, bool comma_ok, double *out);
/* A word: bytes up to a space, tab, comma or '(' (at least one). */
bool text_word(struct text_cur *c, const char **w, size_t *wlen);

/* The value of the hex digit c (0-9, a-f, A-F); -1 if c is not one. */
int text_hex_digit(char c);
/* The byte that a backslash before letter stands for among the one-letter escapes
 * \\ \" \e \n \r \t, when letter is one of `accepted` (a writer's own subset of them);
 * -1 otherwise. */
int text_escape_byte(char letter, const char *accepted);

#endif
