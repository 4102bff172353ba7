/* test_dev_counts.c - domains' own devices counted by the kernel (sources/dev_counts.h):
 * which devices' layers are read from diskstats (sysfs fixtures: zram, with iostats
 * reading 0; a blk-mq disk or a partition of one with iostats on, only while splits are
 * seen; not a blk-mq disk with iostats off, dm, md or brd); a layer counts from the set
 * on, bios as requests plus merges less the programs' extras (a split's part, a write of
 * no data, write-zeroes), holds while a split bio is in flight and is exact once it is
 * done, never decreases (a device made anew counts from 0 again, one gone from diskstats
 * keeps its count), and a device that leaves or changes domain keeps what it counted for
 * the domain before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/dev_counts.h"

#define LOOP0   ((7u << 20) | 0)
#define LOOP0P1 ((7u << 20) | 1)
#define ZRAM0   (252u << 20)

static struct host_diskstat stat_of(uint32_t dev, uint64_t wr_bytes, uint64_t wr_ios,
                                    uint64_t wr_merges)
{
	struct host_diskstat d = {.dev = dev,
	                          .wr_bytes = wr_bytes,
	                          .wr_ios = wr_ios,
	                          .wr_merges = wr_merges,
	                          .rd_bytes = 4096,
	                          .rd_ios = 1};
	return d;
}

static const struct dev_count *entry(const struct dev_counts *c, uint32_t dev, uint32_t domid)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].src.dev == dev && c->v[i].src.domid == domid)
			return &c->v[i];
	fail_msg("no entry for %u:%u of domain %u", dev >> 20, dev & 0xfffff, domid);
	return NULL;
}

static void counts_from_the_set(void **state)
{
	(void)state;
	struct dev_counts c = {0};
	struct host_diskstat ds[2] = {stat_of(LOOP0P1, 1000, 10, 2), stat_of(ZRAM0, 500, 5, 0)};
	struct dev_count_src src[2] = {{.dev = LOOP0P1, .whole = LOOP0, .domid = 2},
	                               {.dev = ZRAM0, .domid = 3}};
	assert_int_equal(dev_counts_set(&c, src, 2, ds, 2, NULL, 0), 0);
	struct xiotop_io io = dev_count_io(entry(&c, LOOP0P1, 2));
	assert_int_equal(io.wr_bytes, 0); /* what came before the set is no one's */
	ds[0].wr_bytes += 8192;
	ds[0].wr_ios += 1;
	ds[0].wr_merges += 1; /* two bios, one request */
	dev_counts_read(&c, ds, 2, NULL, 0);
	io = dev_count_io(entry(&c, LOOP0P1, 2));
	assert_int_equal(io.wr_bytes, 8192);
	assert_int_equal(io.wr_ios, 2);
	assert_int_equal(io.rd_ios, 0);
	assert_int_equal(entry(&c, LOOP0P1, 2)->src.whole, LOOP0);
	/* gone from diskstats: its count stays */
	dev_counts_read(&c, &ds[1], 1, NULL, 0);
	assert_int_equal(dev_count_io(entry(&c, LOOP0P1, 2)).wr_bytes, 8192);
	/* made anew under the same number: counts from 0 on top of what it had */
	ds[0] = stat_of(LOOP0P1, 4096, 1, 0);
	ds[0].rd_bytes = ds[0].rd_ios = 0;
	dev_counts_read(&c, ds, 2, NULL, 0);
	io = dev_count_io(entry(&c, LOOP0P1, 2));
	assert_int_equal(io.wr_bytes, 8192 + 4096);
	assert_int_equal(io.wr_ios, 3);
	dev_counts_free(&c);
}

static void leaves_and_changes_domain(void **state)
{
	(void)state;
	struct dev_counts c = {0};
	struct host_diskstat ds[1] = {stat_of(ZRAM0, 0, 0, 0)};
	struct dev_count_src three = {.dev = ZRAM0, .domid = 3}, four = {.dev = ZRAM0, .domid = 4};
	assert_int_equal(dev_counts_set(&c, &three, 1, ds, 1, NULL, 0), 0);
	ds[0].wr_bytes = 1000;
	assert_int_equal(dev_counts_set(&c, NULL, 0, ds, 1, NULL, 0),
	                 0);   /* leaves: counted up to now */
	ds[0].wr_bytes = 1500; /* nobody's */
	dev_counts_read(&c, ds, 1, NULL, 0);
	assert_int_equal(dev_count_io(entry(&c, ZRAM0, 3)).wr_bytes, 1000);
	assert_int_equal(dev_counts_set(&c, &four, 1, ds, 1, NULL, 0),
	                 0); /* another domain's now */
	ds[0].wr_bytes = 1700;
	dev_counts_read(&c, ds, 1, NULL, 0);
	assert_int_equal(dev_count_io(entry(&c, ZRAM0, 3)).wr_bytes, 1000);
	assert_int_equal(dev_count_io(entry(&c, ZRAM0, 4)).wr_bytes, 200);
	assert_int_equal(dev_counts_set(&c, &three, 1, ds, 1, NULL, 0), 0); /* back to domain 3 */
	ds[0].wr_bytes = 1800;
	dev_counts_read(&c, ds, 1, NULL, 0);
	assert_int_equal(dev_count_io(entry(&c, ZRAM0, 3)).wr_bytes, 1100);
	assert_int_equal(dev_count_io(entry(&c, ZRAM0, 4)).wr_bytes, 200);
	assert_int_equal(c.n, 2);
	dev_counts_free(&c);
}

/* No diskstats line (or no read) when the set names it: counted from the first read that
 * has its line, not from 0 (which would charge its whole life since the boot); a failed
 * read at a later set keeps what it counted. */
static void no_line_at_the_set(void **state)
{
	(void)state;
	struct dev_counts c = {0};
	struct host_diskstat ds[1] = {stat_of(ZRAM0, 1 << 30, 1000, 0)};
	struct dev_count_src three = {.dev = ZRAM0, .domid = 3};
	assert_int_equal(dev_counts_set(&c, &three, 1, NULL, 0, NULL, 0), 0);
	dev_counts_read(&c, ds, 1, NULL, 0);
	assert_int_equal(dev_count_io(entry(&c, ZRAM0, 3)).wr_bytes, 0);
	ds[0].wr_bytes += 4096;
	ds[0].wr_ios += 1;
	dev_counts_read(&c, ds, 1, NULL, 0);
	assert_int_equal(dev_count_io(entry(&c, ZRAM0, 3)).wr_bytes, 4096);
	assert_int_equal(dev_counts_set(&c, &three, 1, NULL, 0, NULL, 0), 0); /* read failed */
	ds[0].wr_bytes += 4096;
	dev_counts_read(&c, ds, 1, NULL, 0);
	assert_int_equal(dev_count_io(entry(&c, ZRAM0, 3)).wr_bytes, 8192);
	assert_int_equal(dev_count_io(entry(&c, ZRAM0, 3)).wr_ios, 1);
	dev_counts_free(&c);
}

/* The extras: a 1 MiB write split in two (one extra at the split, two requests at their
 * completion), an empty flush (a write of no data diskstats counts), write-zeroes (its
 * bytes too), a read split in four. While the split write is in flight the count holds at
 * the last one; once it completes, every figure is the programs' own. */
static void extras_taken_off(void **state)
{
	(void)state;
	struct dev_counts c = {0};
	struct host_diskstat ds[1] = {stat_of(LOOP0, 1 << 20, 10, 0)};
	struct dev_extra x[1] = {{.dev = LOOP0, .io = {.wr_ios = 7, .wr_bytes = 4096}}};
	struct dev_count_src one = {.dev = LOOP0, .domid = 1};
	assert_int_equal(dev_counts_set(&c, &one, 1, ds, 1, x, 1), 0);
	/* 4 KiB written: one request */
	ds[0].wr_bytes += 4096;
	ds[0].wr_ios += 1;
	dev_counts_read(&c, ds, 1, x, 1);
	assert_int_equal(dev_count_io(entry(&c, LOOP0, 1)).wr_ios, 1);
	/* a 1 MiB bio split: the extra now, its two requests not done yet */
	x[0].io.wr_ios += 1;
	dev_counts_read(&c, ds, 1, x, 1);
	struct xiotop_io io = dev_count_io(entry(&c, LOOP0, 1));
	assert_int_equal(io.wr_ios, 1); /* held, not 0 */
	assert_int_equal(io.wr_bytes, 4096);
	/* the first part done */
	ds[0].wr_ios += 1;
	ds[0].wr_bytes += 512 << 10;
	dev_counts_read(&c, ds, 1, x, 1);
	io = dev_count_io(entry(&c, LOOP0, 1));
	assert_int_equal(io.wr_ios, 1);
	assert_int_equal(io.wr_bytes, 4096 + (512 << 10));
	/* the second: one bio of 1 MiB */
	ds[0].wr_ios += 1;
	ds[0].wr_bytes += 512 << 10;
	/* an empty flush and 64 KiB of write-zeroes: requests diskstats counts, the programs
	 * not (tallied as they were queued) */
	x[0].io.wr_ios += 2;
	x[0].io.wr_bytes += 65536;
	ds[0].wr_ios += 2;
	ds[0].wr_bytes += 65536;
	/* a 1 MiB read split in four (three extras), with a readahead bio merged into it */
	x[0].io.rd_ios += 3;
	ds[0].rd_ios += 4;
	ds[0].rd_merges += 1;
	ds[0].rd_bytes += (1 << 20) + 4096;
	ds[0].in_flight = 5;
	dev_counts_read(&c, ds, 1, x, 1);
	assert_int_equal(dev_counts_in_flight(&c, LOOP0), 5); /* the lag at this read */
	assert_int_equal(dev_counts_in_flight(&c, ZRAM0), 0); /* not counted here */
	io = dev_count_io(entry(&c, LOOP0, 1));
	assert_int_equal(io.wr_ios, 2);
	assert_int_equal(io.wr_bytes, 4096 + (1 << 20));
	assert_int_equal(io.rd_ios, 2);
	assert_int_equal(io.rd_bytes, (1 << 20) + 4096);
	/* made anew: counts from 0, its extras from the last read's */
	ds[0] = stat_of(LOOP0, 8192, 1, 1);
	ds[0].rd_bytes = ds[0].rd_ios = 0;
	x[0].io.wr_ios += 1; /* a split of the new device's, its requests done */
	ds[0].wr_ios += 1;
	dev_counts_read(&c, ds, 1, x, 1);
	io = dev_count_io(entry(&c, LOOP0, 1));
	assert_int_equal(io.wr_ios, 2 + 2);
	assert_int_equal(io.wr_bytes, 4096 + (1 << 20) + 8192);
	dev_counts_free(&c);
}

static void put(const char *root, const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (!text) {
		assert_int_equal(mkdir(p, 0700), 0);
		return;
	}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void which_the_kernel_counts(void **state)
{
	(void)state;
	char root[] = "/tmp/xiotop-devcountsXXXXXX", cmd[600];
	assert_non_null(mkdtemp(root));
	/* name, kind dir (or zram's attribute), iostats */
	const char *devs[][4] = {{"loop0", "mq", "1", "7:0"},   {"sda", "mq", "0", "8:0"},
	                         {"zram0", NULL, "0", "252:0"}, {"dm-0", "dm", "1", "253:0"},
	                         {"dm-1", "dm", "0", "253:1"},  {"md0", "md", "1", "9:0"},
	                         {"ram0", NULL, "0", "1:0"}};
	put(root, "devices", NULL);
	put(root, "dev", NULL);
	put(root, "dev/block", NULL);
	char rel[256];
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		snprintf(rel, sizeof(rel), "devices/%s", devs[i][0]);
		put(root, rel, NULL);
		snprintf(rel, sizeof(rel), "devices/%s/queue", devs[i][0]);
		put(root, rel, NULL);
		snprintf(rel, sizeof(rel), "devices/%s/queue/iostats", devs[i][0]);
		put(root, rel, devs[i][2]);
		snprintf(rel, sizeof(rel), "devices/%s/%s", devs[i][0],
		         devs[i][1]                    ? devs[i][1]
		         : strcmp(devs[i][0], "zram0") ? "size"
		                                       : "comp_algorithm");
		if (devs[i][1])
			put(root, rel, NULL);
		else
			put(root, rel, "x\n");
		snprintf(rel, sizeof(rel), "%s/dev/block/%s", root, devs[i][3]);
		char target[128];
		snprintf(target, sizeof(target), "../../devices/%s", devs[i][0]);
		assert_int_equal(symlink(target, rel), 0);
	}
	put(root, "devices/loop0/loop0p1", NULL);
	put(root, "devices/loop0/loop0p1/partition", "1\n");
	snprintf(rel, sizeof(rel), "%s/dev/block/7:1", root);
	assert_int_equal(symlink("../../devices/loop0/loop0p1", rel), 0);
	for (int seen = 0; seen < 2; seen++) {
		/* blk-mq: diskstats counts the requests a split bio became, which the
		 * block_split program takes off: only while it runs */
		assert_int_equal(dev_counts_kernel_counts(root, LOOP0, seen), seen);
		assert_int_equal(dev_counts_kernel_counts(root, LOOP0P1, seen), seen);
		assert_false(dev_counts_kernel_counts(root, 8u << 20, seen)); /* iostats off */
		/* zram: iostats reads 0, it counts each bio itself and splits none */
		assert_true(dev_counts_kernel_counts(root, ZRAM0, seen));
		/* dm: a split bio once per part, no block_split */
		assert_false(dev_counts_kernel_counts(root, 253u << 20, seen));
		assert_false(dev_counts_kernel_counts(root, (253u << 20) | 1, seen));
		assert_false(dev_counts_kernel_counts(root, 9u << 20, seen));   /* md: chunks */
		assert_false(dev_counts_kernel_counts(root, 1u << 20, seen));   /* brd: nothing */
		assert_false(dev_counts_kernel_counts(root, 259u << 20, seen)); /* not in sysfs */
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(counts_from_the_set),     cmocka_unit_test(leaves_and_changes_domain),
	    cmocka_unit_test(no_line_at_the_set),      cmocka_unit_test(extras_taken_off),
	    cmocka_unit_test(which_the_kernel_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
