/* rq_watch.c - requests of blk-mq backend devices that no completion program saw. */
#include "sources/rq_watch.h"

#include <stdbool.h>
#include <stdlib.h>

/* Completed reads and writes of dev, or false when diskstats has no line for it. */
static bool completed(const struct host_diskstat *ds, size_t n_ds, uint32_t dev, uint64_t *out)
{
	for (size_t i = 0; i < n_ds; i++)
		if (ds[i].dev == dev) {
			*out = ds[i].rd_ios + ds[i].wr_ios;
			return true;
		}
	return false;
}

/* The watched devices' completions since each was watched from (a device gone from
 * diskstats keeps its last count). */
static uint64_t done_since(struct rq_watch *w, const struct host_diskstat *ds, size_t n_ds)
{
	uint64_t sum = w->done_before;
	for (size_t i = 0; i < w->n; i++) {
		uint64_t now;
		if (completed(ds, n_ds, w->devs[i], &now) && now >= w->base[i])
			w->last[i] = now;
		sum += w->last[i] - w->base[i];
	}
	return sum;
}

int rq_watch_set(struct rq_watch *w, const uint32_t *devs, size_t n, const struct host_diskstat *ds,
                 size_t n_ds)
{
	w->done_before = done_since(w, ds, n_ds);
	rq_watch_free(w); /* the old device list; the counts so far stay */
	if (!n)
		return 0;
	w->devs = malloc(n * sizeof(*w->devs));
	w->base = malloc(n * sizeof(*w->base));
	w->last = malloc(n * sizeof(*w->last));
	if (!w->devs || !w->base || !w->last) {
		rq_watch_free(w);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		w->devs[i] = devs[i];
		w->base[i] = 0;
		completed(ds, n_ds, devs[i], &w->base[i]);
		w->last[i] = w->base[i];
	}
	w->n = n;
	return 0;
}

uint64_t rq_watch_lost(struct rq_watch *w, const struct host_diskstat *ds, size_t n_ds,
                       uint64_t seen)
{
	uint64_t done = done_since(w, ds, n_ds);
	if (done > seen && done - seen > w->lost)
		w->lost = done - seen;
	return w->lost;
}

void rq_watch_free(struct rq_watch *w)
{
	free(w->devs);
	free(w->base);
	free(w->last);
	w->devs = NULL;
	w->base = w->last = NULL;
	w->n = 0;
}
