/* window.c - a window's intervals accumulated per domain; see window.h. */
#include "explain/window.h"

#include <stdlib.h>
#include <string.h>

#define DRAIN_FLOOR_BYTES (1024 * 1024)

static struct ex_domain *find_domain(struct explain *ex, uint32_t domid)
{
	for (size_t i = 0; i < ex->n_doms; i++)
		if (ex->doms[i].domid == domid)
			return &ex->doms[i];
	return NULL;
}

static struct ex_domain *add_domain(struct ex_window_sink *w, uint32_t domid)
{
	struct explain *ex = w->ex;
	struct ex_domain *p = realloc(ex->doms, (ex->n_doms + 1) * sizeof(*p));
	uint64_t *t = realloc(w->drain_threshold, (ex->n_doms + 1) * sizeof(*t));
	if (p)
		ex->doms = p;
	if (t)
		w->drain_threshold = t;
	if (!p || !t)
		return NULL;
	struct ex_domain *d = &ex->doms[ex->n_doms];
	memset(d, 0, sizeof(*d));
	d->domid = domid;
	w->drain_threshold[ex->n_doms++] = 0;
	return d;
}

static void take_names(struct ex_domain *d, const struct xio_domain *info)
{
	if (!info)
		return;
	memcpy(d->name, info->name, sizeof(d->name));
	memcpy(d->kind, info->kind, sizeof(d->kind));
	memcpy(d->file, info->file, sizeof(d->file));
	if (info->mem_bytes)
		d->mem_bytes = info->mem_bytes;
}

static void add_layers(struct ex_domain *d, const struct model_domain *md)
{
	for (size_t i = 0; i < md->n_layers; i++) {
		const struct model_layer *ml = &md->layers[i];
		struct ex_layer *l = NULL;
		for (size_t j = 0; j < d->n_layers && !l; j++)
			if (d->layers[j].role == ml->role && d->layers[j].is_file == ml->is_file &&
			    !strcmp(d->layers[j].name, ml->name))
				l = &d->layers[j];
		if (!l && d->n_layers < EX_MAX_LAYERS) {
			l = &d->layers[d->n_layers++];
			memcpy(l->name, ml->name, sizeof(l->name));
			l->role = ml->role;
			l->is_leaf = ml->is_leaf;
			l->is_file = ml->is_file;
		}
		if (l) {
			l->rd_bytes += ml->rd_bytes;
			l->wr_bytes += ml->wr_bytes;
			l->rd_ios += ml->rd_ios;
			l->wr_ios += ml->wr_ios;
		}
	}
}

static void add_window(struct ex_domain *d, const struct model_domain *md)
{
	d->guest_wr += md->guest_wr_bytes;
	d->guest_rd += md->guest_rd_bytes;
	d->guest_wr_ios += md->guest_wr_ios;
	d->guest_rd_ios += md->guest_rd_ios;
	d->phys_wr += md->phys_wr_bytes;
	d->phys_rd += md->phys_rd_bytes;
	d->vmstat_wr += md->vmstat_wr_bytes;
	d->double_counted += md->double_counted_bytes;
	for (int r = 0; r < XIO_CPU_ROLES; r++)
		d->cpu_ns_by_role[r] += md->cpu_ns_by_role[r];
	d->cpu_ns += md->cpu_ns;
	if (md->guest_cpu_ns >= 0) {
		d->guest_cpu_ns += (uint64_t)md->guest_cpu_ns;
		d->guest_cpu_known = true;
	}
	d->dirtied += md->dirtied_bytes;
	d->written_back += md->written_back_bytes;
	d->backlog_end = md->dirty_backlog_bytes;
	if (md->dirty_backlog_bytes > d->backlog_peak)
		d->backlog_peak = md->dirty_backlog_bytes;
	add_layers(d, md);
}

static void add_after(struct ex_domain *d, const struct model_domain *md, const struct explain *ex,
                      const struct model_interval *m, uint64_t threshold)
{
	if (d->drained)
		return;
	d->after_phys_wr += md->phys_wr_bytes;
	d->after_vmstat_wr += md->vmstat_wr_bytes;
	d->after_double_counted += md->double_counted_bytes;
	d->after_cpu_ns += md->cpu_ns;
	for (int r = 0; r < XIO_CPU_ROLES; r++)
		d->after_cpu_ns_by_role[r] += md->cpu_ns_by_role[r];
	add_layers(d, md); /* the writeback's leaf appears here */
	if (ex->host.has_dirty && md->dirty_backlog_bytes <= threshold) {
		d->drained = true;
		d->drain_s = (double)(m->realtime_ns - ex->win.to_ns) / 1e9;
		if (d->drain_s < 0)
			d->drain_s = 0;
	}
}

static int add_point(struct ex_domain *d, const struct explain *ex, const struct model_interval *m,
                     const struct model_domain *md)
{
	struct ex_point *p = realloc(d->series, (d->n_series + 1) * sizeof(*p));
	if (!p)
		return -1;
	d->series = p;
	double s = m->interval_s > 0 ? m->interval_s : 1;
	p[d->n_series++] = (struct ex_point){
	    .t = (double)(m->realtime_ns - ex->win.from_ns) / 1e9,
	    .guest_bps = (double)(md->guest_wr_bytes + md->guest_rd_bytes) / s,
	    .phys_bps = (double)(md->phys_wr_bytes + md->phys_rd_bytes) / s,
	    .double_bps = (double)md->double_counted_bytes / s,
	    .backlog_bytes = (double)md->dirty_backlog_bytes,
	    .cpu_frac = (double)md->cpu_ns / 1e9 / s,
	    .interval_s = m->interval_s,
	    .guest_wr_bytes = md->guest_wr_bytes,
	    .guest_rd_bytes = md->guest_rd_bytes,
	    .phys_wr_bytes = md->phys_wr_bytes,
	    .phys_rd_bytes = md->phys_rd_bytes,
	};
	return 0;
}

/* Bytes by attribution rule (which path the bytes took), from the raw layers. */
static int sample_hook(void *ctx, const struct xio_sample *s, bool first)
{
	struct ex_window_sink *w = ctx;
	/* the tail too: a file's bytes reach the disk by writeback after the window */
	bool in_window = !first && w->next_sample <= w->ex->win.last;
	for (size_t i = 0; !first && i < s->n_layers; i++) {
		const struct xio_layer *l = &s->layers[i];
		struct ex_domain *d = find_domain(w->ex, l->domid);
		if (l->via >= XIOTOP_VIA_MAX || l->domid == XIOTOP_DOM_NONE || (!d && !in_window))
			continue;
		if (!d && !(d = add_domain(w, l->domid))) {
			w->failed = 1;
			return 1;
		}
		const struct xiotop_io *before = NULL;
		for (size_t j = 0; j < w->n_prev && !before; j++)
			if (w->prev[j].domid == l->domid && w->prev[j].dev == l->dev &&
			    w->prev[j].via == l->via)
				before = &w->prev[j].io;
		uint64_t wr = l->io.wr_bytes, rd = l->io.rd_bytes;
		if (before && wr >= before->wr_bytes)
			wr -= before->wr_bytes;
		if (before && rd >= before->rd_bytes)
			rd -= before->rd_bytes;
		d->via_wr[l->via] += wr;
		d->via_rd[l->via] += rd;
	}
	struct xio_layer *copy = malloc((s->n_layers ? s->n_layers : 1) * sizeof(*copy));
	if (!copy) {
		w->failed = 1;
		return 1;
	}
	if (s->n_layers)
		memcpy(copy, s->layers, s->n_layers * sizeof(*copy));
	free(w->prev);
	w->prev = copy;
	w->n_prev = s->n_layers;
	if (s->has_dirty)
		w->ex->host.has_dirty = true;
	if (s->has_cpu)
		w->ex->host.has_cpu = true;
	/* the window's samples, its first too; no verdict reads interrupt or steal time, and a
	 * live recording made before they were kept is no import */
	if (w->next_sample <= w->ex->win.last)
		w->ex->host.absent |= s->absent & ~(uint32_t)XIO_ABSENT_HOST_CPU;
	return 0;
}

/* The window's end: each domain's drain threshold, and "drained" for those already. */
static void window_ends(struct ex_window_sink *w)
{
	struct explain *ex = w->ex;
	for (size_t i = 0; i < ex->n_doms; i++) {
		struct ex_domain *d = &ex->doms[i];
		uint64_t t = d->backlog_end / 100;
		w->drain_threshold[i] = t > DRAIN_FLOOR_BYTES ? t : DRAIN_FLOOR_BYTES;
		if (ex->host.has_dirty && d->backlog_end <= w->drain_threshold[i]) {
			d->drained = true;
			d->drain_s = 0;
		}
	}
}

static int interval_hook(void *ctx, struct model_interval *m, unsigned long index)
{
	(void)index;
	struct ex_window_sink *w = ctx;
	struct explain *ex = w->ex;
	size_t at = w->next_sample++;
	bool in_window = at <= ex->win.last;
	if (in_window) {
		ex->pgpgout_bytes += m->pgpgout_bytes;
		ex->unattr_wr += m->unattr_wr_bytes;
		ex->host.lost_events += m->lost_events;
		ex->host_busy_ns += m->host_busy_ns;
		ex->pgpgin_bytes += m->pgpgin_bytes;
		for (size_t i = 0; i < m->n_disks; i++) {
			ex->disk_wr += m->disks[i].wr_bytes;
			ex->disk_rd += m->disks[i].rd_bytes;
			ex->disk_wr_ios += m->disks[i].wr_ios;
			ex->disk_rd_ios += m->disks[i].rd_ios;
		}
	}
	for (size_t i = 0; i < m->n_domains; i++) {
		const struct model_domain *md = &m->domains[i];
		struct ex_domain *d = find_domain(ex, md->domid);
		if (!d && in_window && !(d = add_domain(w, md->domid)))
			return w->failed = 1;
		if (!d)
			continue;
		size_t k = (size_t)(d - ex->doms);
		if (in_window) {
			take_names(d, md->info);
			add_window(d, md);
		} else {
			add_after(d, md, ex, m, w->drain_threshold[k]);
		}
		if (add_point(d, ex, m, md))
			return w->failed = 1;
	}
	ex->series_end_s = (double)(m->realtime_ns - ex->win.from_ns) / 1e9;
	if (at == ex->win.last)
		window_ends(w);
	return LOOP_GO_ON;
}

struct interval_sink ex_window_sink(struct ex_window_sink *w)
{
	w->next_sample = w->ex->win.first + 1;
	return (struct interval_sink){.ctx = w, .sample = sample_hook, .interval = interval_hook};
}

void ex_window_sink_done(struct ex_window_sink *w)
{
	free(w->prev);
	free(w->drain_threshold);
	w->prev = NULL;
	w->drain_threshold = NULL;
}
