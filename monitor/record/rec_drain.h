/* rec_drain.h - when the dirty pages a wrapped command left in dom0's page cache have
 * reached the disk: how long `record -- COMMAND` records on after the command ends.
 *
 * Contract: pure (the caller passes samples and the time). rec_drain_bound() is the most
 * the drain can take by the host's own writeback rule: a page dirtied just before the
 * command ended is written back once older than vm.dirty_expire_centisecs, by the flusher
 * that wakes every vm.dirty_writeback_centisecs; plus a margin (REC_DRAIN_MARGIN_NS and
 * two sample intervals: the writeback's own I/O, and a sample to see it done). A sysctl
 * not known (an imported host, /proc unreadable) counts as the kernel's default.
 * rec_drain_begin() takes the first sample at or after the end: each domain's backlog is
 * what it had dirtied then and not yet written back. rec_drain_check() says, of a later
 * sample, whether every domain's written-back bytes reached what it had dirtied by then
 * (bytes it dirtied after the end are another run's, not waited for) and the disks took
 * them. The tracer counts a written-back bio as it is queued, the disk's diskstats as it
 * completes: one bio of an image's writeback can hold tens of MiB (a file system's large
 * folios), and a disk takes time to write it. So the drain is over only at a sample where,
 * besides, no I/O is in progress on any device its written-back bytes were queued to (its
 * layers by the page-cache rules: via loop work, inode, device model), read in the same
 * /proc/diskstats pass as the sample's disks, after the tracer's counters: every bio
 * counted by then has completed and is in that sample's diskstats. (Below a dm or md
 * device, a disk counts a request in its diskstats just after it ends the bios in it: its
 * count can lag the device's end by microseconds.) A device never idle at a sample keeps
 * the recording on to the bound; a sample without in-flight counts (has_in_flight false)
 * never ends the drain.
 * A sample whose dirty pages were not counted (has_dirty false) gives no backlog: only
 * the bound is left.
 * The counters start with the recorder, and the live tracer counts a domain's written-back
 * bytes up to what it dirtied while traced (bpf/bio.bpf.h): pages dirtied before the
 * recording and written back in it count as the command's own, up to what it dirtied, and
 * the stop can then come early by as much as they were. (Likewise a command writing over
 * pages still dirty from before the recording dirties nothing new: what it left there is not
 * counted, and the stop comes early by as much.) Pages dropped before writeback (a file deleted,
 * truncated) are never written back: the drain then ends at the bound, and says how much was still
 * not written back.
 */
#ifndef XIOTOP_REC_DRAIN_H
#define XIOTOP_REC_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sample.h"
#include "record/record.h"

#define REC_DRAIN_MARGIN_NS (5 * 1000000000LL)
#define REC_DRAIN_DOMAINS   256 /* domains with a backlog followed (the first ones) */

struct rec_drain_domain {
	uint32_t domid;
	uint64_t dirtied; /* its dirtied bytes at the end */
};

struct rec_drain {
	bool counted;      /* dirty pages were counted at the end */
	uint64_t backlog;  /* bytes dirty at the end, the domains followed */
	uint64_t left;     /* of those, not yet queued to be written back (the last check) */
	uint32_t busy_dev; /* the last check: all queued, but I/O was in progress on this
	                    * device (0: none; left > 0, or the drain is over) */
	char busy_name[32];
	size_t n;
	struct rec_drain_domain dom[REC_DRAIN_DOMAINS];
};

/* ns: vm.dirty_expire_centisecs + vm.dirty_writeback_centisecs + the margin. */
int64_t rec_drain_bound(const struct rec_host_facts *f, double interval_s);
/* The backlog at the end, from the first sample at or after it. */
void rec_drain_begin(struct rec_drain *d, const struct xio_sample *s);
/* True when everything dirty at the end has been written back by sample s, and no I/O
 * was in progress then on the devices it was queued to (else busy_dev names one). */
bool rec_drain_check(struct rec_drain *d, const struct xio_sample *s);

#endif
