/* test_import_fuzz.c - the log parsers are pure functions over a buffer: fed every prefix
 * of every fixture and thousands of byte-mutated copies, each either parses or fails with
 * one line naming the file, never crashes, reads out of bounds or leaks (run under ASan
 * or valgrind to see the last two). Deterministic (a fixed xorshift seed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "import/import_build.h"

static const char *const fixtures[] = {"vmstat-linux.txt",
                                       "vmstat-linux-t.txt",
                                       "iostat-dx.txt",
                                       "iostat-dxt.txt",
                                       "xentop-linux.txt",
                                       "xentop-linux-xnv.txt",
                                       "xentop-linux-r.txt",
                                       "xentop-seed002-file.txt",
                                       "xentop-seed003-netbsd.txt",
                                       "iostat-seed003-netbsd.txt",
                                       "vmstat-seed003-netbsd.txt"};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* All three parsers on one buffer: whatever they say, the message names the file. */
static void parse_all(const char *buf, size_t len)
{
	struct xerr err;
	struct imp_xentop x;
	struct imp_vmstat v;
	struct imp_iostat io;
	if (imp_xentop_parse("f.log", buf, len, &x, &err) == 0)
		imp_xentop_free(&x);
	else
		assert_memory_equal(err.msg, "f.log", 5);
	if (imp_vmstat_parse("f.log", buf, len, &v, &err) == 0)
		imp_vmstat_free(&v);
	else
		assert_memory_equal(err.msg, "f.log", 5);
	if (imp_iostat_parse("f.log", buf, len, &io, &err) == 0)
		imp_iostat_free(&io);
	else
		assert_memory_equal(err.msg, "f.log", 5);
}

static char *load(const char *name, size_t *len)
{
	const char *dir = getenv("XIOTOP_FIXTURES");
	char path[512];
	snprintf(path, sizeof(path), "%s/import/%s", dir ? dir : "tests/fixtures", name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = malloc(1 << 16);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

static void test_prefixes_and_mutations(void **state)
{
	(void)state;
	static const char alphabet[] = "0123456789 -:\n\t\0\033/.ab[]NAMEDevice";
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		size_t len;
		char *text = load(fixtures[i], &len);
		for (size_t n = 0; n <= len; n += 1 + n / 64) /* unterminated: no NUL at the end */
			parse_all(text, n);
		char *copy = malloc(len ? len : 1);
		assert_non_null(copy);
		for (int round = 0; round < 300; round++) {
			memcpy(copy, text, len);
			for (int k = 0; k < 1 + (int)(next() % 4); k++)
				copy[next() % len] = alphabet[next() % (sizeof(alphabet) - 1)];
			parse_all(copy, len - next() % 16);
		}
		free(copy);
		free(text);
	}
}

/* Every combination of the fixtures' logs, intervals and starts: built, or refused with a
 * message; never more samples than the shortest log has blocks. */
static void test_builder_combinations(void **state)
{
	(void)state;
	static const char *const xt[] = {NULL, "xentop-linux.txt", "xentop-seed003-netbsd.txt"};
	static const char *const vm[] = {NULL, "vmstat-linux-t.txt", "vmstat-seed003-netbsd.txt"};
	static const char *const io[] = {NULL, "iostat-dxt.txt", "iostat-seed003-netbsd.txt"};
	static const double intervals[] = {0, 1, 2, 60};
	static const int64_t starts[] = {-1, 1764693237000000000ll, 1000000000ll};
	struct imp_xentop x[3];
	struct imp_vmstat v[3];
	struct imp_iostat s[3];
	struct xerr err;
	for (int i = 1; i < 3; i++) {
		size_t len;
		char *t = load(xt[i], &len);
		assert_int_equal(imp_xentop_parse(xt[i], t, len, &x[i], &err), 0);
		free(t);
		t = load(vm[i], &len);
		assert_int_equal(imp_vmstat_parse(vm[i], t, len, &v[i], &err), 0);
		free(t);
		t = load(io[i], &len);
		assert_int_equal(imp_iostat_parse(io[i], t, len, &s[i], &err), 0);
		free(t);
	}
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			for (int c = 0; c < 3; c++)
				for (size_t d = 0; d < 4; d++)
					for (size_t e = 0; e < 3; e++) {
						struct imp_logs in = {.xentop = a ? &x[a] : NULL,
						                      .vmstat = b ? &v[b] : NULL,
						                      .iostat = c ? &s[c] : NULL,
						                      .xentop_file = xt[a],
						                      .vmstat_file = vm[b],
						                      .iostat_file = io[c],
						                      .interval_s = intervals[d],
						                      .has_start = starts[e] >= 0,
						                      .start_ns = starts[e]};
						struct imp_result r;
						if (imp_build(&in, &r, &err) == 0) {
							assert_true(r.n >= 2);
							imp_result_free(&r);
						} else {
							assert_true(err.msg[0] != '\0');
						}
					}
	for (int i = 1; i < 3; i++) {
		imp_xentop_free(&x[i]);
		imp_vmstat_free(&v[i]);
		imp_iostat_free(&s[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_prefixes_and_mutations),
	                                   cmocka_unit_test(test_builder_combinations)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
