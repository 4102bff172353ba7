/* live_rules.c - the topology rules of the live source; see live_rules.h. */
#include "sources/live_rules.h"

#include <stdlib.h>
#include <string.h>

/* A fingerprint of what the tracer maps depend on: domains, device models, backends. */
uint64_t live_rules_fingerprint(const struct xt_topology *t)
{
	uint64_t h = 1469598103934665603ull;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
	for (size_t i = 0; i < t->n_domains; i++) {
		const struct xt_domain *d = &t->domains[i];
		MIX(d->domid);
		MIX(d->generation); /* a reused domid: another domain */
		for (const char *p = d->name; p && *p; p++)
			MIX(*p);
		MIX(d->device_model_pid);
		for (size_t j = 0; j < d->n_backends; j++) {
			MIX(d->backends[j].backend_dev);
			for (size_t k = 0; k < d->backends[j].n_layers; k++)
				MIX(d->backends[j].layers[k].ino); /* an image created later */
			for (const char *p = d->backends[j].params; p && *p; p++)
				MIX(*p);
		}
	}
#undef MIX
	return h;
}

static bool has_image_file(const struct xt_domain *d)
{
	for (size_t j = 0; j < d->n_backends; j++)
		for (size_t k = 0; k < d->backends[j].n_layers; k++)
			if (d->backends[j].layers[k].role == XT_ROLE_FILE &&
			    d->backends[j].layers[k].ino)
				return true;
	return false;
}

/* A device model that exited leaves dirty pages of its image behind: keep its domain
 * (without the process) for LINGER_NS so their writeback is still charged to it. */
void live_rules_keep_departed(struct live_rules *l, const struct xt_topology *old,
                              struct xt_topology *fresh, uint64_t now_ns)
{
	for (size_t i = 0; i < old->n_domains; i++) {
		const struct xt_domain *d = &old->domains[i];
		if (topo_find_domain(fresh, d->domid) || !has_image_file(d))
			continue;
		size_t g = 0;
		while (g < l->n_departed && l->departed[g].domid != d->domid)
			g++;
		if (g == l->n_departed) {
			if (g == LIVE_MAX_DEPARTED)
				continue;
			l->departed[l->n_departed++] = (struct departed){d->domid, now_ns};
		}
		if (now_ns - l->departed[g].since_ns > LINGER_NS)
			continue;
		struct xt_domain *slot = topo_domain_slot(fresh, d->domid);
		if (!slot)
			continue;
		topo_domain_copy(slot, d);
		slot->device_model_pid = 0; /* the pid may be reused by anyone now */
	}
}

static bool has_backend_dev(const struct xt_domain *d, uint32_t dev)
{
	for (size_t j = 0; d && j < d->n_backends; j++)
		if (d->backends[j].backend_dev == dev)
			return true;
	return false;
}

/* A blkback thread says by its name which domain it serves even where no xenstore or
 * dump does: the devices it submits to become that domain's backends, so that a loop
 * device's work and its backing file's writeback are followed too. */
void live_rules_learn(struct live_rules *l, const struct xt_topology *topo,
                      const struct xs_sample *s)
{
	for (size_t i = 0; i < s->n_layers && l->n_learned < LIVE_MAX_LEARNED; i++) {
		const struct xs_layer *x = &s->layers[i];
		if (x->via != XIOTOP_VIA_TASK || x->domid == XIOTOP_DOM_NONE ||
		    has_backend_dev(topo_find_domain(topo, x->domid), x->dev))
			continue;
		bool known = false;
		for (size_t k = 0; k < l->n_learned && !known; k++)
			known = l->learned[k].domid == x->domid && l->learned[k].dev == x->dev;
		if (!known)
			l->learned[l->n_learned++] = (struct learned_backend){x->domid, x->dev};
	}
}

void live_rules_add_learned(const struct live_rules *l, const struct xt_roots *roots,
                            struct xt_topology *t)
{
	for (size_t k = 0; k < l->n_learned; k++) {
		struct xt_domain *d = topo_domain_slot(t, l->learned[k].domid);
		if (!d || has_backend_dev(d, l->learned[k].dev))
			continue;
		struct xt_backend *b = topo_backend_add(d, XT_BK_VBD, (uint32_t)k);
		if (!b)
			return;
		b->type = strdup("seen"); /* learned from a blkback thread's bios */
		topo_resolve_dev(roots, l->learned[k].dev, b);
	}
}
