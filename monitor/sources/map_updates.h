/* map_updates.h - the results of the tracer's writes into the BPF lookup maps, counted.
 *
 * Contract: every bpf_map_update_elem() the tracer makes (the topology: devices, image
 * inodes, device-model processes) goes through map_update_counted() with the map it
 * wrote and the call's result. A refusal for want of room (-E2BIG: a hash at its
 * max_entries or an array index past it; -ENOMEM, -ENOSPC) counts in full[map], any
 * other refusal in failed[map]; each is an entry the programs will not find, so the
 * I/O it would have attributed goes to no one or to the wrong domain. The counts only
 * grow; map_updates_lost() is their sum, which the tracer adds to the sample's
 * lost_events (the header, JSON and /metrics show it). Nothing here calls BPF: the
 * unit tests feed results.
 */
#ifndef XIOTOP_SOURCES_MAP_UPDATES_H
#define XIOTOP_SOURCES_MAP_UPDATES_H

#include <stddef.h>
#include <stdint.h>

enum topo_map {
	TOPO_MAP_DEV_DOM,   /* devices past the device table's probes */
	TOPO_MAP_INODE_DOM, /* image files by inode */
	TOPO_MAP_TGID_DOM,  /* device-model processes */
	TOPO_MAP_TGID_BITS, /* their bitmap */
	TOPO_MAP_COUNT
};

struct map_updates {
	uint64_t full[TOPO_MAP_COUNT];   /* refused: no room */
	uint64_t failed[TOPO_MAP_COUNT]; /* refused otherwise */
};

/* The map's name in the BPF object. */
const char *topo_map_name(enum topo_map map);
/* Counts rc, the result of one bpf_map_update_elem() into map (0: stored); returns rc. */
int map_update_counted(struct map_updates *u, enum topo_map map, int rc);
/* Every refused update so far. */
uint64_t map_updates_lost(const struct map_updates *u);
/* "dev_dom full 3, tgid_dom failed 1" into out ("" when none was refused). */
void map_updates_describe(const struct map_updates *u, char *out, size_t outlen);

#endif
