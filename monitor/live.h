/* live.h - the live sample source: topology + BPF tracer + collector in one handle.
 *
 * Contract: live_open() builds the topology from the configured source, loads and
 * attaches the tracer, and prints one line saying which programs and hooks are active.
 * It returns 0, or an exit status (2: bad input or missing prerequisite) after printing
 * one clear message. live_sample() returns a fresh cumulative sample (0) or -1.
 * Every command that watches the live system (batch, console, record) goes through it.
 */
#ifndef XIOTOP_LIVE_H
#define XIOTOP_LIVE_H

#include "collector.h"
#include "topology.h"
#include "tracer.h"

struct source_opts {
	const char *xenstore_dump; /* NULL: no dump */
	struct xt_roots roots;
};

struct live {
	struct xt_topology topo;
	struct tracer *tracer;
	struct collector col;
	struct xt_roots roots;
};

/* Topology only (no BPF): for `xiotop topology` and tests. 0 or exit status 2. */
int live_load_topology(const struct source_opts *o, struct xt_topology *topo);
int live_open(struct live *l, const struct source_opts *o);
int live_sample(struct live *l, struct xs_sample *s);
void live_close(struct live *l);

#endif
