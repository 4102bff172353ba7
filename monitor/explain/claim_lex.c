/* claim_lex.c - lines, locale-free numbers and the escaped one-line error (claim_lex.h). */
#include "explain/claim_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool claim_next_line(const struct claim_src *src, size_t *pos, unsigned *lineno, bool split_cr,
                     struct claim_line *out)
{
	if (*pos >= src->len)
		return false;
	size_t start = *pos, i = start;
	while (i < src->len && src->buf[i] != '\n' && !(split_cr && src->buf[i] == '\r'))
		i++;
	out->s = src->buf + start;
	out->len = i - start;
	out->no = *lineno;
	if (i < src->len) {
		if (src->buf[i] == '\n')
			(*lineno)++;
		i++;
	}
	*pos = i;
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

void cur_skip_spaces(struct claim_cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

bool cur_lit(struct claim_cur *c, const char *lit)
{
	size_t n = strlen(lit);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
		return false;
	c->p += n;
	return true;
}

bool cur_at_end(const struct claim_cur *c)
{
	return c->p >= c->end;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

bool cur_u64(struct claim_cur *c, uint64_t *out)
{
	const char *p = c->p;
	uint64_t v = 0;
	if (p >= c->end || !is_digit(*p))
		return false;
	for (; p < c->end && is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	c->p = p;
	*out = v;
	return true;
}

bool cur_decimal(struct claim_cur *c, bool comma_ok, double *out)
{
	const char *p = c->p;
	double v = 0;
	int digits = 0;
	for (; p < c->end && is_digit(*p); p++) {
		if (++digits > 18)
			return false;
		v = v * 10 + (*p - '0');
	}
	if (!digits)
		return false;
	if (p + 1 < c->end && (*p == '.' || (comma_ok && *p == ',')) && is_digit(p[1])) {
		double scale = 1;
		int frac = 0;
		for (p++; p < c->end && is_digit(*p); p++) {
			if (++frac > 18)
				return false;
			scale /= 10;
			v += (*p - '0') * scale;
		}
	}
	c->p = p;
	*out = v;
	return true;
}

bool cur_word(struct claim_cur *c, const char **w, size_t *wlen)
{
	const char *p = c->p;
	while (p < c->end && *p != ' ' && *p != ',' && *p != '(' && *p != '\t')
		p++;
	if (p == c->p)
		return false;
	*w = c->p;
	*wlen = (size_t)(p - c->p);
	c->p = p;
	return true;
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
	size_t n = strlen(needle);
	if (n == 0 || n > src->len)
		return false;
	return memmem(src->buf, src->len, needle, n) != NULL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

bool claim_next_word(const struct claim_line *l, size_t *pos, size_t *start)
{
	size_t i = *pos;
	while (i < l->len && is_blank(l->s[i]))
		i++;
	*start = i;
	while (i < l->len && !is_blank(l->s[i]))
		i++;
	*pos = i;
	return i > *start;
}
