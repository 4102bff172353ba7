/* test_xsdump.c - the xenstore dump parser: both xenstore-ls forms give one store,
 * every escape decodes, malformed lines are refused with FILE:LINE, odd input is
 * handled without harm. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/topology/topology.h"

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("XIOTOP_FIXTURES");
	snprintf(path, sizeof(path), "%s/xenstore/%s", dir ? dir : "tests/fixtures", name);
	return path;
}

/* Parse text held in memory (length given, so it may hold NUL bytes). */
static int parse_mem(const char *text, size_t len, struct xs_store *s, struct xerr *err)
{
	FILE *in = fmemopen((void *)text, len, "r");
	assert_non_null(in);
	*err = (struct xerr){0};
	int rc = xs_parse_stream(in, "mem", s, err);
	fclose(in);
	if (rc)
		assert_int_equal(err->kind, XERR_INPUT);
	return rc;
}

static int parse_str(const char *text, struct xs_store *s, struct xerr *err)
{
	return parse_mem(text, strlen(text), s, err);
}

static void assert_same_store(const struct xs_store *a, const struct xs_store *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_string_equal(a->entries[i].path, b->entries[i].path);
		assert_int_equal(a->entries[i].value_len, b->entries[i].value_len);
		assert_memory_equal(a->entries[i].value, b->entries[i].value,
		                    a->entries[i].value_len);
	}
}

static void test_all_forms_give_one_store(void **state)
{
	(void)state;
	static const char *const others[] = {"tree.txt", "full-perms.txt", "tree-perms.txt"};
	struct xs_store full, other;
	struct xerr err = {0};
	assert_int_equal(xs_parse_file(fixture("full.txt"), &full, &err), 0);
	assert_true(full.n > 50);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		assert_int_equal(xs_parse_file(fixture(others[i]), &other, &err), 0);
		assert_same_store(&full, &other);
		xs_free(&other);
	}
	assert_string_equal(xs_get(&full, "/local/domain/0/name"), "Domain-0");
	assert_string_equal(xs_get(&full, "/local/domain/2/name"), "web\x1b[31mred");
	assert_string_equal(xs_get(&full, "/local/domain/0/backend/vbd/2/51712/node"),
	                    "/dev/loop3");
	assert_string_equal(xs_get(&full, "/local/domain/0/backend/vbd/1/51712"), "");
	/* xenstore-ls does not escape '"': the value runs to the last quote */
	assert_string_equal(xs_get(&full, "/local/domain/1/data/motd"),
	                    "say \"hi\" to \\srv\\share\ttabbed\nnext line");
	const struct xs_entry *blob = xs_find(&full, "/local/domain/3/data/blob");
	assert_non_null(blob);
	assert_int_equal(blob->value_len, 5);
	assert_memory_equal(blob->value, "\0\1\7\x7f\xff", 5);
	assert_null(xs_get(&full, "/local/domain/9/name"));
	assert_null(xs_get(&full, "/local/domain/1/nam"));
	xs_free(&full);
}

static void test_cut_values_are_flagged(void **state)
{
	(void)state;
	struct xs_store s;
	struct xerr err;
	assert_int_equal(xs_parse_file(fixture("tree-cut.txt"), &s, &err), 0);
	const struct xs_entry *e = xs_find(&s, "/local/domain/0/backend/vbd/2/51712/params");
	assert_non_null(e);
	assert_true(e->truncated);
	assert_string_equal(e->value,
	                    "/srv/xen/images/web-server-with-a-much-longer-descriptive-n");
	e = xs_find(&s, "/local/domain/0/backend/vbd/2/51712/node");
	assert_false(e->truncated);
	xs_free(&s);

	/* an escaped backslash before "..." is text, not a cut; a cut may split an escape */
	assert_int_equal(parse_str("/a = \"x\\\\...\"\n/b = \"y\\x1\\...\"\n", &s, &err), 0);
	assert_false(xs_find(&s, "/a")->truncated);
	assert_string_equal(xs_get(&s, "/a"), "x\\...");
	assert_true(xs_find(&s, "/b")->truncated);
	assert_string_equal(xs_get(&s, "/b"), "y\x01");
	xs_free(&s);
}

static void test_every_escape(void **state)
{
	(void)state;
	struct xs_store s;
	struct xerr err;
	const char *text = "/v = \"a\\\\b\\\"c\\nd\\te\\rf\\x41\\x7E\\x9\\101\\7\\000g\\x00h\"\n";
	assert_int_equal(parse_str(text, &s, &err), 0);
	const struct xs_entry *e = xs_find(&s, "/v");
	assert_non_null(e);
	static const char want[] = "a\\b\"c\nd\te\rfA~\tA\a\0g\0h";
	assert_int_equal(e->value_len, sizeof(want) - 1);
	assert_memory_equal(e->value, want, sizeof(want));
	xs_free(&s);
}

static void test_lenient_layout(void **state)
{
	(void)state;
	struct xs_store s;
	struct xerr err;
	const char *full = "\n/a = \"1\"  \r\n\t\n/a/b = \"2\"\t\r\n   \n/a/c = \"\"\r\n";
	assert_int_equal(parse_str(full, &s, &err), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(xs_get(&s, "/a/b"), "2");
	xs_free(&s);

	const char *tree = "\r\na = \"1\"\r\n b = \"2\" \r\n\r\n  c = \"3\"\r\n d = \"4\"\r\n"
	                   "e = \"5\"\r\n";
	assert_int_equal(parse_str(tree, &s, &err), 0);
	assert_int_equal(s.n, 5);
	assert_string_equal(xs_get(&s, "/a/b/c"), "3");
	assert_string_equal(xs_get(&s, "/a/d"), "4");
	assert_string_equal(xs_get(&s, "/e"), "5");
	xs_free(&s);

	/* a path given twice: the later value wins */
	assert_int_equal(parse_str("/a = \"1\"\n/b = \"2\"\n/a = \"3\"\n", &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(xs_get(&s, "/a"), "3");
	xs_free(&s);

	assert_int_equal(parse_str("", &s, &err), 0);
	assert_int_equal(s.n, 0);
	assert_null(xs_get(&s, "/a"));
	xs_free(&s);
}

struct bad_case {
	const char *text;
	const char *error; /* expected "mem:LINE: reason" prefix */
};

static void test_malformed_lines(void **state)
{
	(void)state;
	static const struct bad_case cases[] = {
	    {"/a = \"x\"\nnot a line\n", "mem:2: expected an absolute path"},
	    {"/a = \"x\"\n/b \"x\"\n", "mem:2: expected `name = \"value\"`"},
	    {"/a = \"x\n", "mem:1: value without a closing quote"},
	    {"/a = \"\\q\"\n", "mem:1: unknown escape \\q"},
	    {"/a = \"\\x\"\n", "mem:1: \\x without hex digits"},
	    {"/a = \"\\400\"\n", "mem:1: octal escape above \\377"},
	    {"/a = \"x\\\"\n", "mem:1: backslash at the end"},
	    {"/a = \"x\" junk\n", "mem:1: unexpected text after the value"},
	    {"/a = \"x\"  (n0,q1)\n", "mem:1: unexpected text after the value"},
	    {"/a b = \"x\"\n", "mem:1: space or control character in the node name"},
	    {"a = \"\"\n   b = \"\"\n", "mem:2: indent of 3 spaces"},
	    {" a = \"\"\n", "mem:1: indent of 1 spaces"},
	    {"a = \"\"\n/b = \"\"\n", "mem:2: absolute path in a tree"},
	    {"a = \"\"\n b/c = \"\"\n", "mem:2: '/' in a node name"},
	    {"a = \"\"\n\n\n b\tc = \"\"\n", "mem:4: space or control character"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xs_store s;
		struct xerr err;
		assert_int_equal(parse_str(cases[i].text, &s, &err), -1);
		if (strncmp(err.msg, cases[i].error, strlen(cases[i].error)) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s...\"", i, err.msg,
			         cases[i].error);
		assert_int_equal(s.n, 0);
		xs_free(&s);
	}
	/* a NUL byte inside a line */
	struct xs_store s;
	struct xerr err;
	static const char nul[] = "/a = \"x\"\n/b = \"y\0z\"\n";
	assert_int_equal(parse_mem(nul, sizeof(nul) - 1, &s, &err), -1);
	assert_string_equal(err.msg, "mem:2: NUL byte in the line");
}

static void test_errors_name_the_file(void **state)
{
	(void)state;
	struct xs_store s;
	struct xerr err;
	char want[4200];
	assert_int_equal(xs_parse_file(fixture("malformed.txt"), &s, &err), -1);
	snprintf(want, sizeof(want), "%s:3: unexpected text after the value",
	         fixture("malformed.txt"));
	assert_string_equal(err.msg, want);
	assert_int_equal(err.kind, XERR_INPUT);

	assert_int_equal(xs_parse_file(fixture("no-such-dump.txt"), &s, &err), -1);
	snprintf(want, sizeof(want), "%s: ", fixture("no-such-dump.txt"));
	assert_memory_equal(err.msg, want, strlen(want));
	assert_int_equal(err.kind, XERR_INPUT);

	/* a caller that does not want the sentence passes NULL */
	FILE *in = fmemopen((void *)"oops\n", 5, "r");
	assert_non_null(in);
	assert_int_equal(xs_parse_stream(in, "mem", &s, NULL), -1);
	fclose(in);
}

static void test_odd_content(void **state)
{
	(void)state;
	/* a 100 KB value, odd but legal node names, deep trees */
	size_t big = 100 * 1024;
	char *text = malloc(big + 64);
	assert_non_null(text);
	int n = sprintf(text, "/local/domain/7/name = \"");
	memset(text + n, 'A', big);
	strcpy(text + n + big, "\"\n/a-b_c@d/.. = \"dots\"\n");
	struct xs_store s;
	struct xerr err;
	assert_int_equal(parse_str(text, &s, &err), 0);
	assert_int_equal(strlen(xs_get(&s, "/local/domain/7/name")), big);
	assert_string_equal(xs_get(&s, "/a-b_c@d/.."), "dots");
	xs_free(&s);
	free(text);

	char *deep = malloc(300 * 300);
	assert_non_null(deep);
	size_t o = 0;
	for (int d = 0; d < 200; d++)
		o += (size_t)sprintf(deep + o, "%*sn = \"%d\"\n", d, "", d);
	assert_int_equal(parse_str(deep, &s, &err), 0);
	assert_int_equal(s.n, 200);
	free(deep);
	xs_free(&s);
}

static void test_store_built_by_hand(void **state)
{
	(void)state;
	struct xs_store s = {0};
	assert_int_equal(xs_store_add(&s, "/z", "last", 4), 0);
	assert_int_equal(xs_store_add(&s, "/a", "x\0y", 3), 0);
	assert_int_equal(xs_store_add(&s, "/m", "old", 3), 0);
	assert_int_equal(xs_store_add(&s, "/m", "new", 3), 0);
	xs_store_sort(&s);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.entries[0].path, "/a");
	assert_int_equal(xs_find(&s, "/a")->value_len, 3);
	assert_string_equal(xs_get(&s, "/m"), "new");
	assert_string_equal(xs_get(&s, "/z"), "last");
	xs_free(&s);
	assert_null(xs_get(&s, "/z"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_forms_give_one_store),
	    cmocka_unit_test(test_cut_values_are_flagged),
	    cmocka_unit_test(test_every_escape),
	    cmocka_unit_test(test_lenient_layout),
	    cmocka_unit_test(test_malformed_lines),
	    cmocka_unit_test(test_errors_name_the_file),
	    cmocka_unit_test(test_odd_content),
	    cmocka_unit_test(test_store_built_by_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
