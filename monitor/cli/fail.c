/* fail.c - failures said and turned into exit statuses; see fail.h. */
#include "cli/fail.h"

#include <stdio.h>

void cli_say(const struct xerr *e)
{
	if (e->kind != XERR_NONE && e->msg[0])
		fprintf(stderr, "xiotop: %s\n", e->msg);
}

int cli_fail(const struct xerr *e)
{
	cli_say(e);
	return cli_status(e);
}

int cli_status(const struct xerr *e)
{
	switch (e->kind) {
	case XERR_NONE:
		return 0;
	case XERR_INPUT:
	case XERR_PREREQ:
		return 2;
	case XERR_RUNTIME:
	case XERR_NOMEM:
		break;
	}
	return 1;
}

void cli_note(const char *sentence)
{
	fprintf(stderr, "xiotop: %s\n", sentence);
}
