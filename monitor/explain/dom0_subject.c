/* dom0_subject.c - dom0's own I/O as explain's subject "dom0 (CMD)"; see dom0_subject.h. */
#include "explain/dom0_subject.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrays.h"

/* The kernel's defaults of vm.dirty_expire_centisecs (3000) and
 * vm.dirty_writeback_centisecs (500), for a recording without them. */
#define DOM0_DEFAULT_QUIET_S 35.0

void ex_dom0_begin(struct ex_dom0_interval *d0)
{
	memset(&d0->md, 0, sizeof(d0->md));
	d0->md.domid = EX_DOM0_ID;
	d0->md.guest_cpu_ns = -1;
	d0->md.layers = d0->layers;
	d0->any = false;
}

static struct model_layer *layer_of(struct ex_dom0_interval *d0, enum model_role role,
                                    const struct xio_dev *dev, uint32_t devno)
{
	struct model_domain *md = &d0->md;
	for (size_t i = 0; i < md->n_layers; i++)
		if (d0->layers[i].dev == devno && d0->layers[i].role == role)
			return &d0->layers[i];
	struct model_layer layer = {.role = role, .dev = devno, .is_leaf = dev && dev->is_leaf};
	if (dev)
		memcpy(layer.name, dev->name, sizeof(layer.name));
	return arrays_put(d0->layers, &md->n_layers, EX_MAX_LAYERS, &layer, sizeof(layer));
}

void ex_dom0_add(struct ex_dom0_interval *d0, const struct xio_sample *s, const struct xio_layer *l,
                 const struct xiotop_io *io)
{
	if (!(io->wr_bytes + io->rd_bytes) || l->via == XIOTOP_VIA_FILEIO)
		return;
	const struct xio_dev *dev = sample_dev(s, l->dev);
	bool leaf = dev && dev->is_leaf;
	bool submitted = l->via == XIOTOP_VIA_NONE; /* dom0's own submit_bio: vmstat's count */
	struct model_domain *md = &d0->md;
	d0->any = true;
	struct model_io_kind k = {.guest = submitted,
	                          .leaf = leaf,
	                          .in_vmstat = submitted,
	                          .array = dev ? dev->array : 0};
	model_domain_add_io(md, io, &k);
	/* dom0's own loop devices are not followed (no inode of theirs is a domain's): what
	 * its counted bios reached the disks with beyond the copies stands for its second
	 * count, as before the kernel's own rule was followed for the domains */
	uint64_t stored = model_io_stored_wr(&md->io);
	md->io.double_counted_bytes =
	    md->io.vmstat_wr_bytes > stored ? md->io.vmstat_wr_bytes - stored : 0;
	enum model_role role = leaf ? ROLE_LEAF : submitted ? ROLE_BACKEND : ROLE_STACKED;
	struct model_layer *ml = layer_of(d0, role, dev, l->dev);
	if (ml)
		model_layer_add_io(ml, io);
}

const struct model_domain *ex_dom0_merge(const struct model_domain *md,
                                         const struct ex_dom0_interval *d0,
                                         struct model_domain *out, struct model_layer *buf)
{
	*out = md ? *md : d0->md;
	if (!md)
		return out;
	const struct model_domain *b = &d0->md;
	model_io_sums_add(&out->io, &b->io);
	size_t n = 0;
	for (size_t i = 0; i < md->n_layers && n < 2 * EX_MAX_LAYERS; i++)
		buf[n++] = md->layers[i];
	for (size_t i = 0; i < b->n_layers && n < 2 * EX_MAX_LAYERS; i++)
		buf[n++] = b->layers[i];
	out->layers = buf;
	out->n_layers = n;
	return out;
}

double ex_dom0_quiet_limit_s(const struct ex_host *h)
{
	if (!h->dirty_expire_cs[0] || !h->dirty_writeback_cs[0])
		return DOM0_DEFAULT_QUIET_S;
	double s = (atof(h->dirty_expire_cs) + atof(h->dirty_writeback_cs)) / 100;
	return s > 0 ? s : DOM0_DEFAULT_QUIET_S;
}

/* The slot of dev among the window's leaf devices, or -1. */
static int slot_of(const struct ex_dom0_tail *t, uint32_t dev)
{
	for (size_t i = 0; i < t->n_run_devs; i++)
		if (t->run_devs[i] == dev)
			return (int)i;
	return -1;
}

void ex_dom0_window(struct ex_dom0_tail *t, const struct model_domain *md)
{
	for (size_t i = 0; i < md->n_layers; i++) {
		const struct model_layer *l = &md->layers[i];
		if (!l->is_leaf || !l->wr_bytes)
			continue;
		int k = slot_of(t, l->dev);
		if (k < 0 && t->n_run_devs == EX_DOM0_RUN_DEVS) {
			t->all_devs = true;
			continue;
		}
		if (k < 0) {
			k = (int)t->n_run_devs++;
			t->run_devs[k] = l->dev;
			t->run_dev_wr[k] = 0;
		}
		t->run_dev_wr[k] += l->wr_bytes;
	}
}

/* Whether the window's slot k is a disk of the run (see ex_dom0_tail); most: the busiest
 * slot's window writes. */
static bool run_disk(const struct ex_dom0_tail *t, size_t k, uint64_t most)
{
	return t->run_dev_wr[k] >= DOM0_ACTIVE_WR_BYTES &&
	       t->run_dev_wr[k] >= most / EX_DOM0_RUN_DEV_DEN;
}

/* Whether the window showed the run's disks; most: the busiest slot's window writes. */
static bool run_disks_known(const struct ex_dom0_tail *t, uint64_t *most)
{
	*most = 0;
	for (size_t i = 0; i < t->n_run_devs; i++)
		*most = t->run_dev_wr[i] > *most ? t->run_dev_wr[i] : *most;
	bool known = false;
	for (size_t k = 0; k < t->n_run_devs && !known; k++)
		known = run_disk(t, k, *most);
	return known && !t->all_devs;
}

/* What dom0 wrote this interval to the run's disks (none known: to every leaf). */
static uint64_t run_wr(const struct ex_dom0_tail *t, const struct model_domain *md)
{
	uint64_t most;
	if (!run_disks_known(t, &most))
		return md->io.phys_wr_bytes;
	uint64_t n = 0;
	for (size_t i = 0; i < md->n_layers; i++) {
		int k = md->layers[i].is_leaf ? slot_of(t, md->layers[i].dev) : -1;
		if (k >= 0 && run_disk(t, (size_t)k, most))
			n += md->layers[i].wr_bytes;
	}
	return n;
}

/* What the run's disks took in the window (phys_wr: every leaf's, for none known). */
static uint64_t window_run_wr(const struct ex_dom0_tail *t, uint64_t phys_wr)
{
	uint64_t most;
	if (!run_disks_known(t, &most))
		return phys_wr;
	uint64_t n = 0;
	for (size_t k = 0; k < t->n_run_devs; k++)
		if (run_disk(t, k, most))
			n += t->run_dev_wr[k];
	return n;
}

/* The subject's figures its drain adds to, in the order of ex_dom0_step's sums. */
static void drain_fields(struct ex_domain *d, uint64_t *f[EX_DOM0_SUMS])
{
	f[0] = &d->io.guest_wr_bytes;
	f[1] = &d->io.guest_wr_ios;
	f[2] = &d->after_phys_wr;
	f[3] = &d->after_vmstat_wr;
	f[4] = &d->after_double_counted;
}

/* d's drain figures: the window's and the first n intervals after it. */
static void take_steps(struct ex_domain *d, const struct ex_dom0_drain *log, size_t n)
{
	uint64_t *f[EX_DOM0_SUMS];
	drain_fields(d, f);
	for (size_t i = 0; i < EX_DOM0_SUMS; i++)
		*f[i] = log->base[i] + (n ? log->step[n - 1].sum[i] : 0);
}

/* The log of intervals after the window, made at the first: the window's figures and
 * what the run's disks took in it. NULL out of memory. */
static struct ex_dom0_drain *drain_log(struct explain *ex, struct ex_domain *d,
                                       const struct ex_dom0_tail *t)
{
	struct ex_dom0_drain *log = ex->dom0_drain;
	if (log && log->n < log->cap)
		return log;
	size_t cap = log ? 2 * log->cap : 64;
	struct ex_dom0_drain *p = realloc(log, sizeof(*p) + cap * sizeof(p->step[0]));
	if (!p)
		return NULL;
	if (!log) {
		memset(p, 0, sizeof(*p));
		uint64_t *f[EX_DOM0_SUMS];
		drain_fields(d, f);
		for (size_t i = 0; i < EX_DOM0_SUMS; i++)
			p->base[i] = *f[i];
		p->window_run_wr = window_run_wr(t, d->io.phys_wr_bytes);
	}
	p->cap = cap;
	ex->dom0_drain = p;
	return p;
}

int ex_dom0_after(struct explain *ex, struct ex_domain *d, struct ex_dom0_tail *t,
                  const struct model_domain *md, double interval_s, double end_s)
{
	if (d->drained)
		return 0;
	struct ex_dom0_drain *log = drain_log(ex, d, t);
	if (!log)
		return -1;
	struct ex_dom0_step *s = &log->step[log->n];
	const struct ex_dom0_step *prev = log->n ? s - 1 : NULL;
	uint64_t add[EX_DOM0_SUMS] = {md->io.guest_wr_bytes, md->io.guest_wr_ios,
	                              md->io.phys_wr_bytes, md->io.vmstat_wr_bytes,
	                              md->io.double_counted_bytes};
	s->end_s = end_s;
	s->run_wr = run_wr(t, md);
	s->run_sum = (prev ? prev->run_sum : 0) + s->run_wr;
	for (size_t i = 0; i < EX_DOM0_SUMS; i++)
		s->sum[i] = (prev ? prev->sum[i] : 0) + add[i];
	log->n++;
	if (s->run_wr < DOM0_ACTIVE_WR_BYTES) {
		t->quiet_s += interval_s;
		if (t->quiet_s >= ex_dom0_quiet_limit_s(&ex->host))
			d->drained = log->quiet_drained = true; /* drain_s: the last active one's */
		return 0;
	}
	/* dom0 still writing back: everything since the window is the run's drain */
	log->quiet_n = log->n;
	take_steps(d, log, log->n);
	t->quiet_s = 0;
	d->drain_s = log->quiet_drain_s = end_s > 0 ? end_s : 0;
	return 0;
}

/* The quiet rule's drain back on d (a claim's data rule undone). */
static void quiet_rule(struct ex_domain *d, struct ex_dom0_drain *log)
{
	take_steps(d, log, log->quiet_n);
	d->drained = log->quiet_drained;
	d->drain_s = log->quiet_drain_s;
	log->data_drained = false;
	log->data_taken = 0;
	log->after_data_wr = 0;
	log->after_data_last_s = 0;
}

void ex_dom0_data_drain(struct explain *ex, struct ex_domain *d, uint64_t data_bytes)
{
	struct ex_dom0_drain *log = ex->dom0_drain;
	if (!d->dom0_subject || !log)
		return;
	quiet_rule(d, log);
	log->data_bytes = data_bytes;
	log->data_on_disk = log->window_run_wr + (log->n ? log->step[log->n - 1].run_sum : 0);
	uint64_t slack = data_bytes / EX_DOM0_DATA_SLACK_DEN;
	slack = slack > EX_DOM0_DATA_SLACK_MIN ? slack : EX_DOM0_DATA_SLACK_MIN;
	uint64_t need = data_bytes > slack ? data_bytes - slack : 0;
	if (!data_bytes || log->data_on_disk < need)
		return; /* the quiet rule's, said so */
	size_t k = 0;   /* intervals after the window until the run's disks had its data */
	uint64_t taken = log->window_run_wr;
	while (taken < need)
		taken = log->window_run_wr + log->step[k++].run_sum;
	take_steps(d, log, k);
	log->data_n = k;
	d->drained = log->data_drained = true;
	d->drain_s = k && log->step[k - 1].end_s > 0 ? log->step[k - 1].end_s : 0;
	log->data_taken = taken;
	log->after_data_wr = log->data_on_disk - taken;
	for (size_t i = k; i < log->n; i++)
		if (log->step[i].run_wr >= DOM0_ACTIVE_WR_BYTES)
			log->after_data_last_s = log->step[i].end_s;
}

bool ex_dom0_in_data(const struct explain *ex, double t)
{
	const struct ex_dom0_drain *log = ex->dom0_drain;
	if (!log || !log->data_drained || !log->n)
		return true;
	/* a point's t and a step's end_s come from the same sample's time */
	const double same = 1e-6;
	if (!log->data_n) /* the window's points: before the first step's */
		return t < ex->win.seconds + log->step[0].end_s - same;
	return t < ex->win.seconds + log->step[log->data_n - 1].end_s + same;
}

/* The program of a wrap mark's command line ("start: /bin/dd if=... " -> "dd"). */
static void program_of(const char *label, char *out, size_t len)
{
	const char *cmd = label + strlen("start: ");
	size_t n = strcspn(cmd, " \t");
	const char *base = cmd;
	for (const char *p = cmd; p < cmd + n; p++)
		if (*p == '/' && p + 1 < cmd + n)
			base = p + 1;
	snprintf(out, len, "%.*s", (int)(cmd + n - base), base);
}

/* A subject that moved nothing is no subject: domain 0 is left as the recording has it
 * (Domain-0's own counters), or dropped when it was made for the subject alone. */
static bool drop_idle(struct explain *ex, size_t i)
{
	struct ex_domain *d = &ex->doms[i];
	if (d->io.guest_wr_bytes + d->io.guest_rd_bytes + d->io.phys_wr_bytes +
	    d->io.phys_rd_bytes + d->after_phys_wr)
		return false;
	d->dom0_subject = false;
	if (d->name[0] || d->guest_cpu_known || d->cpu_ns + d->after_cpu_ns)
		return false;
	free(d->series);
	memmove(d, d + 1, (ex->n_doms - i - 1) * sizeof(*d));
	ex->n_doms--;
	return true;
}

void ex_dom0_name(struct explain *ex)
{
	for (size_t i = 0; i < ex->n_doms; i++) {
		struct ex_domain *d = &ex->doms[i];
		if (!d->dom0_subject || drop_idle(ex, i))
			continue;
		char prog[40] = "";
		if (!strncmp(ex->win.from_label, "start: ", 7))
			program_of(ex->win.from_label, prog, sizeof(prog));
		if (prog[0])
			snprintf(d->name, sizeof(d->name), "dom0 (%s)", prog);
		else
			snprintf(d->name, sizeof(d->name), "dom0");
		snprintf(d->kind, sizeof(d->kind), "dom0");
		d->mem_bytes = 0; /* its cache is dom0's memory (host facts), not a guest's */
	}
}
