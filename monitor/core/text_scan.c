/* text_scan.c - lines, words and locale-free numbers of others' text; see text_scan.h. */
#include "core/text_scan.h"

#include <string.h>

bool text_next_line(const char *buf, size_t len, size_t *pos, bool split_cr, struct text_span *line,
                    bool *newline)
{
	if (*pos >= len)
		return false;
	size_t start = *pos, i = start;
	while (i < len && buf[i] != '\n' && !(split_cr && buf[i] == '\r'))
		i++;
	line->s = buf + start;
	line->len = i - start;
	*newline = i < len && buf[i] == '\n';
	*pos = i < len ? i + 1 : i;
	return true;
}

/* A NUL is never a blank (strchr would find the set's own terminator). */
static bool is_one_of(char c, const char *blanks)
{
	return c && strchr(blanks, c);
}

bool text_next_word(const char *s, size_t len, size_t *pos, size_t *start, const char *blanks)
{
	size_t i = *pos;
	while (i < len && is_one_of(s[i], blanks))
		i++;
	*start = i;
	while (i < len && !is_one_of(s[i], blanks))
		i++;
	*pos = i;
	return i > *start;
}

bool text_contains(const char *buf, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0 || n > len)
		return false;
	return memmem(buf, len, needle, n) != NULL;
}

void text_skip_blanks(struct text_cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

bool text_lit(struct text_cur *c, const char *lit)
{
	size_t n = strlen(lit);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
		return false;
	c->p += n;
	return true;
}

bool text_at_end(const struct text_cur *c)
{
	return c->p >= c->end;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

bool text_u64(struct text_cur *c, uint64_t *out)
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

bool text_decimal(struct text_cur *c, bool comma_ok, double *out)
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

bool text_word(struct text_cur *c, const char **w, size_t *wlen)
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

int text_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int text_escape_byte(char letter, const char *accepted)
{
	static const char letters[] = "\\\"enrt", bytes[] = "\\\"\x1b\n\r\t";
	const char *at = letter ? strchr(letters, letter) : NULL;
	return at && strchr(accepted, letter) ? (unsigned char)bytes[at - letters] : -1;
}
