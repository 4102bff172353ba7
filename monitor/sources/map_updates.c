/* map_updates.c - refused BPF map updates, counted per map; see map_updates.h. */
#include "sources/map_updates.h"

#include <errno.h>
#include <stdio.h>

const char *topo_map_name(enum topo_map map)
{
	static const char *const names[TOPO_MAP_COUNT] = {
	    [TOPO_MAP_DEV_DOM] = "dev_dom",
	    [TOPO_MAP_INODE_DOM] = "inode_dom",
	    [TOPO_MAP_TGID_DOM] = "tgid_dom",
	    [TOPO_MAP_TGID_BITS] = "tgid_bits",
	};
	return map < TOPO_MAP_COUNT ? names[map] : "?";
}

int map_update_counted(struct map_updates *u, enum topo_map map, int rc)
{
	if (!rc || map >= TOPO_MAP_COUNT)
		return rc;
	if (rc == -E2BIG || rc == -ENOMEM || rc == -ENOSPC)
		u->full[map]++;
	else
		u->failed[map]++;
	return rc;
}

uint64_t map_updates_lost(const struct map_updates *u)
{
	uint64_t lost = 0;
	for (int m = 0; m < TOPO_MAP_COUNT; m++)
		lost += u->full[m] + u->failed[m];
	return lost;
}

void map_updates_describe(const struct map_updates *u, char *out, size_t outlen)
{
	size_t used = 0;
	if (outlen)
		out[0] = '\0';
	for (int m = 0; m < TOPO_MAP_COUNT && used < outlen; m++) {
		const uint64_t counts[2] = {u->full[m], u->failed[m]};
		const char *what[2] = {"full", "failed"};
		for (int k = 0; k < 2 && used < outlen; k++) {
			if (!counts[k])
				continue;
			int n = snprintf(out + used, outlen - used, "%s%s %s %llu",
			                 used ? ", " : "", topo_map_name((enum topo_map)m), what[k],
			                 (unsigned long long)counts[k]);
			used += n > 0 ? (size_t)n : 0;
		}
	}
}
