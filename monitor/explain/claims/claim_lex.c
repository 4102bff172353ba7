/* claim_lex.c - a claim's lines and words (core/text_scan.c) and the escaped one-line error
 * (claim_lex.h). */
#include "explain/claims/claim_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool claim_next_line(const struct claim_src *src, size_t *pos, unsigned *lineno, bool split_cr,
                     struct claim_line *out)
{
	struct text_span line;
	bool newline;
	if (!text_next_line(src->buf, src->len, pos, split_cr, &line, &newline))
		return false;
	out->s = line.s;
	out->len = line.len;
	out->no = *lineno;
	if (newline)
		(*lineno)++;
	return true;
}

/* Escapes in place into dst: printable ASCII stays, everything else becomes \xNN. */
static void escape_into(const char *in, char *dst, size_t dstlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
		bool plain = *p >= 0x20 && *p < 0x7f;
		size_t need = plain ? 1 : 4;
		if (o + need >= dstlen)
			break;
		if (plain) {
			dst[o++] = (char)*p;
		} else {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[*p >> 4];
			dst[o++] = hex[*p & 15];
		}
	}
	if (dstlen)
		dst[o] = '\0';
}

int claim_fail(const struct claim_src *src, unsigned line, const char *fmt, ...)
{
	char raw[1024];
	int n = line ? snprintf(raw, sizeof(raw), "%s:%u: ", src->name, line)
	             : snprintf(raw, sizeof(raw), "%s: ", src->name);
	if (n < 0 || (size_t)n >= sizeof(raw))
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw + n, sizeof(raw) - (size_t)n, fmt, ap);
	va_end(ap);
	if (src->err && src->errlen)
		escape_into(raw, src->err, src->errlen);
	return -1;
}

void claim_excerpt(const struct claim_line *line, char *out, size_t outlen)
{
	size_t n = line->len < 40 ? line->len : 40;
	if (n >= outlen)
		n = outlen - 1;
	/* a NUL inside the line would cut the excerpt: show it as a visible byte */
	for (size_t i = 0; i < n; i++)
		out[i] = line->s[i] ? line->s[i] : '\x01';
	out[n] = '\0';
}

double claim_unit_factor(const char *u, size_t ulen, bool si_for_plain)
{
	static const char prefixes[] = "KMGTPE";
	if (ulen == 1 && u[0] == 'B')
		return 1;
	if (ulen < 1 || ulen > 3)
		return 0;
	const char *hit = strchr(prefixes, u[0] == 'k' ? 'K' : u[0]);
	if (!hit || !*hit)
		return 0;
	int power = (int)(hit - prefixes) + 1;
	double base;
	if (ulen == 3 && u[1] == 'i' && u[2] == 'B')
		base = 1024;
	else if (ulen == 2 && u[1] == 'B')
		base = si_for_plain ? 1000 : 1024;
	else if (ulen == 1)
		base = 1024;
	else
		return 0;
	double f = 1;
	while (power--)
		f *= base;
	return f;
}

bool claim_contains(const struct claim_src *src, const char *needle)
{
	return text_contains(src->buf, src->len, needle);
}

bool claim_next_word(const struct claim_line *l, size_t *pos, size_t *start)
{
	return text_next_word(l->s, l->len, pos, start, " \t\r");
}
