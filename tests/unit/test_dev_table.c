/* test_dev_table.c - the device table the BPF programs probe (sources/dev_table.h):
 * placement within XIOTOP_DEV_PROBES of the home slot, the wrap at the table's end,
 * overflow when every probe is taken, merging flags and domains, a second domain's
 * claim refused, dev 0 never placed, and clear. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sources/dev_table.h"

#define LOOP0 ((7u << 20) | 0)
#define SDA   ((8u << 20) | 0)

static struct xiotop_dev_slot table[XIOTOP_DEV_SLOTS];

/* count devices (from `from` upwards) whose home slot is `home` into out[] */
static unsigned int same_home(unsigned int home, unsigned int from, unsigned int *out,
                              unsigned int want)
{
	unsigned int n = 0;
	for (unsigned int dev = from; n < want && dev < from + (1u << 26); dev++)
		if (xiotop_dev_home(dev) == home)
			out[n++] = dev;
	return n;
}

static void test_add_find(void **state)
{
	(void)state;
	dev_table_clear(table);
	unsigned int prev = 0;
	assert_int_equal(dev_table_add(table, LOOP0, 5, XIOTOP_DEV_IS_BACKEND, &prev),
	                 DEV_TABLE_ADDED);
	assert_int_equal(prev, XIOTOP_DOM_NONE);
	const struct xiotop_dev_owner *o = dev_table_find(table, LOOP0);
	assert_non_null(o);
	assert_int_equal(o->domid, 5);
	assert_int_equal(o->flags, XIOTOP_DEV_IS_BACKEND);
	assert_null(dev_table_find(table, SDA));
	assert_null(dev_table_find(table, 0));
	/* consecutive minors do not share a home slot (Fibonacci hashing spreads them) */
	assert_int_not_equal(xiotop_dev_home(LOOP0), xiotop_dev_home(LOOP0 + 1));
	dev_table_clear(table);
	assert_null(dev_table_find(table, LOOP0));
}

static void test_merge(void **state)
{
	(void)state;
	dev_table_clear(table);
	unsigned int prev = 0;
	/* a device that so far only holds an image's file system, then a domain's backend */
	assert_int_equal(dev_table_add(table, SDA, XIOTOP_DOM_NONE, XIOTOP_DEV_HOLDS_IMAGE, &prev),
	                 DEV_TABLE_ADDED);
	assert_int_equal(dev_table_add(table, SDA, 7, XIOTOP_DEV_IS_BACKEND, &prev),
	                 DEV_TABLE_ADDED);
	assert_int_equal(prev, XIOTOP_DOM_NONE);
	const struct xiotop_dev_owner *o = dev_table_find(table, SDA);
	assert_int_equal(o->domid, 7);
	assert_int_equal(o->flags, XIOTOP_DEV_IS_BACKEND | XIOTOP_DEV_HOLDS_IMAGE);
	/* another domain's claim is refused and reported; the first owner stays */
	assert_int_equal(dev_table_add(table, SDA, 9, XIOTOP_DEV_IS_BACKEND, &prev),
	                 DEV_TABLE_CLAIMED);
	assert_int_equal(prev, 7);
	assert_int_equal(dev_table_find(table, SDA)->domid, 7);
	/* an image flag added later keeps the domain */
	assert_int_equal(dev_table_add(table, SDA, XIOTOP_DOM_NONE, XIOTOP_DEV_HOLDS_IMAGE, &prev),
	                 DEV_TABLE_ADDED);
	assert_int_equal(dev_table_find(table, SDA)->domid, 7);
}

static void test_collisions_and_overflow(void **state)
{
	(void)state;
	dev_table_clear(table);
	unsigned int home = xiotop_dev_home(LOOP0);
	unsigned int devs[XIOTOP_DEV_PROBES + 1];
	assert_int_equal(same_home(home, 1, devs, XIOTOP_DEV_PROBES + 1), XIOTOP_DEV_PROBES + 1);
	unsigned int prev = 0;
	for (unsigned int i = 0; i < XIOTOP_DEV_PROBES; i++)
		assert_int_equal(dev_table_add(table, devs[i], i, 0, &prev), DEV_TABLE_ADDED);
	/* every one is found where the programs look: within the probes of its home */
	for (unsigned int i = 0; i < XIOTOP_DEV_PROBES; i++) {
		const struct xiotop_dev_owner *o = dev_table_find(table, devs[i]);
		assert_non_null(o);
		assert_int_equal(o->domid, i);
		ptrdiff_t slot =
		    (const struct xiotop_dev_slot *)((const char *)o -
		                                     offsetof(struct xiotop_dev_slot, owner)) -
		    table;
		assert_true((unsigned int)(slot - home) % XIOTOP_DEV_SLOTS < XIOTOP_DEV_PROBES);
	}
	/* the ninth does not fit: the caller keeps it in the overflow hash */
	assert_int_equal(dev_table_add(table, devs[XIOTOP_DEV_PROBES], 1, 0, &prev),
	                 DEV_TABLE_OVERFLOW);
	assert_null(dev_table_find(table, devs[XIOTOP_DEV_PROBES]));
	/* dev 0 marks an empty slot: never placed */
	assert_int_equal(dev_table_add(table, 0, 1, 0, &prev), DEV_TABLE_OVERFLOW);
}

static void test_wrap(void **state)
{
	(void)state;
	dev_table_clear(table);
	/* devices homed in the last slot go on at slot 0 */
	unsigned int devs[3];
	assert_int_equal(same_home(XIOTOP_DEV_SLOTS - 1, 1, devs, 3), 3);
	unsigned int prev = 0;
	for (int i = 0; i < 3; i++)
		assert_int_equal(dev_table_add(table, devs[i], (unsigned int)i, 0, &prev),
		                 DEV_TABLE_ADDED);
	assert_int_equal(table[XIOTOP_DEV_SLOTS - 1].dev, devs[0]);
	assert_int_equal(table[0].dev, devs[1]);
	assert_int_equal(table[1].dev, devs[2]);
	assert_int_equal(dev_table_find(table, devs[2])->domid, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_add_find),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_collisions_and_overflow),
	    cmocka_unit_test(test_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
