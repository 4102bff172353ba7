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
			for (size_t k = 0; k < d->backends[j].n_layers; k++) {
				MIX(d->backends[j].layers[k].ino); /* an image created later */
				/* the programs keep a loop work item's direct-I/O mode until the
				 * maps are refilled (topology_gen) */
				MIX(d->backends[j].layers[k].loop_mode);
			}
			for (const char *p = d->backends[j].params; p && *p; p++)
				MIX(*p);
		}
	}
#undef MIX
	return h;
}

/* Do two backends share what the tracer gives one owner: a device above the image file
 * (the backend device, its partition's disk, a dm device) or an image file itself? The
 * devices below a file hold the filesystem every image on it shares: not a claim. */
static bool share_claim(const struct xt_backend *a, const struct xt_backend *b)
{
	bool a_above = true;
	for (size_t i = 0; i < a->n_layers; i++) {
		const struct xt_layer *x = &a->layers[i];
		a_above &= x->role != XT_ROLE_FILE;
		bool b_above = true;
		for (size_t k = 0; k < b->n_layers; k++) {
			const struct xt_layer *y = &b->layers[k];
			b_above &= y->role != XT_ROLE_FILE;
			if (x->role == XT_ROLE_FILE && y->role == XT_ROLE_FILE && x->ino &&
			    x->ino == y->ino && x->fs_dev == y->fs_dev)
				return true;
			if (a_above && b_above && x->dev && x->dev == y->dev)
				return true;
		}
	}
	return false;
}

/* Is what b claims claimed by a domain of t already? */
static bool claimed_in(const struct xt_topology *t, const struct xt_backend *b)
{
	for (size_t i = 0; i < t->n_domains; i++)
		for (size_t j = 0; j < t->domains[i].n_backends; j++)
			if (share_claim(b, &t->domains[i].backends[j]))
				return true;
	return false;
}

/* Would d, departed, still have an image file of its own beside the domains of fresh? */
static bool keepable(const struct xt_domain *d, const struct xt_topology *fresh)
{
	for (size_t j = 0; j < d->n_backends; j++) {
		const struct xt_backend *b = &d->backends[j];
		for (size_t k = 0; k < b->n_layers; k++)
			if (b->layers[k].role == XT_ROLE_FILE && b->layers[k].ino &&
			    !claimed_in(fresh, b))
				return true;
	}
	return false;
}

/* The departed records still useful: not listed again (a reused domid is another
 * domain), and not expired once the old topology no longer carries them. */
static void forget_departed(struct live_rules *l, const struct xt_topology *old,
                            const struct xt_topology *fresh, uint64_t now_ns)
{
	size_t kept = 0;
	for (size_t g = 0; g < l->n_departed; g++) {
		const struct departed *p = &l->departed[g];
		bool expired = now_ns - p->since_ns > LINGER_NS && !topo_find_domain(old, p->domid);
		if (!topo_find_domain(fresh, p->domid) && !expired)
			l->departed[kept++] = *p;
	}
	l->n_departed = kept;
}

/* The departed copy of d without the backends a domain of fresh claims now. */
static int copy_departed(struct xt_domain *slot, const struct xt_domain *d,
                         const struct xt_topology *fresh)
{
	if (topo_domain_copy(slot, d))
		return -1;
	slot->device_model_pid = 0; /* the pid may be reused by anyone now */
	size_t kept = 0;
	for (size_t j = 0; j < slot->n_backends; j++) {
		if (claimed_in(fresh, &slot->backends[j]))
			topo_backend_free(&slot->backends[j]);
		else
			slot->backends[kept++] = slot->backends[j];
	}
	slot->n_backends = kept;
	return 0;
}

/* A device model that exited, or a domain destroyed, leaves dirty pages of its image
 * behind: keep its domain (without the process) for LINGER_NS so their writeback is
 * still charged to it, as long as no domain listed now claims the same device or file. */
void live_rules_keep_departed(struct live_rules *l, const struct xt_topology *old,
                              struct xt_topology *fresh, uint64_t now_ns)
{
	forget_departed(l, old, fresh, now_ns);
	struct xt_topology kept = {0}; /* built aside: fresh holds only listed domains meanwhile */
	for (size_t i = 0; i < old->n_domains; i++) {
		const struct xt_domain *d = &old->domains[i];
		if (topo_find_domain(fresh, d->domid) || !keepable(d, fresh))
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
		struct xt_domain *slot = topo_domain_slot(&kept, d->domid);
		if (!slot)
			break;
		if (copy_departed(slot, d, fresh))
			break; /* partly copied: freed with `kept` below */
	}
	for (size_t i = 0; i < kept.n_domains; i++) {
		struct xt_domain *slot = topo_domain_slot(fresh, kept.domains[i].domid);
		if (!slot)
			break;
		*slot = kept.domains[i]; /* moved: `kept` no longer owns it */
		memset(&kept.domains[i], 0, sizeof(kept.domains[i]));
	}
	topo_free(&kept);
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
                      const struct xio_sample *s)
{
	for (size_t i = 0; i < s->n_layers && l->n_learned < LIVE_MAX_LEARNED; i++) {
		const struct xio_layer *x = &s->layers[i];
		if (x->via != XIOTOP_VIA_TASK || x->domid == XIOTOP_DOM_NONE ||
		    has_backend_dev(topo_find_domain(topo, x->domid), x->dev))
			continue;
		const struct xt_domain *d = topo_find_domain(topo, x->domid);
		uint32_t generation = d ? d->generation : 0;
		bool known = false;
		for (size_t k = 0; k < l->n_learned && !known; k++)
			known = l->learned[k].domid == x->domid && l->learned[k].dev == x->dev &&
			        l->learned[k].generation == generation;
		if (!known)
			l->learned[l->n_learned++] =
			    (struct learned_backend){x->domid, x->dev, generation};
	}
}

/* Does a domain other than domid have dev as a backend in t? */
static bool other_owner(const struct xt_topology *t, uint32_t domid, uint32_t dev)
{
	for (size_t i = 0; i < t->n_domains; i++)
		if (t->domains[i].domid != domid && has_backend_dev(&t->domains[i], dev))
			return true;
	return false;
}

void live_rules_add_learned(struct live_rules *l, const struct xt_roots *roots,
                            struct xt_topology *t)
{
	/* a listed incarnation that is gone takes what was learned for it along */
	size_t kept = 0;
	for (size_t k = 0; k < l->n_learned; k++) {
		const struct learned_backend *x = &l->learned[k];
		const struct xt_domain *d = topo_find_domain(t, x->domid);
		if (!x->generation || (d && d->generation == x->generation))
			l->learned[kept++] = *x;
	}
	l->n_learned = kept;
	for (size_t k = 0; k < l->n_learned; k++) {
		if (other_owner(t, l->learned[k].domid, l->learned[k].dev))
			continue; /* the domain a source lists with it as its backend owns it */
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

void live_baseline_keep(struct live_baseline *b, struct xio_sample *s)
{
	live_baseline_free(b);
	b->sample = *s;
	b->held = true;
	memset(s, 0, sizeof(*s));
}

bool live_baseline_hand(struct live_baseline *b, struct xio_sample *out)
{
	if (!b->held)
		return false;
	*out = b->sample;
	b->held = false;
	memset(&b->sample, 0, sizeof(b->sample));
	return true;
}

void live_baseline_free(struct live_baseline *b)
{
	if (b->held)
		sample_free(&b->sample);
	memset(b, 0, sizeof(*b));
}
