/* test_import.c - xiotop import: every fixture of tests/fixtures/import/ imports to the
 * figures its README gives, and each kind of bad log is refused with FILE:LINE. */
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
#include "core/model.h"
#include "import/import_build.h"
#include "record/record.h"

#define START_NS (1780000000ll * 1000000000ll)

struct logs {
	struct imp_xentop x;
	struct imp_vmstat v;
	struct imp_iostat io;
	struct imp_logs in;
	struct imp_result r;
};

static void load(struct logs *l, const char *xt, const char *vm, const char *io)
{
	memset(l, 0, sizeof(*l));
	struct xerr err;
	size_t len;
	char *buf;
	if (xt) {
		buf = test_import_fixture(xt, &len);
		assert_int_equal(imp_xentop_parse(xt, buf, len, &l->x, &err), 0);
		free(buf);
		l->in.xentop = &l->x, l->in.xentop_file = xt;
	}
	if (vm) {
		buf = test_import_fixture(vm, &len);
		assert_int_equal(imp_vmstat_parse(vm, buf, len, &l->v, &err), 0);
		free(buf);
		l->in.vmstat = &l->v, l->in.vmstat_file = vm;
	}
	if (io) {
		buf = test_import_fixture(io, &len);
		assert_int_equal(imp_iostat_parse(io, buf, len, &l->io, &err), 0);
		free(buf);
		l->in.iostat = &l->io, l->in.iostat_file = io;
	}
}

static void build_ok(struct logs *l)
{
	struct xerr err;
	int rc = imp_build(&l->in, &l->r, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	assert_int_equal(rc, 0);
}

static void unload(struct logs *l)
{
	imp_result_free(&l->r);
	imp_xentop_free(&l->x);
	imp_vmstat_free(&l->v);
	imp_iostat_free(&l->io);
}

static const char *meta(const struct imp_result *r, const char *key)
{
	for (size_t i = 0; i < r->n_meta; i++)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].text;
	return NULL;
}

static const struct xio_layer *layer_of(const struct xio_sample *s, uint32_t domid)
{
	for (size_t i = 0; i < s->n_layers; i++)
		if (s->layers[i].domid == domid)
			return &s->layers[i];
	return NULL;
}

static const struct xio_disk *disk_named(const struct xio_sample *s, const char *name)
{
	for (size_t i = 0; i < s->n_disks; i++)
		if (!strcmp(s->disks[i].name, name))
			return &s->disks[i];
	return NULL;
}

/* Real captures: vmstat -t 1 5 and iostat -dxt 1 5 taken together on this machine. */
static void test_real_vmstat_iostat_with_times(void **state)
{
	(void)state;
	struct logs l;
	load(&l, NULL, "vmstat-linux-t.txt", "iostat-dxt.txt");
	assert_true(l.v.has_time && l.io.has_time);
	assert_int_equal(l.io.cpu_count, 2);
	build_ok(&l);
	assert_int_equal(l.r.n, 5);
	const struct xio_sample *last = &l.r.samples[4];
	assert_int_equal(last->vmstat_pgpgout_kb, 5136 + 9512 + 4184 + 4164);
	assert_int_equal(last->vmstat_pgpgin_kb, 16 + 12 + 12 + 0);
	const struct xio_disk *vda = disk_named(last, "vda");
	assert_non_null(vda);
	assert_int_equal(vda->wr_bytes, (5024ull + 9240 + 4644 + 4156) * 1024);
	assert_int_equal(vda->wr_ios, 433 + 634 + 333 + 319); /* w/s x 1 s */
	assert_null(disk_named(last, "loop0"));               /* stacked: not a disk */
	assert_string_equal(meta(&l.r, "iostat_stacked_devices"), "loop0,loop1");
	assert_string_equal(meta(&l.r, "source"), "import");
	assert_non_null(strstr(meta(&l.r, "imported_counters"), "vmstat_bo"));
	assert_non_null(strstr(meta(&l.r, "imported_counters"), "vmstat_cpu"));
	/* host busy: (us+sy)% x 1 s x 2 CPUs, summed (st is 0 in this capture) */
	assert_int_equal(last->host_busy_ns, (99 + 90 + 99 + 100) * 20000000ull);
	assert_int_equal(l.r.samples[1].realtime_ns - l.r.samples[0].realtime_ns, 1000000000ll);
	unload(&l);
}

/* xentop -b -d 1 has no times and sleeps 1 s after each frame: beside vmstat -t 1 over
 * 5 s it printed 4 frames. Its frames are spread over vmstat's 5 s (steps 0, 2, 3, 5),
 * so the last sample holds its last frame's counters and all of vmstat's bo: one frame a
 * second put its last frame at 3 s, set against 3 s of bo (the Xen explain boot's import:
 * 768 MiB of bo against all three guests' writes, where pgpgout grew 960 MiB). */
static void test_xentop_frames_spread(void **state)
{
	(void)state;
	static const char head[] =
	    "      NAME  STATE   CPU(sec) CPU(%)     MEM(k) MEM(%)  MAXMEM(k) MAXMEM(%) VCPUS "
	    "NETS NETTX(k) NETRX(k) VBDS   VBD_OO   VBD_RD   VBD_WR  VBD_RSECT  VBD_WSECT SSID\n"
	    "  Domain-0 -----r       1200   60.0    1048576   25.0   no limit       n/a     1 "
	    "   0        0        0    0        0        0        0          0          0    0\n";
	char xt[4096] = "";
	for (int f = 0; f < 4; f++)
		snprintf(
		    xt + strlen(xt), sizeof(xt) - strlen(xt),
		    "%s     guest --b---        300  100.0     524288   12.5     524288      12.5 "
		    "    1    0        0        0    1        0        0      %d          0 "
		    "%10d    0\n",
		    head, f * 10, f * 2048);
	static const char vm[] =
	    "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- "
	    "-----timestamp-----\n"
	    " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st     "
	    "            UTC\n"
	    " 1  0      0 100000   1000  10000    0    0     0  9999  100  100  1  1 98  0  0 "
	    "2026-12-02 16:33:57\n"
	    " 1  0      0 100000   1000  10000    0    0     0  1000  100  100  1  1 98  0  0 "
	    "2026-12-02 16:33:58\n"
	    " 1  0      0 100000   1000  10000    0    0     0  2000  100  100  1  1 98  0  0 "
	    "2026-12-02 16:33:59\n"
	    " 1  0      0 100000   1000  10000    0    0     0  3000  100  100  1  1 98  0  0 "
	    "2026-12-02 16:34:00\n"
	    " 1  0      0 100000   1000  10000    0    0     0  4000  100  100  1  1 98  0  0 "
	    "2026-12-02 16:34:01\n"
	    " 1  0      0 100000   1000  10000    0    0     0  5000  100  100  1  1 98  0  0 "
	    "2026-12-02 16:34:02\n";
	struct logs l;
	memset(&l, 0, sizeof(l));
	struct xerr err;
	assert_int_equal(imp_xentop_parse("xt.log", xt, strlen(xt), &l.x, &err), 0);
	assert_int_equal(imp_vmstat_parse("vm.log", vm, strlen(vm), &l.v, &err), 0);
	l.in.xentop = &l.x, l.in.xentop_file = "xt.log";
	l.in.vmstat = &l.v, l.in.vmstat_file = "vm.log";
	build_ok(&l);
	assert_int_equal(l.r.n, 4);
	const struct xio_sample *last = &l.r.samples[3];
	assert_int_equal(last->vmstat_pgpgout_kb, 1000 + 2000 + 3000 + 4000 + 5000);
	const struct xio_layer *g = layer_of(last, 1);
	assert_non_null(g);
	assert_int_equal(g->io.wr_bytes, 3 * 2048 * 512);
	assert_int_equal(last->realtime_ns - l.r.samples[0].realtime_ns, 5000000000ll);
	assert_non_null(strstr(l.r.note, "its 4 frames are spread over the 5 s"));
	/* with --start, one interval apart as before, and no note */
	imp_result_free(&l.r);
	l.in.has_start = true;
	l.in.start_ns = l.v.rows[0].time_ns;
	build_ok(&l);
	assert_int_equal(l.r.samples[l.r.n - 1].realtime_ns - l.r.samples[0].realtime_ns,
	                 3000000000ll);
	assert_string_equal(l.r.note, "");
	unload(&l);
}

static void test_real_vmstat_without_times(void **state)
{
	(void)state;
	struct logs l;
	load(&l, NULL, "vmstat-linux.txt", "iostat-dx.txt");
	struct xerr err;
	struct imp_result r;
	assert_int_equal(imp_build(&l.in, &r, &err), -1); /* no times, no --interval */
	/* the sentence alone: the command says whose it is ("xiotop import: xiotop import:
	 * no log has times" before) */
	assert_string_equal(err.msg, "no log has times (vmstat -t, iostat -t): give --interval S");
	assert_int_equal(err.kind, XERR_INPUT);
	l.in.interval_s = 1;
	assert_int_equal(imp_build(&l.in, &r, &err), -1);
	assert_string_equal(err.msg, "no log has times (vmstat -t, iostat -t): give --start TIME");
	l.in.has_start = true, l.in.start_ns = START_NS;
	build_ok(&l);
	assert_int_equal(l.r.n, 5);
	assert_int_equal(l.r.samples[4].vmstat_pgpgout_kb, 4080 + 3640 + 2628 + 3420);
	assert_int_equal(l.r.samples[4].realtime_ns, START_NS + 4000000000ll);
	unload(&l);
}

static void test_xentop_linux(void **state)
{
	(void)state;
	struct logs l;
	load(&l, "xentop-linux.txt", NULL, NULL);
	assert_int_equal(l.x.n_blocks, 4);
	l.in.interval_s = 2, l.in.has_start = true, l.in.start_ns = START_NS;
	build_ok(&l);
	assert_int_equal(l.r.n, 4);
	const struct xio_sample *s = &l.r.samples[3];
	assert_int_equal(s->n_domains, 3);
	assert_string_equal(sample_domain(s, 1)->name, "guest-file");
	assert_string_equal(sample_domain(s, 2)->name, "guest-lvm");
	assert_int_equal(s->host_busy_ns, 1203 * 1000000000ull);
	const struct xio_layer *g1 = layer_of(s, 1);
	assert_non_null(g1);
	assert_int_equal(g1->dev, IMP_VBD_DEV(1));
	assert_int_equal(g1->via, XIOTOP_VIA_DEV);
	assert_int_equal(g1->io.wr_bytes, (2000000ull + 81920 * 6 + 1000 + 81920 * 3) * 512);
	assert_int_equal(g1->io.wr_ios, 9000 + 640 * 3 + 50 + 64 * 3);
	assert_null(layer_of(s, 0)); /* Domain-0: VBDS 0, no guest bytes */
	assert_int_equal(sample_counters(s, 1)->guest_cpu_ns, 306 * 1000000000ll);
	assert_string_equal(meta(&l.r, "imported_counters"), "xentop_cpu,xentop_vbd");
	/* per interval (2 s): guest-file writes 120 MiB, guest-lvm reads 20 MiB */
	struct model_interval m;
	assert_int_equal(model_compute(&l.r.samples[2], s, &m), 0);
	for (size_t i = 0; i < m.n_domains; i++) {
		if (m.domains[i].domid == 1)
			assert_int_equal(m.domains[i].io.guest_wr_bytes, 3 * 81920 * 512ull);
		if (m.domains[i].domid == 2)
			assert_int_equal(m.domains[i].io.guest_rd_bytes, 40960 * 512ull);
	}
	model_free(&m);
	unload(&l);
}

static void test_xentop_vbd_lines_and_cut_end(void **state)
{
	(void)state;
	struct logs l;
	load(&l, "xentop-linux-xnv.txt", NULL, NULL);
	assert_true(l.x.has_vbd_lines && l.x.linux_vbd_lines);
	assert_non_null(strstr(l.x.note, "cut short"));
	assert_int_equal(l.x.n_blocks, 4);
	l.in.interval_s = 2, l.in.has_start = true, l.in.start_ns = START_NS;
	build_ok(&l);
	assert_true(l.r.samples[0].has_vbd_stats);
	assert_int_equal(l.r.samples[0].n_vbd_stats, 3);
	assert_int_equal(l.r.samples[3].n_vbd_stats, 2); /* the cut line is gone */
	const struct xio_vbd_stat *v = sample_vbd_stat(&l.r.samples[0], 1, 51728);
	assert_non_null(v);
	assert_int_equal(v->wr_bytes, 1000 * 512);
	assert_int_equal(v->source, XIO_VBD_XENSTAT);
	assert_non_null(strstr(meta(&l.r, "import_notes"), "cut short"));
	unload(&l);
}

static void test_xentop_repeat_header(void **state)
{
	(void)state;
	struct logs l;
	load(&l, "xentop-linux-r.txt", NULL, NULL);
	assert_int_equal(l.x.n_blocks, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(l.x.blocks[i].n, 3);
	unload(&l);
}

/* Seed 002: "52 CPU seconds on Dom0 (file) ... 16 (LVM) ... 42 and 39 on DomU". */
static void seed002(const char *name, uint64_t dom0_s, int64_t domu_s)
{
	struct logs l;
	load(&l, name, NULL, NULL);
	l.in.interval_s = 60, l.in.has_start = true, l.in.start_ns = START_NS;
	build_ok(&l);
	const struct xio_sample *a = &l.r.samples[0], *b = &l.r.samples[l.r.n - 1];
	assert_int_equal(b->host_busy_ns - a->host_busy_ns, dom0_s * 1000000000ull);
	assert_int_equal(sample_counters(b, 1)->guest_cpu_ns - sample_counters(a, 1)->guest_cpu_ns,
	                 domu_s * 1000000000ll);
	assert_int_equal(b->n_layers, 0); /* no VBD_RSECT/WSECT in Xen 3.0's xentop */
	assert_non_null(strstr(meta(&l.r, "imported_counters"), "xentop_vbd_reqs"));
	assert_non_null(strstr(meta(&l.r, "missing_counters"), "VBD_RSECT"));
	unload(&l);
}

static void test_seed002(void **state)
{
	(void)state;
	seed002("xentop-seed002-file.txt", 52, 42);
	seed002("xentop-seed002-lvm.txt", 16, 39);
}

/* Seed 003: NetBSD dom0, a domU writes 4 GiB; xentop has no vbd figures there. */
static void test_seed003_netbsd(void **state)
{
	(void)state;
	struct logs l;
	load(&l, "xentop-seed003-netbsd.txt", "vmstat-seed003-netbsd.txt",
	     "iostat-seed003-netbsd.txt");
	assert_false(l.x.any_vbds);
	assert_true(l.v.netbsd && !l.v.has_io);
	assert_true(l.io.netbsd);
	assert_int_equal(l.io.n, 10);
	l.in.interval_s = 2, l.in.has_start = true, l.in.start_ns = START_NS;
	build_ok(&l);
	assert_int_equal(l.r.n, 10);
	const struct xio_sample *a = &l.r.samples[0], *b = &l.r.samples[9];
	assert_int_equal(disk_named(b, "wd0")->wr_bytes, 4ull << 30);
	assert_int_equal(b->vmstat_pgpgout_kb, 0);
	assert_int_equal(b->host_busy_ns - a->host_busy_ns, 16 * 1000000000ull);
	assert_int_equal(b->n_layers, 0);
	assert_non_null(strstr(meta(&l.r, "missing_counters"), "NetBSD's libxenstat"));
	assert_non_null(strstr(meta(&l.r, "missing_counters"), "NetBSD's vmstat has no bi/bo"));
	assert_string_equal(meta(&l.r, "imported_counters"), "xentop_cpu,iostat_disks");
	unload(&l);
}

/* NetBSD repeats its headers every screenful (iostat -x: 17 reports of one drive); the
 * report boundary is where a drive repeats, not the header. */
static void test_netbsd_repeated_headers(void **state)
{
	(void)state;
	const char *hdr =
	    "device  read KB/t    r/s   time     MB/s write KB/t    w/s   time     MB/s\n";
	const char *row =
	    "wd0         64.00     16   0.50     1.00      64.00     32   0.90     2.00\n"
	    "dk0          0.00      0   0.00     0.00      64.00     32   0.90     2.00\n";
	char text[4096] = "";
	for (int k = 0; k < 4; k++) {
		if (k == 0 || k == 2)
			strcat(text, hdr);
		strcat(text, row);
	}
	struct imp_iostat io;
	struct xerr err;
	assert_int_equal(imp_iostat_parse("io.log", text, strlen(text), &io, &err), 0);
	assert_int_equal(io.n, 4);
	assert_int_equal(io.reports[3].n, 2);
	assert_true(io.reports[3].devs[0].wr_Bps == 2.0 * 1048576);
	const char *names[] = {"wd0", "dk0"};
	assert_false(imp_iostat_is_leaf(names, 2, 1)); /* a wedge on wd0 */
	imp_iostat_free(&io);
	const char *vm =
	    " procs    memory      page                       disks   faults      cpu\n"
	    " r b      avm    fre  flt  re  pi   po   fr   sr w0 c0   in   sy  cs us sy id\n"
	    " 1 0   812344 3012456   10   0   0    0    0    0 40  0  900  300  50  0  3 97\n"
	    " procs    memory      page                       disks   faults      cpu\n"
	    " r b      avm    fre  flt  re  pi   po   fr   sr w0 c0   in   sy  cs us sy id\n"
	    " 1 0   812344 3012456   10   0   0    0    0    0 40  0  900  300  50  5 25 70\n";
	struct imp_vmstat v;
	assert_int_equal(imp_vmstat_parse("vm.log", vm, strlen(vm), &v, &err), 0);
	assert_int_equal(v.n, 2);
	assert_true(v.netbsd && !v.has_io);
	assert_true(v.rows[1].us == 5 && v.rows[1].sy == 25); /* cpu's sy, not faults' */
	imp_vmstat_free(&v);
}

static void test_leaf_rule(void **state)
{
	(void)state;
	const char *names[] = {"sda",   "sda1", "nvme0n1", "nvme0n1p2", "nvme0n10",
	                       "loop3", "dm-0", "md127",   "zram0",     "vda",
	                       "wd0",   "dk1",  "vnd0"};
	bool leaf[] = {true,  false, true, false, true,  false, false, /* zram0: a leaf, as live */
	               false, true,  true, true,  false, false};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_int_equal(imp_iostat_is_leaf(names, 13, i), leaf[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_real_vmstat_iostat_with_times),
	    cmocka_unit_test(test_xentop_frames_spread),
	    cmocka_unit_test(test_real_vmstat_without_times),
	    cmocka_unit_test(test_xentop_linux),
	    cmocka_unit_test(test_xentop_vbd_lines_and_cut_end),
	    cmocka_unit_test(test_xentop_repeat_header),
	    cmocka_unit_test(test_seed002),
	    cmocka_unit_test(test_seed003_netbsd),
	    cmocka_unit_test(test_netbsd_repeated_headers),
	    cmocka_unit_test(test_leaf_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
