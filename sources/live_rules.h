/* live_rules.h - what the live source adds to each freshly built topology, and when the
 * tracer's maps must be refilled. Pure: no BPF, no clock; unit-tested.
 *
 * Contract:
 *   - live_rules_fingerprint(): a hash of what the tracer maps depend on (domains and
 *     their generation, names, device-model pids, backends, image inodes, params); equal
 *     fingerprints mean the maps need no refill.
 *   - live_rules_keep_departed(): a domain in `old` with an image file that is gone from
 *     `fresh` (its device model exited) is kept in `fresh`, without its pid, for
 *     LINGER_NS after it was first seen gone, so its late writeback is still charged
 *     to it. At most LIVE_MAX_DEPARTED are remembered.
 *   - live_rules_learn(): a device a blkback thread submitted to (a XIOTOP_VIA_TASK layer
 *     of a domain) that the topology does not list as that domain's backend is learned
 *     (at most LIVE_MAX_LEARNED); live_rules_add_learned() adds each learned device to
 *     its domain in a fresh topology as a backend of type "seen", resolved through sysfs,
 *     so a loop device's work and its file's writeback are followed without xenstore.
 */
#ifndef XIOTOP_LIVE_RULES_H
#define XIOTOP_LIVE_RULES_H

#include <stdint.h>

#include "core/sample.h"
#include "sources/topology/topology.h"

#define LIVE_MAX_DEPARTED 64
#define LIVE_MAX_LEARNED  64
#define LINGER_NS         (120ull * 1000000000ull) /* > vm.dirty_expire_centisecs' 30 s */

/* A device a blkback thread submits to that no topology source names. */
struct learned_backend {
	uint32_t domid;
	uint32_t dev;
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
                      const struct xs_sample *s);
void live_rules_add_learned(const struct live_rules *l, const struct xt_roots *roots,
                            struct xt_topology *t);

#endif
