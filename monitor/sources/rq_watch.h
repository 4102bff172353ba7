/* rq_watch.h - requests of blk-mq backend devices that no completion program saw.
 *
 * Contract: a blk-mq backend's requests are timed at block_rq_complete from the kernel's
 * own start stamp (bpf/latency.bpf.h), with nothing at issue, so a completion the program
 * never ran for (the kernel skips a run now and then: latency.bpf.h) would leave no
 * trace. The kernel's own count shows it: /proc/diskstats counts a request's completion
 * (reads and writes completed, blk_account_io_done) after the tracepoint fired, so over
 * the devices watched, completed requests never exceed those the programs saw
 * (XIOTOP_STAT_LATENCY_RQ_SEEN) but by the ones missed. rq_watch_set() takes the devices
 * watched from now on (the whole set each time the topology changes; the counts of the
 * ones before are kept), rq_watch_lost() the requests missed since the first set, which
 * never decreases. Requests a program saw but diskstats does not count (flush-sequence
 * writes, completions between a topology change and the counts read after it) can only
 * hide a miss, never make one up.
 */
#ifndef XIOTOP_RQ_WATCH_H
#define XIOTOP_RQ_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "sources/hostinfo.h"

struct rq_watch {
	uint32_t *devs;
	uint64_t *base, *last; /* completed requests when watched from, when last read */
	size_t n;
	uint64_t done_before; /* completed requests of the devices watched before the set */
	uint64_t lost;
};

/* Returns 0, or -1 when out of memory (the devices watched are then none). */
int rq_watch_set(struct rq_watch *w, const uint32_t *devs, size_t n, const struct host_diskstat *ds,
                 size_t n_ds);
/* Requests missed so far, from diskstats read before `seen` (the programs' count). */
uint64_t rq_watch_lost(struct rq_watch *w, const struct host_diskstat *ds, size_t n_ds,
                       uint64_t seen);
void rq_watch_free(struct rq_watch *w);

#endif
