/* copy.c - a topology's domains: find-or-insert in domid order, appending a backend,
 * and deep copy, so one topology can carry a domain over from another. */
#include "sources/topology/topology.h"

#include <stdlib.h>
#include <string.h>

static int dup_str(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -1;
}

static int copy_backend(struct xt_backend *dst, const struct xt_backend *src)
{
	*dst = *src;
	dst->layers = NULL;
	int rc = dup_str(&dst->dev, src->dev) | dup_str(&dst->type, src->type) |
	         dup_str(&dst->mode, src->mode) | dup_str(&dst->params, src->params) |
	         dup_str(&dst->error, src->error);
	if (src->n_layers) {
		dst->layers = calloc(src->n_layers, sizeof(*dst->layers));
		if (!dst->layers)
			return -1;
		for (size_t i = 0; i < src->n_layers; i++) {
			dst->layers[i] = src->layers[i];
			rc |= dup_str(&dst->layers[i].name, src->layers[i].name) |
			      dup_str(&dst->layers[i].path, src->layers[i].path);
		}
	}
	return rc;
}

int topo_domain_copy(struct xt_domain *dst, const struct xt_domain *src)
{
	*dst = *src;
	dst->backends = NULL;
	dst->n_backends = 0;
	dst->uuid = NULL;
	if (dup_str(&dst->name, src->name) || dup_str(&dst->uuid, src->uuid))
		return -1;
	if (src->n_backends) {
		dst->backends = calloc(src->n_backends, sizeof(*dst->backends));
		if (!dst->backends)
			return -1;
		dst->n_backends = src->n_backends;
		for (size_t j = 0; j < src->n_backends; j++)
			if (copy_backend(&dst->backends[j], &src->backends[j]))
				return -1; /* partly copied: topo_free() of its topology frees it */
	}
	return 0;
}

struct xt_backend *topo_backend_add(struct xt_domain *d, enum xt_backend_kind kind, uint32_t devid)
{
	struct xt_backend *p = realloc(d->backends, (d->n_backends + 1) * sizeof(*p));
	if (!p)
		return NULL;
	d->backends = p;
	struct xt_backend *b = &p[d->n_backends++];
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->devid = devid;
	return b;
}

struct xt_domain *topo_domain_slot(struct xt_topology *t, uint32_t domid)
{
	for (size_t i = 0; i < t->n_domains; i++)
		if (t->domains[i].domid == domid)
			return &t->domains[i];
	struct xt_domain *p = realloc(t->domains, (t->n_domains + 1) * sizeof(*p));
	if (!p)
		return NULL;
	t->domains = p;
	size_t at = t->n_domains;
	while (at > 0 && p[at - 1].domid > domid)
		at--; /* keep domains sorted by domid: topo_find_domain relies on it */
	memmove(&p[at + 1], &p[at], (t->n_domains - at) * sizeof(*p));
	t->n_domains++;
	memset(&p[at], 0, sizeof(p[at]));
	p[at].domid = domid;
	return &p[at];
}
