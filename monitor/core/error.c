/* error.c - see error.h. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>

static xnote_sink note_sink; /* set once by cli/ at start, before any thread */

void xerr_set(struct xerr *e, enum xerr_kind kind, const char *fmt, ...)
{
	if (!e)
		return;
	e->kind = kind;
	e->code = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

void xnote_set_sink(xnote_sink sink)
{
	note_sink = sink;
}

void xnote(const char *fmt, ...)
{
	if (!note_sink)
		return;
	char sentence[sizeof(((struct xerr *)0)->msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sentence, sizeof(sentence), fmt, ap);
	va_end(ap);
	note_sink(sentence);
}
