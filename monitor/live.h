/* live.h - the live sample source: topology + BPF tracer + collector in one handle.
 *
 * Contract: live_open() picks the topology source (topo_source.h: one line says which
 * and why) and builds the topology, loads and attaches the tracer, and prints one line
 * saying which programs and hooks are active.
 * It returns 0, or an exit status (2: bad input or missing prerequisite) after printing
 * one clear message. live_sample() returns a fresh cumulative sample (0) or -1.
 * Every command that watches the live system (batch, console, record) goes through it.
 */
#ifndef XIOTOP_LIVE_H
#define XIOTOP_LIVE_H

#include "collector.h"
#include "topo_source.h"
#include "topology.h"
#include "tracer.h"

#define SOURCE_MAX_IMAGE_DIRS 16

struct source_opts {
	const char *xenstore_dump; /* NULL: no dump */
	struct xt_roots roots;
	const char *image_dirs[SOURCE_MAX_IMAGE_DIRS]; /* roots.image_dirs points here */
};

/* The options every command watching the live system takes, for its getopt_long table:
 * --xenstore-dump FILE, --sysfs-root DIR, --proc-root DIR, --image-dir DIR (repeatable). */
enum { SOURCE_OPT_DUMP = 0x1000, SOURCE_OPT_SYSFS, SOURCE_OPT_PROC, SOURCE_OPT_IMAGE_DIR };
#define SOURCE_LONGOPTS                                                                            \
	{"xenstore-dump", required_argument, NULL, SOURCE_OPT_DUMP},                               \
	    {"sysfs-root", required_argument, NULL, SOURCE_OPT_SYSFS},                             \
	    {"proc-root", required_argument, NULL, SOURCE_OPT_PROC},                               \
	{                                                                                          \
		"image-dir", required_argument, NULL, SOURCE_OPT_IMAGE_DIR                         \
	}
/* Take one of those options: 1 taken, 0 not one of them, -1 bad value (said on stderr).
 * The source_opts must stay where it is while roots.image_dirs is used. */
int source_opt(struct source_opts *o, int code, const char *arg);

#define LIVE_MAX_DEPARTED 64
#define LIVE_MAX_LEARNED  64

/* A device a blkback thread submits to that no topology source names. */
struct learned_backend {
	uint32_t domid;
	uint32_t dev;
};

struct departed {
	uint32_t domid;
	uint64_t since_ns; /* monotonic: when its device model was last seen gone */
};

struct live {
	struct xt_topology topo;
	struct tracer *tracer;
	struct collector col;
	struct xt_roots roots;
	struct topo_source src; /* where topologies come from (Xen live, dump, /proc) */
	struct source_opts opts;
	uint64_t fingerprint; /* of the topology the tracer maps were filled from */
	struct departed departed[LIVE_MAX_DEPARTED];
	size_t n_departed;
	struct learned_backend learned[LIVE_MAX_LEARNED];
	size_t n_learned;
};

/* Topology only (no BPF): for `xiotop topology` and tests. 0 or exit status 2. */
int live_load_topology(const struct source_opts *o, struct xt_topology *topo);
int live_open(struct live *l, const struct source_opts *o);
int live_sample(struct live *l, struct xs_sample *s);
void live_close(struct live *l);

#endif
