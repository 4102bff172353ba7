/* test_files.h - the unit tests' scratch directory and fixture files, one copy for all.
 *
 * Contract: TEST_SCRATCH_DIR("name") defines, in the including test file,
 *   static char dir[]                  the directory, xiotop-test-name-XXXXXX in the
 *                                      working directory (ctest: the build directory);
 *   static int make_dir(void **state)  a cmocka group setup: makes it (0, or -1);
 *   static int remove_dir(void **)     a cmocka group teardown: removes it, unless
 *                                      XIOTOP_TEST_KEEP is set (to look at what a test wrote);
 *   static const char *path_of(name)   dir/name, in one of 4 rotating buffers.
 * test_fixture(sub, name, &len) reads tests/fixtures/SUB/NAME (under $XIOTOP_FIXTURES
 * when set) whole into a NUL-terminated malloc'd buffer, failing the test when it cannot,
 * or when the file does not fit TEST_FIXTURE_MAX bytes; test_import_fixture(name, &len)
 * reads tests/fixtures/import/NAME. Header-only: each test is an
 * executable of its own. */
#ifndef XIOTOP_TEST_FILES_H
#define XIOTOP_TEST_FILES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#define TEST_FIXTURE_MAX (1 << 20)

#define TEST_SCRATCH_DIR(name)                                                                     \
	static char dir[64];                                                                       \
	static inline int make_dir(void **state)                                                   \
	{                                                                                          \
		(void)state;                                                                       \
		snprintf(dir, sizeof(dir), "xiotop-test-" name "-XXXXXX");                         \
		return mkdtemp(dir) ? 0 : -1;                                                      \
	}                                                                                          \
	static inline int remove_dir(void **state)                                                 \
	{                                                                                          \
		(void)state;                                                                       \
		return test_dir_remove(dir);                                                       \
	}                                                                                          \
	static inline const char *path_of(const char *file)                                        \
	{                                                                                          \
		static char buf[4][128];                                                           \
		static int next;                                                                   \
		char *p = buf[next++ % 4];                                                         \
		snprintf(p, 128, "%s/%s", dir, file);                                              \
		return p;                                                                          \
	}

static inline int test_dir_remove(const char *dir)
{
	if (getenv("XIOTOP_TEST_KEEP")) /* to look at the recordings with xiotop explain */
		return 0;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static inline char *test_fixture(const char *sub, const char *name, size_t *len)
{
	const char *fx = getenv("XIOTOP_FIXTURES");
	char path[512];
	snprintf(path, sizeof(path), "%s/%s/%s", fx ? fx : "tests/fixtures", sub, name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = malloc(TEST_FIXTURE_MAX + 1);
	assert_non_null(buf);
	*len = fread(buf, 1, TEST_FIXTURE_MAX + 1, f);
	fclose(f);
	assert_true(*len <= TEST_FIXTURE_MAX); /* a fixture cut short would pass for whole */
	buf[*len] = '\0';
	return buf;
}

static inline char *test_import_fixture(const char *name, size_t *len)
{
	return test_fixture("import", name, len);
}

#endif
