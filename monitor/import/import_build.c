/* import_build.c - parsed logs -> cumulative samples; see import_build.h. */
#include "import/import_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sanitize.h"

enum { LOG_XT, LOG_VM, LOG_IO };

struct vbd_last { /* the last readable VBD figures of a domain ("-" keeps them) */
	bool known;
	struct xiotop_io io;
};

struct build {
	const struct imp_logs *in;
	struct imp_timeline tl;
	char (*doms)[XIO_NAME_MAX]; /* domid i - (Domain-0 first): see domid_of */
	size_t n_doms;
	bool dom0_seen;
	struct vbd_last *vbd;                      /* per domid */
	double *vm_in_kb, *vm_out_kb, *vm_busy_ns; /* cumulative, per vmstat row */
	char (*devs)[32];
	bool *leaf;
	size_t n_devs;
	double *io_rd, *io_wr;     /* cumulative bytes, [report * n_devs + dev] */
	double *io_rdio, *io_wrio; /* cumulative requests, the same */
	long cpus;
	uint64_t dom0_mem_kb;
};

static bool is_dom0(const char *name)
{
	return !strcmp(name, "Domain-0");
}

/* Domain-0 is 0; the others 1, 2, ... in order of first appearance. */
static int name_domains(struct build *b)
{
	const struct imp_xentop *x = b->in->xentop;
	b->doms = calloc(x->n_rows + 1, sizeof(*b->doms));
	b->vbd = calloc(x->n_rows + 1, sizeof(*b->vbd));
	if (!b->doms || !b->vbd)
		return -1;
	snprintf(b->doms[0], XIO_NAME_MAX, "Domain-0");
	b->n_doms = 1;
	for (size_t i = 0; i < x->n_rows; i++) {
		bool known = is_dom0(x->rows[i].name);
		for (size_t j = 1; j < b->n_doms && !known; j++)
			known = !strcmp(b->doms[j], x->rows[i].name);
		if (!known)
			memcpy(b->doms[b->n_doms++], x->rows[i].name, XIO_NAME_MAX);
	}
	return 0;
}

static uint32_t domid_of(const struct build *b, const char *name)
{
	for (size_t j = 1; j < b->n_doms; j++)
		if (!strcmp(b->doms[j], name))
			return (uint32_t)j;
	return 0;
}

/* vmstat rates x interval, summed from the first interval (row 0 is since boot). */
static int integrate_vmstat(struct build *b)
{
	const struct imp_vmstat *v = b->in->vmstat;
	b->vm_in_kb = calloc(v->n, sizeof(double));
	b->vm_out_kb = calloc(v->n, sizeof(double));
	b->vm_busy_ns = calloc(v->n, sizeof(double));
	if (!b->vm_in_kb || !b->vm_out_kb || !b->vm_busy_ns)
		return -1;
	double dt = b->tl.interval_s;
	for (size_t j = 1; j < v->n; j++) {
		const struct imp_vm_row *r = &v->rows[j];
		b->vm_in_kb[j] = b->vm_in_kb[j - 1] + r->bi_kbs * dt;
		b->vm_out_kb[j] = b->vm_out_kb[j - 1] + r->bo_kbs * dt;
		/* not st: steal is time the hypervisor gave other domains, not dom0's work */
		b->vm_busy_ns[j] =
		    b->vm_busy_ns[j - 1] + (r->us + r->sy) / 100.0 * dt * 1e9 * (double)b->cpus;
	}
	return 0;
}

static size_t device_index(struct build *b, const char *name)
{
	for (size_t i = 0; i < b->n_devs; i++)
		if (!strcmp(b->devs[i], name))
			return i;
	memcpy(b->devs[b->n_devs], name, 32);
	return b->n_devs++;
}

/* iostat rates x interval per device, summed from the second report on. */
static int integrate_iostat(struct build *b)
{
	const struct imp_iostat *io = b->in->iostat;
	size_t most = 0;
	for (size_t j = 0; j < io->n; j++)
		most += io->reports[j].n;
	b->devs = calloc(most + 1, sizeof(*b->devs));
	b->leaf = calloc(most + 1, sizeof(bool));
	if (!b->devs || !b->leaf)
		return -1;
	for (size_t j = 0; j < io->n; j++)
		for (size_t i = 0; i < io->reports[j].n; i++)
			device_index(b, io->reports[j].devs[i].name);
	const char **names = calloc(b->n_devs + 1, sizeof(char *));
	b->io_rd = calloc(io->n * b->n_devs + 1, sizeof(double));
	b->io_wr = calloc(io->n * b->n_devs + 1, sizeof(double));
	b->io_rdio = calloc(io->n * b->n_devs + 1, sizeof(double));
	b->io_wrio = calloc(io->n * b->n_devs + 1, sizeof(double));
	if (!names || !b->io_rd || !b->io_wr || !b->io_rdio || !b->io_wrio)
		return free(names), -1;
	for (size_t i = 0; i < b->n_devs; i++)
		names[i] = b->devs[i];
	for (size_t i = 0; i < b->n_devs; i++)
		b->leaf[i] = imp_iostat_is_leaf(names, b->n_devs, i);
	free(names);
	double dt = b->tl.interval_s;
	for (size_t j = 1; j < io->n; j++) {
		double *sums[4] = {b->io_rd, b->io_wr, b->io_rdio, b->io_wrio};
		for (int c = 0; c < 4; c++)
			memcpy(&sums[c][j * b->n_devs], &sums[c][(j - 1) * b->n_devs],
			       b->n_devs * sizeof(double));
		for (size_t i = 0; i < io->reports[j].n; i++) {
			const struct imp_io_dev *d = &io->reports[j].devs[i];
			size_t k = j * b->n_devs + device_index(b, d->name);
			b->io_rd[k] += d->rd_Bps * dt;
			b->io_wr[k] += d->wr_Bps * dt;
			b->io_rdio[k] += d->rd_iops * dt;
			b->io_wrio[k] += d->wr_iops * dt;
		}
	}
	return 0;
}

static int add_vbd_stats(struct xio_sample *s, uint32_t domid, const struct imp_xt_dom *d)
{
	for (size_t i = 0; i < d->n_vbd_lines; i++) {
		const struct imp_xt_vbd *v = &d->vbds[i];
		struct xio_vbd_stat st = {.domid = domid,
		                          .devid = v->devid,
		                          .source = XIO_VBD_XENSTAT,
		                          .rd_bytes = v->has_sect ? v->rsect * 512 : 0,
		                          .wr_bytes = v->has_sect ? v->wsect * 512 : 0,
		                          .rd_req = v->rd,
		                          .wr_req = v->wr,
		                          .oo_req = v->oo};
		if (sample_add_vbd_stat(s, &st))
			return -1;
	}
	return 0;
}

/* The domain's guest bytes: a layer at its pseudo backend device. */
static int add_vbd_layer(struct build *b, struct xio_sample *s, uint32_t domid,
                         const struct imp_xt_dom *d)
{
	struct vbd_last *last = &b->vbd[domid];
	if (d->n_vbds && d->sect_known && d->vbd_known) {
		last->known = true;
		last->io = (struct xiotop_io){.rd_bytes = d->rsect * 512,
		                              .wr_bytes = d->wsect * 512,
		                              .rd_ios = d->rd,
		                              .wr_ios = d->wr};
	}
	if (!last->known)
		return 0;
	struct xio_layer l = {
	    .domid = domid, .dev = IMP_VBD_DEV(domid), .via = XIOTOP_VIA_DEV, .io = last->io};
	struct xio_dev dev = {.dev = l.dev, .is_leaf = false};
	snprintf(dev.name, sizeof(dev.name), "xentop-vbds-%u", domid);
	return sample_add_layer(s, &l) || sample_add_dev(s, &dev) ? -1 : 0;
}

static int fill_xentop(struct build *b, struct xio_sample *s, const struct imp_xt_block *blk)
{
	s->domains_live = true;
	s->has_vbd_stats = b->in->xentop->has_vbd_lines;
	for (size_t i = 0; i < blk->n; i++) {
		const struct imp_xt_dom *d = &blk->doms[i];
		uint32_t domid = domid_of(b, d->name);
		struct xio_domain dom = {.domid = domid, .mem_bytes = d->mem_kb * 1024};
		snprintf(dom.name, sizeof(dom.name), "%s", d->name);
		snprintf(dom.kind, sizeof(dom.kind), "%s", d->n_vbds ? "vbd" : "");
		struct xio_dom_counters c = {.domid = domid,
		                             .guest_cpu_ns = (int64_t)(d->cpu_s * 1000000000ull)};
		if (domid == 0) {
			s->host_busy_ns = d->cpu_s * 1000000000ull;
			b->dom0_mem_kb = d->mem_kb;
		}
		if (sample_add_domain(s, &dom) || sample_add_counters(s, &c) ||
		    add_vbd_layer(b, s, domid, d) || add_vbd_stats(s, domid, d))
			return -1;
	}
	return 0;
}

static int fill_iostat(struct build *b, struct xio_sample *s, size_t j)
{
	for (size_t i = 0; i < b->n_devs; i++) {
		if (!b->leaf[i])
			continue;
		size_t at = j * b->n_devs + i;
		struct xio_disk d = {.dev = IMP_DISK_DEV(i),
		                     .rd_bytes = (uint64_t)llround(b->io_rd[at]),
		                     .wr_bytes = (uint64_t)llround(b->io_wr[at]),
		                     .rd_ios = (uint64_t)llround(b->io_rdio[at]),
		                     .wr_ios = (uint64_t)llround(b->io_wrio[at])};
		struct xio_dev dev = {.dev = d.dev, .is_leaf = true};
		/* device names are shown as trusted kernel names: escape the log's text here */
		sanitize_text(b->devs[i], d.name, sizeof(d.name));
		memcpy(dev.name, d.name, sizeof(dev.name));
		if (sample_add_disk(s, &d) || sample_add_dev(s, &dev))
			return -1;
	}
	return 0;
}

/* The block of log k at grid step `step`, or -1 (cursor: where the last one was). */
static long block_at(const struct build *b, int k, long step, size_t *cursor)
{
	const long *steps = b->tl.step[k];
	if (!steps)
		return -2; /* the log is absent */
	while (*cursor < b->tl.n_blocks[k] && steps[*cursor] < step)
		(*cursor)++;
	return *cursor < b->tl.n_blocks[k] && steps[*cursor] == step ? (long)*cursor : -1;
}

uint32_t imp_absent(const struct imp_logs *in)
{
	const struct imp_xentop *x = in->xentop;
	/* no tracer ran; no log splits interrupts or steal from dom0's busy time */
	uint32_t absent = XIO_ABSENT_STACK | XIO_ABSENT_HOST_CPU;
	if (!x || !x->any_vbds || !x->has_sect_columns)
		absent |= XIO_ABSENT_GUEST_IO;
	if (!in->vmstat || !in->vmstat->has_io)
		absent |= XIO_ABSENT_VMSTAT;
	if (!in->iostat)
		absent |= XIO_ABSENT_DISKS;
	return absent;
}

static int fill_sample(struct build *b, struct xio_sample *s, long step, const long at[3])
{
	const struct imp_logs *in = b->in;
	memset(s, 0, sizeof(*s));
	int64_t interval_ns = llround(b->tl.interval_s * 1e9);
	s->monotonic_ns = 1000000000ull + (uint64_t)step * (uint64_t)interval_ns;
	s->realtime_ns = b->tl.t0_ns + step * interval_ns;
	s->absent = imp_absent(in);
	if (at[LOG_VM] >= 0 && in->vmstat->has_time)
		s->realtime_ns = in->vmstat->rows[at[LOG_VM]].time_ns;
	else if (at[LOG_IO] >= 0 && in->iostat->has_time)
		s->realtime_ns = in->iostat->reports[at[LOG_IO]].time_ns;
	if (at[LOG_VM] >= 0) {
		s->vmstat_pgpgin_kb = (uint64_t)llround(b->vm_in_kb[at[LOG_VM]]);
		s->vmstat_pgpgout_kb = (uint64_t)llround(b->vm_out_kb[at[LOG_VM]]);
		if (b->cpus > 0)
			s->host_busy_ns = (uint64_t)llround(b->vm_busy_ns[at[LOG_VM]]);
	}
	if (at[LOG_XT] >= 0 && fill_xentop(b, s, &in->xentop->blocks[at[LOG_XT]]))
		return -1;
	if (at[LOG_IO] >= 0 && fill_iostat(b, s, (size_t)at[LOG_IO]))
		return -1;
	return 0;
}

/* A sample at every step of the first log's blocks where the other logs have one too
 * (at most as many as that log has blocks, however far apart the logs lie). */
static int make_samples(struct build *b, struct imp_result *out)
{
	int first = b->tl.step[LOG_XT] ? LOG_XT : b->tl.step[LOG_VM] ? LOG_VM : LOG_IO;
	out->samples = calloc(b->tl.n_blocks[first] + 1, sizeof(*out->samples));
	if (!out->samples)
		return -1;
	size_t cursor[3] = {0, 0, 0};
	for (size_t j = 0; j < b->tl.n_blocks[first]; j++) {
		long step = b->tl.step[first][j], at[3];
		bool all = true;
		for (int k = 0; k < 3; k++) {
			at[k] = block_at(b, k, step, &cursor[k]);
			all = all && at[k] != -1;
		}
		if (!all)
			continue;
		if (fill_sample(b, &out->samples[out->n], step, at))
			return sample_free(&out->samples[out->n]), -1;
		out->n++;
	}
	return 0;
}

static void free_build(struct build *b)
{
	imp_timeline_free(&b->tl);
	free(b->doms);
	free(b->vbd);
	free(b->vm_in_kb);
	free(b->vm_out_kb);
	free(b->vm_busy_ns);
	free(b->devs);
	free(b->leaf);
	free(b->io_rd);
	free(b->io_wr);
	free(b->io_rdio);
	free(b->io_wrio);
}

int imp_build(const struct imp_logs *in, struct imp_result *out, struct xerr *err)
{
	memset(out, 0, sizeof(*out));
	if (!in->xentop && !in->vmstat && !in->iostat)
		return imp_fail_logs(err, "no log given (--xentop, --vmstat, --iostat)"), -1;
	struct build b = {.in = in, .cpus = in->cpus};
	if (!b.cpus && in->iostat)
		b.cpus = in->iostat->cpu_count;
	int rc = -1;
	if (imp_timeline(in, &b.tl, err))
		goto done;
	if ((in->xentop && name_domains(&b)) || (in->vmstat && integrate_vmstat(&b)) ||
	    (in->iostat && integrate_iostat(&b)) || make_samples(&b, out)) {
		xerr_set(err, XERR_NOMEM, "out of memory");
		goto done;
	}
	if (out->n < 2) {
		imp_fail_logs(err,
		              "the logs overlap in %zu sample(s): two or more expected "
		              "(do they cover the same time? see --start)",
		              out->n);
		goto done;
	}
	out->cpus = b.cpus;
	out->dom0_mem_kb = b.dom0_mem_kb;
	memcpy(out->note, b.tl.note, sizeof(out->note));
	imp_build_meta(in, &b.tl, b.cpus, out);
	rc = 0;
done:
	free_build(&b);
	if (rc)
		imp_result_free(out);
	return rc;
}

void imp_result_free(struct imp_result *r)
{
	for (size_t i = 0; r->samples && i < r->n; i++)
		sample_free(&r->samples[i]);
	free(r->samples);
	memset(r, 0, sizeof(*r));
}
