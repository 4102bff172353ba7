/* sanitize.h - what guest-controlled strings (domain names, paths) become on output.
 *
 * Contract: nothing returned here contains a control character (C0, DEL, C1) or an
 * invalid UTF-8 byte; those become visible escapes (\e, \n, \t, \xNN). Valid printable
 * UTF-8 passes through unchanged. Output is always NUL terminated and cut, never
 * overflowing, at `outlen`; a cut never splits an escape or a UTF-8 sequence.
 */
#ifndef XIOTOP_SANITIZE_H
#define XIOTOP_SANITIZE_H

#include <stddef.h>
#include <stdio.h>

/* Terminal/text form. Returns the length written (excluding NUL). */
size_t sanitize_text(const char *in, char *out, size_t outlen);

/* JSON string literal including the quotes; control characters as \u00XX and
 * an invalid UTF-8 byte as \u00XX of its value; never raw. NULL prints null. */
void json_put_string(FILE *out, const char *s);

/* CSV field: sanitized text, quoted when it holds a comma, quote or space. */
void csv_put_field(FILE *out, const char *s);

#endif
