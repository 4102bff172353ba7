/* sanitize.c - escapes for guest-controlled strings; see sanitize.h. */
#include "core/sanitize.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if s does not start one. */
static size_t utf8_seq_len(const unsigned char *s, uint32_t *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	size_t n;
	uint32_t c, min;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

bool sanitize_is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
}

/* Bidi and invisible format characters: on a UTF-8 terminal they reorder or hide the
 * text around them, so a name could display as another or disguise the columns after
 * it. */
bool sanitize_is_format_control(uint32_t cp)
{
	return cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb);
}

/* The escape of the character of n bytes (0: an invalid byte) at s into esc; returns
 * its length, and the bytes it consumed in *n. */
static size_t text_escape(const unsigned char *s, size_t *n, uint32_t cp, bool ascii_only,
                          char *esc, size_t len)
{
	if (*n == 1 && cp == '\\')
		return (size_t)snprintf(esc, len, "\\\\");
	if (*n == 1 && cp == 0x1b)
		return (size_t)snprintf(esc, len, "\\e");
	if (*n == 1 && cp == '\n')
		return (size_t)snprintf(esc, len, "\\n");
	if (*n == 1 && cp == '\t')
		return (size_t)snprintf(esc, len, "\\t");
	if (*n && sanitize_is_format_control(cp))
		return (size_t)snprintf(esc, len, "\\u%04x", (unsigned)cp);
	if (*n && !sanitize_is_control(cp) && !(ascii_only && cp >= 0x80)) {
		memcpy(esc, s, *n);
		return *n;
	}
	/* invalid byte, a C0/C1 control (or, ascii_only, any non-ASCII): each byte escaped */
	size_t k = *n ? *n : 1, elen = 0;
	for (size_t i = 0; i < k; i++)
		elen += (size_t)snprintf(esc + elen, len - elen, "\\x%02x", s[i]);
	*n = k;
	return elen;
}

static size_t escape_text(const char *in, bool ascii_only, char *out, size_t outlen)
{
	size_t o = 0;
	if (!outlen)
		return 0;
	if (!in)
		in = "";
	const unsigned char *s = (const unsigned char *)in;
	while (*s) {
		char esc[8 * 4 + 1];
		uint32_t cp = 0;
		size_t n = utf8_seq_len(s, &cp);
		size_t elen = text_escape(s, &n, cp, ascii_only, esc, sizeof(esc));
		if (o + elen + 1 > outlen)
			break;
		memcpy(out + o, esc, elen);
		o += elen;
		s += n;
	}
	out[o] = '\0';
	return o;
}

size_t sanitize_text(const char *in, char *out, size_t outlen)
{
	return escape_text(in, false, out, outlen);
}

size_t sanitize_ascii(const char *in, char *out, size_t outlen)
{
	return escape_text(in, true, out, outlen);
}

size_t sanitize_printf(char *out, size_t outlen, const char *fmt, ...)
{
	char raw[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	return sanitize_text(raw, out, outlen);
}

void json_put_string(FILE *out, const char *in)
{
	if (!in) {
		fputs("null", out);
		return;
	}
	const unsigned char *s = (const unsigned char *)in;
	fputc('"', out);
	while (*s) {
		uint32_t cp = 0;
		size_t n = utf8_seq_len(s, &cp);
		if (n == 1 && cp == '"') {
			fputs("\\\"", out);
		} else if (n == 1 && cp == '\\') {
			fputs("\\\\", out);
		} else if (n && !sanitize_is_control(cp) && !sanitize_is_format_control(cp)) {
			fwrite(s, 1, n, out);
		} else if (n) {
			fprintf(out, "\\u%04x", cp);
		} else {
			/* not UTF-8: keep the byte's value visible, stay valid JSON */
			fprintf(out, "\\u%04x", *s);
			n = 1;
		}
		s += n;
	}
	fputc('"', out);
}

void json_put_member(FILE *out, const char *prefix, const char *s)
{
	fputs(prefix, out);
	json_put_string(out, s);
}

void csv_put_field(FILE *out, const char *in)
{
	char buf[1024];
	sanitize_text(in ? in : "", buf, sizeof(buf));
	if (!strpbrk(buf, ",\" ")) {
		fputs(buf, out);
		return;
	}
	fputc('"', out);
	for (const char *p = buf; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}
