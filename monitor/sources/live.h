/* live.h - the live sample source: topology + BPF tracer + collector in one handle.
 *
 * Contract: live_open() first checks what the tracer needs (root, kernel BTF: said
 * before any other line), picks the topology source (topo_source.h: one line says which
 * and why) and builds the topology, loads and attaches the tracer, and says in one note
 * (core/error.h) which programs and hooks are active.
 * It returns 0, or -1 with *err filled (core/error.h): XERR_INPUT for a topology that
 * cannot be read (the topology source said why on stderr as it opened: the sentence is
 * then empty), XERR_PREREQ for a tracer that cannot load (root, BTF, BPF), XERR_RUNTIME
 * for counters that cannot be read, XERR_NOMEM. It takes the baseline sample at once,
 * when the programs are attached and the maps filled: live_sample() hands it out first
 * (so every command's first interval runs from attach), then a fresh cumulative sample
 * each call (0), or -1. Every command that watches the live system (batch, console,
 * record, serve) goes through it. live_take_marks() hands out the marks guests wrote
 * into their own xenstore node (sources/xen/xenlive.h) seen up to the last sample, each
 * timed before that sample; a recorder stores them (origin "domain N").
 */
#ifndef XIOTOP_LIVE_H
#define XIOTOP_LIVE_H

#include "core/error.h"
#include "core/source.h"
#include "sources/map_updates.h"
#include "sources/topology/topology.h"
#include "sources/xen/xenlive.h"

#define SOURCE_MAX_IMAGE_DIRS 16

struct source_opts {
	const char *xenstore_dump; /* NULL: no dump */
	struct xt_roots roots;
	const char *image_dirs[SOURCE_MAX_IMAGE_DIRS]; /* roots.image_dirs points here */
	bool latency; /* the tracer times I/O per domain (the default; --no-latency) */
};

struct live;

/* Topology only (no BPF): for `xiotop topology` and tests. 0, or -1 with *err filled as
 * live_open's (XERR_INPUT, XERR_NOMEM). */
int live_load_topology(const struct source_opts *o, struct xt_topology *topo, struct xerr *err);
/* 0 with *out set, or -1 with *err filled (*out NULL). */
int live_open(struct live **out, const struct source_opts *o, struct xerr *err);
/* What live_open() checks first (root, kernel BTF: XERR_PREREQ), for a command that
 * prepares something of its own before it (record's file) to say it first too. */
int live_can_open(struct xerr *err);
int live_sample(struct live *l, struct xio_sample *s);
/* The live source as the interval loop takes it (fail_status 1). */
struct sample_source live_source(struct live *l);
/* Which programs and hooks the tracer runs: "tp_btf" / "raw_tp", and the hooks line. */
const char *live_tracer_mode(const struct live *l);
const char *live_tracer_hooks(const struct live *l);
/* The topology entries the tracer's maps refused so far (in lost_events too). */
const struct map_updates *live_map_updates(const struct live *l);
/* The tracer's lost events by kind, in words (tracer_lost_words); "" when none. */
void live_lost_describe(const struct live *l, char *out, size_t outlen);
/* As topo_source_take_marks(). */
size_t live_take_marks(struct live *l, struct xenlive_mark *out, size_t max,
                       unsigned long *refused);
void live_close(struct live *l); /* NULL: nothing */

#endif
