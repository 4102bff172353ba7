/* html_escape.c - text into HTML, once escaped; see report.h (html_put). */
#include <stdio.h>

#include "core/sanitize.h"
#include "explain/report/report.h"

/* The characters HTML gives a meaning to, as entities: safe in text and in quoted
 * attributes alike. */
static const char *const html_entity[256] = {
    ['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;", ['"'] = "&quot;", ['\''] = "&#39;",
};

/* Text already sanitized (a verdict's sentence, a label explain made of sanitized names):
 * the entities only, or its escapes would be escaped again ("\\e" for "\e"). */
void html_put_sanitized(FILE *out, const char *clean)
{
	for (const char *p = clean ? clean : ""; *p; p++) {
		const char *entity = html_entity[(unsigned char)*p];
		if (entity)
			fputs(entity, out);
		else
			fputc(*p, out);
	}
}

void html_put(FILE *out, const char *s)
{
	char clean[8192];
	sanitize_text(s ? s : "", clean, sizeof(clean));
	html_put_sanitized(out, clean);
}
