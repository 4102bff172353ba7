/* claim_post.c - a claim file read as a post of results (claim_post.h): the file, and the
 * checks on the whole text before it is scanned (claim_scan.c). */
#include "explain/claims/claim_lex.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLAIM_FILE_MAX (16u << 20)

int claim_post_parse_buffer(const char *name, const char *buf, size_t len, struct claim_post *out,
                            struct xerr *err)
{
	struct claim_src src = {.name = name ? name : "(claim)",
	                        .buf = buf,
	                        .len = buf ? len : 0,
	                        .first_line = 1,
	                        .err = err};
	memset(out, 0, sizeof(*out));
	if (err)
		*err = (struct xerr){0};
	if (src.len == 0)
		return claim_fail(
		    &src, 0,
		    "empty file; expected the output of dd, bonnie++, bonnie, iozone or "
		    "fio");
	if (memchr(src.buf, '\0', src.len))
		return claim_fail(&src, 0,
		                  "binary data; expected the text output of dd, bonnie++, bonnie, "
		                  "iozone or fio");
	struct claim_build b = {.post = out};
	int rc = claim_scan(&src, &b);
	free(b.pending);
	if (rc)
		claim_post_free(out);
	return rc;
}

int claim_post_parse_file(const char *path, struct claim_post *out, struct xerr *err)
{
	struct claim_src src = {.name = path, .first_line = 1, .err = err};
	memset(out, 0, sizeof(*out));
	FILE *f = fopen(path, "rb");
	if (!f)
		return claim_fail(&src, 0, "cannot open: %s", strerror(errno));
	char *buf = malloc(CLAIM_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return claim_no_memory(&src);
	}
	size_t n = fread(buf, 1, CLAIM_FILE_MAX + 1, f);
	bool failed = ferror(f);
	fclose(f);
	int rc;
	if (failed)
		rc = claim_fail(&src, 0, "read error");
	else if (n > CLAIM_FILE_MAX)
		rc =
		    claim_fail(&src, 0, "larger than 16 MiB; expected a post of benchmark outputs");
	else
		rc = claim_post_parse_buffer(path, buf, n, out, err);
	free(buf);
	return rc;
}
