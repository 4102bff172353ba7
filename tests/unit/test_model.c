/* test_model.c - per-domain figures from synthetic cumulative samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/model.h"

#define MiB     (1024ull * 1024)
#define LOOP0   ((7u << 20) | 0)
#define LOOP1   ((7u << 20) | 1)
#define LOOP1P1 ((259u << 20) | 5)
#define VDA     ((254u << 20) | 0)
#define ZRAM3   ((252u << 20) | 3)
#define DM3     ((253u << 20) | 3)
#define SDA     ((8u << 20) | 0)

static void add_layer(struct xio_sample *s, uint32_t domid, uint32_t dev, uint32_t via, uint64_t wr,
                      uint64_t rd)
{
	struct xio_layer l = {.domid = domid, .dev = dev, .via = via};
	l.io.wr_bytes = wr;
	l.io.rd_bytes = rd;
	l.io.wr_ios = wr / MiB;
	l.io.rd_ios = rd / MiB;
	assert_int_equal(sample_add_layer(s, &l), 0);
}

static void add_dev(struct xio_sample *s, uint32_t dev, const char *name, bool leaf)
{
	struct xio_dev d = {.dev = dev, .is_leaf = leaf};
	strcpy(d.name, name);
	assert_int_equal(sample_add_dev(s, &d), 0);
}

static void add_domain(struct xio_sample *s, uint32_t domid, const char *name)
{
	struct xio_domain d = {.domid = domid};
	strcpy(d.name, name);
	strcpy(d.kind, "vbd");
	assert_int_equal(sample_add_domain(s, &d), 0);
}

/* The three domains of the live test, after 256 MiB written each. */
static void three_domains(struct xio_sample *s, uint64_t scale)
{
	memset(s, 0, sizeof(*s));
	add_dev(s, LOOP0, "loop0", false);
	add_dev(s, LOOP1, "loop1", false);
	add_dev(s, LOOP1P1, "loop1p1", false);
	add_dev(s, VDA, "vda", true);
	add_dev(s, ZRAM3, "zram3", true);
	add_domain(s, 1, "guest1");
	add_domain(s, 2, "guest2");
	add_domain(s, 3, "guest3");
	add_layer(s, 1, LOOP0, XIOTOP_VIA_DEV, 256 * MiB * scale, 64 * MiB * scale);
	add_layer(s, 1, VDA, XIOTOP_VIA_INODE, 256 * MiB * scale, 0);
	add_layer(s, 2, LOOP1P1, XIOTOP_VIA_DEV, 256 * MiB * scale, 0);
	add_layer(s, 2, LOOP1, XIOTOP_VIA_PART, 256 * MiB * scale, 0);
	add_layer(s, 2, VDA, XIOTOP_VIA_LOOPWORK, 256 * MiB * scale, 0);
	add_layer(s, 3, ZRAM3, XIOTOP_VIA_DEV, 256 * MiB * scale, 0);
	add_layer(s, XIOTOP_DOM_NONE, VDA, XIOTOP_VIA_NONE, 1 * MiB * scale, 0);
	s->vmstat_pgpgout_kb = (5 * 256 + 1) * 1024 * scale;
	s->monotonic_ns = 1000000000ull * scale;
}

static const struct model_domain *dom(const struct model_interval *m, uint32_t domid)
{
	for (size_t i = 0; i < m->n_domains; i++)
		if (m->domains[i].domid == domid)
			return &m->domains[i];
	fail_msg("domain %u missing", domid);
	return NULL;
}

static void test_figures_and_identity(void **state)
{
	(void)state;
	struct xio_sample prev, cur;
	three_domains(&prev, 1);
	three_domains(&cur, 2);
	struct model_interval m;
	assert_int_equal(model_compute(&prev, &cur, &m), 0);
	assert_true(m.interval_s > 0.99 && m.interval_s < 1.01);

	const struct model_domain *d1 = dom(&m, 1), *d2 = dom(&m, 2), *d3 = dom(&m, 3);
	assert_int_equal(d1->io.guest_wr_bytes, 256 * MiB);
	assert_int_equal(d1->io.guest_rd_bytes, 64 * MiB);
	assert_int_equal(d1->io.phys_wr_bytes, 256 * MiB);
	assert_int_equal(d1->io.double_counted_bytes, 256 * MiB);
	/* partition: whole loop disk is the same bio, not a second vmstat count */
	assert_int_equal(d2->io.guest_wr_bytes, 256 * MiB);
	assert_int_equal(d2->io.phys_wr_bytes, 256 * MiB);
	assert_int_equal(d2->io.double_counted_bytes, 256 * MiB);
	assert_int_equal(d3->io.phys_wr_bytes, 256 * MiB);
	assert_int_equal(d3->io.double_counted_bytes, 0);
	assert_int_equal(m.unattr_wr_bytes, 1 * MiB);

	uint64_t explained = m.unattr_wr_bytes;
	for (size_t i = 0; i < m.n_domains; i++)
		explained += m.domains[i].io.phys_wr_bytes + m.domains[i].io.double_counted_bytes;
	assert_int_equal(explained, m.pgpgout_bytes);

	/* layers: backend first, then stacked, file, leaf */
	assert_int_equal(d2->n_layers, 4);
	assert_int_equal(d2->layers[0].role, ROLE_BACKEND);
	assert_string_equal(d2->layers[0].name, "loop1p1");
	assert_int_equal(d2->layers[1].role, ROLE_STACKED);
	assert_int_equal(d2->layers[2].role, ROLE_FILE);
	assert_int_equal(d2->layers[3].role, ROLE_LEAF);
	assert_int_equal(d3->n_layers, 1);
	assert_true(d3->layers[0].is_leaf);
	model_free(&m);
	sample_free(&prev);
	sample_free(&cur);
}

/* dm clone (REMAP) reaches the leaf but is not counted by vmstat: no double count. */
static void test_dm_not_double_counted(void **state)
{
	(void)state;
	struct xio_sample cur = {0};
	add_dev(&cur, DM3, "dm-3", false);
	add_dev(&cur, SDA, "sda", true);
	add_domain(&cur, 6, "lvm-guest");
	add_layer(&cur, 6, DM3, XIOTOP_VIA_DEV, 100 * MiB, 0);
	add_layer(&cur, 6, SDA, XIOTOP_VIA_REMAP, 100 * MiB, 0);
	struct model_interval m;
	assert_int_equal(model_compute(NULL, &cur, &m), 0);
	assert_int_equal(m.domains[0].io.phys_wr_bytes, 100 * MiB);
	assert_int_equal(m.domains[0].io.double_counted_bytes, 0);
	assert_int_equal(m.domains[0].layers[1].role, ROLE_LEAF);
	model_free(&m);
	sample_free(&cur);
}

/* A leaf with the tracer's bytes but an idle diskstats line (brd keeps none) makes the
 * disks' totals unknown and is named; a leaf whose diskstats moved, or a trickle below
 * 1 MiB (a request across the interval's end), does not. */
static void disk_sample(struct xio_sample *s, uint64_t ram_wr, uint64_t zram_wr, uint64_t zram_disk)
{
	memset(s, 0, sizeof(*s));
	add_dev(s, ZRAM3, "zram3", true);
	add_dev(s, VDA, "ram0", true);
	add_domain(s, 1, "guest1");
	add_layer(s, 1, ZRAM3, XIOTOP_VIA_DEV, zram_wr, 0);
	add_layer(s, 2, VDA, XIOTOP_VIA_DEV, ram_wr, 0);
	struct xio_disk z = {.dev = ZRAM3, .wr_bytes = zram_disk}, r = {.dev = VDA};
	strcpy(z.name, "zram3");
	strcpy(r.name, "ram0");
	assert_int_equal(sample_add_disk(s, &z), 0);
	assert_int_equal(sample_add_disk(s, &r), 0);
	s->monotonic_ns = 1000000000ull + zram_wr;
}

static void test_unaccounted_leaf(void **state)
{
	(void)state;
	struct xio_sample prev, cur;
	struct model_interval m;
	struct model_host_totals t;
	disk_sample(&prev, 0, 0, 0);
	disk_sample(&cur, 8 * MiB, 4 * MiB, 4 * MiB);
	assert_int_equal(model_compute(&prev, &cur, &m), 0);
	model_host_totals(&m, &t);
	assert_false(t.disks_complete);
	assert_int_equal(m.n_unaccounted_leaves, 1);
	assert_string_equal(m.unaccounted_leaf, "ram0");
	model_free(&m);
	sample_free(&cur);
	disk_sample(&cur, MiB / 2, 4 * MiB, 4 * MiB); /* below 1 MiB: timing, not a verdict */
	assert_int_equal(model_compute(&prev, &cur, &m), 0);
	model_host_totals(&m, &t);
	assert_true(t.disks_complete);
	assert_int_equal(t.disk_wr_bytes, 4 * MiB);
	model_free(&m);
	sample_free(&prev);
	sample_free(&cur);
}

/* Counters that go backwards (tracer restarted) count from zero, never wrap. */
static void test_counter_reset(void **state)
{
	(void)state;
	struct xio_sample prev, cur;
	three_domains(&prev, 3);
	three_domains(&cur, 1);
	struct model_interval m;
	assert_int_equal(model_compute(&prev, &cur, &m), 0);
	assert_int_equal(dom(&m, 1)->io.guest_wr_bytes, 256 * MiB);
	model_free(&m);
	sample_free(&prev);
	sample_free(&cur);
}

/* A domain only seen in counters (blkback thread, no dump) still gets a row. */
static void test_unknown_domain_listed(void **state)
{
	(void)state;
	struct xio_sample cur = {0};
	add_dev(&cur, ZRAM3, "zram3", true);
	add_layer(&cur, 9, ZRAM3, XIOTOP_VIA_TASK, 5 * MiB, 0);
	struct model_interval m;
	assert_int_equal(model_compute(NULL, &cur, &m), 0);
	assert_int_equal(m.n_domains, 1);
	assert_int_equal(m.domains[0].domid, 9);
	assert_null(m.domains[0].info);
	assert_int_equal(m.domains[0].io.guest_wr_bytes, 5 * MiB);
	model_free(&m);
	sample_free(&cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_figures_and_identity),
	    cmocka_unit_test(test_dm_not_double_counted),
	    cmocka_unit_test(test_counter_reset),
	    cmocka_unit_test(test_unknown_domain_listed),
	    cmocka_unit_test(test_unaccounted_leaf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
