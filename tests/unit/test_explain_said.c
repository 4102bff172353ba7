/* test_explain_said.c - what a claim says of itself, judged (issue 43): a run at queue
 * depth 1 set against the round trip xiotop timed, and O_DIRECT in a guest whose disk dom0
 * buffers. Expected from the physics, written before the change:
 *   - fio randread, 4 KiB at iodepth 1 (its command line: --direct=1), 314 IOPS for 30 s in
 *     a guest on an LV: each request waits for the one before it. xiotop timed the guest's
 *     314 requests a second at 3.18 ms each (1 s of latency a second): 1 / 3.18 ms = 314
 *     IOPS, the tool's 314: the round trip is the limit (queue_depth_latency, within 20 %
 *     of 1, one request per I/O). Before: no verdict used latency.
 *   - the same fio where xiotop timed 1.5 ms a request at the device backing the guest:
 *     1 / 1.5 ms = 667 IOPS, the tool's 314 (0.47x): the rest, 1 / 314 - 1.5 ms = 1685 us
 *     a request, is outside that device (the guest, the ring, blkback's own work around
 *     the device: its grant unmap, response and notify come after the device's
 *     completion), never said to be "not in dom0".
 *   - fio randwrite --direct=1 in a guest on a file image through a buffered loop device
 *     (dom0 dirtied its 64 MiB): O_DIRECT in the guest, buffered in dom0
 *     (direct_io_buffered). On the LV (nothing dirtied in dom0): no such verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/claim_list.h"
#include "explain_scenario.h"

static char path[64], post[64];

static const char fio_randread[] =
    "# fio --name=randread --rw=randread --bs=4k --iodepth=1 --direct=1 --size=64m\n"
    "randread: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, "
    "ioengine=psync, iodepth=1\n"
    "fio-3.33\n"
    "Starting 1 process\n"
    "\n"
    "randread: (groupid=0, jobs=1): err= 0: pid=201: Sun Dec  6 04:10:00 2026\n"
    "  read: IOPS=314, BW=1256KiB/s (1286kB/s)(36.8MiB/30001msec)\n"
    "    clat (usec): min=800, max=9000, avg=3180.00, stdev=400.00\n"
    "\n"
    "Run status group 0 (all jobs):\n"
    "   READ: bw=1256KiB/s (1286kB/s), 1256KiB/s-1256KiB/s (1286kB/s-1286kB/s), "
    "io=36.8MiB (38.6MB), run=30001-30001msec\n";

static const char fio_randwrite[] =
    "# fio --name=randwrite --rw=randwrite --bs=64k --iodepth=4 --direct=1 --size=64m\n"
    "randwrite: (g=0): rw=randwrite, bs=(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) "
    "64.0KiB-64.0KiB, ioengine=libaio, iodepth=4\n"
    "fio-3.33\n"
    "Starting 1 process\n"
    "\n"
    "randwrite: (groupid=0, jobs=1): err= 0: pid=202: Sun Dec  6 04:11:00 2026\n"
    "  write: IOPS=256, BW=16.0MiB/s (16.8MB/s)(64.0MiB/4000msec)\n"
    "\n"
    "Run status group 0 (all jobs):\n"
    "  WRITE: bw=16.0MiB/s (16.8MB/s), 16.0MiB/s-16.0MiB/s (16.8MB/s-16.8MB/s), "
    "io=64.0MiB (67.1MB), run=4000-4000msec\n";

static void write_post(const char *text)
{
	snprintf(post, sizeof(post), "said-%d.txt", (int)getpid());
	FILE *f = fopen(post, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* 30 s of fio's 314 reads of 4 KiB a second, each `lat_us` at the guest's disk in dom0
 * (an LV, or a device model's image). */
static void randread_on(struct explain *ex, struct rec_reader **r, uint64_t lat_us, enum sc_path on)
{
	snprintf(path, sizeof(path), "said-qd1-%d.xiotop", (int)getpid());
	unlink(path);
	struct scenario sc;
	sc_open(&sc, path, 1536 * 1024);
	sc.latency = true;
	struct sc_dom *d =
	    sc_add_dom(&sc, 3, "x-lv", on, on == SC_QEMU ? "/srv/x.img" : NULL, 448 * MiB);
	sc_append(&sc);
	for (int i = 0; i < 32; i++) {
		struct sc_step st = {0};
		if (i >= 1 && i <= 30) {
			st.guest_rd = 314 * 4096;
			st.guest_rd_ios = 314;
			st.lat_count[XIOTOP_LAT_READ] = 314;
			st.lat_sum_ns[XIOTOP_LAT_READ] = 314 * lat_us * 1000;
		}
		sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_close(&sc);
	write_post(fio_randread);
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, ex, r, &err), 0);
	char arg[128];
	snprintf(arg, sizeof(arg), "%s@x-lv", post);
	if (explain_add_claim_file(ex, arg, &err))
		fail_msg("%s", err.msg);
	explain_verdicts(ex);
}

static void randread(struct explain *ex, struct rec_reader **r, uint64_t lat_us)
{
	randread_on(ex, r, lat_us, SC_PHY);
}

static void done(struct explain *ex, struct rec_reader *r)
{
	ex_claim_files_free(ex);
	explain_free(ex);
	rec_reader_close(r);
	if (!getenv("XIOTOP_TEST_KEEP"))
		unlink(path), unlink(post);
}

static void test_qd1_round_trip(void **state)
{
	(void)state;
	static struct explain ex;
	struct rec_reader *r;
	randread(&ex, &r, 3180);
	assert_true(ex.n_claims >= 1 && ex.claims[0].located.found);
	const struct ex_verdict *v = sc_verdict(&ex, "queue_depth_latency", 3);
	assert_non_null(v);
	assert_true(sc_fig(v, "queue_depth") == 1);
	assert_true(sc_fig(v, "block_bytes") == 4096);
	assert_true(sc_fig(v, "direct") == 1);
	double ratio = sc_fig(v, "iops_to_latency");
	assert_true(ratio > 0.8 && ratio < 1.2); /* within 20 % of 1 / the mean latency */
	assert_true(sc_fig(v, "latency_mean_us") > 3179 && sc_fig(v, "latency_mean_us") < 3181);
	assert_true(sc_fig(v, "requests_per_io") > 0.95 && sc_fig(v, "requests_per_io") < 1.05);
	assert_non_null(strstr(sc_text(&ex, v), "The round trip is the limit"));
	/* on an LV nothing is buffered in dom0 */
	assert_null(sc_verdict(&ex, "direct_io_buffered", 3));
	done(&ex, r);
}

static void test_qd1_guest_time(void **state)
{
	(void)state;
	static struct explain ex;
	struct rec_reader *r;
	randread(&ex, &r, 1500);
	const struct ex_verdict *v = sc_verdict(&ex, "queue_depth_latency", 3);
	assert_non_null(v);
	double ratio = sc_fig(v, "iops_to_latency");
	assert_true(ratio > 0.45 && ratio < 0.49); /* 314 / 667 */
	const char *text = sc_text(&ex, v);
	double outside_us = 1e6 / sc_fig(v, "claimed_iops") - sc_fig(v, "latency_mean_us");
	assert_true(outside_us > 1684 && outside_us < 1686); /* 1 / 314 - 1.5 ms */
	char want[96];
	snprintf(want, sizeof(want), "took %.0f us more than xiotop timed there", outside_us);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "at the device backing it in dom0, each from its start"));
	assert_non_null(strstr(text, "in blkback's own work in dom0 around the device"));
	assert_non_null(strstr(text, "on the ring and event channel"));
	assert_null(strstr(text, "not in dom0"));
	assert_null(strstr(text, "dom0's round trip"));
	done(&ex, r);
}

/* The same on a device model's image: xiotop timed its reads and writes of the image; the
 * rest is the device model's own work, never blkback's. */
static void test_qd1_outside_device_model(void **state)
{
	(void)state;
	static struct explain ex;
	struct rec_reader *r;
	randread_on(&ex, &r, 1500, SC_QEMU);
	const struct ex_verdict *v = sc_verdict(&ex, "queue_depth_latency", 3);
	assert_non_null(v);
	const char *text = sc_text(&ex, v);
	assert_non_null(strstr(text, "at the device model's reads and writes of its image"));
	assert_non_null(strstr(text, "in the device model's own work in dom0"));
	assert_null(strstr(text, "blkback"));
	done(&ex, r);
}

static void test_direct_buffered_in_dom0(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "said-dio-%d.xiotop", (int)getpid());
	struct scenario sc;
	sc_open(&sc, path, 1536 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 1, "x-file", SC_FILE, "/srv/x.img", 448 * MiB);
	sc_append(&sc);
	for (int i = 0; i < 12; i++) {
		struct sc_step st = {0};
		if (i >= 1 && i <= 4) /* fio's writes, into dom0's page cache */
			st.guest_wr = st.dirtied = 16 * MiB;
		if (i >= 6 && i <= 9) /* the flusher, later */
			st.phys_wr = st.written_back = 16 * MiB;
		sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_close(&sc);
	write_post(fio_randwrite);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	char arg[128];
	snprintf(arg, sizeof(arg), "%s@x-file", post);
	if (explain_add_claim_file(&ex, arg, &err))
		fail_msg("%s", err.msg);
	explain_verdicts(&ex);
	const struct ex_verdict *v = sc_verdict(&ex, "direct_io_buffered", 1);
	assert_non_null(v);
	assert_true(sc_fig(v, "direct") == 1);
	assert_true(sc_fig(v, "dirtied_bytes") == 64 * MiB);
	assert_string_equal(sc_fig_str(v, "path"), "file via loop");
	assert_true(v->share > 0.3);
	assert_non_null(strstr(sc_text(&ex, v), "O_DIRECT in the guest is buffered in dom0"));
	/* iodepth 4: no queue-depth-1 verdict */
	assert_null(sc_verdict(&ex, "queue_depth_latency", 1));
	done(&ex, r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_qd1_round_trip),
	    cmocka_unit_test(test_qd1_guest_time),
	    cmocka_unit_test(test_qd1_outside_device_model),
	    cmocka_unit_test(test_direct_buffered_in_dom0),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
