/* dev_counts.c - domains' own devices counted by the kernel; see dev_counts.h. */
#include "sources/dev_counts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/lat_untimed.h"
#include "sources/topology/topology.h"

static bool sysfs_has(const char *sysfs, uint32_t dev, const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/dev/block/%u:%u/%s", sysfs, XT_KDEV_MAJOR(dev),
	         XT_KDEV_MINOR(dev), rel);
	return !access(p, F_OK);
}

/* The first byte of SYSFS/dev/block/M:m/REL, or 0 when it cannot be read. */
static char sysfs_char(const char *sysfs, uint32_t dev, const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/dev/block/%u:%u/%s", sysfs, XT_KDEV_MAJOR(dev),
	         XT_KDEV_MINOR(dev), rel);
	FILE *f = fopen(p, "re");
	if (!f)
		return 0;
	int ch = fgetc(f);
	fclose(f);
	return ch == EOF ? 0 : (char)ch;
}

bool dev_counts_kernel_counts(const char *sysfs, uint32_t dev, bool splits_seen)
{
	/* a partition is counted with its disk, whose attributes are one level up */
	const char *disk = sysfs_has(sysfs, dev, "partition") ? "../" : "";
	char rel[64];
	snprintf(rel, sizeof(rel), "%scomp_algorithm", disk); /* zram's own attribute */
	if (sysfs_has(sysfs, dev, rel))
		return true;
	if (!splits_seen || !lat_dev_is_blk_mq(sysfs, dev))
		return false;
	snprintf(rel, sizeof(rel), "%squeue/iostats", disk);
	return sysfs_char(sysfs, dev, rel) == '1';
}

/* dev's diskstats line, or NULL. */
static const struct host_diskstat *line_of(const struct host_diskstat *ds, size_t n_ds,
                                           uint32_t dev)
{
	for (size_t i = 0; i < n_ds; i++)
		if (ds[i].dev == dev)
			return &ds[i];
	return NULL;
}

/* A diskstats line's reads and writes as a layer's counters. */
static struct xiotop_io io_of(const struct host_diskstat *l)
{
	return (struct xiotop_io){.rd_bytes = l->rd_bytes,
	                          .wr_bytes = l->wr_bytes,
	                          .rd_ios = l->rd_ios + l->rd_merges,
	                          .wr_ios = l->wr_ios + l->wr_merges};
}

static void io_add(struct xiotop_io *to, const struct xiotop_io *a, const struct xiotop_io *b)
{
	/* to += a - b, field by field (a >= b: the caller's invariant) */
	to->rd_bytes += a->rd_bytes - b->rd_bytes;
	to->wr_bytes += a->wr_bytes - b->wr_bytes;
	to->rd_ios += a->rd_ios - b->rd_ios;
	to->wr_ios += a->wr_ios - b->wr_ios;
}

static void io_plus(struct xiotop_io *to, const struct xiotop_io *a)
{
	io_add(to, a, &(struct xiotop_io){0});
}

static bool io_below(const struct xiotop_io *a, const struct xiotop_io *b)
{
	return a->rd_bytes < b->rd_bytes || a->wr_bytes < b->wr_bytes || a->rd_ios < b->rd_ios ||
	       a->wr_ios < b->wr_ios;
}

/* The device's extras (zero when the programs tallied none for it). */
static struct xiotop_io extra_of(const struct dev_extra *x, size_t n_x, uint32_t dev)
{
	for (size_t i = 0; i < n_x; i++)
		if (x[i].dev == dev)
			return x[i].io;
	return (struct xiotop_io){0};
}

/* *shown = max(*shown, (now - base) - (extra - extra_base)), one field: the extras of a
 * split bio come before its requests complete, so the difference dips while it is in
 * flight and never exceeds the bios queued (dev_counts.h) */
static void show_field(unsigned long long *shown, uint64_t now, uint64_t base, uint64_t extra,
                       uint64_t extra_base)
{
	uint64_t counted = now - base, less = extra - extra_base;
	if (counted > less && counted - less > *shown)
		*shown = counted - less;
}

/* The entry's counters at this read: a device made anew (counters back below the last
 * read) had its count so far closed and counts from 0, its extras from the last read's. */
static void take(struct dev_count *e, const struct xiotop_io *now, const struct xiotop_io *extra)
{
	if (!e->based) { /* no line when it was set: counted from here */
		e->base = e->last = *now;
		e->extra_base = e->extra_last = *extra;
		e->based = true;
		return;
	}
	if (io_below(now, &e->last)) {
		io_plus(&e->done, &e->shown);
		memset(&e->shown, 0, sizeof(e->shown));
		memset(&e->base, 0, sizeof(e->base));
		e->extra_base = e->extra_last;
	}
	if (io_below(extra, &e->extra_base)) /* the programs were loaded anew */
		e->extra_base = *extra;
	e->last = *now;
	e->extra_last = *extra;
	show_field(&e->shown.rd_bytes, now->rd_bytes, e->base.rd_bytes, extra->rd_bytes,
	           e->extra_base.rd_bytes);
	show_field(&e->shown.wr_bytes, now->wr_bytes, e->base.wr_bytes, extra->wr_bytes,
	           e->extra_base.wr_bytes);
	show_field(&e->shown.rd_ios, now->rd_ios, e->base.rd_ios, extra->rd_ios,
	           e->extra_base.rd_ios);
	show_field(&e->shown.wr_ios, now->wr_ios, e->base.wr_ios, extra->wr_ios,
	           e->extra_base.wr_ios);
}

void dev_counts_read(struct dev_counts *c, const struct host_diskstat *ds, size_t n_ds,
                     const struct dev_extra *x, size_t n_x)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct host_diskstat *l =
		    c->v[i].active ? line_of(ds, n_ds, c->v[i].src.dev) : NULL;
		if (!l)
			continue;
		struct xiotop_io now = io_of(l), extra = extra_of(x, n_x, c->v[i].src.dev);
		take(&c->v[i], &now, &extra);
		c->v[i].in_flight = l->in_flight;
	}
}

uint64_t dev_counts_in_flight(const struct dev_counts *c, uint32_t dev)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].active && c->v[i].src.dev == dev)
			return c->v[i].in_flight;
	return 0;
}

static struct dev_count *find(struct dev_counts *c, const struct dev_count_src *s)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].src.dev == s->dev && c->v[i].src.domid == s->domid)
			return &c->v[i];
	return NULL;
}

/* Counted from now on, after what it counted before for the same domain: one counted
 * until now counts on (dev_counts_set read it just before), another from the diskstats
 * read now, or from the first read that has its line. */
static void activate(struct dev_count *e, const struct dev_count_src *s,
                     const struct host_diskstat *ds, size_t n_ds, const struct dev_extra *x,
                     size_t n_x)
{
	if (e->active) {
		e->src.whole = s->whole; /* the whole disk may have changed */
		return;
	}
	const struct host_diskstat *l = line_of(ds, n_ds, s->dev);
	struct xiotop_io now = l ? io_of(l) : (struct xiotop_io){0};
	io_plus(&e->done, &e->shown); /* what it counted before it left */
	memset(&e->shown, 0, sizeof(e->shown));
	e->src = *s;
	e->base = e->last = now;
	e->extra_base = e->extra_last = extra_of(x, n_x, s->dev);
	e->based = l != NULL;
	e->active = true;
}

int dev_counts_set(struct dev_counts *c, const struct dev_count_src *src, size_t n,
                   const struct host_diskstat *ds, size_t n_ds, const struct dev_extra *x,
                   size_t n_x)
{
	dev_counts_read(c, ds, n_ds, x, n_x); /* the devices leaving: counted up to now */
	for (size_t i = 0; i < c->n; i++)
		c->v[i].listed = false;
	for (size_t i = 0; i < n; i++) {
		struct dev_count *e = find(c, &src[i]);
		if (!e) {
			struct dev_count *grown = realloc(c->v, (c->n + 1) * sizeof(*grown));
			if (!grown)
				return -1;
			c->v = grown;
			e = &c->v[c->n++];
			memset(e, 0, sizeof(*e));
		}
		activate(e, &src[i], ds, n_ds, x, n_x);
		e->listed = true;
	}
	for (size_t i = 0; i < c->n; i++)
		c->v[i].active = c->v[i].listed;
	return 0;
}

struct xiotop_io dev_count_io(const struct dev_count *e)
{
	struct xiotop_io io = e->done;
	io_plus(&io, &e->shown);
	return io;
}

void dev_counts_free(struct dev_counts *c)
{
	free(c->v);
	c->v = NULL;
	c->n = 0;
}
