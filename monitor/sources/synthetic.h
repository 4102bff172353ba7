/* synthetic.h - a sample source that fabricates N domains with changing counters.
 *
 * Contract: no BPF, no root, no host files: every figure is made up, a function of the
 * time elapsed since synthetic_open() only, and consistent the way live samples are
 * (cumulative and monotonic; per-layer bytes, disks and vmstat agree as model.h
 * expects). Domain 0 is Domain-0 without I/O; domains 1..N cycle through three stacks:
 * a file on a loop device (double counted by vmstat, a dirty backlog written back 5 s
 * late), an LV-like dm device remapped to a disk, and a qdisk device model writing a disk
 * directly. Some domains are idle. With latency, each domain that moved data has a read
 * and a write latency histogram of its requests (eight log2 buckets around its stack's
 * median). For `xiotop --synthetic N` (console benchmarks and demos without Xen) and
 * tests.
 */
#ifndef XIOTOP_SYNTHETIC_H
#define XIOTOP_SYNTHETIC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sample.h"
#include "core/source.h"

#define SYNTHETIC_MAX_DOMAINS 100000

struct synthetic;

/* NULL if n_domains is 0 or above SYNTHETIC_MAX_DOMAINS, or out of memory. latency: the
 * samples carry latency histograms (has_latency), as the tracer's by default. */
struct synthetic *synthetic_open(unsigned n_domains, bool latency);
void synthetic_close(struct synthetic *s);
/* The sample `elapsed_ns` after open, stamped `realtime_ns`. 0, or -1 (ENOMEM). */
int synthetic_sample_at(const struct synthetic *s, uint64_t elapsed_ns, int64_t realtime_ns,
                        struct xio_sample *out);
/* The sample now (ctx: a struct synthetic). 0, or -1 (ENOMEM): SOURCE_FAILED, so that it
 * is the source's next() itself. */
int synthetic_sample(void *ctx, struct xio_sample *out);
/* The same as a source for the interval loop (fail_status 1). */
struct sample_source synthetic_source(struct synthetic *s);

#endif
