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
#define MD0     ((9u << 20) | 0)
#define ZRAM0   ((252u << 20) | 0)
#define ZRAM1   ((252u << 20) | 1)

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

static void add_array_dev(struct xio_sample *s, uint32_t dev, const char *name, bool leaf,
                          uint8_t array)
{
	struct xio_dev d = {.dev = dev, .is_leaf = leaf, .array = array};
	strcpy(d.name, name);
	assert_int_equal(sample_add_dev(s, &d), 0);
}

static void add_kind_domain(struct xio_sample *s, uint32_t domid, const char *name,
                            const char *kind)
{
	struct xio_domain d = {.domid = domid};
	strcpy(d.name, name);
	strcpy(d.kind, kind);
	assert_int_equal(sample_add_domain(s, &d), 0);
}

static void add_domain(struct xio_sample *s, uint32_t domid, const char *name)
{
	add_kind_domain(s, domid, name, "vbd");
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

	/* pgpgout is every domain's counted bytes and dom0's own */
	uint64_t explained = m.unattr_wr_bytes;
	for (size_t i = 0; i < m.n_domains; i++)
		explained += m.domains[i].io.vmstat_wr_bytes;
	assert_int_equal(explained, m.pgpgout_bytes);
	assert_int_equal(d1->io.vmstat_wr_bytes, 512 * MiB);
	assert_int_equal(d3->io.vmstat_wr_bytes, 256 * MiB);

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

/* The kernel's second count is what loop submitted below it, not vmstat less the disks:
 * a guest that rewrites its file in dom0's cache (300 MiB at loop0, 200 MiB written back)
 * was counted a second time for 200 MiB (the old rule, vmstat less the physical bytes,
 * said 300). */
static void test_overwritten_in_cache(void **state)
{
	(void)state;
	struct xio_sample cur = {0};
	add_dev(&cur, LOOP0, "loop0", false);
	add_dev(&cur, VDA, "vda", true);
	add_domain(&cur, 1, "rewriter");
	add_layer(&cur, 1, LOOP0, XIOTOP_VIA_DEV, 300 * MiB, 0);
	add_layer(&cur, 1, VDA, XIOTOP_VIA_INODE, 200 * MiB, 0);
	struct model_interval m;
	assert_int_equal(model_compute(NULL, &cur, &m), 0);
	const struct model_domain *d = dom(&m, 1);
	assert_int_equal(d->io.vmstat_wr_bytes, 500 * MiB);
	assert_int_equal(d->io.double_counted_bytes, 200 * MiB);
	assert_int_equal(d->io.phys_wr_bytes, 200 * MiB);
	assert_int_equal(d->io.copy_wr_bytes, 0);
	/* an interval of writeback alone: all of it a second count (no loop bytes in it) */
	sample_free(&cur);
	model_free(&m);
	memset(&cur, 0, sizeof(cur));
	add_dev(&cur, VDA, "vda", true);
	add_domain(&cur, 1, "rewriter");
	add_layer(&cur, 1, VDA, XIOTOP_VIA_LOOPWORK, 50 * MiB, 0);
	assert_int_equal(model_compute(NULL, &cur, &m), 0);
	assert_int_equal(dom(&m, 1)->io.double_counted_bytes, 50 * MiB);
	model_free(&m);
	sample_free(&cur);
}

/* A file image on ext4 on md RAID1 (seed 000's stack): md0's own bytes are the second
 * count, its members' clones are counted by nobody (submit_bio_noacct) and are the mirror's
 * copies. Members queued in the next interval (md's plug) change neither the double count
 * nor the copies over the two. */
static void raid1_sample(struct xio_sample *s, uint64_t loop, uint64_t md, uint64_t members)
{
	memset(s, 0, sizeof(*s));
	add_dev(s, LOOP0, "loop0", false);
	add_array_dev(s, MD0, "md0", false, XIO_DEV_ARRAY);
	add_array_dev(s, ZRAM0, "zram0", true, XIO_DEV_MEMBER);
	add_array_dev(s, ZRAM1, "zram1", true, XIO_DEV_MEMBER);
	add_domain(s, 1, "on-raid1");
	add_layer(s, 1, LOOP0, XIOTOP_VIA_DEV, loop, 0);
	add_layer(s, 1, MD0, XIOTOP_VIA_INODE, md, 0);
	add_layer(s, 1, ZRAM0, XIOTOP_VIA_REMAP, members / 2, 0);
	add_layer(s, 1, ZRAM1, XIOTOP_VIA_REMAP, members / 2, 0);
	s->vmstat_pgpgout_kb = (loop + md) / 1024;
	s->monotonic_ns = 1000000000ull + members;
}

static void test_raid1_file_image(void **state)
{
	(void)state;
	struct xio_sample a, b, c;
	raid1_sample(&a, 0, 0, 0);
	raid1_sample(&b, 100 * MiB, 100 * MiB, 150 * MiB);
	raid1_sample(&c, 100 * MiB, 100 * MiB, 200 * MiB);
	struct model_interval m1, m2;
	assert_int_equal(model_compute(&a, &b, &m1), 0);
	assert_int_equal(model_compute(&b, &c, &m2), 0);
	const struct model_domain *d1 = dom(&m1, 1), *d2 = dom(&m2, 1);
	/* the old rule (vmstat 200 less the members 150) said 50 here, and 0 when the copies
	 * fell in the same interval */
	assert_int_equal(d1->io.double_counted_bytes, 100 * MiB);
	assert_int_equal(d2->io.double_counted_bytes, 0);
	assert_int_equal(d1->io.phys_wr_bytes, 150 * MiB);
	struct model_io_sums sum = d1->io;
	model_io_sums_add(&sum, &d2->io);
	assert_int_equal(sum.copy_wr_bytes, 100 * MiB);
	assert_int_equal(model_io_stored_wr(&sum), 100 * MiB);
	assert_int_equal(d1->io.copy_wr_bytes + d2->io.copy_wr_bytes, 100 * MiB);
	assert_int_equal(m1.pgpgout_bytes, d1->io.vmstat_wr_bytes + m1.unattr_wr_bytes);
	model_free(&m1);
	model_free(&m2);
	sample_free(&a);
	sample_free(&b);
	sample_free(&c);
}

/* md's members a step behind it (their clones submitted after the interval's end): the
 * stored bytes of the intervals add up to what the array took, never fewer, and so do the
 * copies computed one after the other (the array's bytes not yet copied carried). */
static void test_raid1_members_lag(void **state)
{
	(void)state;
	struct xio_sample a, b, c;
	raid1_sample(&a, 0, 0, 0);
	raid1_sample(&b, 100 * MiB, 100 * MiB, 60 * MiB);
	raid1_sample(&c, 100 * MiB, 100 * MiB, 200 * MiB);
	struct model_carry carry = {0};
	struct model_interval m1, m2;
	assert_int_equal(model_compute_after(&a, &b, &carry, &m1), 0);
	assert_int_equal(model_compute_after(&b, &c, &carry, &m2), 0);
	const struct model_domain *d1 = dom(&m1, 1), *d2 = dom(&m2, 1);
	assert_int_equal(model_io_stored_wr(&d1->io), 100 * MiB);
	assert_int_equal(model_io_stored_wr(&d2->io), 0);
	struct model_io_sums sum = d1->io;
	model_io_sums_add(&sum, &d2->io);
	assert_int_equal(model_io_stored_wr(&sum), 100 * MiB);
	assert_int_equal(sum.copy_wr_bytes, 100 * MiB);
	assert_int_equal(carry.n, 0); /* all copied: nothing owed */
	model_carry_free(&carry);
	model_free(&m1);
	model_free(&m2);
	sample_free(&a);
	sample_free(&b);
	sample_free(&c);
}

/* Each interval's copies, computed one after the other with one carry, from n + 1
 * cumulative (array, members) byte counts of the md RAID1 domain; what is owed after. */
static uint64_t raid1_copies(const uint64_t (*at)[2], size_t n, uint64_t *copies)
{
	struct model_carry carry = {0};
	struct xio_sample prev, cur;
	raid1_sample(&prev, at[0][0], at[0][0], at[0][1]);
	for (size_t i = 1; i <= n; i++) {
		raid1_sample(&cur, at[i][0], at[i][0], at[i][1]);
		struct model_interval m;
		assert_int_equal(model_compute_after(&prev, &cur, &carry, &m), 0);
		copies[i - 1] = dom(&m, 1)->io.copy_wr_bytes;
		model_free(&m);
		sample_free(&prev);
		prev = cur;
	}
	sample_free(&prev);
	uint64_t owed = carry.n ? carry.owed[0].wr_bytes : 0;
	model_carry_free(&carry);
	return owed;
}

/* The kernel's order: md counts a write at the array when it is submitted there, its
 * members' clones when md submits them from its plug or raid1d, maybe after the interval's
 * end. 64 MiB at md0 in the first interval, its two 64 MiB copies in the second: 64 MiB
 * of copies over the two, not 128 (a clamp per interval gave 0 then 128). Alone (no carry)
 * each interval is still the clamp. */
static void test_raid1_copies_straddle(void **state)
{
	(void)state;
	const uint64_t at[][2] = {{0, 0}, {64 * MiB, 0}, {64 * MiB, 128 * MiB}};
	uint64_t copies[2];
	assert_int_equal(raid1_copies(at, 2, copies), 0);
	assert_int_equal(copies[0], 0);
	assert_int_equal(copies[1], 64 * MiB);
	/* a write split by the interval's end: one copy before it, the other after */
	const uint64_t split[][2] = {{0, 0}, {64 * MiB, 64 * MiB}, {64 * MiB, 128 * MiB}};
	assert_int_equal(raid1_copies(split, 2, copies), 0);
	assert_int_equal(copies[0] + copies[1], 64 * MiB);
	/* owed while the members have not written: carried, not lost */
	const uint64_t slow[][2] = {{0, 0}, {64 * MiB, 0}, {64 * MiB, 32 * MiB}};
	assert_int_equal(raid1_copies(slow, 2, copies), 32 * MiB);
	assert_int_equal(copies[0] + copies[1], 0);
	struct xio_sample a, b;
	raid1_sample(&a, 64 * MiB, 64 * MiB, 0);
	raid1_sample(&b, 64 * MiB, 64 * MiB, 128 * MiB);
	struct model_interval m;
	assert_int_equal(model_compute(&a, &b, &m), 0);
	assert_int_equal(dom(&m, 1)->io.copy_wr_bytes, 128 * MiB);
	model_free(&m);
	sample_free(&a);
	sample_free(&b);
}

/* The other order: members counted in an interval before their array's bytes (the
 * tracer's counters are read one after the other, not at one instant). Their copies are
 * counted early, never twice: the array's bytes are then owed and matched by the next
 * write's copies, so a span ending after it adds up (128 MiB for two 64 MiB writes), and
 * every interval's figure stays >= 0 (a counter's increments). */
static void test_raid1_copies_members_first(void **state)
{
	(void)state;
	const uint64_t at[][2] = {
	    {0, 0}, {0, 128 * MiB}, {64 * MiB, 128 * MiB}, {128 * MiB, 256 * MiB}};
	uint64_t copies[3];
	assert_int_equal(raid1_copies(at, 3, copies), 0);
	assert_int_equal(copies[0], 128 * MiB);
	assert_int_equal(copies[1], 0);
	assert_int_equal(copies[2], 0);
	/* the next write's copies are counted again once the early ones are matched */
	const uint64_t more[][2] = {{0, 0},
	                            {0, 128 * MiB},
	                            {64 * MiB, 128 * MiB},
	                            {128 * MiB, 256 * MiB},
	                            {192 * MiB, 384 * MiB}};
	uint64_t copies4[4];
	assert_int_equal(raid1_copies(more, 4, copies4), 0);
	assert_int_equal(copies4[3], 64 * MiB);
}

/* Two domains on one mirror, each with its own debt: domain 1's array bytes of the first
 * interval are copied in the second, domain 2's of the second in the third; neither's
 * members pay the other's. */
static void two_on_raid1(struct xio_sample *s, uint64_t md1, uint64_t mem1, uint64_t md2,
                         uint64_t mem2)
{
	raid1_sample(s, md1, md1, mem1);
	add_domain(s, 2, "lv-on-raid1");
	add_layer(s, 2, MD0, XIOTOP_VIA_REMAP, md2, 0);
	add_layer(s, 2, ZRAM0, XIOTOP_VIA_REMAP, mem2 / 2, 0);
	add_layer(s, 2, ZRAM1, XIOTOP_VIA_REMAP, mem2 / 2, 0);
}

static void test_raid1_copies_two_domains(void **state)
{
	(void)state;
	struct xio_sample s[4];
	two_on_raid1(&s[0], 0, 0, 0, 0);
	two_on_raid1(&s[1], 64 * MiB, 0, 0, 0);
	two_on_raid1(&s[2], 64 * MiB, 128 * MiB, 32 * MiB, 0);
	two_on_raid1(&s[3], 64 * MiB, 128 * MiB, 32 * MiB, 64 * MiB);
	const uint64_t want[3][2] = {{0, 0}, {64 * MiB, 0}, {0, 32 * MiB}};
	struct model_carry carry = {0};
	for (int i = 0; i < 3; i++) {
		struct model_interval m;
		assert_int_equal(model_compute_after(&s[i], &s[i + 1], &carry, &m), 0);
		assert_int_equal(dom(&m, 1)->io.copy_wr_bytes, want[i][0]);
		assert_int_equal(dom(&m, 2)->io.copy_wr_bytes, want[i][1]);
		model_free(&m);
	}
	assert_int_equal(carry.n, 0);
	model_carry_free(&carry);
	for (int i = 0; i < 4; i++)
		sample_free(&s[i]);
}

/* An LV on md RAID1: counted once (at the LV), its copies apart; a device model's image:
 * its writeback is its first count, not a second. */
static void test_lv_raid1_and_qdisk(void **state)
{
	(void)state;
	struct xio_sample cur = {0};
	add_dev(&cur, DM3, "dm-3", false);
	add_array_dev(&cur, MD0, "md0", false, XIO_DEV_ARRAY);
	add_array_dev(&cur, ZRAM0, "zram0", true, XIO_DEV_MEMBER);
	add_array_dev(&cur, ZRAM1, "zram1", true, XIO_DEV_MEMBER);
	add_dev(&cur, VDA, "vda", true);
	add_domain(&cur, 2, "lv-on-raid1");
	add_kind_domain(&cur, 3, "hvm", "qdisk");
	add_layer(&cur, 2, DM3, XIOTOP_VIA_DEV, 64 * MiB, 0);
	add_layer(&cur, 2, MD0, XIOTOP_VIA_REMAP, 64 * MiB, 0);
	add_layer(&cur, 2, ZRAM0, XIOTOP_VIA_REMAP, 64 * MiB, 0);
	add_layer(&cur, 2, ZRAM1, XIOTOP_VIA_REMAP, 64 * MiB, 0);
	add_layer(&cur, 3, VDA, XIOTOP_VIA_FILEIO, 40 * MiB, 0);
	add_layer(&cur, 3, VDA, XIOTOP_VIA_INODE, 30 * MiB, 0);
	struct model_interval m;
	assert_int_equal(model_compute(NULL, &cur, &m), 0);
	const struct model_domain *lv = dom(&m, 2), *hvm = dom(&m, 3);
	assert_int_equal(lv->io.vmstat_wr_bytes, 64 * MiB);
	assert_int_equal(lv->io.double_counted_bytes, 0);
	assert_int_equal(lv->io.phys_wr_bytes, 128 * MiB);
	assert_int_equal(lv->io.copy_wr_bytes, 64 * MiB);
	assert_int_equal(model_io_stored_wr(&lv->io), 64 * MiB);
	assert_int_equal(hvm->io.guest_wr_bytes, 40 * MiB);
	assert_int_equal(hvm->io.vmstat_wr_bytes, 30 * MiB);
	assert_int_equal(hvm->io.double_counted_bytes, 0);
	model_free(&m);
	sample_free(&cur);
}

/* A leaf layer carries its device's own completed requests (diskstats: after merging),
 * beside the domain's bios at it (before). */
static void test_leaf_devstats(void **state)
{
	(void)state;
	struct xio_sample cur = {0};
	add_dev(&cur, LOOP0, "loop0", false);
	add_dev(&cur, VDA, "vda", true);
	add_domain(&cur, 1, "guest1");
	add_layer(&cur, 1, LOOP0, XIOTOP_VIA_DEV, 64 * MiB, 0);
	add_layer(&cur, 1, VDA, XIOTOP_VIA_INODE, 64 * MiB, 0);
	struct xio_disk k = {.dev = VDA, .wr_bytes = 65 * MiB, .wr_ios = 130};
	strcpy(k.name, "vda");
	assert_int_equal(sample_add_disk(&cur, &k), 0);
	struct model_interval m;
	assert_int_equal(model_compute(NULL, &cur, &m), 0);
	const struct model_domain *d = dom(&m, 1);
	assert_int_equal(d->n_layers, 3);
	const struct model_layer *leaf = &d->layers[2];
	assert_true(leaf->is_leaf && leaf->has_devstats);
	assert_int_equal(leaf->wr_ios, 64); /* the tracer's bios: one per MiB here */
	assert_int_equal(leaf->dev_wr_ios, 130);
	assert_int_equal(leaf->dev_wr_bytes, 65 * MiB);
	assert_false(d->layers[0].has_devstats);
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
	    cmocka_unit_test(test_overwritten_in_cache),
	    cmocka_unit_test(test_raid1_file_image),
	    cmocka_unit_test(test_raid1_members_lag),
	    cmocka_unit_test(test_raid1_copies_straddle),
	    cmocka_unit_test(test_raid1_copies_members_first),
	    cmocka_unit_test(test_raid1_copies_two_domains),
	    cmocka_unit_test(test_lv_raid1_and_qdisk),
	    cmocka_unit_test(test_leaf_devstats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
