/* sanitize.h - what text from a file, the kernel or a guest (domain names, paths, mark
 * labels, xenstore values, SQLite messages quoting a recording) becomes on output.
 *
 * Contract, the one rule of every output (terminal, batch text, CSV, JSON, console grid,
 * topology print, error messages): nothing returned here contains a control character
 * (C0, DEL, C1), a bidi or invisible format control (U+061C, U+200B-200F, U+2028-202E,
 * U+2060-206F, U+FEFF, U+FFF9-FFFB) or an invalid UTF-8 byte. Text form: those become
 * visible escapes - \e, \n, \t, \xNN per byte (C0, DEL, C1, invalid bytes), \uXXXX (format
 * controls) - and `\` itself becomes `\\`, so that an escape in the output always means
 * an escaped byte (a name spelling "\x1b" shows as "\\x1b"). Valid printable UTF-8
 * passes through unchanged. Output is always NUL terminated and cut, never overflowing,
 * at `outlen`; a cut never splits an escape or a UTF-8 sequence.
 */
#ifndef XIOTOP_SANITIZE_H
#define XIOTOP_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Terminal/text form. Returns the length written (excluding NUL). */
size_t sanitize_text(const char *in, char *out, size_t outlen);

/* The same with every byte of a non-ASCII character escaped as \xNN too (a terminal
 * whose locale is not UTF-8). */
size_t sanitize_ascii(const char *in, char *out, size_t outlen);

/* sanitize_text() of a printf format, for one-line messages quoting outside text. */
size_t sanitize_printf(char *out, size_t outlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* JSON string literal including the quotes; control characters as \u00XX, format
 * controls as \uXXXX and an invalid UTF-8 byte as \u00XX of its value; never raw. NULL
 * prints null. */
void json_put_string(FILE *out, const char *s);
/* A JSON member: prefix as given (its punctuation and quoted key, ",\"mode\":"), then s
 * as json_put_string writes it. */
void json_put_member(FILE *out, const char *prefix, const char *s);

/* CSV field: sanitized text, quoted when it holds a comma, quote or space. */
void csv_put_field(FILE *out, const char *s);

/* The code point classes escaped above (for views with stricter rules of their own). */
bool sanitize_is_control(uint32_t cp);
bool sanitize_is_format_control(uint32_t cp);

#endif
