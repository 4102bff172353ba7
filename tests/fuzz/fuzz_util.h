/* fuzz_util.h - what the libFuzzer harnesses of tests/fuzz share: the output check (the
 * one rule of core/sanitize.h: no control, bidi/format control or invalid UTF-8 byte
 * reaches an output) and scratch files in a private temporary directory.
 *
 * Contract: fuzz_check_output() aborts (a libFuzzer crash, with the offending offset on
 * stderr) when buf breaks the rule; newlines are allowed only when `lines` is set.
 * fuzz_dir() is created once per process and removed at exit.
 */
#ifndef XIOTOP_FUZZ_UTIL_H
#define XIOTOP_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sanitize.h"

/* Length of the valid UTF-8 character at s[0..n), 0 if invalid; its code point in *cp. */
static inline size_t fuzz_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len = s[0] < 0x80             ? 1
	             : (s[0] & 0xe0) == 0xc0 ? 2
	             : (s[0] & 0xf0) == 0xe0 ? 3
	             : (s[0] & 0xf8) == 0xf0 ? 4
	                                     : 0;
	if (!len || len > n)
		return 0;
	uint32_t c = len == 1 ? s[0] : s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
	if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

static inline void fuzz_check_output(const char *what, const char *buf, size_t len, bool lines)
{
	const unsigned char *s = (const unsigned char *)buf;
	for (size_t i = 0; i < len;) {
		uint32_t cp = 0;
		size_t n = fuzz_utf8(s + i, len - i, &cp);
		bool ok = n && ((lines && cp == '\n') ||
		                (!sanitize_is_control(cp) && !sanitize_is_format_control(cp)));
		if (!ok) {
			fprintf(stderr,
			        "%s: byte 0x%02x at offset %zu of %zu breaks the output rule\n",
			        what, s[i], i, len);
			abort();
		}
		i += n;
	}
}

static char fuzz_dir_path[64];

static inline void fuzz_dir_remove(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_dir_path);
	if (system(cmd)) {
		/* best effort: a scratch directory left in TMPDIR */
	}
}

static inline const char *fuzz_dir(void)
{
	if (!fuzz_dir_path[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%.40s/xiotop-fuzz.XXXXXX",
		         tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir_path))
			abort();
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

/* Writes data to DIR/name (creating parent directories of name); returns the path. */
static inline const char *fuzz_write(const char *name, const void *data, size_t len)
{
	static char path[4096];
	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	for (char *p = path + strlen(fuzz_dir()) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
	return path;
}

/* A NUL-terminated copy of the fuzz input (free it). */
static inline char *fuzz_cstr(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

#endif
