/* model_xen.c - the parts of an interval that exist because domains are Xen domains; see
 * model_xen_compute() in model.h.
 *
 * - Per vbd, blkback's own counters (what xentop shows) beside xiotop's bytes at the
 *   backend device blkback serves it from, flagged when they disagree by more than 5 %
 *   in a direction where either side moved at least 1 MiB (smaller intervals are noise:
 *   a request in flight across the sampling instant), and by more than the sampling
 *   can explain: what blkback counted while the tracer was read, and the requests in
 *   flight at a backend device whose layer is read from diskstats (counted as they
 *   complete), at either end of the interval (skew_*_bytes), plus two of that interval's
 *   mean requests (blkback counts a request after submitting its bios, the programs each
 *   bio as it is queued). Those bytes fall in one side's interval and the other's next:
 *   timing, not a miss.
 * - A vbd's counters not read for a sample (libxenstat did not answer for a qdisk vbd)
 *   are carried in it (xio_vbd_stat.read): that interval has no counts for the vbd, and
 *   the next read is a delta from the counts last read, never from zero (which counted a
 *   qdisk's bytes twice); a vbd listed and never read has no counts until read twice.
 * - A domid reused by a new domain (another generation, or another uuid) restarts the
 *   hypervisor's counters: its vCPU time and vbd counters are not subtracted from the
 *   old domain's. (The tracer's counters are per domid and keep counting: their deltas
 *   are this interval's activity whichever domain caused it.)
 * - When the sample's domain list is the hypervisor's (domains_live), a domain that is
 *   not in it and did nothing this interval has left: it is not listed.
 */
#include "core/model.h"

#include <stdlib.h>
#include <string.h>

#define VBD_MIN_BYTES (1024u * 1024u)

/* A counter that went backwards was reset (a new vbd): count from zero. */
static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;
}

/* Is cur's domain another one than prev's under the same domid? */
static bool new_incarnation(const struct xio_domain *prev, const struct xio_domain *cur)
{
	if (!prev || !cur)
		return false;
	if (prev->generation && cur->generation)
		return prev->generation != cur->generation;
	return prev->uuid[0] && cur->uuid[0] && strncmp(prev->uuid, cur->uuid, sizeof(cur->uuid));
}

/* a: blkback's bytes in reqs requests, b: xiotop's bytes, this interval; skew: what
 * blkback counted while the tracer was read, at both ends */
static bool differ(uint64_t a, uint64_t reqs, uint64_t b, uint64_t skew)
{
	uint64_t hi = a > b ? a : b, lo = a > b ? b : a;
	uint64_t straddling = skew + (reqs ? 2 * (a / reqs) : 0);
	return hi >= VBD_MIN_BYTES && hi - lo > hi / 20 && hi - lo > straddling;
}

static struct model_domain *find_domain(struct model_interval *m, uint32_t domid)
{
	for (size_t i = 0; i < m->n_domains; i++)
		if (m->domains[i].domid == domid)
			return &m->domains[i];
	return NULL;
}

static void xiotop_bytes(const struct model_domain *d, uint32_t dev, struct model_vbd *out)
{
	out->xiotop_known = dev != 0;
	for (size_t i = 0; dev && i < d->n_layers; i++) {
		const struct model_layer *l = &d->layers[i];
		if (l->role == ROLE_BACKEND && !l->is_file && l->dev == dev) {
			out->xiotop_rd_bytes += l->rd_bytes;
			out->xiotop_wr_bytes += l->wr_bytes;
		}
	}
}

static int add_vbd(const struct xio_sample *prev, const struct xio_sample *cur,
                   const struct xio_vbd_stat *v, struct model_domain *d)
{
	if (v->read != XIO_VBD_READ)
		return 0; /* not read this time: this interval's counts are unknown */
	const struct xio_vbd_stat *p = prev ? sample_vbd_stat(prev, v->domid, v->devid) : NULL;
	if (p && new_incarnation(sample_domain(prev, v->domid), sample_domain(cur, v->domid)))
		p = NULL; /* another domain than the one counted before */
	if (p && p->read == XIO_VBD_UNREAD)
		return 0; /* listed before and never read: not a delta from zero, unknown */
	if (p && (p->instance != v->instance || p->source != v->source))
		p = NULL; /* another vbd than the one counted before */
	/* read again after a gap: since the counts last read, more than this interval, so
	 * xiotop's bytes of this interval are no measure of them */
	bool since_gap = p && p->read == XIO_VBD_CARRIED;
	struct model_vbd *nv = realloc(d->vbds, (d->n_vbds + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	d->vbds = nv;
	struct model_vbd *mv = &nv[d->n_vbds++];
	memset(mv, 0, sizeof(*mv));
	mv->devid = v->devid;
	mv->source = v->source;
	mv->rd_bytes = delta(v->rd_bytes, p ? p->rd_bytes : 0);
	mv->wr_bytes = delta(v->wr_bytes, p ? p->wr_bytes : 0);
	mv->rd_req = delta(v->rd_req, p ? p->rd_req : 0);
	mv->wr_req = delta(v->wr_req, p ? p->wr_req : 0);
	xiotop_bytes(d, v->backend_dev, mv);
	uint64_t skew_rd = v->skew_rd_bytes + (p ? p->skew_rd_bytes : 0);
	uint64_t skew_wr = v->skew_wr_bytes + (p ? p->skew_wr_bytes : 0);
	mv->disagree = mv->xiotop_known && !since_gap &&
	               (differ(mv->rd_bytes, mv->rd_req, mv->xiotop_rd_bytes, skew_rd) ||
	                differ(mv->wr_bytes, mv->wr_req, mv->xiotop_wr_bytes, skew_wr));
	return 0;
}

static int cmp_vbd(const void *a, const void *b)
{
	uint32_t x = ((const struct model_vbd *)a)->devid, y = ((const struct model_vbd *)b)->devid;
	return x < y ? -1 : x > y;
}

/* The vCPU time of a domain made since the previous sample (a domid prev did not list, or
 * a new domain on a reused one): all of it is since it started, after prev. A domain is
 * made paused, with no vCPU time, so without this its first interval's vCPU time (its
 * boot) was lost as unknown. */
static void restart_guest_cpu(const struct xio_sample *prev, const struct xio_sample *cur,
                              struct model_domain *d)
{
	if (!prev || !d->info)
		return;
	const struct xio_domain *before = sample_domain(prev, d->domid);
	if (before && !new_incarnation(before, d->info))
		return;
	const struct xio_dom_counters *c = sample_counters(cur, d->domid);
	d->guest_cpu_ns = c && c->guest_cpu_ns >= 0 ? c->guest_cpu_ns : -1;
}

static bool idle(const struct model_domain *d)
{
	if (d->io.guest_rd_bytes | d->io.guest_wr_bytes | d->io.phys_rd_bytes |
	    d->io.phys_wr_bytes | d->io.vmstat_wr_bytes | d->cpu_ns | d->dirtied_bytes |
	    d->written_back_bytes)
		return false;
	for (size_t i = 0; i < d->n_layers; i++)
		if (d->layers[i].rd_bytes | d->layers[i].wr_bytes)
			return false;
	return d->n_vbds == 0;
}

static void drop_departed(struct model_interval *m)
{
	size_t kept = 0;
	for (size_t i = 0; i < m->n_domains; i++) {
		struct model_domain *d = &m->domains[i];
		if (!d->info && idle(d)) {
			free(d->layers);
			free(d->vbds);
			continue;
		}
		m->domains[kept++] = *d;
	}
	m->n_domains = kept;
}

int model_xen_compute(const struct xio_sample *prev, const struct xio_sample *cur,
                      struct model_interval *m)
{
	m->has_vbd_stats = cur->has_vbd_stats;
	for (size_t i = 0; i < m->n_domains; i++)
		restart_guest_cpu(prev, cur, &m->domains[i]);
	for (size_t i = 0; i < cur->n_vbd_stats; i++) {
		struct model_domain *d = find_domain(m, cur->vbd_stats[i].domid);
		/* a vbd of a domain neither the topology nor the tracer knows: nothing to
		 * compare it with */
		if (d && add_vbd(prev, cur, &cur->vbd_stats[i], d))
			return -1;
	}
	for (size_t i = 0; i < m->n_domains; i++)
		if (m->domains[i].n_vbds > 1)
			qsort(m->domains[i].vbds, m->domains[i].n_vbds, sizeof(struct model_vbd),
			      cmp_vbd);
	if (cur->domains_live)
		drop_departed(m);
	return 0;
}
