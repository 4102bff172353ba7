/* test_import_bad.c - every kind of bad log xiotop import refuses, each with its one line
 * "FILE:LINE: what was expected" (escaped), and the partial ends it keeps going past. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "import/import_build.h"

#define HDR                                                                                        \
	"      NAME  STATE   CPU(sec) CPU(%)     MEM(k) MEM(%)  MAXMEM(k) MAXMEM(%) VCPUS NETS "   \
	"NETTX(k) NETRX(k) VBDS   VBD_OO   VBD_RD   VBD_WR  VBD_RSECT  VBD_WSECT SSID\n"
#define DOM0(cpu)                                                                                  \
	"  Domain-0 -----r " cpu                                                                   \
	"    0.0    1048576   25.0   no limit       n/a     2    0        "                        \
	"0        0    0        0        0        0          0          0    0\n"
#define GUEST(name, cpu, wsect)                                                                    \
	name " --b---  " cpu                                                                       \
	     "    0.0     524288   12.5     524288      12.5     1    0        0   "               \
	     "     0    1        0       10       20         80 " wsect "    0\n"

static void xentop_fails(const char *text, const char *want)
{
	struct imp_xentop x;
	struct xerr err;
	assert_int_equal(imp_xentop_parse("xt.log", text, strlen(text), &x, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("got \"%s\", wanted \"%s\"", err.msg, want);
	assert_null(strchr(err.msg, '\033'));
	assert_null(strchr(err.msg, '\n'));
}

static void test_xentop_bad(void **state)
{
	(void)state;
	xentop_fails("hello world\n", "xt.log:1: the xentop -b header (NAME STATE CPU(sec) ...)");
	xentop_fails("", "xt.log: no xentop -b header");
	xentop_fails(HDR DOM0("       1") HDR DOM0("     abc"),
	             "xt.log:4: a number under CPU(sec) expected, not \"abc\"");
	xentop_fails(HDR DOM0("       1") HDR "  Domain-0 -----r 3\n" HDR DOM0("       3"),
	             "xt.log:4: 19 columns expected as in the header at line 1, found 3");
	xentop_fails(HDR DOM0("       1") "NAME CPU(sec) STATE\n",
	             "xt.log:3: the same xentop header");
	xentop_fails(HDR DOM0("       1"), "xt.log:2: two iterations or more expected");
	xentop_fails(HDR DOM0("       1") GUEST("webserver-", "  2", "1000")
	                 GUEST("webserver-", "  3", "1000"),
	             "xt.log:4: one row per domain and iteration expected: \"webserver-\" twice");
	xentop_fails(HDR DOM0("       1") "VBD BlkBack x\n", "xt.log:3: a VBD line");
	xentop_fails(HDR
	             "  Domain-0 ---XXr       1    0.0    1048576   25.0   no limit       n/a  "
	             "   2    0        0        0    0        0        0        0          0    "
	             "      0    0\n",
	             "xt.log:2: a STATE of 6 letters or dashes expected");
	/* log text is escaped in the message */
	xentop_fails(HDR DOM0("\033[2J1"), "not \"\\e[2J1\"");
	char nul[] = HDR "  Domain-0\0 x\n";
	struct imp_xentop x;
	struct xerr err;
	assert_int_equal(imp_xentop_parse("xt.log", nul, sizeof(nul) - 1, &x, &err), -1);
	assert_non_null(strstr(err.msg, "xt.log:2: a line of xentop -b text expected"));
}

static void test_xentop_partial_end(void **state)
{
	(void)state;
	const char *text = HDR DOM0("       1") GUEST("     guest", "  2", "1000")
	    HDR DOM0("       2") GUEST("     guest", "  3", "2000") HDR DOM0("       3");
	struct imp_xentop x;
	struct xerr err;
	assert_int_equal(imp_xentop_parse("xt.log", text, strlen(text), &x, &err), 0);
	assert_int_equal(x.n_blocks, 2);
	assert_string_equal(x.note, "xt.log: the last iteration (from line 8) is partial: ignored");
	imp_xentop_free(&x);
}

static void vmstat_fails(const char *text, const char *want)
{
	struct imp_vmstat v;
	struct xerr err;
	assert_int_equal(imp_vmstat_parse("vm.log", text, strlen(text), &v, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("got \"%s\", wanted \"%s\"", err.msg, want);
}

#define VM_HDR                                                                                     \
	"procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----\n"       \
	" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
#define VM_ROW                                                                                     \
	" 5  0      0 22019696  30424 2011132    0    0     0  4080 1557 2522 47 53  0  0  0\n"

static void test_vmstat_bad(void **state)
{
	(void)state;
	vmstat_fails("garbage here\n", "vm.log:1: a vmstat header expected first");
	vmstat_fails(" r b x y z\n", "vm.log:1: a vmstat header (procps");
	vmstat_fails(VM_HDR VM_ROW " 5  0 zz\n", "vm.log:4: 17 columns expected");
	vmstat_fails(VM_HDR VM_ROW
	             " 5  0      0 22019696  30424 2011132    0    0     0  4080 1557 "
	             "2522 47 53  x  0  0\n",
	             "vm.log:4: a number in column 15 expected");
	vmstat_fails(VM_HDR VM_ROW, "vm.log:3: two rows or more expected");
	/* a cut last line is dropped with a note */
	const char *cut = VM_HDR VM_ROW VM_ROW VM_ROW " 5  0      0 220";
	struct imp_vmstat v;
	struct xerr err;
	assert_int_equal(imp_vmstat_parse("vm.log", cut, strlen(cut), &v, &err), 0);
	assert_int_equal(v.n, 3);
	assert_string_equal(v.note, "vm.log:6: the last line is cut short: ignored");
	imp_vmstat_free(&v);
}

#define IO_HDR "Device            r/s     rkB/s     w/s     wkB/s  %util\n"

static void test_iostat_bad(void **state)
{
	(void)state;
	struct imp_iostat io;
	struct xerr err;
	const char *unknown = "Device   tps  kB_read/s\nsda 1 2\n";
	assert_int_equal(imp_iostat_parse("io.log", unknown, strlen(unknown), &io, &err), -1);
	assert_non_null(strstr(err.msg, "io.log:1: an iostat -x header with rkB/s and wkB/s"));
	const char *garbled = IO_HDR "sda 1 2 3 x 5\n";
	assert_int_equal(imp_iostat_parse("io.log", garbled, strlen(garbled), &io, &err), -1);
	assert_non_null(strstr(err.msg, "io.log:2: a device row of 6 columns"));
	const char *partial = IO_HDR "sda 1 2 3 4 5\nsdb 1 2 3 4 5\n\n" IO_HDR
	                             "sda 1 2 3 4 5\nsdb 1 2 3 4 5\n\n" IO_HDR "sda 1 2 3 4 5\n";
	assert_int_equal(imp_iostat_parse("io.log", partial, strlen(partial), &io, &err), 0);
	assert_int_equal(io.n, 2);
	assert_string_equal(io.note, "io.log:9: the last report is partial: ignored");
	imp_iostat_free(&io);
	const char *what = "what is this\n";
	assert_int_equal(imp_iostat_parse("io.log", what, strlen(what), &io, &err), -1);
	assert_non_null(strstr(err.msg, "io.log:1: an iostat -x line"));
}

#define VMT_HDR                                                                                    \
	"procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- "        \
	"-----timestamp-----\n"                                                                    \
	" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st        " \
	"         UTC\n"
#define VMT_ROW(t)                                                                                 \
	" 5  0      0 22019696  30424 2011132    0    0     0  4080 1557 2522 47 53  0  0  0 "     \
	"2026-12-02 " t "\n"

static int build(const char *vm, const char *io, double interval, struct xerr *err)
{
	struct imp_vmstat v;
	struct imp_iostat ios;
	struct imp_logs in = {
	    .interval_s = interval, .vmstat_file = "vm.log", .iostat_file = "io.log"};
	if (vm) {
		assert_int_equal(imp_vmstat_parse("vm.log", vm, strlen(vm), &v, err), 0);
		in.vmstat = &v;
	}
	if (io) {
		assert_int_equal(imp_iostat_parse("io.log", io, strlen(io), &ios, err), 0);
		in.iostat = &ios;
	}
	struct imp_result r;
	int rc = imp_build(&in, &r, err);
	if (!rc)
		imp_result_free(&r);
	if (vm)
		imp_vmstat_free(&v);
	if (io)
		imp_iostat_free(&ios);
	return rc;
}

static void test_mixed_intervals(void **state)
{
	(void)state;
	struct xerr err;
	const char *one_s =
	    VMT_HDR VMT_ROW("10:00:00") VMT_ROW("10:00:01") VMT_ROW("10:00:02") VMT_ROW("10:00:03");
	assert_int_equal(build(one_s, NULL, 0, &err), 0);
	assert_int_equal(build(one_s, NULL, 2, &err), -1);
	assert_string_equal(err.msg,
	                    "vm.log:6: rows 2 s apart expected (as --interval), found 1.00 "
	                    "s on average");
	const char *io_2s =
	    "Linux 6.1 (h) \t12/02/26 \t_x86_64_\t(4 CPU)\n\n12/02/26 10:00:00\n" IO_HDR
	    "sda 1 2 3 4 5\n\n12/02/26 10:00:02\n" IO_HDR "sda 1 2 3 4 5\n\n";
	assert_int_equal(build(one_s, io_2s, 0, &err), -1);
	assert_string_equal(err.msg, "io.log:8: rows 1 s apart expected (as vm.log), found 2.00 s "
	                             "on average");
	const char *jump = VMT_HDR VMT_ROW("10:00:00") VMT_ROW("10:00:01") VMT_ROW("10:00:09");
	assert_int_equal(build(jump, NULL, 0, &err), -1);
	assert_string_equal(err.msg, "vm.log:5: a time after the row before, one interval later, "
	                             "expected");
	/* iostat's first two reports in one whole second (its timer ran while it read the
	 * first, as a loaded dom0 prints it): the median step is the interval */
	const char *io_quick =
	    "Linux 6.1 (h) \t12/02/26 \t_x86_64_\t(4 CPU)\n\n12/02/26 10:00:00\n" IO_HDR
	    "sda 1 2 3 4 5\n\n12/02/26 10:00:00\n" IO_HDR
	    "sda 1 2 3 4 5\n\n12/02/26 10:00:02\n" IO_HDR
	    "sda 1 2 3 4 5\n\n12/02/26 10:00:03\n" IO_HDR "sda 1 2 3 4 5\n\n";
	int quick = build(one_s, io_quick, 0, &err);
	assert_int_equal(quick, 0);
	const char *apart = VMT_HDR VMT_ROW("10:00:00") VMT_ROW("10:00:01");
	const char *later = "12/02/26 11:00:00\n" IO_HDR
	                    "sda 1 2 3 4 5\n\n12/02/26 11:00:01\n" IO_HDR "sda 1 2 3 4 5\n\n";
	assert_int_equal(build(apart, later, 0, &err), -1);
	assert_non_null(strstr(err.msg, "the logs overlap in 0 sample(s)"));
}

/* Logs without times need --interval and --start; no log at all is refused. */
static void test_timeline_needs(void **state)
{
	(void)state;
	struct xerr err;
	const char *untimed = VM_HDR VM_ROW VM_ROW VM_ROW;
	assert_int_equal(build(untimed, NULL, 0, &err), -1);
	/* the sentence alone: the command says whose it is (core/error.h) */
	assert_string_equal(err.msg, "no log has times (vmstat -t, iostat -t): give --interval S");
	assert_int_equal(build(untimed, NULL, 1, &err), -1);
	assert_string_equal(err.msg, "no log has times (vmstat -t, iostat -t): give --start TIME");
	assert_int_equal(build(NULL, NULL, 1, &err), -1);
	assert_string_equal(err.msg, "no log given (--xentop, --vmstat, --iostat)");
}

/* A device name from a log is escaped before it reaches the recording. */
static void test_device_name_escaped(void **state)
{
	(void)state;
	const char *io = IO_HDR "evil\033[2J 1 2 3 4 5\n\n" IO_HDR "evil\033[2J 1 2 3 4 5\n\n";
	struct imp_iostat ios;
	struct xerr err;
	assert_int_equal(imp_iostat_parse("io.log", io, strlen(io), &ios, &err), 0);
	struct imp_logs in = {.iostat = &ios,
	                      .iostat_file = "io.log",
	                      .interval_s = 1,
	                      .has_start = true,
	                      .start_ns = 1000000000ll};
	struct imp_result r;
	assert_int_equal(imp_build(&in, &r, &err), 0);
	assert_string_equal(r.samples[1].disks[0].name, "evil\\e[2J");
	imp_result_free(&r);
	imp_iostat_free(&ios);
}

/* A counter past 64 bits is refused with its line, never cut to the largest value (the
 * scanner's integers, core/text_scan.h); the largest that fits is read. */
static void test_number_past_64_bits(void **state)
{
	(void)state;
	uint64_t v = 0;
	assert_true(imp_u64("18446744073709551615", &v));
	assert_true(v == UINT64_MAX);
	assert_false(imp_u64("18446744073709551616", &v));
	assert_false(imp_u64("99999999999999999999999", &v));
	assert_false(imp_u64("12x", &v));
	assert_false(imp_u64("", &v));
}

/* A failed parse leaves nothing to free, whichever step failed: take stopping mid-way, a
 * line that is no text (the frame's own refusal), finish, the header and two-readings
 * checks. imp_parse_log's drop frees what the parser built (rows and their VBD lines,
 * xentop's row groups, reports and their devices) and the result is left zeroed; the
 * sanitizer build's LeakSanitizer checks that nothing was left behind. */
#define VBD_LINE  "VBD BlkBack 51712 [ca: 0]  OO: 0 RD: 100 WR: 9000 RSECT: 8000 WSECT: 2000000\n"
#define IO_BANNER "Linux 6.1 (h) \t12/02/26 \t_x86_64_\t(4 CPU)\n\n"
#define IO_TWO    IO_HDR "sda 1 2 3 4 5\nsdb 1 2 3 4 5\n\n"
#define NB_HDR    "device read KB/t r/s time MB/s write KB/t w/s time MB/s\n"

static const struct {
	enum imp_kind kind;
	const char *text;
	size_t len; /* 0: strlen(text); else the text holds a NUL */
	const char *want;
} failed[] = {
    {IMP_XENTOP, HDR DOM0("1") GUEST("     guest", "2", "1") VBD_LINE HDR DOM0("x"), 0,
     "xt.log:6: a number under CPU(sec)"},
    {IMP_XENTOP, HDR DOM0("1") GUEST("     guest", "2", "1") VBD_LINE "x\0y\n",
     sizeof(HDR DOM0("1") GUEST("     guest", "2", "1") VBD_LINE "x\0y\n") - 1,
     "xt.log:5: a line of xentop -b text expected"},
    {IMP_XENTOP, HDR DOM0("1") GUEST("webserver-", "2", "1") VBD_LINE GUEST("webserver-", "3", "1"),
     0, "xt.log:5: one row per domain and iteration expected"},
    {IMP_XENTOP, HDR DOM0("1") GUEST("     guest", "2", "1") VBD_LINE, 0,
     "xt.log:4: two iterations or more expected"},
    {IMP_VMSTAT, VM_HDR VM_ROW VM_ROW " 5  0 zz\n", 0, "vm.log:5: 17 columns expected"},
    {IMP_VMSTAT, VM_HDR VM_ROW VM_ROW "x\0y\n", sizeof(VM_HDR VM_ROW VM_ROW "x\0y\n") - 1,
     "vm.log:5: a line of vmstat text expected"},
    {IMP_VMSTAT, "procs -----------memory----------\n\n", 0, "vm.log: no vmstat header"},
    {IMP_IOSTAT, IO_TWO IO_HDR "sda 1 2 3 x 5\n", 0, "io.log:6: a device row of 6 columns"},
    {IMP_IOSTAT, IO_TWO "x\0y\n", sizeof(IO_TWO "x\0y\n") - 1,
     "io.log:5: a line of iostat text expected"},
    {IMP_IOSTAT, IO_BANNER IO_TWO, 0, "io.log:6: two reports or more expected"},
    {IMP_IOSTAT, IO_BANNER, 0, "io.log: no iostat -x header"},
    {IMP_IOSTAT, NB_HDR "wd0 1 2 3 4 5 6 7 8\nwd0 1 2 3 4 5 6 7 8\nwd0 1 x\n", 0,
     "io.log:4: a device row of 9 columns"},
};

static void test_failures_leave_nothing(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(failed) / sizeof(failed[0]); i++) {
		size_t len = failed[i].len ? failed[i].len : strlen(failed[i].text);
		struct imp_xentop x;
		struct imp_vmstat v;
		struct imp_iostat io;
		struct xerr err;
		int rc = -2;
		bool empty = false;
		if (failed[i].kind == IMP_XENTOP) {
			rc = imp_xentop_parse("xt.log", failed[i].text, len, &x, &err);
			empty = !x.rows && !x.n_rows && !x.blocks && !x.n_blocks;
		} else if (failed[i].kind == IMP_VMSTAT) {
			rc = imp_vmstat_parse("vm.log", failed[i].text, len, &v, &err);
			empty = !v.rows && !v.n;
		} else {
			rc = imp_iostat_parse("io.log", failed[i].text, len, &io, &err);
			empty = !io.reports && !io.n;
		}
		if (rc != -1 || !strstr(err.msg, failed[i].want) || !empty)
			fail_msg("case %zu: rc %d, \"%s\" (wanted \"%s\"), %s", i, rc,
			         rc == -1 ? err.msg : "", failed[i].want,
			         empty ? "result empty" : "result NOT empty");
	}
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xentop_bad),
	    cmocka_unit_test(test_xentop_partial_end),
	    cmocka_unit_test(test_vmstat_bad),
	    cmocka_unit_test(test_iostat_bad),
	    cmocka_unit_test(test_mixed_intervals),
	    cmocka_unit_test(test_device_name_escaped),
	    cmocka_unit_test(test_timeline_needs),
	    cmocka_unit_test(test_number_past_64_bits),
	    cmocka_unit_test(test_failures_leave_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
