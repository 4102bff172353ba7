/* vbd_gaps.c - vbds listed but not read, carried in the sample; see vbd_gaps.h. */
#include "sources/xen/vbd_gaps.h"

#include <stdlib.h>
#include <string.h>

static uint32_t generation_in(const struct xio_sample *s, uint32_t domid)
{
	const struct xio_domain *d = sample_domain(s, domid);
	return d ? d->generation : 0;
}

static struct vbd_gaps_last *find_last(struct vbd_gaps *g, uint32_t domid, uint32_t devid)
{
	for (size_t i = 0; i < g->n_last; i++)
		if (g->last[i].v.domid == domid && g->last[i].v.devid == devid)
			return &g->last[i];
	return NULL;
}

/* Every counter read now becomes the one last read. */
static int remember_read(struct vbd_gaps *g, const struct xio_sample *s)
{
	for (size_t i = 0; i < s->n_vbd_stats; i++) {
		const struct xio_vbd_stat *v = &s->vbd_stats[i];
		if (v->read != XIO_VBD_READ)
			continue;
		struct vbd_gaps_last *l = find_last(g, v->domid, v->devid);
		if (!l) {
			l = realloc(g->last, (g->n_last + 1) * sizeof(*l));
			if (!l)
				return -1;
			g->last = l;
			l = &g->last[g->n_last++];
		}
		l->v = *v;
		l->generation = generation_in(s, v->domid);
	}
	return 0;
}

/* A domain that left, or whose domid is another domain now: its counts are no more. */
static void forget_departed(struct vbd_gaps *g, const struct xio_sample *s)
{
	size_t kept = 0;
	for (size_t i = 0; i < g->n_last; i++) {
		const struct xio_domain *d = sample_domain(s, g->last[i].v.domid);
		if (d && d->generation == g->last[i].generation)
			g->last[kept++] = g->last[i];
	}
	g->n_last = kept;
}

static int note_first(struct vbd_gaps *g, const struct xt_topology *topo)
{
	g->started = true;
	g->first = calloc(topo->n_domains ? topo->n_domains : 1, sizeof(*g->first));
	if (!g->first)
		return -1;
	for (size_t i = 0; i < topo->n_domains; i++)
		g->first[g->n_first++] =
		    (struct vbd_gaps_domain){topo->domains[i].domid, topo->domains[i].generation};
	return 0;
}

static bool in_first(const struct vbd_gaps *g, const struct xt_domain *d)
{
	for (size_t i = 0; i < g->n_first; i++)
		if (g->first[i].domid == d->domid && g->first[i].generation == d->generation)
			return true;
	return false;
}

/* The entry for a listed vbd the sample has no counters for. */
static int add_gap(struct vbd_gaps *g, const struct xt_domain *d, const struct xt_backend *b,
                   struct xio_sample *s)
{
	const struct vbd_gaps_last *l = find_last(g, d->domid, b->devid);
	struct xio_vbd_stat v;
	if (l && l->generation == d->generation) {
		v = l->v;
		v.read = XIO_VBD_CARRIED;
		v.skew_rd_bytes = v.skew_wr_bytes = 0; /* measured when read, not now */
	} else if (in_first(g, d)) {
		v = (struct xio_vbd_stat){.domid = d->domid,
		                          .devid = b->devid,
		                          .backend_dev = b->kind == XT_BK_VBD ? b->backend_dev : 0,
		                          .source = b->kind == XT_BK_QDISK ? XIO_VBD_XENSTAT
		                                                           : XIO_VBD_BLKBACK,
		                          .read = XIO_VBD_UNREAD};
	} else {
		return 0;
	}
	return sample_add_vbd_stat(s, &v);
}

int vbd_gaps_fill(struct vbd_gaps *g, const struct xt_topology *topo, struct xio_sample *s)
{
	if (!s->has_vbd_stats || !topo)
		return 0;
	if (remember_read(g, s))
		return -1;
	forget_departed(g, s);
	if (!g->started && note_first(g, topo))
		return -1;
	for (size_t i = 0; i < topo->n_domains; i++) {
		const struct xt_domain *d = &topo->domains[i];
		if (!sample_domain(s, d->domid))
			continue;
		for (size_t j = 0; j < d->n_backends; j++) {
			const struct xt_backend *b = &d->backends[j];
			if ((b->kind != XT_BK_VBD && b->kind != XT_BK_QDISK) ||
			    sample_vbd_stat(s, d->domid, b->devid))
				continue;
			if (add_gap(g, d, b, s))
				return -1;
		}
	}
	return 0;
}

void vbd_gaps_free(struct vbd_gaps *g)
{
	free(g->first);
	free(g->last);
	memset(g, 0, sizeof(*g));
}
