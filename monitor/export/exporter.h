/* exporter.h - the metrics state behind a scrape endpoint, fed by the interval loop.
 *
 * Contract: the exporter is an interval sink (core/loop.h). Each interval it adds to the
 * metrics state (metrics.h) and renders the exposition once per format into buffers
 * that it then publishes under a mutex. exporter_latest() hands the latest published
 * exposition to a callback while holding that mutex (the callback copies it; it must not
 * block): a scrape never renders, samples or touches BPF, and any number of threads may
 * call it while the loop runs. Before the first interval the exposition holds the info
 * metrics and zero counters. exporter_started() says whether the source's first sample
 * (the live tracer's baseline, taken at attach) was seen: before it the counters count
 * nothing yet, and serve answers that it is not ready rather than zeros.
 */
#ifndef XIOTOP_EXPORT_EXPORTER_H
#define XIOTOP_EXPORT_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/loop.h"
#include "export/exposition.h"

struct exporter;

/* NULL on ENOMEM. version goes into xiotop_build_info. */
struct exporter *exporter_open(const char *version);
struct interval_sink exporter_sink(struct exporter *ex);
/* fn(ctx, text, len) on the latest exposition in format f; returns what fn returns. */
int exporter_latest(struct exporter *ex, enum expo_format f,
                    int (*fn)(void *ctx, const char *text, size_t len), void *ctx);
/* How many intervals the published exposition holds. */
unsigned long exporter_intervals(struct exporter *ex);
/* Whether the first sample was seen: the counters count from it. */
bool exporter_started(struct exporter *ex);
void exporter_close(struct exporter *ex); /* NULL: nothing */

#endif
