/* window.c - a window's intervals accumulated per domain; see window.h. */
#include "explain/window.h"

#include <stdlib.h>
#include <string.h>

#include "core/figures.h"

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
	uint64_t *o = t ? realloc(w->own_left, (ex->n_doms + 1) * sizeof(*o)) : NULL;
	if (o)
		w->own_left = o;
	if (!p || !t || !o)
		return NULL;
	w->own_left[ex->n_doms] = 0;
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
			l->has_devstats = ml->has_devstats;
		}
		if (l) {
			l->rd_bytes += ml->rd_bytes;
			l->wr_bytes += ml->wr_bytes;
			l->rd_ios += ml->rd_ios;
			l->wr_ios += ml->wr_ios;
			/* an interval without the device's own counts leaves the sums unknown */
			l->has_devstats &= ml->has_devstats;
			l->dev_rd_bytes += ml->dev_rd_bytes;
			l->dev_wr_bytes += ml->dev_wr_bytes;
			l->dev_rd_ios += ml->dev_rd_ios;
			l->dev_wr_ios += ml->dev_wr_ios;
		}
	}
}

/* The dom0 CPU an interval spent for the domain, in all and by role, added to the
 * window's sums or to its drain's. */
static void add_cpu(uint64_t *cpu_ns, uint64_t by_role[XIO_CPU_ROLES],
                    const struct model_domain *md)
{
	*cpu_ns += md->cpu_ns;
	for (int r = 0; r < XIO_CPU_ROLES; r++)
		by_role[r] += md->cpu_ns_by_role[r];
}

static void add_window(struct ex_domain *d, const struct model_domain *md)
{
	model_io_sums_add(&d->io, &md->io);
	add_cpu(&d->cpu_ns, d->cpu_ns_by_role, md);
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

/* Of an interval's writeback, the share that was the window's own data, first in, first
 * out: the backlog left at the window's end is written before anything dirtied after it. */
static double own_share(uint64_t *own_left, uint64_t written_back)
{
	if (!written_back)
		return 0;
	uint64_t own = written_back < *own_left ? written_back : *own_left;
	*own_left -= own;
	return (double)own / (double)written_back;
}

static uint64_t share_of(uint64_t bytes, double share)
{
	return (uint64_t)((double)bytes * share + 0.5);
}

/* A drain interval: its figures in the share of its writeback that was the window's data
 * (the next run's bytes, written back beside them or after them, are not the run's); dom0
 * CPU the writeback's in that share, and the other roles' only while the guest was idle
 * (what they did while it worked was for its next run). */
static void add_after(struct ex_domain *d, const struct model_domain *md, const struct explain *ex,
                      const struct model_interval *m, uint64_t threshold, uint64_t *own_left)
{
	if (d->drained)
		return;
	double share = own_share(own_left, md->written_back_bytes);
	d->after_phys_wr += share_of(md->io.phys_wr_bytes, share);
	d->after_stored_wr += share_of(model_io_stored_wr(&md->io), share);
	d->after_vmstat_wr += share_of(md->written_back_bytes, share);
	d->after_double_counted += share_of(md->io.double_counted_bytes, share);
	bool guest_idle = !(md->io.guest_wr_bytes + md->io.guest_rd_bytes);
	for (int r = 0; r < XIO_CPU_ROLES; r++) {
		uint64_t ns = r == XIO_CPU_WRITEBACK || guest_idle
		                  ? share_of(md->cpu_ns_by_role[r], share)
		                  : 0;
		d->after_cpu_ns_by_role[r] += ns;
		d->after_cpu_ns += ns;
	}
	add_layers(d, md); /* the writeback's leaf appears here */
	if (ex->host.has_dirty && *own_left <= threshold) {
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
	    .guest_bps = (double)(md->io.guest_wr_bytes + md->io.guest_rd_bytes) / s,
	    .phys_bps = (double)(md->io.phys_wr_bytes + md->io.phys_rd_bytes) / s,
	    /* what the disks took once (a mirror's copies apart): what a run's rate is set
	     * against */
	    .double_bps = (double)md->io.double_counted_bytes / s,
	    .backlog_bytes = (double)md->dirty_backlog_bytes,
	    .cpu_frac = (double)md->cpu_ns / 1e9 / s,
	    .interval_s = m->interval_s,
	    .guest_wr_bytes = md->io.guest_wr_bytes,
	    .guest_rd_bytes = md->io.guest_rd_bytes,
	    .phys_wr_bytes = model_io_stored_wr(&md->io),
	    .phys_rd_bytes = model_io_stored_rd(&md->io),
	    .guest_rd_ios = md->io.guest_rd_ios,
	    .guest_wr_ios = md->io.guest_wr_ios,
	};
	for (int op = 0; op < XIOTOP_LAT_OPS; op++) {
		/* timed when the interval was and no kind of its backends escaped the hooks */
		p[d->n_series - 1].lat_timed[op] = m->has_latency && !md->lat_untimed[op];
		p[d->n_series - 1].lat_count[op] = md->lat[op].count;
		p[d->n_series - 1].lat_sum_ns[op] = md->lat[op].sum_ns;
	}
	return 0;
}

/* A layer's counts since the previous sample (all of them when it is new). */
static struct xiotop_io layer_delta(const struct ex_window_sink *w, const struct xio_layer *l)
{
	const struct xiotop_io *before = NULL;
	for (size_t j = 0; j < w->n_prev && !before; j++)
		if (w->prev[j].domid == l->domid && w->prev[j].dev == l->dev &&
		    w->prev[j].via == l->via)
			before = &w->prev[j].io;
	struct xiotop_io io = l->io;
	if (before && io.wr_bytes >= before->wr_bytes)
		io.wr_bytes -= before->wr_bytes;
	if (before && io.rd_bytes >= before->rd_bytes)
		io.rd_bytes -= before->rd_bytes;
	if (before && io.wr_ios >= before->wr_ios)
		io.wr_ios -= before->wr_ios;
	if (before && io.rd_ios >= before->rd_ios)
		io.rd_ios -= before->rd_ios;
	return io;
}

/* Bytes by attribution rule (which path the bytes took), from the raw layers; dom0's own
 * bios for the subject domain 0. */
static int sample_hook(void *ctx, const struct xio_sample *s, bool first)
{
	struct ex_window_sink *w = ctx;
	/* the tail too: a file's bytes reach the disk by writeback after the window */
	bool in_window = !first && w->next_sample <= w->ex->win.last;
	ex_dom0_begin(&w->d0);
	for (size_t i = 0; !first && i < s->n_layers; i++) {
		const struct xio_layer *l = &s->layers[i];
		if (l->via >= XIOTOP_VIA_MAX)
			continue;
		struct xiotop_io io = layer_delta(w, l);
		if (l->domid == XIOTOP_DOM_NONE) { /* dom0's own: the subject domain 0 */
			if (figure_held(FIG_PHYS_WR_BYTES, w->ex->host.absent | s->absent))
				ex_dom0_add(&w->d0, s, l, &io);
			continue;
		}
		struct ex_domain *d = find_domain(w->ex, l->domid);
		if (!d && !in_window)
			continue;
		if (!d && !(d = add_domain(w, l->domid))) {
			w->failed = 1;
			return 1;
		}
		d->via_wr[l->via] += io.wr_bytes;
		d->via_rd[l->via] += io.rd_bytes;
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
		w->ex->host.absent |=
		    s->absent & ~(uint32_t)(XIO_ABSENT_HOST_CPU | XIO_ABSENT_ARRAYS);
	return 0;
}

/* A guest's run, not dom0's: a domain moved EX_ACTIVE_BYTES through its guest layer in
 * the window, and more than dom0 submitted itself (`record -- dd of=BACKEND`, a script
 * driving a guest). dom0's own I/O then is other programs' (the recording does not say
 * which program submitted a bio) and the image's file system journal, not the run nor
 * its drain; on a busy dom0 it made a "dom0 (sh)" of 12 MiB with no benchmark in it the
 * first verdict. Against the guest's bytes, not a fixed floor: a dom0 with a build and a
 * writer beside the run submits more than EX_ACTIVE_BYTES in any window. */
static bool guest_run(const struct explain *ex)
{
	uint64_t own = 0, guest = 0;
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		uint64_t moved = d->io.guest_wr_bytes + d->io.guest_rd_bytes;
		if (d->domid == EX_DOM0_ID)
			own = moved;
		else if (moved > guest)
			guest = moved;
	}
	return guest >= EX_ACTIVE_BYTES && guest > own;
}

/* The window's end: each domain's drain threshold, and "drained" for those already. */
static void window_ends(struct ex_window_sink *w)
{
	struct explain *ex = w->ex;
	bool guests = guest_run(ex);
	if (guests) {
		struct ex_domain *d = find_domain(ex, EX_DOM0_ID);
		if (d)
			d->dom0_subject = false;
	}
	/* a wrapped command that dom0 ran: its writes may all reach the bios after it */
	if (!guests && !strncmp(ex->win.from_label, "start: ", 7) &&
	    figure_held(FIG_PHYS_WR_BYTES, ex->host.absent)) {
		struct ex_domain *d = find_domain(ex, EX_DOM0_ID);
		if (!d)
			d = add_domain(w, EX_DOM0_ID);
		if (d)
			d->dom0_subject = true;
		else
			w->failed = 1;
	}
	for (size_t i = 0; i < ex->n_doms; i++) {
		struct ex_domain *d = &ex->doms[i];
		uint64_t t = d->backlog_end / 100;
		w->drain_threshold[i] = t > DRAIN_FLOOR_BYTES ? t : DRAIN_FLOOR_BYTES;
		w->own_left[i] = d->backlog_end;
		if (d->dom0_subject)
			continue; /* no dirty counter: its writes after the window say
			             (dom0_subject.h) */
		if (ex->host.has_dirty && d->backlog_end <= w->drain_threshold[i]) {
			d->drained = true;
			d->drain_s = 0;
		}
	}
}

/* One domain's figures of an interval: the window's, or its drain's after it. */
static int take_domain(struct ex_window_sink *w, const struct model_interval *m,
                       const struct model_domain *md, bool in_window)
{
	struct explain *ex = w->ex;
	struct ex_domain *d = find_domain(ex, md->domid);
	bool own = md->domid == EX_DOM0_ID && w->d0.any;
	if (!d && !(in_window && (d = add_domain(w, md->domid))))
		return in_window; /* out of memory in the window; else not a domain of it */
	if (in_window) {
		take_names(d, md->info);
		add_window(d, md);
		d->dom0_subject |= own;
		if (own)
			ex_dom0_window(&w->d0_tail, md);
	} else if (d->dom0_subject) {
		if (!d->drained)
			add_layers(d, md); /* its writeback's layers */
		double end_s = (double)(m->realtime_ns - ex->win.to_ns) / 1e9;
		if (ex_dom0_after(ex, d, &w->d0_tail, md, m->interval_s, end_s))
			return -1; /* out of memory */
	} else {
		add_after(d, md, ex, m, w->drain_threshold[d - ex->doms],
		          &w->own_left[d - ex->doms]);
	}
	return add_point(d, ex, m, md);
}

/* The host's disks in the interval (diskstats' leaf disks; an import's iostat leaf
 * devices), as a point whose "guest" bytes are theirs: where an import's claim is placed
 * (tool_claims.c), no domain's own bytes being in its logs. */
static int add_host_point(struct explain *ex, const struct model_interval *m)
{
	struct ex_point *p = realloc(ex->host_series, (ex->n_host_series + 1) * sizeof(*p));
	if (!p)
		return -1;
	ex->host_series = p;
	struct ex_point pt = {.t = (double)(m->realtime_ns - ex->win.from_ns) / 1e9,
	                      .interval_s = m->interval_s};
	for (size_t i = 0; i < m->n_disks; i++) {
		pt.guest_wr_bytes += m->disks[i].wr_bytes;
		pt.guest_rd_bytes += m->disks[i].rd_bytes;
		pt.guest_wr_ios += m->disks[i].wr_ios;
		pt.guest_rd_ios += m->disks[i].rd_ios;
	}
	pt.phys_wr_bytes = pt.guest_wr_bytes;
	pt.phys_rd_bytes = pt.guest_rd_bytes;
	p[ex->n_host_series++] = pt;
	return 0;
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
	if (add_host_point(ex, m))
		return w->failed = 1;
	bool dom0_taken = false;
	for (size_t i = 0; i < m->n_domains; i++) {
		const struct model_domain *md = &m->domains[i];
		struct model_domain merged;
		if (md->domid == EX_DOM0_ID && w->d0.any)
			md = ex_dom0_merge(md, &w->d0, &merged, w->d0_merged);
		dom0_taken |= md->domid == EX_DOM0_ID;
		if (take_domain(w, m, md, in_window))
			return w->failed = 1;
	}
	if (!dom0_taken && (w->d0.any || find_domain(ex, EX_DOM0_ID))) {
		struct model_domain merged;
		if (take_domain(w, m, ex_dom0_merge(NULL, &w->d0, &merged, w->d0_merged),
		                in_window))
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
	free(w->own_left);
	w->own_left = NULL;
	w->prev = NULL;
	w->drain_threshold = NULL;
}
