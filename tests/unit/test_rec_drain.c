/* test_rec_drain.c - how long `record -- COMMAND` records on after the command (issue 43):
 * the host's writeback bound from its own sysctls (the kernel's defaults when unknown),
 * and the drain of each domain's backlog at the end, bytes it dirtied later not waited
 * for, not given when dirty pages were not counted; and not over while I/O is in progress
 * on a device its writeback was queued to (queued is not yet on the disk). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "record/rec_drain.h"

#define S   1000000000LL
#define MiB (1024ull * 1024)

static struct rec_host_facts facts(const char *expire, const char *wakeup)
{
	struct rec_host_facts f;
	memset(&f, 0, sizeof(f));
	f.dirty[0].name = "vm.dirty_expire_centisecs";
	snprintf(f.dirty[0].value, sizeof(f.dirty[0].value), "%s", expire);
	f.dirty[1].name = "vm.dirty_writeback_centisecs";
	snprintf(f.dirty[1].value, sizeof(f.dirty[1].value), "%s", wakeup);
	return f;
}

static void test_bound(void **state)
{
	(void)state;
	struct rec_host_facts f = facts("3000", "500");
	/* 30 s + 5 s + the margin (5 s) + two intervals */
	assert_int_equal(rec_drain_bound(&f, 1), 42 * S);
	f = facts("1000", "100");
	assert_int_equal(rec_drain_bound(&f, 0.5), 17 * S);
	f = facts("", "x"); /* not known: the kernel's defaults */
	assert_int_equal(rec_drain_bound(&f, 1), 42 * S);
	assert_int_equal(rec_drain_bound(NULL, 1), 42 * S);
}

static struct xio_sample sample(bool has_dirty, uint64_t d1, uint64_t w1, uint64_t d2, uint64_t w2)
{
	struct xio_sample s;
	memset(&s, 0, sizeof(s));
	s.has_dirty = has_dirty;
	s.has_in_flight = true;
	struct xio_dom_counters c1 = {.domid = 1, .dirtied_bytes = d1, .written_back_bytes = w1};
	struct xio_dom_counters c2 = {.domid = 2, .dirtied_bytes = d2, .written_back_bytes = w2};
	assert_int_equal(sample_add_counters(&s, &c1), 0);
	assert_int_equal(sample_add_counters(&s, &c2), 0);
	return s;
}

static void test_drain(void **state)
{
	(void)state;
	struct rec_drain d;
	memset(&d, 0, sizeof(d));
	/* no layers here: nothing in progress to wait out */
	/* domain 1 left 64 MiB dirty, domain 2 nothing */
	struct xio_sample s = sample(true, 100 * MiB, 36 * MiB, 5 * MiB, 5 * MiB);
	rec_drain_begin(&d, &s);
	sample_free(&s);
	assert_true(d.counted);
	assert_int_equal(d.backlog, 64 * MiB);
	assert_int_equal(d.n, 1);
	/* half written back, while domain 1 dirties more (a next run's: not waited for) */
	s = sample(true, 300 * MiB, 68 * MiB, 9 * MiB, 5 * MiB);
	assert_false(rec_drain_check(&d, &s));
	assert_int_equal(d.left, 32 * MiB);
	sample_free(&s);
	s = sample(true, 300 * MiB, 100 * MiB, 9 * MiB, 5 * MiB);
	assert_true(rec_drain_check(&d, &s));
	assert_int_equal(d.left, 0);
	sample_free(&s);
	/* nothing dirty at the end: done at once */
	s = sample(true, 8 * MiB, 8 * MiB, 0, 0);
	rec_drain_begin(&d, &s);
	assert_int_equal(d.backlog, 0);
	assert_true(rec_drain_check(&d, &s));
	sample_free(&s);
	/* dirty pages not counted: never done, only the bound ends it */
	s = sample(false, 0, 0, 0, 0);
	rec_drain_begin(&d, &s);
	assert_false(d.counted);
	assert_false(rec_drain_check(&d, &s));
	sample_free(&s);
}

#define ZRAM1 ((252u << 20) | 1) /* the file system holding domain 1's image */
#define LOOP0 ((7u << 20) | 0)   /* domain 1's own device */
#define VDA   ((254u << 20) | 0) /* dom0's disk, nothing of domain 1's on it */

/* A sample where domain 1's 32 MiB are all queued: written back by the flusher to zram1
 * (via inode) with zram1_busy I/Os in progress there; its own loop device and dom0's disk
 * (a whole disk its bios crossed too) busy, which the drain does not wait for. */
static struct xio_sample queued(uint32_t zram1_busy)
{
	struct xio_sample s = sample(true, 64 * MiB, 64 * MiB, 0, 0);
	struct xio_layer l[] = {
	    {.domid = 1, .dev = LOOP0, .via = XIOTOP_VIA_DEV},
	    {.domid = 1, .dev = ZRAM1, .via = XIOTOP_VIA_INODE},
	    {.domid = XIOTOP_DOM_NONE, .dev = VDA, .via = XIOTOP_VIA_NONE},
	    /* the whole disk under a partition of its: dom0's root I/O there too */
	    {.domid = 1, .dev = VDA, .via = XIOTOP_VIA_PART},
	};
	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		assert_int_equal(sample_add_layer(&s, &l[i]), 0);
	struct xio_dev devs[] = {
	    {.dev = LOOP0, .name = "loop0", .in_flight = 3},
	    {.dev = ZRAM1, .name = "zram1", .is_leaf = true, .in_flight = zram1_busy},
	    {.dev = VDA, .name = "vda", .is_leaf = true, .in_flight = 7},
	};
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		assert_int_equal(sample_add_dev(&s, &devs[i]), 0);
	return s;
}

static void test_in_flight(void **state)
{
	(void)state;
	struct rec_drain d;
	memset(&d, 0, sizeof(d));
	struct xio_sample s = sample(true, 64 * MiB, 32 * MiB, 0, 0);
	rec_drain_begin(&d, &s);
	sample_free(&s);
	assert_int_equal(d.backlog, 32 * MiB);
	/* all queued, one bio still being written by zram1: not over, zram1 named */
	s = queued(1);
	assert_false(rec_drain_check(&d, &s));
	assert_int_equal(d.left, 0);
	assert_int_equal(d.busy_dev, ZRAM1);
	assert_string_equal(d.busy_name, "zram1");
	/* the same without in-flight counts: not known, not over */
	s.has_in_flight = false;
	assert_false(rec_drain_check(&d, &s));
	assert_int_equal(d.busy_dev, 0);
	sample_free(&s);
	/* zram1 done: over, though its loop device and dom0's disk are busy */
	s = queued(0);
	assert_true(rec_drain_check(&d, &s));
	assert_int_equal(d.busy_dev, 0);
	sample_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bound),
	    cmocka_unit_test(test_drain),
	    cmocka_unit_test(test_in_flight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
