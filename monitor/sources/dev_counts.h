/* dev_counts.h - the layers of domains' own devices, from the kernel's own counters.
 *
 * Contract: a domain's backend device (rule 1: its loop device, LV, zram, a partition) is
 * charged whole to that domain, bio by bio. Where the kernel counts it in /proc/diskstats
 * bio by bio, each bio once and whole (dev_counts_kernel_counts(): zram), the BPF programs
 * do not (XIOTOP_DEV_COUNTED, bpf/bio.bpf.h), and its layer is read from there once per
 * interval: bytes read and written, and bios as the requests completed plus the bios
 * merged into one (zram: its bios, none merged); a partition's stacked layer on its whole
 * disk is the same I/O. Time alignment: the kernel counts a bio as it completes (since
 * Linux commit 5f27571382ca of 2023; before it, as it starts), the programs count a bio as
 * it is queued, so a layer read from here lags the layers below it by the I/O in flight at
 * the sample instant (none once the I/O has drained).
 * dev_counts_set() takes the devices counted from now on, each with its domain, from the
 * diskstats read it is given (a device without a line there, or no read at all: from the
 * first read that has its line, never from 0, which would give it all it did since the
 * boot); a device that leaves, or changes domain, keeps what it counted for the domain
 * before and counts for the new one from the set. dev_counts_read() takes a diskstats
 * read; each entry's dev_count_io() is then its count since it was first set, cumulative,
 * never decreasing: a device no longer in diskstats keeps its last count, and one whose
 * counters went back (made anew under the same number) counts from 0 again.
 */
#ifndef XIOTOP_SOURCES_DEV_COUNTS_H
#define XIOTOP_SOURCES_DEV_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/hostinfo.h"
#include "bpf/xiotop.h"

/* A device counted from its diskstats: dev_t, the whole disk of a partition (0: none), the
 * domain it is charged to. */
struct dev_count_src {
	uint32_t dev, whole, domid;
};

struct dev_count {
	struct dev_count_src src;
	bool active;           /* in the last set */
	bool based;            /* base read (else: from the first read that has its line) */
	bool listed;           /* in the set being made (dev_counts_set's own) */
	struct xiotop_io done; /* counted before the last base */
	struct xiotop_io base; /* diskstats when counted from */
	struct xiotop_io last; /* diskstats at the last read */
};

struct dev_counts {
	struct dev_count *v;
	size_t n;
};

/* Does the kernel count this device's reads and writes in /proc/diskstats bio by bio, each
 * bio once and whole, as the programs would (for a partition, its disk's)? zram only: it
 * counts every bio itself (bio_start_io_acct in its submit_bio, with iostats reading 0)
 * and never splits one. Not a blk-mq device (loop, nvme, sd, virtio): the block layer
 * splits a bio over the queue's limits (max_sectors_kb) into requests diskstats counts
 * one by one, so a guest's 1 MiB write to a loop device of 512 KiB limits counted 2
 * (live_test_seeds' request_size); not device-mapper, which counts a bio it splits at a
 * target's boundary once per part; not md (its personalities split at chunk boundaries)
 * nor brd (counts nothing). Those are left to the programs. Reads sysfs under the given
 * root. */
bool dev_counts_kernel_counts(const char *sysfs, uint32_t dev);
/* Returns 0, or -1 when out of memory (the devices counted until now stay counted). */
int dev_counts_set(struct dev_counts *c, const struct dev_count_src *src, size_t n,
                   const struct host_diskstat *ds, size_t n_ds);
void dev_counts_read(struct dev_counts *c, const struct host_diskstat *ds, size_t n_ds);
/* An entry's count since it was first set. */
struct xiotop_io dev_count_io(const struct dev_count *e);
void dev_counts_free(struct dev_counts *c);

#endif
