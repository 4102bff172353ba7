/* test_record_hostile.c - recordings edited by a hostile sender (issue 15): text from
 * the file never reaches a message raw, and hostile times are clear errors, never an
 * overflow. Each file is a valid recording made by the recorder, then edited with SQL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record.h"

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/xiotop-hostile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A valid recording of 4 samples one second apart, one domain, edited by sql. */
static const char *recording(const char *name, const char *sql)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct rec_host_facts facts;
	memset(&facts, 0, sizeof(facts));
	struct xerr err;
	struct rec_writer *w = rec_create(path, &facts, &err);
	assert_non_null(w);
	struct xio_sample s;
	memset(&s, 0, sizeof(s));
	struct xio_domain dom = {.domid = 1};
	snprintf(dom.name, sizeof(dom.name), "guest");
	assert_int_equal(sample_add_domain(&s, &dom), 0);
	for (int i = 0; i < 4; i++) {
		s.realtime_ns = 1700000000000000000ll + i * 1000000000ll;
		s.monotonic_ns = 1000000000ull * (uint64_t)(i + 1);
		assert_int_equal(rec_append(w, &s, &err), 0);
	}
	sample_free(&s);
	assert_int_equal(rec_close(w, &err), 0);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	char *why = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &why) != SQLITE_OK)
		fail_msg("%s: %s", sql, why);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return path;
}

/* No control byte in a message: ESC, BEL, C1 (raw or as UTF-8), DEL, bidi overrides. */
static void assert_clean(const char *msg)
{
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) ||
		    (*p == 0xe2 && p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae))
			fail_msg("raw control byte 0x%02x at %zu in \"%s\"", *p,
			         (size_t)(p - (const unsigned char *)msg), msg);
	}
}

static void expect_open_error(const char *path, const char *text)
{
	struct xerr err = {0};
	assert_null(rec_open(path, &err));
	assert_clean(err.msg);
	if (!strstr(err.msg, text))
		fail_msg("got \"%s\", want \"%s\" in it", err.msg, text);
}

/* SQLite's "malformed database schema (NAME)" quotes a name from the file. */
static void test_malformed_schema_name_escaped(void **state)
{
	(void)state;
	const char *path = recording(
	    "schema.xiotop", "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql='CREATE "
	                     "VIEW x AS SELEC', name=char(27)||']2;pwned'||char(7)||char(27)||"
	                     "'[2J' WHERE name='vias'");
	expect_open_error(path, "malformed database schema (\\e]2;pwned\\x07\\e[2J)");
}

static void test_foreign_table_names_escaped(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/foreign.db", dir);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
	                              "CREATE TABLE \"\x1b]2;pwned\x07\xc2\x9b"
	                              "31m\" (x)",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	expect_open_error(path, "tables: \\e]2;pwned\\x07\\xc2\\x9b31m");
}

static void test_newer_schema_version_text_escaped(void **state)
{
	(void)state;
	const char *path =
	    recording("newer.xiotop", "PRAGMA user_version=9; INSERT OR REPLACE INTO meta VALUES "
	                              "('xiotop_version', char(27)||'[2J9.9'||char(8238))");
	expect_open_error(path, "(by xiotop \\e[2J9.9\\u202e)");
}

static void test_mark_labels_escaped_in_window_error(void **state)
{
	(void)state;
	const char *path =
	    recording("marks.xiotop",
	              "INSERT INTO marks (realtime_ns, label, origin) VALUES (1700000001000000000, "
	              "'evil'||char(27)||'[31m'||char(155)||'\\x1b', 'cli')");
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	size_t first, last;
	assert_int_equal(rec_resolve_window(r, "ty\x1bpo", NULL, &first, &last, &err), -1);
	assert_clean(err.msg);
	assert_non_null(strstr(err.msg, "'ty\\epo' is neither a mark"));
	assert_non_null(strstr(err.msg, "\"evil\\e[31m\\xc2\\x9b\\\\x1b\""));
	rec_reader_close(r);
}

static void expect_window_error(struct rec_reader *r, const char *from, const char *to,
                                const char *text)
{
	struct xerr err = {0};
	size_t first = 99, last = 99;
	assert_int_equal(rec_resolve_window(r, from, to, &first, &last, &err), -1);
	assert_int_equal(err.code, REC_ERR_RANGE);
	if (!strstr(err.msg, text))
		fail_msg("--from %s --to %s: got \"%s\", want \"%s\"", from, to, err.msg, text);
}

/* Times past int64 nanoseconds (year 2262) are clear errors, not an overflow that
 * silently selects some other window. */
static void test_out_of_range_times(void **state)
{
	(void)state;
	const char *path = recording("times.xiotop", "SELECT 1");
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	expect_window_error(r, "2300-01-01T00:00:00Z", NULL, "outside the times a recording");
	expect_window_error(r, "1500-01-01T00:00:00Z", NULL, "outside the times a recording");
	expect_window_error(r, NULL, "9999-12-31T23:59:59Z", "outside the times a recording");
	expect_window_error(r, "+1e300", NULL, "outside the times a recording");
	expect_window_error(r, "+9300000000", NULL, "outside the times a recording");
	expect_window_error(r, "+inf", NULL, "is neither a mark");
	expect_window_error(r, "+nan", NULL, "is neither a mark");
	expect_window_error(r, "2200-01-01T00:00:00Z", NULL, "no complete interval");
	/* the recording's times said with their zone (TZ is UTC here: main) */
	expect_window_error(r, NULL, "1990-01-01T00:00:00Z",
	                    "(it runs from 2023-11-14 22:13:20 UTC");
	size_t first, last;
	assert_int_equal(rec_resolve_window(r, "+1", "+2", &first, &last, &err), 0);
	assert_int_equal(first, 1);
	assert_int_equal(last, 2);
	rec_reader_close(r);
}

/* A first sample at INT64_MAX: any offset from it is past the representable range. */
static void test_first_sample_at_int64_max(void **state)
{
	(void)state;
	const char *path = recording(
	    "max.xiotop", "UPDATE samples SET realtime_ns=9223372036854775807 WHERE idx=0");
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	expect_window_error(r, "+1", NULL, "outside the times a recording");
	size_t first, last;
	assert_int_equal(rec_resolve_window(r, NULL, NULL, &first, &last, &err), 0);
	rec_reader_close(r);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_malformed_schema_name_escaped),
	    cmocka_unit_test(test_foreign_table_names_escaped),
	    cmocka_unit_test(test_newer_schema_version_text_escaped),
	    cmocka_unit_test(test_mark_labels_escaped_in_window_error),
	    cmocka_unit_test(test_out_of_range_times),
	    cmocka_unit_test(test_first_sample_at_int64_max),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
