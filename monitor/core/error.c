/* error.c - see error.h. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>

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
