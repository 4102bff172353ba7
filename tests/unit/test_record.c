/* test_record.c - recordings: round trip of synthetic samples, marks and windows, and every
 * kind of bad file, each with its message. Files go to a fresh directory under the
 * current one (ctest runs in the build tree). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <zlib.h>

#include "test_files.h"
#include "ui/batch.h"
#include "core/figures.h"
#include "core/model.h"
#include "record/record.h"
#include "record/rec_writer_internal.h" /* REC_KEYFRAME_EVERY */

#define MiB   (1024ull * 1024)
#define LOOP0 ((7u << 20) | 0)
#define LOOP1 ((7u << 20) | 1)
#define SDA   ((8u << 20) | 0)
#define ZRAM3 ((252u << 20) | 3)

TEST_SCRATCH_DIR("record")

static void add_layer(struct xio_sample *s, uint32_t domid, uint32_t dev, uint32_t via, uint64_t wr,
                      uint64_t rd)
{
	struct xio_layer l = {.domid = domid, .dev = dev, .via = via};
	l.io.wr_bytes = wr;
	l.io.rd_bytes = rd;
	l.io.wr_ios = wr / 65536;
	l.io.rd_ios = rd / 65536;
	assert_int_equal(sample_add_layer(s, &l), 0);
}

static void add_dev(struct xio_sample *s, uint32_t dev, const char *name, bool leaf)
{
	struct xio_dev d = {.dev = dev, .is_leaf = leaf};
	snprintf(d.name, sizeof(d.name), "%s", name);
	assert_int_equal(sample_add_dev(s, &d), 0);
}

static void add_domain(struct xio_sample *s, uint32_t domid, const char *name, const char *file)
{
	struct xio_domain d = {.domid = domid, .generation = domid == 2 ? 0 : 1};
	snprintf(d.uuid, sizeof(d.uuid), "%08x-1111-2222-3333-444455556666", domid);
	d.mem_bytes = domid == 3 ? 0 : 1024 * MiB;
	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.kind, sizeof(d.kind), "vbd");
	snprintf(d.file, sizeof(d.file), "%s", file);
	assert_int_equal(sample_add_domain(s, &d), 0);
}

/* Sample i of a session whose topology changes: domain 2 is renamed at sample 3 (a guest
 * may rename itself), loop1 appears at 2, domain 3 disappears after 4, domain 9 is only
 * known from its counters, and the hooks change at 5. Counters grow; one is >= 2^63. */
static void synthetic(struct xio_sample *s, unsigned i)
{
	memset(s, 0, sizeof(*s));
	uint64_t k = i + 1;
	s->realtime_ns = 1714560000000000000ll + (int64_t)i * 1000000000;
	s->monotonic_ns = 77000000000ull + i * 1000000000ull + (i == 3 ? 1234567 : 0);
	s->vmstat_pgpgin_kb = 1000 * k;
	s->vmstat_pgpgout_kb = 5 * 256 * 1024 * k;
	s->lost_events = i / 3;
	s->host_busy_ns = 3000000000ull * k;
	s->host_irq_ns = 20000000ull * k;
	s->host_steal_ns = i == 2 ? 0 : 5000000ull * k; /* 0 is a count, not unknown */
	s->cpu_unattributed_ns = 1000000 * k;
	s->has_cpu = true;
	s->has_dirty = i % 2 == 0;
	s->domains_live = i != 1;
	s->has_vbd_stats = true;
	snprintf(s->hooks, sizeof(s->hooks), "%s",
	         i < 5 ? "block_bio_queue block_bio_remap" : "block_bio_queue (remap lost)");
	add_dev(s, SDA, "sda", true);
	add_dev(s, LOOP0, "loop0", false);
	if (i >= 2)
		add_dev(s, LOOP1, "loop1", false);
	add_dev(s, ZRAM3, "zram3", true);
	if (i >= 3) /* made a mirror's member: a new version of the device (its array kept) */
		s->devs[s->n_devs - 1].array = XIO_DEV_MEMBER;
	add_domain(s, 1, "guest1", "/var/lib/xen/images/guest1.img");
	add_domain(s, 2, i < 3 ? "guest2" : "evil\033[2Jguest", "");
	if (i <= 4)
		add_domain(s, 3, "guest3", "");
	/* Map order, not sorted: the reader must keep it. */
	add_layer(s, 3, ZRAM3, XIOTOP_VIA_DEV, 7 * MiB * k, MiB * k);
	add_layer(s, 1, LOOP0, XIOTOP_VIA_DEV, 256 * MiB * k, 64 * MiB * k);
	add_layer(s, XIOTOP_DOM_NONE, SDA, XIOTOP_VIA_NONE, MiB * k, 0);
	add_layer(s, 1, SDA, XIOTOP_VIA_INODE, 250 * MiB * k, 0);
	if (i >= 2)
		add_layer(s, 2, LOOP1, XIOTOP_VIA_DEV, 3 * MiB * (k - 2), 0);
	add_layer(s, 7, SDA, XIOTOP_VIA_TASK, 4096 * k, 0); /* domain 7: only in layers */
	struct xio_dom_counters c1 = {.domid = 9, .guest_cpu_ns = -1};
	c1.cpu_ns[XIO_CPU_BACKEND] = 5000000 * k;
	struct xio_dom_counters c2 = {.domid = 1, .guest_cpu_ns = (int64_t)(2000000000 * k)};
	c2.cpu_ns[XIO_CPU_LOOP] = 1000000 * k;
	c2.cpu_ns[XIO_CPU_WRITEBACK] = UINT64_MAX - 1000 + k; /* >= 2^63: same bits back */
	c2.dirtied_bytes = 300 * MiB * k;
	c2.written_back_bytes = 250 * MiB * k;
	assert_int_equal(sample_add_counters(s, &c1), 0);
	assert_int_equal(sample_add_counters(s, &c2), 0);
	struct xio_disk d = {.dev = SDA, .rd_bytes = MiB * k, .wr_bytes = 500 * MiB * k};
	snprintf(d.name, sizeof(d.name), "sda");
	assert_int_equal(sample_add_disk(s, &d), 0);
	/* blkback's own counters; guest1's vbd is made again (new instance) at sample 4 */
	struct xio_vbd_stat v1 = {.domid = 1,
	                          .devid = 51712,
	                          .backend_dev = LOOP0,
	                          .instance = i < 4 ? 11 : 12,
	                          .wr_bytes = 256 * MiB * k,
	                          .wr_req = 2048 * k,
	                          .f_req = k,
	                          .skew_wr_bytes = MiB * (i % 3)};
	struct xio_vbd_stat v3 = {.domid = 3,
	                          .devid = 51712,
	                          .source = XIO_VBD_XENSTAT,
	                          /* libxenstat did not answer for it at sample 2 */
	                          .read = i == 2 ? XIO_VBD_CARRIED : XIO_VBD_READ,
	                          .rd_bytes = MiB * k,
	                          .oo_req = 1,
	                          .ds_req = 2};
	assert_int_equal(sample_add_vbd_stat(s, &v3), 0);
	assert_int_equal(sample_add_vbd_stat(s, &v1), 0);
	struct xio_disk z = {.dev = ZRAM3, .wr_bytes = 7 * MiB * k, .wr_ios = 3 * k};
	snprintf(z.name, sizeof(z.name), "zram3");
	assert_int_equal(sample_add_disk(s, &z), 0);
	/* latency timed from sample 1 on: a spread, a bucket >= 2^63, an idle histogram */
	s->has_latency = i >= 1;
	if (!s->has_latency)
		return;
	struct xio_latency w1 = {.domid = 1, .op = XIOTOP_LAT_WRITE};
	w1.hist.buckets[14] = 100 * k, w1.hist.buckets[15] = 7 * k, w1.hist.buckets[20] = k;
	w1.hist.buckets[XIOTOP_LAT_BUCKETS - 1] = UINT64_MAX - 10 + k;
	w1.hist.count = 108 * k, w1.hist.sum_ns = 3000000 * k;
	struct xio_latency r3 = {.domid = 3, .op = XIOTOP_LAT_READ};
	r3.hist.buckets[0] = k, r3.hist.count = k;
	struct xio_latency idle = {.domid = 2, .op = XIOTOP_LAT_READ};
	assert_int_equal(sample_add_latency(s, &w1), 0);
	assert_int_equal(sample_add_latency(s, &idle), 0);
	assert_int_equal(sample_add_latency(s, &r3), 0);
}

static struct rec_host_facts some_facts(void)
{
	struct rec_host_facts f;
	memset(&f, 0, sizeof(f));
	snprintf(f.kernel_release, sizeof(f.kernel_release), "6.1.0-test");
	f.cpu_count = 4;
	f.mem_total_kb = 4096000;
	f.dirty[0].name = "vm.dirty_ratio";
	snprintf(f.dirty[0].value, sizeof(f.dirty[0].value), "20");
	return f;
}

/* A recording of n synthetic samples at path. */
static void write_recording(const char *path, unsigned n)
{
	struct rec_host_facts f = some_facts();
	struct xerr err;
	struct rec_writer *w = rec_create(path, &f, &err);
	assert_non_null(w);
	for (unsigned i = 0; i < n; i++) {
		struct xio_sample s;
		synthetic(&s, i);
		assert_int_equal(rec_append(w, &s, &err), 0);
		sample_free(&s);
	}
	assert_int_equal(rec_close(w, &err), 0);
}

static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* The recording at path after sql ran on it (as an older or damaged file would be), opened
 * for reading. */
static struct rec_reader *open_after_sql(const char *path, const char *sql, struct xerr *err)
{
	exec_sql(path, sql);
	struct rec_reader *r = rec_open(path, err);
	assert_non_null(r);
	return r;
}

/* At path, the recording of fixture NAME (tests/fixtures/recordings/NAME.sql: a dump of a
 * file the last writer of an older schema made of this file's synthetic samples). */
static void schema2_recording(const char *path, const char *name)
{
	char file[64];
	snprintf(file, sizeof(file), "%s.sql", name);
	size_t len;
	char *sql = test_fixture("recordings", file, &len);
	unlink(path);
	exec_sql(path, sql);
	free(sql);
}

/* What batch mode prints for an interval, in one format. Caller frees. */
static char *printed(const struct xio_sample *prev, const struct xio_sample *cur,
                     enum batch_format format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct model_interval m;
	assert_int_equal(model_compute(prev, cur, &m), 0);
	struct batch_opts bo = {.format = format};
	batch_print(f, &m, &bo, 0);
	model_free(&m);
	fclose(f);
	return buf;
}

static int dev_order(const void *a, const void *b)
{
	const struct xio_dev *x = a, *y = b;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static void assert_same_sample(const struct xio_sample *want, const struct xio_sample *got)
{
	assert_int_equal(got->realtime_ns, want->realtime_ns);
	assert_int_equal(got->monotonic_ns, want->monotonic_ns);
	assert_int_equal(got->vmstat_pgpgin_kb, want->vmstat_pgpgin_kb);
	assert_int_equal(got->vmstat_pgpgout_kb, want->vmstat_pgpgout_kb);
	assert_int_equal(got->lost_events, want->lost_events);
	assert_int_equal(got->host_busy_ns, want->host_busy_ns);
	assert_int_equal(got->host_irq_ns, want->host_irq_ns);
	assert_int_equal(got->host_steal_ns, want->host_steal_ns);
	assert_int_equal(got->absent, want->absent);
	assert_int_equal(got->cpu_unattributed_ns, want->cpu_unattributed_ns);
	assert_int_equal(got->has_cpu, want->has_cpu);
	assert_int_equal(got->has_dirty, want->has_dirty);
	assert_string_equal(got->hooks, want->hooks);
	assert_int_equal(got->domains_live, want->domains_live);
	assert_int_equal(got->has_vbd_stats, want->has_vbd_stats);
	assert_int_equal(got->n_vbd_stats, want->n_vbd_stats);
	assert_memory_equal(got->vbd_stats, want->vbd_stats,
	                    want->n_vbd_stats * sizeof(*want->vbd_stats));
	assert_int_equal(got->has_latency, want->has_latency);
	assert_int_equal(got->n_latency, want->n_latency);
	assert_memory_equal(got->latency, want->latency, want->n_latency * sizeof(*want->latency));
	/* layers, counters and disks in recorded order, byte for byte */
	assert_int_equal(got->n_layers, want->n_layers);
	assert_memory_equal(got->layers, want->layers, want->n_layers * sizeof(*want->layers));
	assert_int_equal(got->n_counters, want->n_counters);
	assert_memory_equal(got->counters, want->counters,
	                    want->n_counters * sizeof(*want->counters));
	assert_int_equal(got->n_disks, want->n_disks);
	for (size_t i = 0; i < want->n_disks; i++) {
		assert_int_equal(got->disks[i].dev, want->disks[i].dev);
		assert_string_equal(got->disks[i].name, want->disks[i].name);
		assert_int_equal(got->disks[i].rd_bytes, want->disks[i].rd_bytes);
		assert_int_equal(got->disks[i].wr_bytes, want->disks[i].wr_bytes);
		assert_int_equal(got->disks[i].rd_ios, want->disks[i].rd_ios);
		assert_int_equal(got->disks[i].wr_ios, want->disks[i].wr_ios);
	}
	/* devices by dev_t, domains by domid (record.h) */
	assert_int_equal(got->n_devs, want->n_devs);
	struct xio_dev *devs = malloc(want->n_devs * sizeof(*devs));
	memcpy(devs, want->devs, want->n_devs * sizeof(*devs));
	qsort(devs, want->n_devs, sizeof(*devs), dev_order);
	for (size_t i = 0; i < want->n_devs; i++) {
		assert_int_equal(got->devs[i].dev, devs[i].dev);
		assert_string_equal(got->devs[i].name, devs[i].name);
		assert_int_equal(got->devs[i].is_leaf, devs[i].is_leaf);
		assert_int_equal(got->devs[i].array, devs[i].array);
	}
	free(devs);
	assert_int_equal(got->n_domains, want->n_domains);
	for (size_t i = 0; i < want->n_domains; i++) {
		assert_int_equal(got->domains[i].domid, want->domains[i].domid);
		assert_string_equal(got->domains[i].name, want->domains[i].name);
		assert_string_equal(got->domains[i].kind, want->domains[i].kind);
		assert_string_equal(got->domains[i].file, want->domains[i].file);
		assert_int_equal(got->domains[i].missing, want->domains[i].missing);
		assert_string_equal(got->domains[i].uuid, want->domains[i].uuid);
		assert_int_equal(got->domains[i].generation, want->domains[i].generation);
		assert_int_equal(got->domains[i].mem_bytes, want->domains[i].mem_bytes);
	}
}

static void test_round_trip(void **state)
{
	(void)state;
	const char *path = path_of("round.xiotop");
	enum { N = 8 };
	write_recording(path, N);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);

	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	assert_int_equal(rec_count(r), N);
	assert_int_equal(rec_schema_version(r), REC_SCHEMA_VERSION);
	assert_string_equal(rec_meta(r, "kernel_release"), "6.1.0-test");
	assert_string_equal(rec_meta(r, "cpu_count"), "4");
	assert_string_equal(rec_meta(r, "dom0_mem_kb"), "4096000");
	assert_string_equal(rec_meta(r, "vm.dirty_ratio"), "20");
	assert_string_equal(rec_meta(r, "hooks"), "block_bio_queue block_bio_remap");
	assert_string_equal(rec_meta(r, "xiotop_version"), XIOTOP_VERSION);

	struct xio_sample want_prev, got_prev;
	for (unsigned i = 0; i < N; i++) {
		struct xio_sample want, got;
		synthetic(&want, i);
		assert_int_equal(rec_read(r, i, &got, &err), 0);
		assert_int_equal(rec_time(r, i), want.realtime_ns);
		assert_same_sample(&want, &got);
		/* what every consumer sees: the same intervals in every format */
		for (int f = BATCH_TEXT; f <= BATCH_JSON; f++) {
			char *a = printed(i ? &want_prev : NULL, &want, f);
			char *b = printed(i ? &got_prev : NULL, &got, f);
			assert_string_equal(b, a);
			free(a);
			free(b);
		}
		if (i) {
			sample_free(&want_prev);
			sample_free(&got_prev);
		}
		want_prev = want;
		got_prev = got;
	}
	sample_free(&want_prev);
	sample_free(&got_prev);
	struct xio_sample none;
	assert_int_equal(rec_read(r, N, &none, &err), -1);
	assert_int_equal(err.code, REC_ERR_RANGE);
	rec_reader_close(r);
}

/* A file written before vbd_counts had its skew columns still reads: skew unknown (0);
 * before its read_state column, every vbd counted was read. */
static void test_vbds_without_skew_columns(void **state)
{
	(void)state;
	const char *path = path_of("noskew.xiotop");
	schema2_recording(path, "schema2_synthetic");
	struct xerr err;
	struct rec_reader *r = open_after_sql(path,
	                                      "DROP VIEW vbds_v;"
	                                      "ALTER TABLE vbd_counts DROP COLUMN skew_rd_bytes;"
	                                      "ALTER TABLE vbd_counts DROP COLUMN skew_wr_bytes;"
	                                      "ALTER TABLE vbd_counts DROP COLUMN read_state;",
	                                      &err);
	struct xio_sample got;
	assert_int_equal(rec_read(r, 2, &got, &err), 0);
	assert_int_equal(got.n_vbd_stats, 2);
	const struct xio_vbd_stat *v = sample_vbd_stat(&got, 1, 51712);
	assert_non_null(v);
	assert_int_equal(v->wr_bytes, 256 * MiB * 3);
	assert_int_equal(v->skew_wr_bytes, 0);
	assert_int_equal(sample_vbd_stat(&got, 3, 51712)->read, XIO_VBD_READ);
	sample_free(&got);
	rec_reader_close(r);
}

/* A file written before samples.host_irq_ns and host_steal_ns still reads: interrupt and
 * steal time unknown (the absent bit), shown null, never 0; dom0's own CPU is then the
 * busy time beyond what was charged, as before. */
static void test_cpu_times_old_file(void **state)
{
	(void)state;
	const char *path = path_of("noirq.xiotop");
	schema2_recording(path, "schema2_synthetic");
	struct xerr err;
	struct rec_reader *r = open_after_sql(path,
	                                      "ALTER TABLE samples DROP COLUMN host_irq_ns;"
	                                      "ALTER TABLE samples DROP COLUMN host_steal_ns;",
	                                      &err);
	struct xio_sample a, b;
	assert_int_equal(rec_read(r, 1, &a, &err), 0);
	assert_int_equal(rec_read(r, 2, &b, &err), 0);
	assert_int_equal(b.absent, XIO_ABSENT_HOST_CPU | XIO_ABSENT_ARRAYS);
	assert_int_equal(b.host_irq_ns, 0);
	struct model_interval m;
	assert_int_equal(model_compute(&a, &b, &m), 0);
	assert_false(figure_known(FIG_HOST_IRQ_NS, &m, NULL));
	assert_false(figure_known(FIG_HOST_STEAL_NS, &m, NULL));
	assert_true(figure_known(FIG_HOST_BUSY_NS, &m, NULL));
	model_free(&m);
	sample_free(&a);
	sample_free(&b);
	rec_reader_close(r);
}

/* A file written before latency_counts and samples.has_latency still reads: no latency.
 * A bucket span that does not fit 32 buckets is a corrupt file, said so. */
static void test_latency_old_and_bad(void **state)
{
	(void)state;
	const char *path = path_of("nolat.xiotop");
	schema2_recording(path, "schema2_synthetic");
	struct xerr err;
	struct rec_reader *r = open_after_sql(path,
	                                      "DROP TABLE latency_counts;"
	                                      "ALTER TABLE samples DROP COLUMN has_latency;",
	                                      &err);
	struct xio_sample got;
	assert_int_equal(rec_read(r, 2, &got, &err), 0);
	assert_false(got.has_latency);
	assert_int_equal(got.n_latency, 0);
	sample_free(&got);
	rec_reader_close(r);

	const char *bad[] = {"UPDATE latency_counts SET low = 30 WHERE domid = 1",
	                     /* a count cut short, one over 64 bits */
	                     "UPDATE latency_counts SET buckets = x'0180' WHERE domid = 1",
	                     "UPDATE latency_counts SET buckets = x'ffffffffffffffffff02' "
	                     "WHERE domid = 1",
	                     "UPDATE latency_counts SET op = 7 WHERE domid = 1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path = path_of("badlat.xiotop");
		schema2_recording(path, "schema2_synthetic");
		r = open_after_sql(path, bad[i], &err);
		assert_int_equal(rec_read(r, 2, &got, &err), -1);
		assert_int_equal(err.code, REC_ERR_CORRUPT);
		assert_non_null(strstr(err.msg, "sample 2 is incomplete"));
		rec_reader_close(r);
	}
}

/* Synthetic sample i with domain 7's latency not timed (block_rq_complete not attached
 * for its loop backend; its histogram of its other backends kept), from sample 1 on. */
static void synthetic_untimed(struct xio_sample *s, unsigned i)
{
	synthetic(s, i);
	for (uint32_t op = 0; s->has_latency && op < XIOTOP_LAT_OPS; op++) {
		struct xio_latency l = {.domid = 7, .op = op, .untimed = XIO_UNTIMED_RQ};
		l.hist.buckets[14] = op * i, l.hist.count = op * i;
		assert_int_equal(sample_add_latency(s, &l), 0);
	}
}

/* The samples a file written before devices kept their arrays reads as: synthetic's, with
 * which devices are redundant arrays unknown (their copies null, never 0). */
static void no_arrays(struct xio_sample *s)
{
	for (size_t d = 0; d < s->n_devs; d++)
		s->devs[d].array = 0;
	s->absent |= XIO_ABSENT_ARRAYS;
}

static void synthetic_no_arrays(struct xio_sample *s, unsigned i)
{
	synthetic(s, i);
	no_arrays(s);
}

static void synthetic_untimed_no_arrays(struct xio_sample *s, unsigned i)
{
	synthetic_untimed(s, i);
	no_arrays(s);
}

/* A (domain, op) not timed is stored with its bits (latency_counts.untimed) and reads back
 * so: the samples, and the intervals every format prints from them, are the live ones
 * (JSON: its io_latency null per op beside the timed domains'). A file without the column
 * (written before it) reads every entry as timed, as before. */
static void test_latency_untimed(void **state)
{
	(void)state;
	const char *path = path_of("untimed.xiotop");
	struct rec_host_facts f = some_facts();
	struct xerr err;
	struct rec_writer *w = rec_create(path, &f, &err);
	assert_non_null(w);
	for (unsigned i = 0; i < 3; i++) {
		struct xio_sample s;
		synthetic_untimed(&s, i);
		assert_int_equal(rec_append(w, &s, &err), 0);
		sample_free(&s);
	}
	assert_int_equal(rec_close(w, &err), 0);
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	struct xio_sample want[3], got[3];
	for (unsigned i = 0; i < 3; i++) {
		synthetic_untimed(&want[i], i);
		assert_int_equal(rec_read(r, i, &got[i], &err), 0);
		assert_same_sample(&want[i], &got[i]);
	}
	assert_int_equal(sample_latency(&got[2], 7, XIOTOP_LAT_WRITE)->untimed, XIO_UNTIMED_RQ);
	assert_int_equal(sample_latency(&got[2], 1, XIOTOP_LAT_WRITE)->untimed, 0);
	for (int fmt = BATCH_TEXT; fmt <= BATCH_JSON; fmt++) {
		char *a = printed(&want[1], &want[2], fmt);
		char *b = printed(&got[1], &got[2], fmt);
		assert_string_equal(b, a);
		if (fmt == BATCH_JSON)
			assert_non_null(strstr(b, "\"io_latency\":{\"read\":null,\"write\":null}"));
		free(a);
		free(b);
	}
	for (unsigned i = 0; i < 3; i++) {
		sample_free(&want[i]);
		sample_free(&got[i]);
	}
	rec_reader_close(r);
	path = path_of("untimed_v2.xiotop");
	schema2_recording(path, "schema2_untimed");
	r = open_after_sql(path, "ALTER TABLE latency_counts DROP COLUMN untimed;", &err);
	assert_int_equal(rec_read(r, 2, &got[0], &err), 0);
	const struct xio_latency *l = sample_latency(&got[0], 7, XIOTOP_LAT_WRITE);
	assert_non_null(l);
	assert_int_equal(l->untimed, 0);
	assert_int_equal(l->hist.count, 2);
	sample_free(&got[0]);
	rec_reader_close(r);
}

/* A schema 1 file (written before the buckets were varints: each a little-endian 64-bit
 * count) still reads, to the same samples; in it a span that is not whole 64-bit counts is
 * corrupt. The file is this writer's with each span rewritten as schema 1 had it. */
static void test_latency_schema_1(void **state)
{
	(void)state;
	const char *path = path_of("lat_v1.xiotop");
	schema2_recording(path, "schema2_synthetic");
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *sel, *upd;
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT slot, buckets FROM latency_counts"
	                                    " WHERE buckets IS NOT NULL",
	                                    -1, &sel, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "UPDATE latency_counts SET buckets = ? WHERE slot = ?",
	                                    -1, &upd, NULL),
	                 SQLITE_OK);
	int rows = 0;
	while (sqlite3_step(sel) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_blob(sel, 1);
		int len = sqlite3_column_bytes(sel, 1), n = 0;
		unsigned char fixed[32 * 8];
		for (int i = 0; i < len; n++) {
			uint64_t c = 0;
			for (int shift = 0;; shift += 7) {
				c |= (uint64_t)(v[i] & 0x7f) << shift;
				if (!(v[i++] & 0x80))
					break;
			}
			for (int byte = 0; byte < 8; byte++)
				fixed[8 * n + byte] = (unsigned char)(c >> (8 * byte));
		}
		sqlite3_bind_blob(upd, 1, fixed, 8 * n, SQLITE_TRANSIENT);
		sqlite3_bind_int64(upd, 2, sqlite3_column_int64(sel, 0));
		assert_int_equal(sqlite3_step(upd), SQLITE_DONE);
		sqlite3_reset(upd);
		rows++;
	}
	assert_true(rows >= 6); /* samples 1..3, two spans each */
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	sqlite3_close(db);
	struct xerr err;
	struct rec_reader *r = open_after_sql(
	    path, "PRAGMA user_version=1; UPDATE meta SET value='1' WHERE key='schema_version'",
	    &err);
	assert_int_equal(rec_schema_version(r), 1);
	for (unsigned i = 0; i < 4; i++) {
		struct xio_sample want, got;
		synthetic_no_arrays(&want, i);
		assert_int_equal(rec_read(r, i, &got, &err), 0);
		assert_same_sample(&want, &got);
		sample_free(&want);
		sample_free(&got);
	}
	rec_reader_close(r);
	/* a schema 1 span of 12 bytes: corrupt */
	exec_sql(path, "UPDATE latency_counts SET buckets = x'010000000000000002000000'"
	               " WHERE domid = 1");
	r = rec_open(path, &err);
	assert_non_null(r);
	struct xio_sample got;
	assert_int_equal(rec_read(r, 2, &got, &err), -1);
	assert_int_equal(err.code, REC_ERR_CORRUPT);
	rec_reader_close(r);
}

/* Samples i of the recording at r against synthetic(i) (or want_fn's), each i in order[],
 * and the intervals every format prints between each two in a row. */
static void assert_reads_synthetic(struct rec_reader *r, const unsigned *order, size_t n,
                                   void (*want_fn)(struct xio_sample *s, unsigned i))
{
	struct xerr err;
	for (size_t k = 0; k < n; k++) {
		unsigned i = order[k];
		struct xio_sample want, got;
		want_fn(&want, i);
		if (rec_read(r, i, &got, &err))
			fail_msg("sample %u: %s", i, err.msg);
		assert_same_sample(&want, &got);
		if (k && order[k - 1] + 1 == i) {
			struct xio_sample want_prev, got_prev;
			want_fn(&want_prev, i - 1);
			assert_int_equal(rec_read(r, i - 1, &got_prev, &err), 0);
			for (int f = BATCH_TEXT; f <= BATCH_JSON; f++) {
				char *a = printed(&want_prev, &want, f);
				char *b = printed(&got_prev, &got, f);
				assert_string_equal(b, a);
				free(a);
				free(b);
			}
			sample_free(&want_prev);
			sample_free(&got_prev);
		}
		sample_free(&want);
		sample_free(&got);
	}
}

/* A schema 2 file, made by the last writer of schema 2 (the fixture), reads to the very
 * samples it was made of (but for the arrays it did not keep), and to the same intervals
 * in every format; so does its untimed-latency sibling. */
static void test_schema_2_file(void **state)
{
	(void)state;
	const char *path = path_of("v2.xiotop");
	schema2_recording(path, "schema2_synthetic");
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	assert_int_equal(rec_schema_version(r), 2);
	assert_int_equal(rec_count(r), 8);
	const unsigned order[] = {0, 1, 2, 3, 4, 5, 6, 7, 3, 2, 0};
	assert_reads_synthetic(r, order, sizeof(order) / sizeof(*order), synthetic_no_arrays);
	rec_reader_close(r);
	path = path_of("v2_untimed.xiotop");
	schema2_recording(path, "schema2_untimed");
	r = rec_open(path, &err);
	assert_non_null(r);
	assert_int_equal(rec_count(r), 3);
	const unsigned order3[] = {0, 1, 2};
	assert_reads_synthetic(r, order3, 3, synthetic_untimed_no_arrays);
	rec_reader_close(r);
}

/* A schema 3 file, made by the last writer of schema 3 (the fixture: 25 samples, keyframes
 * 0, 10 and 20, each other sample's items differences from its keyframe's), reads to the
 * very samples it was made of (but for the arrays it did not keep), in order, backwards
 * and by jumps, and to the same intervals in every format. */
static void test_schema_3_file(void **state)
{
	(void)state;
	const char *path = path_of("v3.xiotop");
	schema2_recording(path, "schema3_synthetic");
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	assert_int_equal(rec_schema_version(r), 3);
	assert_int_equal(rec_count(r), 25);
	unsigned order[25 + 25 + 6];
	size_t n = 0;
	for (unsigned i = 0; i < 25; i++)
		order[n++] = i;
	for (unsigned i = 25; i-- > 0;)
		order[n++] = i;
	const unsigned jumps[] = {11, 2, 24, 9, 20, 19};
	for (size_t j = 0; j < sizeof(jumps) / sizeof(*jumps); j++)
		order[n++] = jumps[j];
	assert_reads_synthetic(r, order, n, synthetic_no_arrays);
	rec_reader_close(r);
}

/* Schema 4: every REC_KEYFRAME_EVERY-th sample is coded against nothing, every other
 * against the sample before it (`base` = idx - 1); a sample reads the same in order,
 * backwards and by jumps across keyframes, and items new since the sample before
 * (loop1 from sample 2, a vbd made again at 4) or gone (domain 3 after 4) are whole. */
static void test_keyframes(void **state)
{
	(void)state;
	const char *path = path_of("keyframes.xiotop");
	enum { K = REC_KEYFRAME_EVERY, N = 2 * K + 5 };
	write_recording(path, N);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT count(*), sum(base IS NULL),"
	                                    " sum(base IS NULL AND idx % ?1 = 0),"
	                                    " sum(base IS NOT NULL AND base = idx - 1)"
	                                    " FROM samples",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	sqlite3_bind_int(st, 1, K);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), N);
	assert_int_equal(sqlite3_column_int(st, 1), 3); /* samples 0, K, 2 K */
	assert_int_equal(sqlite3_column_int(st, 2), 3);
	assert_int_equal(sqlite3_column_int(st, 3), N - 3);
	sqlite3_finalize(st);
	sqlite3_close(db);
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	unsigned order[2 * N + 8];
	size_t n = 0;
	for (unsigned i = 0; i < N; i++)
		order[n++] = i;
	for (unsigned i = N; i-- > 0;)
		order[n++] = i;
	const unsigned jumps[] = {K + 1, 2, N - 1, K - 1, 2 * K, 2 * K - 1, K, 0};
	for (size_t j = 0; j < sizeof(jumps) / sizeof(*jumps); j++)
		order[n++] = jumps[j];
	assert_reads_synthetic(r, order, n, synthetic);
	rec_reader_close(r);
}

/* Sample `sample`'s rows replaced by one holding code[0, len) compressed. */
static void set_code(const char *path, unsigned sample, const void *code, size_t len)
{
	unsigned char z[1024];
	uLongf zlen = sizeof(z);
	assert_int_equal(compress2(z, &zlen, code, (uLong)len, 6), Z_OK);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	char sql[160];
	snprintf(sql, sizeof(sql), "DELETE FROM sample_items WHERE slot >> 16 = %u", sample);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(db, "INSERT INTO sample_items VALUES (?, ?)", -1, &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_int64(st, 1, (sqlite3_int64)sample << 16);
	sqlite3_bind_blob(st, 2, z, (int)zlen, SQLITE_TRANSIENT);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* Schema 4: a sample whose code does not decode whole is corrupt, said so, and the
 * samples before it still read. The rows and chain of sample 2 damaged by SQL, and the
 * code of keyframe 0 replaced by ones made by hand: each kind's section (layers, domain
 * counters, disks, vbds, histograms, the host) is its key list (n + 1, then the keys'
 * zigzag differences), a bit per item, then the changed items' heads, then their values. */
static void test_chain_bad(void **state)
{
	(void)state;
	const char *sql_bad[] = {
	    "UPDATE sample_items SET items = x'ff' WHERE slot = 2 << 16", /* zlib refuses */
	    "UPDATE sample_items SET items = x'' WHERE slot = 2 << 16",   /* an empty row */
	    "DELETE FROM sample_items WHERE slot >> 16 = 2",              /* no row */
	    /* a keyframe that is not one (its code names its base's lists), bases that are not
	     * the sample before */
	    "UPDATE samples SET base = NULL WHERE idx = 2",
	    "UPDATE samples SET base = 0 WHERE idx = 2",
	    "UPDATE samples SET base = 5 WHERE idx = 2",
	};
	for (size_t i = 0; i < sizeof(sql_bad) / sizeof(*sql_bad); i++) {
		const char *path = path_of("badchain.xiotop");
		unlink(path);
		write_recording(path, 4);
		struct xerr err;
		struct rec_reader *r = open_after_sql(path, sql_bad[i], &err);
		struct xio_sample got;
		if (rec_read(r, 2, &got, &err) != -1)
			fail_msg("%s: sample 2 read", sql_bad[i]);
		assert_int_equal(err.code, REC_ERR_CORRUPT);
		assert_non_null(strstr(err.msg, "sample 2 is incomplete"));
		assert_int_equal(rec_read(r, 1, &got, &err), 0);
		sample_free(&got);
		rec_reader_close(r);
	}
	static const struct {
		const char *why;
		unsigned char code[20];
		size_t len;
	} bad[] = {
	    {"a kind missing", {1, 1, 1, 1, 1}, 5},
	    {"a byte left over", {1, 1, 1, 1, 1, 2, 0, 0, 0}, 9},
	    {"no host item", {1, 1, 1, 1, 1, 1}, 6},
	    {"a keyframe naming its base's list", {0, 1, 1, 1, 1, 2, 0, 0}, 8},
	    {"a list longer than the code", {0x7f, 1, 1, 1, 1, 2, 0, 0}, 8},
	    /* layer key 1: its item changes nothing, then a field past its 4 */
	    {"an item changing nothing", {2, 2, 1, 0x03, 1, 1, 1, 1, 2, 0, 0}, 11},
	    {"a field not of the kind", {2, 2, 1, 0x40, 5, 1, 1, 1, 1, 2, 0, 0}, 12},
	    {"a bit past the last item", {2, 2, 3, 0x04, 5, 1, 1, 1, 1, 2, 0, 0}, 12},
	    /* domain 1's write histogram (key 3: zigzag 6): its buckets from 30 over 5, over 0,
	     * a head of no part, of an unknown one */
	    {"a span past the last bucket",
	     {1, 1, 1, 1, 2, 6, 1, 8, 30, 5, 1, 1, 1, 1, 1, 2, 0, 0},
	     18},
	    {"an empty span", {1, 1, 1, 1, 2, 6, 1, 8, 27, 0, 2, 0, 0}, 13},
	    {"a histogram changing nothing", {1, 1, 1, 1, 2, 6, 1, 0, 2, 0, 0}, 11},
	    {"a histogram part unknown", {1, 1, 1, 1, 2, 6, 1, 16, 1, 2, 0, 0}, 12},
	    {"a host item of key 1", {1, 1, 1, 1, 1, 2, 2, 0}, 8},
	};
	/* the same made whole reads: one layer of key 1 with 5 bytes read, a histogram of 3
	 * requests in bucket 10, the host's monotonic clock at 7 */
	const unsigned char good[] = {2, 2, 1, 0x04, 5, 1, 1, 1, 2,    6,
	                              1, 8, 7, 1,    3, 2, 0, 1, 0x04, 7};
	for (size_t i = 0; i <= sizeof(bad) / sizeof(*bad); i++) {
		const char *path = path_of("badcode.xiotop");
		unlink(path);
		write_recording(path, 4);
		bool whole = i == sizeof(bad) / sizeof(*bad);
		if (whole)
			set_code(path, 0, good, sizeof(good));
		else
			set_code(path, 0, bad[i].code, bad[i].len);
		struct xerr err;
		struct rec_reader *r = rec_open(path, &err);
		assert_non_null(r);
		struct xio_sample got;
		int rc = rec_read(r, 0, &got, &err);
		if (whole) {
			if (rc)
				fail_msg("made whole: %s", err.msg);
			assert_int_equal(got.n_layers, 1);
			assert_int_equal(got.layers[0].io.rd_bytes, 5);
			assert_int_equal(got.n_latency, 0); /* sample 0 is not timed */
			assert_int_equal(got.monotonic_ns, 7);
			sample_free(&got);
		} else {
			if (rc != -1)
				fail_msg("%s: sample 0 read", bad[i].why);
			assert_int_equal(err.code, REC_ERR_CORRUPT);
			assert_non_null(strstr(err.msg, "sample 0 is incomplete"));
		}
		rec_reader_close(r);
	}
}

/* Schema 3 (the fixture): a packed row that does not decode whole makes its sample
 * corrupt, said so. */
static void test_packed_bad(void **state)
{
	(void)state;
	const char *bad[] = {
	    /* a varint cut short, one over 64 bits */
	    "UPDATE sample_items SET items = x'ff' WHERE slot = 2 << 16",
	    "UPDATE sample_items SET items = x'ffffffffffffffffff02' WHERE slot = 2 << 16",
	    /* an item of no kind (7), of kind 0, an empty row */
	    "UPDATE sample_items SET items = x'0e00000000' WHERE slot = 2 << 16",
	    "UPDATE sample_items SET items = x'1000000000' WHERE slot = 2 << 16",
	    "UPDATE sample_items SET items = x'' WHERE slot = 2 << 16",
	    /* domain 1's write histogram (key 3, kind 5: head 0x3a), its span from bucket 30 over
	     * 5 buckets, then over 0 buckets from 32 */
	    "UPDATE sample_items SET items = x'3a0000001e050101010101' WHERE slot = 2 << 16",
	    "UPDATE sample_items SET items = x'3a0000002000' WHERE slot = 2 << 16",
	    /* a layer (kind 1) whose key is no layer key */
	    "UPDATE sample_items SET items = x'820300000000' WHERE slot = 2 << 16",
	    /* differences read as whole (no keyframe), a keyframe that is not one, one after
	     * the sample */
	    "UPDATE samples SET base = NULL WHERE idx = 2",
	    "UPDATE samples SET base = 1 WHERE idx = 2",
	    "UPDATE samples SET base = 2 WHERE idx = 2",
	    "UPDATE samples SET base = 5 WHERE idx = 2",
	    /* its keyframe's row damaged */
	    "UPDATE sample_items SET items = x'ff' WHERE slot = 0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = path_of("badpack.xiotop");
		schema2_recording(path, "schema3_synthetic");
		struct xerr err;
		struct rec_reader *r = open_after_sql(path, bad[i], &err);
		struct xio_sample got;
		if (rec_read(r, 2, &got, &err) != -1)
			fail_msg("%s: sample 2 read", bad[i]);
		assert_int_equal(err.code, REC_ERR_CORRUPT);
		assert_non_null(strstr(err.msg, "sample 2 is incomplete"));
		/* the sample before it still reads, after the failure too */
		assert_int_equal(rec_read(r, 1, &got, &err), i == 12 ? -1 : 0);
		if (i != 12)
			sample_free(&got);
		rec_reader_close(r);
	}
}

/* Topology changes are stored once, not per sample. */
static void test_names_deduplicated(void **state)
{
	(void)state;
	const char *path = path_of("dedup.xiotop");
	write_recording(path, 8);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	/* 4 devices (zram3 twice: made a member at 3), domains 1, 2 (twice: renamed) and 3
	 * (closed after sample 4) */
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT (SELECT count(*) FROM devices),"
	                                    " (SELECT count(*) FROM domains),"
	                                    " (SELECT last_sample FROM domains WHERE domid = 3),"
	                                    " (SELECT count(*) FROM hook_sets),"
	                                    " (SELECT count(*) FROM layer_keys)",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 5);
	assert_int_equal(sqlite3_column_int(st, 1), 4);
	assert_int_equal(sqlite3_column_int(st, 2), 4);
	assert_int_equal(sqlite3_column_int(st, 3), 2);
	assert_int_equal(sqlite3_column_int(st, 4), 6);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void test_marks_and_windows(void **state)
{
	(void)state;
	const char *path = path_of("marks.xiotop");
	struct rec_host_facts f = some_facts();
	struct xerr err;
	struct rec_writer *w = rec_create(path, &f, &err);
	assert_non_null(w);
	int64_t t0 = 0;
	for (unsigned i = 0; i < 10; i++) {
		struct xio_sample s;
		synthetic(&s, i);
		if (!i)
			t0 = s.realtime_ns;
		assert_int_equal(rec_append(w, &s, &err), 0);
		sample_free(&s);
		if (i == 2) /* between samples 2 and 3 */
			assert_int_equal(
			    rec_add_mark_from(w, "bench start", t0 + 2500000000, "api", -1, &err),
			    0);
		if (i == 6) /* from another process, while recording: exactly at sample 6 */
			assert_int_equal(
			    rec_mark_file(path, "bench end", t0 + 6000000000, "cli", &err), 0);
	}
	assert_int_equal(rec_add_mark_from(w, "end: dd (exit 3)", t0 + 7200000000, "wrap", 3, &err),
	                 0);
	assert_int_equal(rec_close(w, &err), 0);

	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	assert_int_equal(rec_n_marks(r), 3);
	const struct rec_mark *m = rec_marks(r);
	assert_string_equal(m[0].label, "bench start");
	assert_int_equal(m[0].at_or_after, 3);
	assert_int_equal(m[0].exit_status, -1);
	assert_string_equal(m[1].label, "bench end");
	assert_string_equal(m[1].origin, "cli");
	assert_int_equal(m[1].at_or_after, 6);
	assert_int_equal(m[2].exit_status, 3);
	assert_string_equal(m[2].origin, "wrap");

	size_t first, last;
	assert_int_equal(rec_resolve_window(r, "bench start", "bench end", &first, &last, &err), 0);
	assert_int_equal(first, 2); /* the interval holding the mark is in */
	assert_int_equal(last, 6);
	assert_int_equal(rec_resolve_window(r, NULL, NULL, &first, &last, &err), 0);
	assert_int_equal(first, 0);
	assert_int_equal(last, 9);
	assert_int_equal(rec_resolve_window(r, "+1.5", "2024-05-01T10:40:04Z", &first, &last, &err),
	                 0);
	assert_int_equal(first, 1);
	assert_int_equal(last, 4);
	assert_int_equal(rec_resolve_window(r, "no such mark", NULL, &first, &last, &err), -1);
	assert_int_equal(err.code, REC_ERR_RANGE);
	assert_non_null(strstr(err.msg, "'no such mark' is neither a mark"));
	assert_non_null(strstr(err.msg, "\"bench start\""));
	assert_int_equal(rec_resolve_window(r, "bench end", "bench start", &first, &last, &err),
	                 -1);
	assert_non_null(strstr(err.msg, "no complete interval"));
	rec_reader_close(r);
}

static void expect_open_error(const char *path, enum rec_errcode code, const char *text)
{
	struct xerr err = {0};
	struct rec_reader *r = rec_open(path, &err);
	assert_null(r);
	if (err.code != code || !strstr(err.msg, text))
		fail_msg("%s: got code %d \"%s\", want code %d with \"%s\"", path, err.code,
		         err.msg, code, text);
	assert_non_null(strstr(err.msg, path)); /* the message names the file */
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void test_truncated(void **state)
{
	(void)state;
	const char *path = path_of("cut.xiotop");
	write_recording(path, 40);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size / 2), 0);
	expect_open_error(path, REC_ERR_TRUNCATED, "is truncated");
	assert_int_equal(truncate(path, 60), 0); /* inside the header */
	expect_open_error(path, REC_ERR_TRUNCATED, "is truncated");
	assert_int_equal(truncate(path, 4096 + 100), 0); /* inside a page */
	expect_open_error(path, REC_ERR_TRUNCATED, "is truncated");
}

static void test_garbage(void **state)
{
	(void)state;
	const char *path = path_of("garbage.xiotop");
	char junk[8192];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 7919 % 251);
	write_bytes(path, junk, sizeof(junk));
	expect_open_error(path, REC_ERR_GARBAGE, "not an SQLite database");
	write_bytes(path, "{\"time\":\"2024\"}\n", 16);
	expect_open_error(path, REC_ERR_GARBAGE, "not an SQLite database");
}

static void test_corrupt(void **state)
{
	(void)state;
	const char *path = path_of("corrupt.xiotop");
	write_recording(path, 40);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	/* Scribble over a page in the middle: right length, wrong contents. */
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	char junk[4096];
	memset(junk, 0x5a, sizeof(junk));
	long page = (long)(st.st_size / 4096 / 2);
	assert_true(page >= 2);
	fseek(f, page * 4096, SEEK_SET);
	fwrite(junk, 1, sizeof(junk), f);
	fclose(f);
	expect_open_error(path, REC_ERR_CORRUPT, "is corrupt");
}

static void test_empty(void **state)
{
	(void)state;
	const char *path = path_of("empty.xiotop");
	write_bytes(path, "", 0);
	expect_open_error(path, REC_ERR_EMPTY, "is empty");
	expect_open_error(path_of("missing.xiotop"), REC_ERR_IO, "No such file");
}

static void test_newer_schema(void **state)
{
	(void)state;
	const char *path = path_of("newer.xiotop");
	write_recording(path, 3);
	exec_sql(path, "PRAGMA user_version=7; UPDATE meta SET value='9.9.9' "
	               "WHERE key='xiotop_version'");
	expect_open_error(path, REC_ERR_NEWER, "schema version 7 (by xiotop 9.9.9)");
	struct xerr err;
	assert_null(rec_open(path, &err));
	char want[64];
	snprintf(want, sizeof(want), "reads schema versions up to %d", REC_SCHEMA_VERSION);
	assert_non_null(strstr(err.msg, want));
	/* `xiotop mark` refuses it too: it would write into a schema it does not know */
	assert_int_equal(rec_mark_file(path, "x", 1, "cli", &err), -1);
	assert_int_equal(err.code, REC_ERR_NEWER);
}

static void test_foreign_sqlite(void **state)
{
	(void)state;
	const char *path = path_of("foreign.db");
	exec_sql(path, "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL);"
	               "INSERT INTO invoices VALUES (1, 9.5)");
	expect_open_error(path, REC_ERR_FOREIGN, "an SQLite database but not an xiotop recording");
	expect_open_error(path, REC_ERR_FOREIGN, "tables: invoices");
	struct xerr err;
	assert_int_equal(rec_mark_file(path, "x", 1, "cli", &err), -1);
	assert_int_equal(err.code, REC_ERR_FOREIGN);
}

/* rec_create in a directory it cannot write: as root, the check runs as nobody (root
 * writes anywhere), in a child so the test keeps its identity. */
static void test_read_only_directory(void **state)
{
	(void)state;
	const char *ro = path_of("ro");
	assert_int_equal(mkdir(ro, 0555), 0);
	assert_int_equal(chmod(ro, 0555), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	char file[160];
	snprintf(file, sizeof(file), "%s/session.xiotop", ro);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(3);
		struct xerr err;
		struct rec_writer *w = rec_create(file, NULL, &err);
		if (w)
			_exit(4);
		bool clear = err.code == REC_ERR_IO && strstr(err.msg, "cannot create recording") &&
		             strstr(err.msg, "Permission denied") && strstr(err.msg, file);
		if (!clear)
			fprintf(stderr, "message: %s\n", err.msg);
		_exit(clear ? 0 : 5);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(access(file, F_OK), -1);
	chmod(ro, 0755);
	chmod(dir, 0700);
}

static bool beside(const char *path, const char *suffix)
{
	char side[200];
	snprintf(side, sizeof(side), "%s%s", path, suffix);
	return access(side, F_OK) == 0;
}

/* Readers need no space (issue 45): a closed recording is read without anything made
 * beside it (no -wal, -shm or -journal), also where nothing can be made (a directory its
 * reader may not write, as a read-only or full file system: as root, the reader runs as
 * nobody in a child), for a file of the WAL schemas (1-3: this one made so) as for any. */
static void test_reader_creates_nothing(void **state)
{
	(void)state;
	const char *ro = path_of("readonly");
	assert_int_equal(mkdir(ro, 0755), 0);
	char file[160];
	snprintf(file, sizeof(file), "%s/closed.xiotop", ro);
	write_recording(file, 12);
	exec_sql(file, "PRAGMA journal_mode=WAL"); /* as schemas 1-3 were left */
	assert_false(beside(file, "-wal"));
	assert_int_equal(chmod(file, 0644), 0);
	assert_int_equal(chmod(ro, 0555), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(3);
		struct xerr err;
		struct rec_reader *r = rec_open(file, &err);
		if (!r) {
			fprintf(stderr, "message: %s\n", err.msg);
			_exit(4);
		}
		for (unsigned i = 0; i < 12; i++) {
			struct xio_sample want, got;
			synthetic(&want, i);
			if (rec_read(r, i, &got, &err)) {
				fprintf(stderr, "message: %s\n", err.msg);
				_exit(5);
			}
			assert_same_sample(&want, &got);
			sample_free(&want);
			sample_free(&got);
		}
		rec_reader_close(r);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	chmod(ro, 0755);
	chmod(dir, 0700);
	/* and as the owner, in a directory it may write: nothing made either */
	struct xerr err;
	struct rec_reader *r = rec_open(file, &err);
	assert_non_null(r);
	struct xio_sample got;
	assert_int_equal(rec_read(r, 11, &got, &err), 0);
	sample_free(&got);
	rec_reader_close(r);
	assert_false(beside(file, "-wal"));
	assert_false(beside(file, "-shm"));
	assert_false(beside(file, "-journal"));
}

static void test_never_overwrites(void **state)
{
	(void)state;
	const char *path = path_of("precious.txt");
	write_bytes(path, "keep me\n", 8);
	struct xerr err;
	assert_null(rec_create(path, NULL, &err));
	assert_int_equal(err.code, REC_ERR_EXISTS);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 8);
}

/* Appends synthetic(i) for i from *next on until stop(w, rc, err) says so; the count. */
static unsigned append_until(struct rec_writer *w, unsigned *next,
                             bool (*stop)(struct rec_writer *w, int rc, const struct xerr *err))
{
	unsigned n = 0;
	for (; *next < 100000; (*next)++, n++) {
		struct xio_sample s;
		struct xerr err = {0};
		synthetic(&s, *next);
		int rc = rec_append(w, &s, &err);
		sample_free(&s);
		if (stop(w, rc, &err))
			return n;
	}
	fail_msg("never stopped");
	return n;
}

static bool full_said(struct rec_writer *w, int rc, const struct xerr *err)
{
	(void)err;
	assert_int_equal(rc, 0);
	const struct xerr *why;
	rec_writer_waiting(w, &why);
	return why && why->code == REC_ERR_FULL;
}

static bool not_kept(struct rec_writer *w, int rc, const struct xerr *err)
{
	(void)w;
	if (!rc)
		return false;
	assert_int_equal(err->code, REC_ERR_FULL);
	assert_non_null(strstr(err->msg, "not kept"));
	return true;
}

/* A full disk (here a size limit, which SQLite reports the same way): the commit is
 * rolled back and the samples wait, the writer open, rec_writer_waiting saying why;
 * past the wait limit a sample is not kept (REC_ERR_FULL, said); once there is room every
 * sample kept is committed, none lost, and the sample after the one not kept reads whole
 * (coded against the last kept). */
static void test_disk_full(void **state)
{
	(void)state;
	const char *path = path_of("full.xiotop");
	struct xerr err;
	struct rec_writer *w = rec_create(path, NULL, &err);
	assert_non_null(w);
	rec_set_commit_rule(w, 0, 0, 16 * 1024); /* a commit at every sample */
	assert_int_equal(rec_set_size_limit(w, 64 * 1024, &err), 0);
	unsigned next = 0;
	append_until(w, &next, full_said);
	const struct xerr *why;
	size_t waiting = rec_writer_waiting(w, &why);
	assert_int_equal(waiting, 1);
	assert_non_null(strstr(why->msg, "disk full"));
	assert_non_null(strstr(why->msg, path));
	unsigned committed = next; /* samples 0 .. next - 1 */
	assert_true(committed > 2);
	next++;
	append_until(w, &next, not_kept); /* sample `next` was not kept */
	unsigned lost = next++;
	assert_true(rec_writer_waiting(w, NULL) > 1);
	/* a mark waits too */
	assert_int_equal(rec_add_mark_from(w, "while full", 5, "api", -1, &err), 0);
	assert_int_equal(rec_set_size_limit(w, 64 * 1024 * 1024, &err), 0);
	for (unsigned k = 0; k < 3; k++, next++) {
		struct xio_sample s;
		synthetic(&s, next);
		assert_int_equal(rec_append(w, &s, &err), 0);
		sample_free(&s);
	}
	assert_int_equal(rec_writer_waiting(w, &why), 0);
	assert_null(why);
	assert_int_equal(rec_close(w, &err), 0);

	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	assert_int_equal(rec_count(r), next - 1);
	assert_int_equal(rec_n_marks(r), 1);
	for (unsigned i = 0; i + 1 < next; i++) {
		struct xio_sample want, got;
		synthetic(&want, i < lost ? i : i + 1);
		want.realtime_ns = rec_time(r, i); /* as synthetic(i + 1) after the lost one */
		if (rec_read(r, i, &got, &err))
			fail_msg("sample %u: %s", i, err.msg);
		assert_same_sample(&want, &got);
		sample_free(&want);
		sample_free(&got);
	}
	rec_reader_close(r);
	print_message("%u samples committed before the disk was full, sample %u not kept, "
	              "%u in all\n",
	              committed, lost, next - 1);
}

/* A recorder killed with -9: every committed sample is there, whole; what waited for its
 * commit is lost (the commit rule's promise, record.h), and no reader saw it before. */
static void test_killed_writer(void **state)
{
	(void)state;
	const char *path = path_of("killed.xiotop");
	int pipefd[2];
	assert_int_equal(pipe(pipefd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct xerr err;
		struct rec_writer *w = rec_create(path, NULL, &err);
		for (unsigned i = 0; w && i < 7; i++) {
			struct xio_sample s;
			synthetic(&s, i);
			if (rec_append(w, &s, &err) || (i == 4 && rec_flush(w, &err)))
				_exit(1);
			sample_free(&s);
		}
		if (write(pipefd[1], "k", 1) != 1)
			_exit(1);
		pause(); /* killed here, samples 5 and 6 waiting */
		_exit(1);
	}
	char c;
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	if (!r)
		fail_msg("%s", err.msg);
	assert_int_equal(rec_count(r), 5); /* a reader sees what was committed */
	rec_reader_close(r);
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	close(pipefd[0]);
	close(pipefd[1]);
	r = rec_open(path, &err);
	if (!r)
		fail_msg("%s", err.msg);
	assert_int_equal(rec_count(r), 5);
	struct xio_sample want, got;
	synthetic(&want, 4);
	assert_int_equal(rec_read(r, 4, &got, &err), 0);
	assert_same_sample(&want, &got);
	sample_free(&want);
	sample_free(&got);
	rec_reader_close(r);
}

static void put_file(const char *root, const char *rel, const char *text)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	write_bytes(p, text, strlen(text));
}

static void test_host_facts(void **state)
{
	(void)state;
	const char *root = path_of("proc");
	char sub[256];
	assert_int_equal(mkdir(root, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/sys", root);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/sys/kernel", root);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/sys/vm", root);
	assert_int_equal(mkdir(sub, 0755), 0);
	put_file(root, "sys/kernel/osrelease", "6.1.0-18-amd64\n");
	put_file(root, "sys/kernel/hostname", "dom0-lab\n");
	put_file(root, "sys/vm/dirty_ratio", "20\n");
	put_file(root, "sys/vm/dirty_background_bytes", "0\n");
	put_file(root, "meminfo", "MemTotal:        4019436 kB\nMemFree: 1 kB\n");
	put_file(root, "stat", "cpu  1 2 3\ncpu0 1 2 3\ncpu1 1 2 3\nintr 5\n");
	struct rec_host_facts f;
	rec_host_facts_read(root, &f);
	assert_string_equal(f.kernel_release, "6.1.0-18-amd64");
	assert_string_equal(f.hostname, "dom0-lab");
	assert_int_equal(f.cpu_count, 2);
	assert_int_equal(f.mem_total_kb, 4019436);
	assert_string_equal(f.dirty[0].name, "vm.dirty_ratio");
	assert_string_equal(f.dirty[0].value, "20");
	assert_string_equal(f.dirty[3].name, "vm.dirty_background_bytes");
	assert_string_equal(f.dirty[3].value, "0");
	assert_string_equal(f.dirty[1].value, ""); /* unknown */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_vbds_without_skew_columns),
	    cmocka_unit_test(test_latency_old_and_bad),
	    cmocka_unit_test(test_latency_schema_1),
	    cmocka_unit_test(test_latency_untimed),
	    cmocka_unit_test(test_schema_2_file),
	    cmocka_unit_test(test_schema_3_file),
	    cmocka_unit_test(test_keyframes),
	    cmocka_unit_test(test_packed_bad),
	    cmocka_unit_test(test_chain_bad),
	    cmocka_unit_test(test_cpu_times_old_file),
	    cmocka_unit_test(test_names_deduplicated),
	    cmocka_unit_test(test_marks_and_windows),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_garbage),
	    cmocka_unit_test(test_corrupt),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_newer_schema),
	    cmocka_unit_test(test_foreign_sqlite),
	    cmocka_unit_test(test_read_only_directory),
	    cmocka_unit_test(test_reader_creates_nothing),
	    cmocka_unit_test(test_never_overwrites),
	    cmocka_unit_test(test_disk_full),
	    cmocka_unit_test(test_killed_writer),
	    cmocka_unit_test(test_host_facts),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
