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
	assert_string_equal(err.msg, "xiotop import: no log has times (vmstat -t, iostat -t): "
	                             "give --interval S");
	assert_int_equal(build(untimed, NULL, 1, &err), -1);
	assert_string_equal(err.msg, "xiotop import: no log has times (vmstat -t, iostat -t): "
	                             "give --start TIME");
	assert_int_equal(build(NULL, NULL, 1, &err), -1);
	assert_string_equal(err.msg, "xiotop import: no log given (--xentop, --vmstat, --iostat)");
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

int main(void)
{
	setenv("TZ", "UTC", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xentop_bad),      cmocka_unit_test(test_xentop_partial_end),
	    cmocka_unit_test(test_vmstat_bad),      cmocka_unit_test(test_iostat_bad),
	    cmocka_unit_test(test_mixed_intervals), cmocka_unit_test(test_device_name_escaped),
	    cmocka_unit_test(test_timeline_needs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
