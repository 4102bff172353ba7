/* live.c - topology + tracer + collector as one sample source; see live.h. */
#include "live.h"

#include "xen_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The source is picked once (one line says which and why); each call builds afresh. */
static int build_topology(struct topo_source *src, struct xt_topology *topo)
{
	if (topo_source_build(src, topo) == 0)
		return 0;
	fprintf(stderr, "xiotop: out of memory building the topology\n");
	return 1;
}

int live_load_topology(const struct source_opts *o, struct xt_topology *topo)
{
	struct topo_source src;
	memset(topo, 0, sizeof(*topo));
	int rc = topo_source_open(&src, o->xenstore_dump, &o->roots, xen_api_real(), stderr);
	if (!rc)
		rc = build_topology(&src, topo);
	topo_source_close(&src);
	return rc;
}

/* A fingerprint of what the tracer maps depend on: domains, device models, backends. */
static uint64_t topo_fingerprint(const struct xt_topology *t)
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

#define LINGER_NS (120ull * 1000000000ull) /* > vm.dirty_expire_centisecs' default 30 s */

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
static void keep_departed(struct live *l, const struct xt_topology *old, struct xt_topology *fresh,
                          uint64_t now_ns)
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
static void learn_backends(struct live *l, const struct xs_sample *s)
{
	for (size_t i = 0; i < s->n_layers && l->n_learned < LIVE_MAX_LEARNED; i++) {
		const struct xs_layer *x = &s->layers[i];
		if (x->via != XIOTOP_VIA_TASK || x->domid == XIOTOP_DOM_NONE ||
		    has_backend_dev(topo_find_domain(&l->topo, x->domid), x->dev))
			continue;
		bool known = false;
		for (size_t k = 0; k < l->n_learned && !known; k++)
			known = l->learned[k].domid == x->domid && l->learned[k].dev == x->dev;
		if (!known)
			l->learned[l->n_learned++] = (struct learned_backend){x->domid, x->dev};
	}
}

static void add_learned(struct live *l, struct xt_topology *t)
{
	for (size_t k = 0; k < l->n_learned; k++) {
		struct xt_domain *d = topo_domain_slot(t, l->learned[k].domid);
		if (!d || has_backend_dev(d, l->learned[k].dev))
			continue;
		struct xt_backend *b = topo_backend_add(d, XT_BK_VBD, (uint32_t)k);
		if (!b)
			return;
		b->type = strdup("seen"); /* learned from a blkback thread's bios */
		topo_resolve_dev(&l->roots, l->learned[k].dev, b);
	}
}

/* Device models come and go (a guest boots, a qemu exits): look again each interval and
 * swap the topology when it changed. */
static void live_refresh(struct live *l)
{
	struct xt_topology fresh;
	if (topo_source_build(&l->src, &fresh))
		return;
	add_learned(l, &fresh);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	keep_departed(l, &l->topo, &fresh,
	              (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec);
	uint64_t fp = topo_fingerprint(&fresh);
	if (fp == l->fingerprint) {
		topo_free(&fresh);
		return;
	}
	topo_free(&l->topo);
	l->topo = fresh;
	tracer_set_topology(l->tracer, &l->topo, &l->roots);
	collector_set_topology(&l->col, &l->topo);
	l->fingerprint = fp;
}

int source_opt(struct source_opts *o, int code, const char *arg)
{
	switch (code) {
	case SOURCE_OPT_DUMP:
		o->xenstore_dump = arg;
		return 1;
	case SOURCE_OPT_SYSFS:
		o->roots.sysfs = arg;
		return 1;
	case SOURCE_OPT_PROC:
		o->roots.proc = arg;
		return 1;
	case SOURCE_OPT_IMAGE_DIR:
		if (arg[0] != '/' || o->roots.n_image_dirs == SOURCE_MAX_IMAGE_DIRS) {
			fprintf(stderr, "xiotop: --image-dir wants an absolute path (%d at most)\n",
			        SOURCE_MAX_IMAGE_DIRS);
			return -1;
		}
		o->image_dirs[o->roots.n_image_dirs++] = arg;
		o->roots.image_dirs = o->image_dirs;
		return 1;
	default:
		return 0;
	}
}

static int read_tracer(void *ctx, struct xs_sample *s)
{
	return tracer_read(ctx, s);
}

int live_open(struct live *l, const struct source_opts *o)
{
	memset(l, 0, sizeof(*l));
	l->roots = o->roots;
	l->opts = *o;
	int rc = topo_source_open(&l->src, o->xenstore_dump, &o->roots, xen_api_real(), stderr);
	if (!rc)
		rc = build_topology(&l->src, &l->topo);
	if (rc) {
		topo_source_close(&l->src);
		return rc;
	}
	l->fingerprint = topo_fingerprint(&l->topo);
	char err[512];
	if (tracer_open(&l->tracer, err, sizeof(err))) {
		fprintf(stderr, "xiotop: %s\n", err);
		topo_free(&l->topo);
		topo_source_close(&l->src);
		return 2;
	}
	tracer_set_topology(l->tracer, &l->topo, &l->roots);
	fprintf(stderr, "xiotop: tracing with %s programs: %s\n", tracer_mode(l->tracer),
	        tracer_hooks(l->tracer));
	collector_init(&l->col, read_tracer, l->tracer, &l->roots);
	collector_set_topology(&l->col, &l->topo);
	collector_set_xen(&l->col, l->src.xen);
	return 0;
}

int live_sample(struct live *l, struct xs_sample *s)
{
	live_refresh(l);
	if (collector_sample(&l->col, s))
		return -1;
	learn_backends(l, s);
	snprintf(s->hooks, sizeof(s->hooks), "%s %s", tracer_mode(l->tracer),
	         tracer_hooks(l->tracer));
	return 0;
}

void live_close(struct live *l)
{
	collector_free(&l->col);
	tracer_close(l->tracer);
	topo_free(&l->topo);
	topo_source_close(&l->src);
	memset(l, 0, sizeof(*l));
}
