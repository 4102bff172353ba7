/* blkback_stats.h - blkback's own per-vbd counters, the ones xentop shows.
 *
 * Contract: blkback_read_stats() appends one xio_vbd_stat per
 * <sysfs>/bus/xen-backend/devices/vbd-<domid>-<devid>/ whose statistics/ it can read
 * whole (rd_sect, wr_sect, rd_req, wr_req, oo_req, f_req, ds_req, as Linux
 * drivers/block/xen-blkback/xenbus.c names them; sectors of 512 bytes), with the
 * device blkback serves it from (physical_device, hex "maj:min") and an instance stamp
 * (the directory's inode: a vbd torn down and made again gets a new one). It sets
 * s->has_vbd_stats when the xen-backend bus exists, i.e. on a Xen dom0. A vbd that is
 * not connected yet, or whose files are unreadable or not numbers, is left out.
 * Returns 0, or -1 when out of memory.
 */
#ifndef XIOTOP_BLKBACK_STATS_H
#define XIOTOP_BLKBACK_STATS_H

#include "core/sample.h"
#include "sources/topology/topology.h"

int blkback_read_stats(const struct xt_roots *roots, struct xio_sample *s);

/* "vbd-<domid>-<devid>" (plain decimal, domid below 32768); false for anything else. */
bool blkback_parse_vbd_name(const char *name, uint32_t *domid, uint32_t *devid);

#endif
