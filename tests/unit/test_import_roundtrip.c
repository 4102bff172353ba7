/* test_import_roundtrip.c - a recording of synthetic samples, written out by the test
 * helpers' writer (tests/tools/logs_writer.h, what rec2logs runs on a live recording) as
 * xentop -b -x, vmstat N and iostat -dx N would have shown the same host, imported
 * back: the per-domain VBD bytes, requests and vCPU time, dom0's CPU, vmstat's bytes and
 * every leaf disk's bytes over the whole run are the recording's. Then the imported file
 * is read back as replay and export read it (rec_open, rec_read, model_compute). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/model.h"
#include "import/import_build.h"
#include "record/record.h"
#include "tools/logs_writer.h"

#define N_SAMPLES 6
#define STEP_S    2
#define MiB       (1024ull * 1024)
#define LOOP0     ((7u << 20) | 0)
#define DM0       ((253u << 20) | 0)
#define SDA       ((8u << 20) | 0)

static void add_layer(struct xio_sample *s, uint32_t domid, uint32_t dev, uint32_t via, uint64_t rd,
                      uint64_t wr)
{
	struct xio_layer l = {.domid = domid, .dev = dev, .via = via};
	l.io = (struct xiotop_io){
	    .rd_bytes = rd, .wr_bytes = wr, .rd_ios = rd / 4096, .wr_ios = wr / 65536};
	assert_int_equal(sample_add_layer(s, &l), 0);
}

static void add_domain(struct xio_sample *s, uint32_t domid, const char *name, int64_t cpu_ns)
{
	struct xio_domain d = {.domid = domid, .mem_bytes = 512 * MiB};
	snprintf(d.name, sizeof(d.name), "%s", name);
	assert_int_equal(sample_add_domain(s, &d), 0);
	struct xio_dom_counters c = {.domid = domid, .guest_cpu_ns = cpu_ns};
	assert_int_equal(sample_add_counters(s, &c), 0);
}

static void add_disk(struct xio_sample *s, uint32_t dev, const char *name, uint64_t rd, uint64_t wr)
{
	struct xio_disk d = {.dev = dev, .rd_bytes = rd, .wr_bytes = wr};
	snprintf(d.name, sizeof(d.name), "%s", name);
	assert_int_equal(sample_add_disk(s, &d), 0);
}

/* Sample k of a host: guest-a file-backed (loop0), guest-b on an LV (dm-0, its blkback
 * thread's bios), both writing; sda the only leaf disk; Domain-0 busy 1 s per second. */
static void synthetic(struct xio_sample *s, unsigned k)
{
	memset(s, 0, sizeof(*s));
	s->realtime_ns = 1780000000000000000ll + (int64_t)k * STEP_S * 1000000000ll;
	s->monotonic_ns = 5000000000ull + k * STEP_S * 1000000000ull;
	s->vmstat_pgpgin_kb = 777 + 2048 * k;
	s->vmstat_pgpgout_kb = 999 + 30720 * k;
	s->host_busy_ns = 100000000000ull + k * STEP_S * 1000000000ull;
	s->has_cpu = true;
	s->domains_live = true;
	add_domain(s, 0, "Domain-0", -1);
	add_domain(s, 1, "guest-a", 40000000000ll + k * 3000000000ll);
	add_domain(s, 2, "guest-b", 70000000000ll + k * 1000000000ll);
	add_layer(s, 1, LOOP0, XIOTOP_VIA_DEV, 5 * MiB + k * 2 * MiB, 50 * MiB + k * 16 * MiB);
	add_layer(s, 1, SDA, XIOTOP_VIA_INODE, 0, 40 * MiB + k * 16 * MiB);
	add_layer(s, 2, DM0, XIOTOP_VIA_TASK, 3 * MiB, 9 * MiB + k * 4 * MiB);
	add_layer(s, 2, SDA, XIOTOP_VIA_REMAP, 3 * MiB, 9 * MiB + k * 4 * MiB);
	add_disk(s, SDA, "sda", 7 * MiB + k * 2 * MiB, 60 * MiB + k * 20 * MiB);
}

/* ---- the logs of a recording's samples: tests/tools/logs_writer.h ---- */

static const struct logs_shape shape = {.interval_s = STEP_S, .cpus = 4};

static void export_xentop(FILE *f, const struct xio_sample *s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		assert_int_equal(logs_xentop_block(f, &s[k]), 0);
}

static void export_vmstat(FILE *f, const struct xio_sample *s, size_t n)
{
	logs_vmstat_header(f);
	for (size_t k = 0; k < n; k++)
		logs_vmstat_row(f, k ? &s[k - 1] : NULL, &s[k], &shape);
}

static void export_iostat(FILE *f, const struct xio_sample *s, size_t n)
{
	logs_iostat_banner(f, &shape);
	for (size_t k = 0; k < n; k++)
		logs_iostat_report(f, k ? &s[k - 1] : NULL, &s[k], &shape);
}

/* ---- the test ---- */

static char *text_of(void (*put)(FILE *, const struct xio_sample *, size_t),
                     const struct xio_sample *s, size_t n, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	put(f, s, n);
	fclose(f);
	return buf;
}

static void read_all(const char *path, struct xio_sample *out, size_t n)
{
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	assert_int_equal(rec_count(r), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rec_read(r, i, &out[i], &err), 0);
	rec_reader_close(r);
}

static const struct model_domain *domain_in(const struct model_interval *m, uint32_t domid)
{
	for (size_t i = 0; i < m->n_domains; i++)
		if (m->domains[i].domid == domid)
			return &m->domains[i];
	fail_msg("domain %u missing", domid);
	return NULL;
}

static void same_totals(const struct xio_sample *want, const struct xio_sample *got, size_t n)
{
	struct model_interval a, b;
	assert_int_equal(model_compute(&want[0], &want[n - 1], &a), 0);
	assert_int_equal(model_compute(&got[0], &got[n - 1], &b), 0);
	for (uint32_t domid = 1; domid <= 2; domid++) {
		const struct model_domain *x = domain_in(&a, domid), *y = domain_in(&b, domid);
		assert_int_equal(x->io.guest_rd_bytes, y->io.guest_rd_bytes);
		assert_int_equal(x->io.guest_wr_bytes, y->io.guest_wr_bytes);
		assert_int_equal(x->io.guest_rd_ios, y->io.guest_rd_ios);
		assert_int_equal(x->io.guest_wr_ios, y->io.guest_wr_ios);
		assert_int_equal(x->guest_cpu_ns, y->guest_cpu_ns);
		/* the -x line (no blkback counters recorded: one xvda line of the totals) */
		assert_int_equal(y->n_vbds, 1);
		assert_int_equal(y->vbds[0].devid, 51712);
		assert_int_equal(y->vbds[0].rd_bytes, x->io.guest_rd_bytes);
		assert_int_equal(y->vbds[0].wr_bytes, x->io.guest_wr_bytes);
		assert_int_equal(y->vbds[0].rd_req, x->io.guest_rd_ios);
		assert_int_equal(y->vbds[0].wr_req, x->io.guest_wr_ios);
	}
	assert_int_equal(a.pgpgin_bytes, b.pgpgin_bytes);
	assert_int_equal(a.pgpgout_bytes, b.pgpgout_bytes);
	assert_int_equal(a.host_busy_ns, b.host_busy_ns);
	assert_int_equal(b.n_disks, 1);
	assert_string_equal(b.disks[0].disk->name, "sda");
	assert_int_equal(a.disks[0].rd_bytes, b.disks[0].rd_bytes);
	assert_int_equal(a.disks[0].wr_bytes, b.disks[0].wr_bytes);
	model_free(&a);
	model_free(&b);
}

static void test_round_trip(void **state)
{
	(void)state;
	char dir[] = "xiotop-test-import-XXXXXX", orig[64], back[64];
	assert_non_null(mkdtemp(dir));
	snprintf(orig, sizeof(orig), "%s/orig.xiotop", dir);
	snprintf(back, sizeof(back), "%s/imported.xiotop", dir);
	struct rec_host_facts facts;
	memset(&facts, 0, sizeof(facts));
	struct xerr rerr;
	struct rec_writer *w = rec_create(orig, &facts, &rerr);
	assert_non_null(w);
	struct xio_sample s[N_SAMPLES], rec[N_SAMPLES], imp[N_SAMPLES];
	for (unsigned k = 0; k < N_SAMPLES; k++) {
		synthetic(&s[k], k);
		assert_int_equal(rec_append(w, &s[k], &rerr), 0);
		sample_free(&s[k]);
	}
	assert_int_equal(rec_close(w, &rerr), 0);
	read_all(orig, rec, N_SAMPLES);

	size_t len[3];
	char *text[3] = {text_of(export_xentop, rec, N_SAMPLES, &len[0]),
	                 text_of(export_vmstat, rec, N_SAMPLES, &len[1]),
	                 text_of(export_iostat, rec, N_SAMPLES, &len[2])};
	struct imp_xentop x;
	struct imp_vmstat v;
	struct imp_iostat io;
	struct xerr err;
	assert_int_equal(imp_xentop_parse("xentop.log", text[0], len[0], &x, &err), 0);
	assert_int_equal(imp_vmstat_parse("vmstat.log", text[1], len[1], &v, &err), 0);
	assert_int_equal(imp_iostat_parse("iostat.log", text[2], len[2], &io, &err), 0);
	struct imp_logs in = {.xentop = &x,
	                      .vmstat = &v,
	                      .iostat = &io,
	                      .interval_s = STEP_S,
	                      .has_start = true,
	                      .start_ns = rec[0].realtime_ns};
	struct imp_result r;
	assert_int_equal(imp_build(&in, &r, &err), 0);
	assert_int_equal(r.n, N_SAMPLES);
	assert_int_equal(imp_write(back, &r, &rerr), 0);
	imp_result_free(&r);
	read_all(back, imp, N_SAMPLES);
	same_totals(rec, imp, N_SAMPLES);
	assert_int_equal(imp[N_SAMPLES - 1].realtime_ns, rec[N_SAMPLES - 1].realtime_ns);

	struct rec_reader *rd = rec_open(back, &rerr);
	assert_non_null(rd);
	assert_string_equal(rec_meta(rd, "source"), "import");
	assert_string_equal(rec_meta(rd, "imported_counters"),
	                    "xentop_cpu,xentop_vbd,xentop_vbd_lines,vmstat_bo,vmstat_cpu,"
	                    "iostat_disks");
	assert_string_equal(rec_meta(rd, "cpu_count"), "4");
	rec_reader_close(rd);
	for (size_t k = 0; k < N_SAMPLES; k++) {
		sample_free(&rec[k]);
		sample_free(&imp[k]);
	}
	for (int i = 0; i < 3; i++)
		free(text[i]);
	imp_xentop_free(&x);
	imp_vmstat_free(&v);
	imp_iostat_free(&io);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_trip)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
