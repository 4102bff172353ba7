/* test_rq_watch.c - requests of blk-mq backends no completion program saw
 * (sources/rq_watch.h): none while the programs saw every completion diskstats counts,
 * each one diskstats counts beyond them, never less than before; devices watched
 * before a topology change keep their counts, a device gone from diskstats its last. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sources/rq_watch.h"

#define LOOP0 ((7u << 20) | 0)
#define LOOP1 ((7u << 20) | 1)

static struct host_diskstat ds[2] = {{.dev = LOOP0, .rd_ios = 100, .wr_ios = 50},
                                     {.dev = LOOP1, .rd_ios = 7, .wr_ios = 3}};

static void test_missed(void **state)
{
	(void)state;
	struct rq_watch w = {0};
	uint32_t devs[1] = {LOOP0};
	assert_int_equal(rq_watch_set(&w, devs, 1, ds, 2), 0);
	assert_int_equal(rq_watch_lost(&w, ds, 2, 0), 0); /* nothing since */
	ds[0].wr_ios += 10;
	assert_int_equal(rq_watch_lost(&w, ds, 2, 10), 0); /* each seen */
	assert_int_equal(rq_watch_lost(&w, ds, 2, 12), 0); /* seen, not yet counted */
	ds[0].rd_ios += 5;
	assert_int_equal(rq_watch_lost(&w, ds, 2, 14), 1); /* 15 done, 14 seen */
	assert_int_equal(rq_watch_lost(&w, ds, 2, 20), 1); /* a loss is never taken back */
	ds[0].wr_ios += 10;
	assert_int_equal(rq_watch_lost(&w, ds, 2, 22), 3);
	rq_watch_free(&w);
}

static void test_topology_change(void **state)
{
	(void)state;
	struct rq_watch w = {0};
	uint32_t one[1] = {LOOP0}, two[2] = {LOOP0, LOOP1};
	ds[0].wr_ios = 50;
	assert_int_equal(rq_watch_set(&w, one, 1, ds, 2), 0);
	ds[0].wr_ios += 4; /* 4 done on loop0 */
	ds[1].wr_ios += 9; /* not watched yet: not counted */
	assert_int_equal(rq_watch_set(&w, two, 2, ds, 2), 0);
	ds[1].wr_ios += 6;
	assert_int_equal(rq_watch_lost(&w, ds, 2, 10), 0);
	assert_int_equal(rq_watch_lost(&w, ds, 2, 8), 2);
	/* loop1 gone from diskstats: its 6 stay counted */
	struct host_diskstat only0[1] = {ds[0]};
	assert_int_equal(rq_watch_lost(&w, only0, 1, 9), 2);
	assert_int_equal(rq_watch_set(&w, one, 1, only0, 1), 0);
	ds[0].wr_ios += 2;
	struct host_diskstat again[1] = {ds[0]};
	assert_int_equal(rq_watch_lost(&w, again, 1, 9), 3); /* 12 done, 9 seen */
	rq_watch_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_missed),
	    cmocka_unit_test(test_topology_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
