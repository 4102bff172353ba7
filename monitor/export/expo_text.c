/* expo_text.c - label value escaping and content negotiation; see exposition.h. */
#include "export/exposition.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Length of the valid UTF-8 sequence at s (2..4), or 0 (invalid, overlong, surrogate). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void expo_put_label_value(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		size_t n = *p < 0x80 ? 1 : utf8_len(p);
		bool c1 = n == 2 && p[0] == 0xc2 && p[1] < 0xa0; /* U+0080..U+009F */
		if (*p == '\\' || *p == '"') {
			fputc('\\', out);
			fputc(*p++, out);
		} else if (*p == '\n') {
			fputs("\\n", out);
			p++;
		} else if (*p < 0x20 || *p == 0x7f || n == 0) {
			fprintf(out, "\\\\x%02x", *p++);
		} else if (c1) {
			fprintf(out, "\\\\x%02x\\\\x%02x", p[0], p[1]);
			p += 2;
		} else {
			fwrite(p, 1, n, out);
			p += n;
		}
	}
}

/* The q of one media range's parameters ("; q=0.5; version=..."): 1 if not given. */
static double media_q(const char *params, size_t len)
{
	double q = 1.0;
	for (size_t i = 0; i + 1 < len; i++) {
		if (params[i] != ';')
			continue;
		size_t j = i + 1;
		while (j < len && (params[j] == ' ' || params[j] == '\t'))
			j++;
		if (j + 1 < len && (params[j] == 'q' || params[j] == 'Q') && params[j + 1] == '=')
			q = strtod(params + j + 2, NULL);
	}
	return q;
}

static bool type_is(const char *type, size_t len, const char *want)
{
	return len == strlen(want) && !strncasecmp(type, want, len);
}

enum expo_format expo_negotiate(const char *accept)
{
	double q_om = 0, q_text = 0;
	for (const char *p = accept; p && *p;) {
		size_t len = strcspn(p, ",");
		const char *type = p + strspn(p, " \t");
		size_t type_len = strcspn(type, "; \t,");
		double q = media_q(type + type_len, len - (size_t)(type + type_len - p));
		bool any = type_is(type, type_len, "*/*");
		if (any || type_is(type, type_len, "application/openmetrics-text") ||
		    type_is(type, type_len, "application/*"))
			q_om = q > q_om ? q : q_om;
		if (any || type_is(type, type_len, "text/plain") ||
		    type_is(type, type_len, "text/*"))
			q_text = q > q_text ? q : q_text;
		p += len + (p[len] == ',');
	}
	/* OpenMetrics only when asked for above the text format (Prometheus asks so); a tie
	 * (curl's and a browser's * / *), no Accept and anything else get the text format, as
	 * node_exporter (client_golang's expfmt.Negotiate) answers them: `curl /metrics |
	 * promtool check metrics` then checks what it can read. */
	return q_om > q_text ? EXPO_OPENMETRICS : EXPO_PROMETHEUS;
}

const char *expo_content_type(enum expo_format f)
{
	return f == EXPO_PROMETHEUS ? "text/plain; version=0.0.4; charset=utf-8"
	                            : "application/openmetrics-text; version=1.0.0; charset=utf-8";
}
