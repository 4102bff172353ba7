/* dev_counts.h - the layers of domains' own devices, from the kernel's own counters.
 *
 * Contract: a domain's backend device (rule 1: its loop device, LV, zram, a partition) is
 * charged whole to that domain, bio by bio. Where /proc/diskstats counts it
 * (dev_counts_kernel_counts(): zram, and a blk-mq device with iostats on while the
 * block_split program runs), the BPF programs do not (XIOTOP_DEV_COUNTED, bpf/bio.bpf.h)
 * and its layer is read from there once per interval: bytes read and written, and bios as
 * the requests completed plus the bios merged into one, less what diskstats counts that
 * the programs would not, which the programs tally per device as it happens (struct
 * dev_extra: a request more per split bio, at block_split; the write-like bios that carry
 * no data the programs count: an empty flush, write-zeroes). A partition's stacked layer
 * on its whole disk is the same I/O.
 * Time alignment: the kernel counts a request's bytes and the request as it completes
 * (since Linux commit 5f27571382ca of 2023 for a bio-based device; before it, zram at its
 * start), merges as they happen, and the extras as the bio is queued or split: a layer
 * read from here lags the layers below it by the I/O in flight at the sample instant
 * (none once the I/O has drained). Diskstats is read before the extras, so an extra is
 * never missing for a request diskstats has counted; what is counted may dip below the
 * last count while a split bio is in flight, and a layer's count then holds at the last
 * one until the requests complete (a count never decreases, and is exact once drained).
 * dev_counts_set() takes the devices counted from now on, each with its domain, from the
 * diskstats read it is given (a device without a line there, or no read at all: from the
 * first read that has its line, never from 0, which would give it all it did since the
 * boot); a device that leaves, or changes domain, keeps what it counted for the domain
 * before and counts for the new one from the set. dev_counts_read() takes a diskstats
 * read and the extras read after it; each entry's dev_count_io() is then its count since
 * it was first set, cumulative, never decreasing: a device no longer in diskstats keeps
 * its last count, and one whose counters went back (made anew under the same number)
 * counts from 0 again.
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

/* What diskstats counts at a device that the programs would not (bpf/bio.bpf.h
 * dev_extras), cumulative since the programs were loaded. */
struct dev_extra {
	uint32_t dev;
	struct xiotop_io io;
};

struct dev_count {
	struct dev_count_src src;
	bool active;                 /* in the last set */
	bool based;                  /* base read (else: from the first read that has its line) */
	bool listed;                 /* in the set being made (dev_counts_set's own) */
	struct xiotop_io done;       /* counted before the last base */
	struct xiotop_io shown;      /* counted since the last base: never decreases */
	struct xiotop_io base;       /* diskstats when counted from */
	struct xiotop_io last;       /* diskstats at the last read */
	struct xiotop_io extra_base; /* the device's extras when counted from */
	struct xiotop_io extra_last; /* the device's extras at the last read */
	uint64_t in_flight;          /* requests in progress at the last read (diskstats) */
};

struct dev_counts {
	struct dev_count *v;
	size_t n;
};

/* Can this device's layer be read from /proc/diskstats (for a partition, its disk's
 * attributes decide)? zram: it counts every bio itself (bio_start_io_acct in its
 * submit_bio, with iostats reading 0) and never splits one. A blk-mq device (loop, nvme,
 * sd, virtio) with queue/iostats on, when `splits_seen` (the block_split program runs):
 * the block layer splits a bio over the queue's limits (max_sectors_kb) into requests
 * diskstats counts one by one (a guest's 1 MiB write to a loop device of 512 KiB limits
 * counts 2: live_test_seeds' request_size), and the program takes each split off. Not
 * device-mapper, which counts a bio it splits at a target's boundary once per part with
 * no block_split; not md (its personalities split at chunk boundaries, traced only since
 * 2025) nor brd (counts nothing): those are left to the programs. Reads sysfs under the
 * given root. */
bool dev_counts_kernel_counts(const char *sysfs, uint32_t dev, bool splits_seen);
/* Returns 0, or -1 when out of memory (the devices counted until now stay counted). The
 * extras (x, n_x) are read after the diskstats (ds, n_ds); either may be empty. */
int dev_counts_set(struct dev_counts *c, const struct dev_count_src *src, size_t n,
                   const struct host_diskstat *ds, size_t n_ds, const struct dev_extra *x,
                   size_t n_x);
void dev_counts_read(struct dev_counts *c, const struct host_diskstat *ds, size_t n_ds,
                     const struct dev_extra *x, size_t n_x);
/* Requests in progress at dev at the last read, if it is an active entry (its layer lags
 * the layers above it by them: they are counted as they complete); else 0. */
uint64_t dev_counts_in_flight(const struct dev_counts *c, uint32_t dev);
/* An entry's count since it was first set. */
struct xiotop_io dev_count_io(const struct dev_count *e);
void dev_counts_free(struct dev_counts *c);

#endif
