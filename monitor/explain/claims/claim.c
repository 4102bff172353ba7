/* claim.c - recognise the tool from the content and hand over to its parser (claim.h). */
#include "explain/claims/claim_lex.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLAIM_FILE_MAX (16u << 20)

static const char *const tool_names[] = {
    [CLAIM_TOOL_DD] = "dd",
    [CLAIM_TOOL_DD_BUSYBOX] = "dd-busybox",
    [CLAIM_TOOL_DD_BSD] = "dd-bsd",
    [CLAIM_TOOL_BONNIE] = "bonnie++",
    [CLAIM_TOOL_BONNIE_CLASSIC] = "bonnie",
    [CLAIM_TOOL_IOZONE] = "iozone",
    [CLAIM_TOOL_FIO] = "fio",
};

const char *claim_tool_name(enum claim_tool tool)
{
	bool named =
	    (unsigned)tool < sizeof(tool_names) / sizeof(tool_names[0]) && tool_names[tool];
	return named ? tool_names[tool] : "?";
}

/* bonnie++ CSV data lines start with the format version, "1.96," "1.97," "1.98,". */
static bool has_bonnie_csv(const struct claim_src *src)
{
	size_t pos = 0;
	unsigned no = 1;
	struct claim_line l;
	while (claim_next_line(src, &pos, &no, false, &l)) {
		if (l.len > 5 && memcmp(l.s, "1.9", 3) == 0 && l.s[4] == ',')
			return true;
		if (l.len > 15 && memcmp(l.s, "format_version,", 15) == 0)
			return true;
	}
	return false;
}

static bool looks_binary(const struct claim_src *src)
{
	return memchr(src->buf, '\0', src->len) != NULL;
}

/* A text output cut short parses as well as a whole one when the cut falls inside a
 * figure ("0.0500984 s" read as "0.05 s", dd's "copied" as "c"): only the newline
 * every tool prints after its last line tells them apart. So the last line of a text
 * output must be ended (fio's JSON ends with its object instead). */
static int check_last_line(const struct claim_src *src)
{
	size_t start = src->len;
	while (start > 0 && src->buf[start - 1] != '\n' && src->buf[start - 1] != '\r')
		start--;
	bool blank = true;
	for (size_t i = start; i < src->len && blank; i++)
		blank = src->buf[i] == ' ' || src->buf[i] == '\t';
	if (blank)
		return 0;
	unsigned no = 1;
	for (size_t i = 0; i < start; i++)
		no += src->buf[i] == '\n';
	struct claim_line last = {.s = src->buf + start, .len = src->len - start, .no = no};
	char excerpt[48];
	claim_excerpt(&last, excerpt, sizeof(excerpt));
	return claim_fail(src, no,
	                  "the last line \"%s\" has no newline, as in a file cut short; "
	                  "expected the tool's whole output (end it with a newline if it is whole)",
	                  excerpt);
}

int claim_parse_buffer(const char *name, const char *buf, size_t len, struct claim *out, char *err,
                       size_t errlen)
{
	struct claim_src src = {.name = name ? name : "(claim)",
	                        .buf = buf,
	                        .len = buf ? len : 0,
	                        .err = err,
	                        .errlen = errlen};
	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (src.len == 0)
		return claim_fail(&src, 0,
		                  "empty file; expected the output of dd, bonnie++, "
		                  "iozone or fio");
	if (looks_binary(&src))
		return claim_fail(&src, 0,
		                  "binary data; expected the text output of dd, "
		                  "bonnie++, iozone or fio");
	int rc;
	bool json = claim_contains(&src, "\"fio version\"");
	if (json)
		rc = claim_parse_fio(&src, out);
	else if (claim_is_fio_text(&src))
		rc = claim_parse_fio_text(&src, out);
	else if (claim_contains(&src, "Iozone") || claim_contains(&src, "reclen") ||
	         claim_contains(&src, "\"Writer report\""))
		rc = claim_parse_iozone(&src, out);
	else if (!has_bonnie_csv(&src) && claim_contains(&src, "-Per Char-"))
		rc = claim_parse_bonnie_classic(&src, out); /* bonnie++ says "-Per Chr-" */
	else if (has_bonnie_csv(&src) || claim_contains(&src, "Sequential Output"))
		rc = claim_parse_bonnie(&src, out);
	else if (claim_contains(&src, " records in") || claim_contains(&src, " bytes") ||
	         claim_contains(&src, "+0 ") || claim_contains(&src, " byte "))
		rc = claim_parse_dd(&src, out);
	else
		rc = claim_fail(&src, 0,
		                "not the output of dd, busybox dd, bonnie++ (CSV), iozone or fio: "
		                "no records/bytes line, CSV line, iozone table, fio group "
		                "line or fio JSON");
	if (rc == 0 && !json)
		rc = check_last_line(&src);
	/* parsed, but nothing to set against a recording: never an empty claim */
	if (rc == 0 && out->nruns == 0 && !out->runs_dropped)
		rc = claim_fail(&src, 0,
		                "the %s output holds no run with figures (every test skipped, "
		                "or its rows cut short)",
		                claim_tool_name(out->tool));
	if (rc != 0)
		memset(out, 0, sizeof(*out));
	return rc;
}

int claim_parse_file(const char *path, struct claim *out, char *err, size_t errlen)
{
	struct claim_src src = {.name = path, .err = err, .errlen = errlen};
	memset(out, 0, sizeof(*out));
	FILE *f = fopen(path, "rb");
	if (!f)
		return claim_fail(&src, 0, "cannot open: %s", strerror(errno));
	char *buf = malloc(CLAIM_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return claim_fail(&src, 0, "out of memory");
	}
	size_t n = fread(buf, 1, CLAIM_FILE_MAX + 1, f);
	bool failed = ferror(f);
	fclose(f);
	int rc;
	if (failed)
		rc = claim_fail(&src, 0, "read error");
	else if (n > CLAIM_FILE_MAX)
		rc = claim_fail(&src, 0, "larger than 16 MiB; expected one benchmark's output");
	else
		rc = claim_parse_buffer(path, buf, n, out, err, errlen);
	free(buf);
	return rc;
}
