/* sanitize.c - escapes for guest-controlled strings; see sanitize.h. */
#include "core/sanitize.h"

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

static int is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
}

size_t sanitize_text(const char *in, char *out, size_t outlen)
{
	size_t o = 0;
	if (!outlen)
		return 0;
	if (!in)
		in = "";
	const unsigned char *s = (const unsigned char *)in;
	while (*s) {
		char esc[8 * 4 + 1];
		size_t elen;
		uint32_t cp = 0;
		size_t n = utf8_seq_len(s, &cp);
		if (n && !is_control(cp)) {
			memcpy(esc, s, n);
			elen = n;
		} else if (n == 1 && cp == 0x1b) {
			elen = (size_t)snprintf(esc, sizeof(esc), "\\e");
		} else if (n == 1 && cp == '\n') {
			elen = (size_t)snprintf(esc, sizeof(esc), "\\n");
		} else if (n == 1 && cp == '\t') {
			elen = (size_t)snprintf(esc, sizeof(esc), "\\t");
		} else {
			/* invalid byte, or a C1 control: escape each byte of it */
			size_t k = n ? n : 1;
			elen = 0;
			for (size_t i = 0; i < k; i++)
				elen += (size_t)snprintf(esc + elen, sizeof(esc) - elen, "\\x%02x",
				                         s[i]);
			n = k;
		}
		if (o + elen + 1 > outlen)
			break;
		memcpy(out + o, esc, elen);
		o += elen;
		s += n;
	}
	out[o] = '\0';
	return o;
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
		} else if (n && !is_control(cp)) {
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
