/* test_explain_absent.c - absent is never zero: logs of a Linux dom0 whose iostat lists only
 * stacked devices (loop0 under a file-backed guest, dm-0 under a guest on an LV; the disks
 * below them not listed) and no vm.dirty_* sysctls. Expected from the physics, written
 * before the run (the fixtures xentop-, vmstat- and iostat-dx-stacked-linux.txt: 4 intervals of 2
 * s):
 *   - guest-file wrote 16 MiB per interval = 64 MiB; guest-lv wrote 64 MiB and read 32;
 *   - vmstat bo 24,576 KiB/s x 8 s = 192 MiB: guest-file's bytes at loop0 and again at
 *     the disk under its file (128), guest-lv's once at dm-0 (64: a remap is not
 *     resubmitted); bi 32 MiB (guest-lv's reads);
 *   - so: counted beyond the guests' own writes 192 - 128 = 64 MiB (not all 192), no
 *     disk figure at all (null, never 0), no page-cache or read-cache verdict at 100 %,
 *     no path words for a domain whose path the logs do not show, no dirty limit figure;
 *   - vmstat us 5 sy 10 st 20 on 2 CPUs: dom0 busy (5 + 10) % x 2 s x 2 x 4 = 2.4 s; the
 *     steal (other domains' time) is not dom0's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_files.h"
#include "explain/report/prose.h"
#include "explain/report/report.h"
#include "explain/verdicts/verdicts.h"
#include "import/import_build.h"
#include "record/record.h"

#define START_NS (1780000000ll * 1000000000ll)

TEST_SCRATCH_DIR("explain-absent")

/* The stacked-only logs (those named; NULL: not given) -> dir/name, as `xiotop import`. */
static void import_stacked(const char *name, const char *xentop, const char *vmstat,
                           const char *iostat, long cpus, char *path, size_t path_len)
{
	struct imp_xentop x;
	struct imp_vmstat v;
	struct imp_iostat io;
	struct xerr err;
	struct imp_logs in = {
	    .interval_s = 2, .has_start = true, .start_ns = START_NS, .cpus = cpus};
	char *bufs[3] = {NULL, NULL, NULL};
	size_t len;
	if (xentop) {
		bufs[0] = test_import_fixture(xentop, &len);
		assert_int_equal(imp_xentop_parse(xentop, bufs[0], len, &x, &err), 0);
		in.xentop = &x, in.xentop_file = xentop;
	}
	if (vmstat) {
		bufs[1] = test_import_fixture(vmstat, &len);
		assert_int_equal(imp_vmstat_parse(vmstat, bufs[1], len, &v, &err), 0);
		in.vmstat = &v, in.vmstat_file = vmstat;
	}
	if (iostat) {
		bufs[2] = test_import_fixture(iostat, &len);
		assert_int_equal(imp_iostat_parse(iostat, bufs[2], len, &io, &err), 0);
		in.iostat = &io, in.iostat_file = iostat;
	}
	struct imp_result r;
	if (imp_build(&in, &r, &err))
		fail_msg("%s", err.msg);
	snprintf(path, path_len, "%s/%s", dir, name);
	struct xerr rerr;
	assert_int_equal(imp_write(path, &r, &rerr), 0);
	imp_result_free(&r);
	if (xentop)
		imp_xentop_free(&x);
	if (vmstat)
		imp_vmstat_free(&v);
	if (iostat)
		imp_iostat_free(&io);
	for (int i = 0; i < 3; i++)
		free(bufs[i]);
}

static struct rec_reader *explained(const char *path, struct explain *ex)
{
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	assert_int_equal(explain_collect(r, NULL, NULL, ex, &err), 0);
	explain_verdicts(ex);
	return r;
}

/* The words of v, as the reports write them (one of 4 rotating buffers). */
static const char *sc_text(const struct explain *ex, const struct ex_verdict *v)
{
	static char buf[4][PROSE_MAX];
	static int next;
	char *t = buf[next++ % 4];
	prose_verdict(ex, v, t, PROSE_MAX);
	return t;
}

static const struct ex_verdict *verdict(const struct explain *ex, const char *id, uint32_t domid)
{
	for (size_t i = 0; i < ex->n_verdicts; i++)
		if (!strcmp(ex_verdict_key(ex->verdicts[i].id), id) &&
		    ex->verdicts[i].domid == domid)
			return &ex->verdicts[i];
	return NULL;
}

static const struct ex_figure *figure_of(const struct ex_verdict *v, const char *key)
{
	for (size_t i = 0; i < v->n_figures; i++)
		if (!strcmp(ex_key_name(v->figures[i].key), key))
			return &v->figures[i];
	fail_msg("no figure %s in %s", key, ex_verdict_key(v->id));
	return NULL;
}

static double figure(const struct ex_verdict *v, const char *key)
{
	const struct ex_figure *f = figure_of(v, key);
	assert_false(f->null);
	return f->value;
}

static const char *not_given(const struct explain *ex, const char *id)
{
	for (size_t i = 0; i < ex->n_not_given; i++)
		if (!strcmp(ex->not_given[i].key, id))
			return ex->not_given[i].text;
	return NULL;
}

static void assert_contains(const char *text, const char *want)
{
	if (!text || !strstr(text, want))
		fail_msg("\"%s\" lacks \"%s\"", text ? text : "(none)", want);
}

static void assert_lacks(const char *text, const char *unwanted)
{
	if (text && strstr(text, unwanted))
		fail_msg("\"%s\" says \"%s\"", text, unwanted);
}

static char *text_report(const struct explain *ex)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(report_text(out, ex), 0);
	fclose(out);
	return text;
}

static void test_stacked_only_iostat(void **state)
{
	(void)state;
	char path[128];
	import_stacked("stacked.xiotop", "xentop-stacked-linux.txt", "vmstat-stacked-linux.txt",
	               "iostat-dx-stacked-linux.txt", 0, path, sizeof(path));
	static struct explain ex;
	struct rec_reader *r = explained(path, &ex);
	assert_float_equal(ex.win.seconds, 8, 1e-9);
	/* no disk took "0 bytes": no cache verdict for either guest */
	assert_null(verdict(&ex, "page_cache_inflation", 1));
	assert_null(verdict(&ex, "page_cache_inflation", 2));
	assert_null(verdict(&ex, "read_cache", 1));
	assert_null(verdict(&ex, "read_cache", 2));
	/* bo less the guests' own writes, and no disk figure */
	const struct ex_verdict *dc = verdict(&ex, "double_counting", EX_NO_DOMAIN);
	assert_non_null(dc);
	assert_float_equal(figure(dc, "vmstat_wr_bytes"), 192 * EX_MIB, 1);
	assert_float_equal(figure(dc, "guests_wr_bytes"), 128 * EX_MIB, 1);
	assert_float_equal(figure(dc, "double_counted_bytes"), 64 * EX_MIB, 1);
	assert_true(figure_of(dc, "host_disk_wr_bytes")->null);
	assert_contains(sc_text(&ex, dc), "loop0,dm-0");
	assert_lacks(sc_text(&ex, dc), "a dm or md device's at both");
	/* the disk figure is named as not given, with the log that would give it */
	assert_contains(not_given(&ex, "disk_bytes"), "iostat -dx");
	assert_contains(not_given(&ex, "request_size"), "iostat -dx N of the disks");
	/* unknown sysctls: no limit figure, no "0 bytes" */
	for (uint32_t id = 1; id <= 2; id++) {
		const struct ex_verdict *ts = verdict(&ex, "test_size_vs_memory", id);
		if (!ts)
			continue;
		assert_true(figure_of(ts, "dirty_limit_bytes")->null);
		assert_true(figure_of(ts, "dom0_caches_path")->null); /* the path is not in logs */
		assert_lacks(sc_text(&ex, ts), "0 bytes");
		/* no evidence the logs lack: dirty pages, the sysctls */
		for (size_t e = 0; e < ts->n_evidence; e++) {
			assert_lacks(ts->evidence[e], "dirtied_bytes");
			assert_lacks(ts->evidence[e], "vm.dirty");
		}
	}
	/* path unknown: no verdict about a domain names a path for it */
	for (size_t i = 0; i < ex.n_verdicts; i++)
		if (ex.verdicts[i].domid != EX_NO_DOMAIN) {
			assert_lacks(sc_text(&ex, &ex.verdicts[i]), "loop");
			assert_lacks(sc_text(&ex, &ex.verdicts[i]), "phy:");
		}
	char *text = text_report(&ex);
	assert_lacks(text, "0 bytes");
	assert_lacks(text, "0.0x");
	assert_lacks(text, "100 %");
	free(text);
	explain_free(&ex);
	rec_reader_close(r);
}

/* vmstat's st is other domains' time (the hypervisor gave the CPU away): not dom0's. */
static void test_steal_not_dom0_busy(void **state)
{
	(void)state;
	char path[128];
	import_stacked("steal.xiotop", NULL, "vmstat-stacked-linux.txt", NULL, 2, path,
	               sizeof(path));
	static struct explain ex;
	struct rec_reader *r = explained(path, &ex);
	const struct ex_verdict *v = verdict(&ex, "dom0_cpu_cost", EX_NO_DOMAIN);
	assert_non_null(v);
	assert_float_equal(figure(v, "dom0_cpu_s"), 0.15 * 2 * 2 * 4, 1e-6);
	assert_lacks(sc_text(&ex, v), "us+sy+st");
	explain_free(&ex);
	rec_reader_close(r);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stacked_only_iostat),
	    cmocka_unit_test(test_steal_not_dom0_busy),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
