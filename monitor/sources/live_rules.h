/* live_rules.h - what the live source adds to each freshly built topology, and when the
 * tracer's maps must be refilled. Pure: no BPF, no clock; unit-tested.
 *
 * Contract:
 *   - live_rules_fingerprint(): a hash of what the tracer maps depend on (domains and
 *     their generation, names, device-model pids, backends, image inodes, loop devices'
 *     direct-I/O modes, params); equal fingerprints mean the maps need no refill.
 *   - live_rules_keep_departed(): a domain in `old` with an image file that is gone from
 *     `fresh` (its device model exited, it was destroyed) is kept in `fresh`, without its
 *     pid, for LINGER_NS after it was first seen gone, so its late writeback is still
 *     charged to it. A device or image file that a domain of `fresh` claims is that
 *     domain's: the departed copy drops each backend that shares one with it (a domain
 *     destroyed and made again on the same loop device or image), and is not kept when
 *     none is left, so no device has two owners and the new domain's bytes are its own.
 *     A departed domid listed again is forgotten (its next departure lingers anew);
 *     at most LIVE_MAX_DEPARTED are remembered, expired ones are forgotten.
 *   - live_rules_learn(): a device a blkback thread submitted to (a XIOTOP_VIA_TASK layer
 *     of a domain) that the topology does not list as that domain's backend is learned
 *     (at most LIVE_MAX_LEARNED), with the domain's generation; live_rules_add_learned()
 *     adds each learned device to its domain in a fresh topology as a backend of type
 *     "seen", resolved through sysfs, so a loop device's work and its file's writeback
 *     are followed without xenstore. A device learned for a listed domain is forgotten
 *     once that incarnation is gone (absent from the fresh topology, or its domid has
 *     another generation); one learned for a domain no source lists (generation 0)
 *     brings its domain. A learned device that another domain of the fresh topology has
 *     as its backend is not added (the listed claim wins).
 *   - live_baseline: the sample taken at the tracer's attach (its counters start at 0
 *     there; the host's /proc counters and blkback's are read then) is the first sample
 *     the live source hands out, so every command's first interval runs from attach and
 *     nothing written between attach and the first paced sample is lost.
 */
#ifndef XIOTOP_LIVE_RULES_H
#define XIOTOP_LIVE_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/sample.h"
#include "sources/topology/topology.h"

#define LIVE_MAX_DEPARTED 64
#define LIVE_MAX_LEARNED  64
#define LINGER_NS         (120ull * (uint64_t)NS_PER_S) /* > vm.dirty_expire_centisecs' 30 s */

/* A device a blkback thread submits to that no topology source names. */
struct learned_backend {
	uint32_t domid;
	uint32_t dev;
	uint32_t generation; /* of its domain when learned; 0: no source listed the domain */
};

struct departed {
	uint32_t domid;
	uint64_t since_ns; /* monotonic: when its device model was first seen gone */
};

struct live_rules {
	struct departed departed[LIVE_MAX_DEPARTED];
	size_t n_departed;
	struct learned_backend learned[LIVE_MAX_LEARNED];
	size_t n_learned;
};

uint64_t live_rules_fingerprint(const struct xt_topology *t);
void live_rules_keep_departed(struct live_rules *l, const struct xt_topology *old,
                              struct xt_topology *fresh, uint64_t now_ns);
void live_rules_learn(struct live_rules *l, const struct xt_topology *topo,
                      const struct xio_sample *s);
void live_rules_add_learned(struct live_rules *l, const struct xt_roots *roots,
                            struct xt_topology *t);

/* The attach-time sample, held until the source's first next(). */
struct live_baseline {
	struct xio_sample sample;
	bool held;
};
/* Keep *s (taken over: *s is emptied) as the baseline. */
void live_baseline_keep(struct live_baseline *b, struct xio_sample *s);
/* Moves the baseline into *out and returns true once; false when none is held. */
bool live_baseline_hand(struct live_baseline *b, struct xio_sample *out);
void live_baseline_free(struct live_baseline *b);

#endif
