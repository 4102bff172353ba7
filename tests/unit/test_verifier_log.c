/* test_verifier_log.c - the verdict line of a refused program's load log
 * (sources/verifier_log.h): the line before the statistics, without them the last line
 * before the END marker, blank lines passed over, the program's name, a cut to the
 * buffer, and messages that are not a load log (untouched output). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sources/verifier_log.h"

/* as libbpf formats it, the 6.1 refusal the Xen dom0 test found */
static const char LOG_61[] =
    "prog 'btf_rq_complete': -- BEGIN PROG LOAD LOG --\n"
    "0: R1=ctx() R10=fp0\n"
    "; h->buckets[b & (XIOTOP_LAT_BUCKETS - 1)]++;\n"
    "164: (0f) r0 += r2\n"
    "R0 unbounded memory access, make sure to bounds check any such access\n"
    "processed 668 insns (limit 1000000) max_states_per_insn 1 total_states 54\n"
    "-- END PROG LOAD LOG --\n";

static void test_verdict_before_statistics(void **state)
{
	(void)state;
	char out[160];
	assert_true(verifier_reason(LOG_61, out, sizeof(out)));
	assert_string_equal(out, "prog btf_rq_complete: R0 unbounded memory access, make sure to "
	                         "bounds check any such access");
}

static void test_no_statistics_blank_lines(void **state)
{
	(void)state;
	char out[160];
	const char *msg = "prog 'cpu_pass': -- BEGIN PROG LOAD LOG --\n"
	                  "0: R1=ctx()\n"
	                  "same insn cannot be used with different pointers\n"
	                  "\n\n"
	                  "-- END PROG LOAD LOG --\n";
	assert_true(verifier_reason(msg, out, sizeof(out)));
	assert_string_equal(out, "prog cpu_pass: same insn cannot be used with different pointers");
}

static void test_cut_to_buffer(void **state)
{
	(void)state;
	char out[16];
	assert_true(verifier_reason(LOG_61, out, sizeof(out)));
	assert_int_equal(strlen(out), sizeof(out) - 1);
	assert_memory_equal(out, "prog btf_rq_com", sizeof(out));
}

static void test_not_a_load_log(void **state)
{
	(void)state;
	char out[32] = "untouched";
	assert_false(
	    verifier_reason("failed to load BPF skeleton 'xiotop_bpf': -13\n", out, sizeof(out)));
	assert_false(verifier_reason("prog 'x': -- BEGIN PROG LOAD LOG --", out, sizeof(out)));
	assert_false(verifier_reason("prog 'x': -- BEGIN PROG LOAD LOG --\n\n"
	                             "processed 1 insns\n-- END PROG LOAD LOG --\n",
	                             out, sizeof(out)));
	assert_false(verifier_reason(LOG_61, out, 0));
	assert_string_equal(out, "untouched");
	/* no name before the marker */
	assert_true(verifier_reason("-- BEGIN PROG LOAD LOG --\nbad\n", out, sizeof(out)));
	assert_string_equal(out, "prog ?: bad");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verdict_before_statistics),
	    cmocka_unit_test(test_no_statistics_blank_lines),
	    cmocka_unit_test(test_cut_to_buffer),
	    cmocka_unit_test(test_not_a_load_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
