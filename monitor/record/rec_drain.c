/* rec_drain.c - the drain of a wrapped command's dirty pages; see rec_drain.h. */
#include "record/rec_drain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A vm.* sysctl of the facts, in centiseconds; def when not known. */
static int64_t sysctl_cs(const struct rec_host_facts *f, const char *name, int64_t def)
{
	for (int i = 0; f && i < REC_DIRTY_SYSCTLS; i++) {
		if (!f->dirty[i].name || strcmp(f->dirty[i].name, name) || !f->dirty[i].value[0])
			continue;
		char *end;
		long long v = strtoll(f->dirty[i].value, &end, 10);
		return *end || v < 0 ? def : v;
	}
	return def;
}

int64_t rec_drain_bound(const struct rec_host_facts *f, double interval_s)
{
	/* the kernel's defaults: mm/page-writeback.c */
	int64_t expire = sysctl_cs(f, "vm.dirty_expire_centisecs", 3000);
	int64_t wakeup = sysctl_cs(f, "vm.dirty_writeback_centisecs", 500);
	return (expire + wakeup) * 10000000LL + REC_DRAIN_MARGIN_NS +
	       (int64_t)(2 * interval_s * 1e9);
}

void rec_drain_begin(struct rec_drain *d, const struct xio_sample *s)
{
	d->counted = s->has_dirty;
	d->backlog = d->left = 0;
	d->n = 0;
	if (!d->counted)
		return;
	for (size_t i = 0; i < s->n_counters; i++) {
		const struct xio_dom_counters *c = &s->counters[i];
		if (c->dirtied_bytes <= c->written_back_bytes || d->n == REC_DRAIN_DOMAINS)
			continue;
		d->backlog += c->dirtied_bytes - c->written_back_bytes;
		d->dom[d->n++] = (struct rec_drain_domain){c->domid, c->dirtied_bytes};
	}
	d->left = d->backlog;
}

/* The rules by which a domain's page-cache pages are queued to be written back
 * (bpf/bio.bpf.h tally_write): the devices whose I/O in progress the drain waits out. Not
 * the disks below them: a partition's in-flight count is its own requests', and a dm or
 * md device ends a bio only after the bios below it ended; waiting on the whole disk or
 * on an array's members would wait on their other users' I/O too (dom0's own root). */
static bool writeback_path(uint32_t via)
{
	return via == XIOTOP_VIA_LOOPWORK || via == XIOTOP_VIA_INODE || via == XIOTOP_VIA_DMTASK;
}

/* A device domid's writeback went through with I/O in progress at s, or NULL. */
static const struct xio_dev *busy_device(const struct xio_sample *s, uint32_t domid)
{
	for (size_t i = 0; i < s->n_layers; i++) {
		const struct xio_layer *l = &s->layers[i];
		if (l->domid != domid || !writeback_path(l->via))
			continue;
		const struct xio_dev *dev = sample_dev(s, l->dev);
		if (dev && dev->in_flight)
			return dev;
	}
	return NULL;
}

bool rec_drain_check(struct rec_drain *d, const struct xio_sample *s)
{
	d->busy_dev = 0;
	d->busy_name[0] = 0;
	if (!d->counted || !s->has_dirty)
		return false;
	uint64_t left = 0;
	for (size_t k = 0; k < d->n; k++) {
		uint64_t written = 0;
		for (size_t i = 0; i < s->n_counters; i++)
			if (s->counters[i].domid == d->dom[k].domid)
				written = s->counters[i].written_back_bytes;
		if (written < d->dom[k].dirtied)
			left += d->dom[k].dirtied - written;
	}
	d->left = left;
	if (left)
		return false;
	if (!s->has_in_flight)
		return false;
	for (size_t k = 0; k < d->n; k++) {
		const struct xio_dev *busy = busy_device(s, d->dom[k].domid);
		if (busy) {
			d->busy_dev = busy->dev;
			snprintf(d->busy_name, sizeof(d->busy_name), "%s", busy->name);
			return false;
		}
	}
	return true;
}
