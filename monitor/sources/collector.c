/* collector.c - assemble one sample per interval; see collector.h. */
#include "sources/collector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sources/xen/blkback_stats.h"
#include "sources/hostinfo.h"
#include "sources/xen/xenlive.h"
#include "core/clock.h"

void collector_init(struct collector *c, collector_read_fn fn, void *ctx,
                    const struct xt_roots *roots)
{
	memset(c, 0, sizeof(*c));
	c->read_layers = fn;
	c->read_ctx = ctx;
	c->roots = *roots;
}

void collector_set_topology(struct collector *c, const struct xt_topology *topo)
{
	c->topo = topo;
	free(c->devcache);
	c->devcache = NULL;
	c->n_devcache = 0;
}

void collector_set_in_flight(struct collector *c, collector_in_flight_fn fn)
{
	c->in_flight = fn;
}

void collector_set_xen(struct collector *c, struct xenlive *xen)
{
	c->xen = xen;
}

void collector_free(struct collector *c)
{
	free(c->devcache);
	vbd_gaps_free(&c->gaps);
	memset(c, 0, sizeof(*c));
}

/* sysfs facts about a device, read once per topology. */
static const struct xt_devinfo *devinfo(struct collector *c, uint32_t dev)
{
	for (size_t i = 0; i < c->n_devcache; i++)
		if (c->devcache[i].dev == dev)
			return &c->devcache[i].info;
	struct collector_devfact *p = realloc(c->devcache, (c->n_devcache + 1) * sizeof(*p));
	if (!p)
		return NULL;
	c->devcache = p;
	struct collector_devfact *f = &p[c->n_devcache++];
	f->dev = dev;
	if (topo_devinfo(&c->roots, dev, &f->info) || !f->info.exists) {
		memset(&f->info, 0, sizeof(f->info));
		snprintf(f->info.name, sizeof(f->info.name), "%u:%u", XT_KDEV_MAJOR(dev),
		         XT_KDEV_MINOR(dev));
	}
	return &f->info;
}

static int add_dev(struct collector *c, struct xio_sample *s, uint32_t dev)
{
	if (sample_dev(s, dev))
		return 0;
	const struct xt_devinfo *info = devinfo(c, dev);
	struct xio_dev d = {.dev = dev,
	                    .is_leaf = info && info->is_leaf,
	                    .array = (uint8_t)((info && info->is_array ? XIO_DEV_ARRAY : 0) |
	                                       (info && info->in_array ? XIO_DEV_MEMBER : 0))};
	snprintf(d.name, sizeof(d.name), "%s", info ? info->name : "?");
	return sample_add_dev(s, &d);
}

static void fill_domain(struct xio_domain *out, const struct xt_domain *d)
{
	memset(out, 0, sizeof(*out));
	out->domid = d->domid;
	snprintf(out->name, sizeof(out->name), "%s", d->name ? d->name : "");
	snprintf(out->uuid, sizeof(out->uuid), "%s", d->uuid ? d->uuid : "");
	out->generation = d->generation;
	for (size_t j = 0; j < d->n_backends; j++) {
		const struct xt_backend *b = &d->backends[j];
		const char *kind = topo_kind_name(b->kind);
		if (!out->kind[0])
			snprintf(out->kind, sizeof(out->kind), "%s", kind);
		else if (strcmp(out->kind, kind))
			snprintf(out->kind, sizeof(out->kind), "mixed");
		out->missing |= b->missing;
		for (size_t k = 0; k < b->n_layers && !out->file[0]; k++)
			if (b->layers[k].role == XT_ROLE_FILE && b->layers[k].path)
				snprintf(out->file, sizeof(out->file), "%s", b->layers[k].path);
	}
}

/* Each named device's I/Os in progress, from the diskstats read the disks came from. */
static void note_dev_in_flight(struct xio_sample *s, const struct host_diskstat *ds, size_t n_ds)
{
	for (size_t i = 0; i < s->n_devs; i++)
		for (size_t j = 0; j < n_ds; j++)
			if (ds[j].dev == s->devs[i].dev)
				s->devs[i].in_flight = (uint32_t)ds[j].in_flight;
	s->has_in_flight = true;
}

static void note_vbd_skew(const struct xio_sample *before, struct xio_sample *s)
{
	for (size_t i = 0; i < s->n_vbd_stats; i++) {
		struct xio_vbd_stat *v = &s->vbd_stats[i];
		const struct xio_vbd_stat *b = sample_vbd_stat(before, v->domid, v->devid);
		if (!b || b->instance != v->instance || b->rd_bytes > v->rd_bytes ||
		    b->wr_bytes > v->wr_bytes)
			continue; /* made again meanwhile: unknown */
		v->skew_rd_bytes = v->rd_bytes - b->rd_bytes;
		v->skew_wr_bytes = v->wr_bytes - b->wr_bytes;
	}
}

/* A vbd's backend device whose layer is read from /proc/diskstats counts a request as it
 * completes, blkback as it submits: at the tracer's read they are apart by the requests in
 * flight there (diskstats says how many, not which way or how large: each is taken at the
 * vbd's mean request size, both ways), timing like the skew above, not a miss. */
static void note_vbd_in_flight(const struct collector *c, struct xio_sample *s)
{
	for (size_t i = 0; c->in_flight && i < s->n_vbd_stats; i++) {
		struct xio_vbd_stat *v = &s->vbd_stats[i];
		uint64_t n = v->backend_dev ? c->in_flight(c->read_ctx, v->backend_dev) : 0;
		if (n && v->rd_req)
			v->skew_rd_bytes += n * (v->rd_bytes / v->rd_req);
		if (n && v->wr_req)
			v->skew_wr_bytes += n * (v->wr_bytes / v->wr_req);
	}
}

static void stamp_now(struct xio_sample *s)
{
	s->realtime_ns = clock_real_ns();
	s->monotonic_ns = (uint64_t)clock_mono_ns();
}

int collector_sample(struct collector *c, struct xio_sample *s)
{
	memset(s, 0, sizeof(*s));
	/* blkback's counters just before and just after the tracer's: what a request
	 * submitted meanwhile counts in one side's interval and the other's next is known,
	 * so the cross-check does not cry wolf under load */
	struct xio_sample before = {0};
	if (blkback_read_stats(&c->roots, &before))
		goto fail;
	/* The sample's instant, the tracer's CPU pass (its first step) and /proc/stat are read
	 * back to back: a CPU-bound host moves ~1 % of an interval's busy time in every 10 ms
	 * between them, which would show as dom0 CPU charged to the wrong interval. */
	stamp_now(s);
	if (c->read_layers && c->read_layers(c->read_ctx, s)) {
		sample_free(&before);
		goto fail;
	}
	struct host_cpu_times cpu;
	if (!host_read_cpu(c->roots.proc, &cpu)) {
		s->host_busy_ns = cpu.busy_ns;
		s->host_irq_ns = cpu.irq_ns;
		s->host_steal_ns = cpu.steal_ns;
	}
	if (blkback_read_stats(&c->roots, s)) {
		sample_free(&before);
		goto fail;
	}
	note_vbd_skew(&before, s);
	note_vbd_in_flight(c, s);
	sample_free(&before);
	host_read_vmstat(c->roots.proc, &s->vmstat_pgpgin_kb, &s->vmstat_pgpgout_kb);

	struct host_diskstat *ds = NULL;
	size_t n_ds = 0;
	if (!host_read_diskstats(c->roots.proc, &ds, &n_ds)) {
		for (size_t i = 0; i < n_ds; i++) {
			const struct xt_devinfo *info = devinfo(c, ds[i].dev);
			if (!info || !info->is_leaf)
				continue;
			struct xio_disk d = {.dev = ds[i].dev,
			                     .rd_bytes = ds[i].rd_bytes,
			                     .wr_bytes = ds[i].wr_bytes,
			                     .rd_ios = ds[i].rd_ios,
			                     .wr_ios = ds[i].wr_ios};
			snprintf(d.name, sizeof(d.name), "%s", ds[i].name);
			if (sample_add_disk(s, &d) || add_dev(c, s, d.dev)) {
				free(ds);
				goto fail;
			}
		}
	}
	for (size_t i = 0; i < s->n_layers; i++)
		if (add_dev(c, s, s->layers[i].dev)) {
			free(ds);
			goto fail;
		}
	if (ds)
		note_dev_in_flight(s, ds, n_ds);
	free(ds);
	for (size_t i = 0; c->topo && i < c->topo->n_domains; i++) {
		struct xio_domain d;
		fill_domain(&d, &c->topo->domains[i]);
		if (sample_add_domain(s, &d))
			goto fail;
	}
	/* after the domains: libxenstat's figures are only kept for listed domains */
	if (c->xen && xenlive_fill_sample(c->xen, c->topo, s))
		goto fail;
	if (vbd_gaps_fill(&c->gaps, c->topo, s))
		goto fail;
	return 0;
fail:
	sample_free(s);
	return -1;
}
