/* report_wrap.c - text word-wrapped for a mailing-list reply (report.h report_wrap). */
#include <stdio.h>
#include <string.h>

#include "explain/report/report.h"

#define WIDTH 78

void report_wrap(FILE *out, const char *indent, const char *text)
{
	size_t col = 0, ind = strlen(indent);
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t word = strcspn(p, " ");
		if (!word)
			break;
		if (col && col + 1 + word > WIDTH) {
			fputc('\n', out);
			col = 0;
		}
		if (!col) {
			fputs(indent, out);
			col = ind;
		} else {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, word, out);
		col += word;
		p += word;
	}
	if (col)
		fputc('\n', out);
}
