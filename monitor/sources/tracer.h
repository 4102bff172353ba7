/* tracer.h - load the BPF programs, attach them, fill the lookup maps, read counters.
 *
 * Contract: tracer_open() needs root; it tries the tp_btf programs first and falls back
 * to raw_tp, deciding by actually loading (feature probes lie on some kernels), and
 * says which it chose. Hooks that fail to attach are reported, never fatal, except
 * block_bio_queue, without which nothing can be attributed. tracer_set_topology()
 * replaces the device/inode/process -> domain maps (tracer_topology.c), counting every
 * update a map refuses (sources/map_updates.h). tracer_read() appends the cumulative
 * per-(domain, device, rule) counters to a sample, and with latency timed its
 * per-(domain, op) histograms (has_latency); its lost_events include the refused map
 * updates, so a full map is never silent.
 */
#ifndef XIOTOP_TRACER_H
#define XIOTOP_TRACER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/sample.h"
#include "sources/lost_kinds.h"
#include "sources/map_updates.h"
#include "sources/topology/topology.h"

struct tracer;

/* Returns 0, or -1 with err: XERR_PREREQ naming what is missing (root, kernel BTF, programs
 * that load and attach), XERR_RUNTIME or XERR_NOMEM. latency: also time I/O per domain (the
 * default; --no-latency: not; latency.bpf.h). */
int tracer_open(struct tracer **out, bool latency, struct xerr *err);
/* What tracer_open() needs before it tries anything: root and kernel BTF. 0, or -1 with
 * err (XERR_PREREQ), for a caller to say it before any other line. */
int tracer_can_load(struct xerr *err);
int tracer_set_topology(struct tracer *t, const struct xt_topology *topo,
                        const struct xt_roots *roots);
int tracer_read(struct tracer *t, struct xio_sample *s);
/* Requests in progress at dev when the last tracer_read() read /proc/diskstats, where dev's
 * layer is read from there (counted as they complete: sources/dev_counts.h); else 0. */
uint64_t tracer_in_flight(const struct tracer *t, uint32_t dev);
/* The last tracer_read()'s lost_events by kind. */
const struct tracer_lost *tracer_lost(const struct tracer *t);
/* The map updates refused so far, per map (they are in lost_events too). */
const struct map_updates *tracer_map_updates(const struct tracer *t);
/* "tp_btf" or "raw_tp" */
const char *tracer_mode(const struct tracer *t);
/* Human summary of attached hooks and degradations, e.g. "block_bio_queue block_bio_remap
 * workqueue (loop work)". */
const char *tracer_hooks(const struct tracer *t);
void tracer_close(struct tracer *t);

#endif
