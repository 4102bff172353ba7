/* generation.c - tell apart the domains that share a domid over time; see topology.h.
 *
 * Xen reuses a domid only after it was freed, so a domid that vanished from one topology
 * and is listed again in a later one is a new domain, and so is one whose uuid changed
 * between two topologies (destroyed and made again between two looks). Counters that
 * restart with a domain (libxenstat's vCPU time, blkback's per-vbd counts) must not be
 * subtracted across a generation change; see model_xen.c.
 */
#include "sources/topology/topology.h"

#include <stdlib.h>
#include <string.h>

static struct topo_generation_entry *find(struct topo_generations *g, uint32_t domid)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->seen[i].domid == domid)
			return &g->seen[i];
	return NULL;
}

/* Two uuids differ only when both are known: one read before the toolstack wrote the
 * vm node must not split a domain in two. */
static bool uuid_changed(const char *before, const char *now)
{
	return before[0] && now && now[0] && strncmp(before, now, 39) != 0;
}

int topo_generations_apply(struct topo_generations *g, struct xt_topology *t)
{
	bool *listed_now = calloc(g->n + t->n_domains + 1, sizeof(*listed_now));
	if (!listed_now)
		return -1;
	for (size_t i = 0; i < t->n_domains; i++) {
		struct xt_domain *d = &t->domains[i];
		struct topo_generation_entry *e = find(g, d->domid);
		if (!e) {
			struct topo_generation_entry *p = realloc(g->seen, (g->n + 1) * sizeof(*p));
			if (!p) {
				free(listed_now);
				return -1;
			}
			g->seen = p;
			e = &g->seen[g->n++];
			memset(e, 0, sizeof(*e));
			e->domid = d->domid;
			e->generation = 1;
		} else if (!e->listed || uuid_changed(e->uuid, d->uuid)) {
			e->generation++;
			e->uuid[0] = '\0';
		}
		if (d->uuid && d->uuid[0])
			snprintf(e->uuid, sizeof(e->uuid), "%s", d->uuid);
		listed_now[e - g->seen] = true;
		d->generation = e->generation;
	}
	for (size_t i = 0; i < g->n; i++)
		g->seen[i].listed = listed_now[i];
	free(listed_now);
	return 0;
}

void topo_generations_free(struct topo_generations *g)
{
	free(g->seen);
	memset(g, 0, sizeof(*g));
}
