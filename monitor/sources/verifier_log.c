/* verifier_log.c - a refused program's verdict from its load log; see verifier_log.h. */
#include "sources/verifier_log.h"

#include <stdio.h>
#include <string.h>

static const char LOG_BEGIN[] = "-- BEGIN PROG LOAD LOG --";
static const char LOG_END[] = "-- END PROG LOAD LOG --";
static const char STATS[] = "processed ";

bool verifier_reason(const char *msg, char *out, size_t outlen)
{
	const char *begin = strstr(msg, LOG_BEGIN);
	if (!begin || !outlen)
		return false;
	const char *log = strchr(begin, '\n');
	if (!log)
		return false;
	log++;
	const char *end = strstr(log, LOG_END);
	if (!end)
		end = log + strlen(log);
	/* the program's name, from "prog 'NAME': " before the marker */
	const char *name = strstr(msg, "prog '");
	size_t name_len = 0;
	if (name && name < begin) {
		name += strlen("prog '");
		const char *q = memchr(name, '\'', (size_t)(begin - name));
		name_len = q ? (size_t)(q - name) : 0;
	}
	/* walk the lines: the verdict is the last non-empty one before the statistics */
	const char *verdict = NULL;
	size_t verdict_len = 0;
	for (const char *line = log; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
		if (!strncmp(line, STATS, strlen(STATS)))
			break;
		if (len)
			verdict = line, verdict_len = len;
		line += len + 1;
	}
	if (!verdict)
		return false;
	if (!name_len)
		name = "?", name_len = 1;
	snprintf(out, outlen, "prog %.*s: %.*s", (int)name_len, name, (int)verdict_len, verdict);
	return true;
}
