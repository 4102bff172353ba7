/* live.c - topology + tracer + collector as one sample source; see live.h. */
#include "sources/live.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/error.h"
#include "sources/collector.h"
#include "sources/live_rules.h"
#include "sources/topo_source.h"
#include "sources/tracer.h"
#include "sources/xen/xen_api.h"
#include "sources/xen/xenlive.h"

struct live {
	struct xt_topology topo;
	struct tracer *tracer;
	struct collector col;
	struct xt_roots roots;
	struct topo_source src; /* where topologies come from (Xen live, dump, /proc) */
	struct source_opts opts;
	uint64_t fingerprint; /* of the topology the tracer maps were filled from */
	struct live_rules rules;
	struct live_baseline baseline; /* taken at attach, handed out first */
	bool said_qdisk;               /* a qdisk's counters went unread once: said */
};

int live_load_topology(const struct source_opts *o, struct xt_topology *topo, struct xerr *err)
{
	struct topo_source src;
	memset(topo, 0, sizeof(*topo));
	int rc = topo_source_open(&src, o->xenstore_dump, &o->roots, xen_api_real(), err);
	if (!rc && topo_source_build(&src, topo)) {
		xerr_set(err, XERR_NOMEM, "out of memory building the topology");
		rc = -1;
	}
	topo_source_close(&src);
	return rc ? -1 : 0;
}

/* Device models come and go (a guest boots, a qemu exits): look again each interval and
 * swap the topology when it changed. */
static void live_refresh(struct live *l)
{
	struct xt_topology fresh;
	if (topo_source_build(&l->src, &fresh))
		return;
	live_rules_add_learned(&l->rules, &l->roots, &fresh);
	live_rules_keep_departed(&l->rules, &l->topo, &fresh, (uint64_t)clock_mono_ns());
	uint64_t fp = live_rules_fingerprint(&fresh);
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

static int read_tracer(void *ctx, struct xio_sample *s)
{
	return tracer_read(ctx, s);
}

static uint64_t tracer_lag(void *ctx, uint32_t dev)
{
	return tracer_in_flight(ctx, dev);
}

/* One sample of the tracer, the host and the topology's domains. */
static int collect(struct live *l, struct xio_sample *s)
{
	if (collector_sample(&l->col, s))
		return -1;
	const char *qdisk = l->col.xen ? xenlive_qdisk_problem(l->col.xen) : "";
	if (*qdisk && !l->said_qdisk) {
		xnote("%s (said once; a vbd not read keeps its last counts)", qdisk);
		l->said_qdisk = true;
	}
	live_rules_learn(&l->rules, &l->topo, s);
	snprintf(s->hooks, sizeof(s->hooks), "%s %s", tracer_mode(l->tracer),
	         tracer_hooks(l->tracer));
	return 0;
}

int live_can_open(struct xerr *err)
{
	return tracer_can_load(err);
}

int live_open(struct live **out, const struct source_opts *o, struct xerr *err)
{
	struct live *l = calloc(1, sizeof(*l));
	*out = l;
	if (!l) {
		xerr_set(err, XERR_NOMEM, "out of memory");
		return -1;
	}
	l->roots = o->roots;
	l->opts = *o;
	/* what is missing first: without root nothing else would be said to any purpose */
	if (live_can_open(err)) {
		free(l);
		*out = NULL;
		return -1;
	}
	int rc = topo_source_open(&l->src, o->xenstore_dump, &o->roots, xen_api_real(), err);
	if (!rc && (rc = topo_source_build(&l->src, &l->topo)))
		xerr_set(err, XERR_NOMEM, "out of memory building the topology");
	if (rc) {
		topo_source_close(&l->src);
		free(l);
		*out = NULL;
		return -1;
	}
	l->fingerprint = live_rules_fingerprint(&l->topo);
	if (tracer_open(&l->tracer, o->latency, err)) {
		topo_free(&l->topo);
		topo_source_close(&l->src);
		free(l);
		*out = NULL;
		return -1;
	}
	tracer_set_topology(l->tracer, &l->topo, &l->roots);
	xnote("tracing with %s programs: %s", tracer_mode(l->tracer), tracer_hooks(l->tracer));
	collector_init(&l->col, read_tracer, l->tracer, &l->roots);
	collector_set_in_flight(&l->col, tracer_lag);
	collector_set_topology(&l->col, &l->topo);
	collector_set_xen(&l->col, l->src.xen);
	/* the baseline, now that the programs are attached and the maps filled: whatever a
	 * command does before it asks for its first sample (a console starting, a recorder
	 * storing its header, serve's first pace) is in the first interval, not before it */
	struct xio_sample first;
	if (collect(l, &first)) {
		xerr_set(err, XERR_RUNTIME, "cannot read counters");
		live_close(l);
		*out = NULL;
		return -1;
	}
	live_baseline_keep(&l->baseline, &first);
	return 0;
}

int live_sample(struct live *l, struct xio_sample *s)
{
	if (live_baseline_hand(&l->baseline, s))
		return 0;
	live_refresh(l);
	return collect(l, s);
}

size_t live_take_marks(struct live *l, struct xenlive_mark *out, size_t max, unsigned long *refused)
{
	return topo_source_take_marks(&l->src, out, max, refused);
}

void live_close(struct live *l)
{
	if (!l)
		return;
	live_baseline_free(&l->baseline);
	collector_free(&l->col);
	tracer_close(l->tracer);
	topo_free(&l->topo);
	topo_source_close(&l->src);
	free(l);
}

const char *live_tracer_mode(const struct live *l)
{
	return tracer_mode(l->tracer);
}

const struct map_updates *live_map_updates(const struct live *l)
{
	return tracer_map_updates(l->tracer);
}

void live_lost_describe(const struct live *l, char *out, size_t outlen)
{
	tracer_lost_words(tracer_lost(l->tracer), out, outlen);
}

const char *live_tracer_hooks(const struct live *l)
{
	return tracer_hooks(l->tracer);
}

static int live_next(void *ctx, struct xio_sample *out)
{
	return live_sample(ctx, out) == 0 ? 0 : SOURCE_FAILED;
}

struct sample_source live_source(struct live *l)
{
	return source_runtime(l, live_next, "live", "cannot read counters");
}
