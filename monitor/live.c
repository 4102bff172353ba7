/* live.c - topology + tracer + collector as one sample source; see live.h. */
#include "live.h"

#include <stdio.h>
#include <string.h>

int live_load_topology(const struct source_opts *o, struct xt_topology *topo)
{
	memset(topo, 0, sizeof(*topo));
	if (!o->xenstore_dump)
		return 0;
	struct xs_store store = {0};
	char err[512];
	if (xs_parse_file(o->xenstore_dump, &store, err, sizeof(err))) {
		fprintf(stderr, "xiotop: %s\n", err);
		return 2;
	}
	int rc = topo_from_xenstore(&store, &o->roots, topo);
	xs_free(&store);
	if (rc) {
		fprintf(stderr, "xiotop: %s: cannot build a topology\n", o->xenstore_dump);
		return 2;
	}
	return 0;
}

static int read_tracer(void *ctx, struct xs_sample *s)
{
	return tracer_read(ctx, s);
}

int live_open(struct live *l, const struct source_opts *o)
{
	memset(l, 0, sizeof(*l));
	l->roots = o->roots;
	int rc = live_load_topology(o, &l->topo);
	if (rc)
		return rc;
	char err[512];
	if (tracer_open(&l->tracer, err, sizeof(err))) {
		fprintf(stderr, "xiotop: %s\n", err);
		topo_free(&l->topo);
		return 2;
	}
	tracer_set_topology(l->tracer, &l->topo, &l->roots);
	fprintf(stderr, "xiotop: tracing with %s programs: %s\n", tracer_mode(l->tracer),
	        tracer_hooks(l->tracer));
	collector_init(&l->col, read_tracer, l->tracer, &l->roots);
	collector_set_topology(&l->col, &l->topo);
	return 0;
}

int live_sample(struct live *l, struct xs_sample *s)
{
	if (collector_sample(&l->col, s))
		return -1;
	snprintf(s->hooks, sizeof(s->hooks), "%s %s", tracer_mode(l->tracer),
	         tracer_hooks(l->tracer));
	return 0;
}

void live_close(struct live *l)
{
	collector_free(&l->col);
	tracer_close(l->tracer);
	topo_free(&l->topo);
	memset(l, 0, sizeof(*l));
}
