/* lat_untimed.h - whether a domain's latency is timed: each kind of backend is timed by
 * its own hook (bpf/latency.bpf.h), so a domain is timed when every one of its backends'
 * kinds has its hook attached (core/sample.h enum xio_untimed names the ones that do not).
 *
 * Contract: a backend's kind is its top layer's: a block device with a blk-mq queue (its
 * sysfs mq/, or its disk's for a partition: loop, nvme, sd, virtio) is timed at
 * block_rq_complete, any other block device (zram, dm, md) at block_bio_complete, an image
 * file (a device model's) by sys_enter/sys_exit. A missing backend, or one without a top
 * layer, has no kind: it is timed (nothing of it is traced). Pure but for sysfs reads
 * under the given root.
 */
#ifndef XIOTOP_SOURCES_LAT_UNTIMED_H
#define XIOTOP_SOURCES_LAT_UNTIMED_H

#include <stdbool.h>
#include <stdint.h>

#include "sources/topology/topology.h"

/* What times each kind now. */
struct lat_hooks {
	bool rq;       /* block_rq_complete attached */
	bool bio;      /* block_bio_complete attached, and bios stamped at queue for it */
	bool syscalls; /* sys_enter/sys_exit loaded, and attached while device models run (with
	                * none running, none of their syscalls is left to time) */
};

/* Is the device (or the disk of a partition) request-based, blk-mq (SYSFS/dev/block/M:m/mq)? */
bool lat_dev_is_blk_mq(const char *sysfs, uint32_t dev);
/* enum xio_untimed bits of one backend, of a domain (all its backends); 0: timed. */
uint32_t lat_untimed_backend(const struct xt_backend *b, const struct lat_hooks *h,
                             const char *sysfs);
uint32_t lat_untimed_domain(const struct xt_domain *d, const struct lat_hooks *h,
                            const char *sysfs);

#endif
