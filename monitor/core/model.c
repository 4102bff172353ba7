/* model.c - per-interval, per-domain figures from two cumulative samples; see model.h. */
#include "core/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/free_all.h"
#include "core/latency.h"

const char *model_role_name(enum model_role r)
{
	static const char *const names[] = {"backend", "stacked", "file", "leaf"};
	return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

/* A counter that went backwards means the tracer restarted: count from zero. */
static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;
}

static struct xiotop_io io_delta(const struct xiotop_io *cur, const struct xiotop_io *prev)
{
	struct xiotop_io d = *cur;
	if (prev) {
		d.rd_bytes = delta(cur->rd_bytes, prev->rd_bytes);
		d.wr_bytes = delta(cur->wr_bytes, prev->wr_bytes);
		d.rd_ios = delta(cur->rd_ios, prev->rd_ios);
		d.wr_ios = delta(cur->wr_ios, prev->wr_ios);
	}
	return d;
}

/* The domain's entry, added if new (NULL when cap entries are taken). Looked up in
 * dom_index: a linear search made 1,000 domains quadratic (a fifth of the collector's
 * time at -d 1). */
static struct model_domain *domain_slot(struct model_interval *m, uint32_t domid, size_t cap)
{
	size_t h = (domid * 2654435761u) & m->dom_index_mask;
	while (m->dom_index[h]) {
		struct model_domain *d = &m->domains[m->dom_index[h] - 1];
		if (d->domid == domid)
			return d;
		h = (h + 1) & m->dom_index_mask;
	}
	if (m->n_domains == cap)
		return NULL;
	struct model_domain *d = &m->domains[m->n_domains++];
	m->dom_index[h] = (uint32_t)m->n_domains;
	memset(d, 0, sizeof(*d));
	d->domid = domid;
	d->guest_cpu_ns = -1;
	return d;
}

/* An index of at least twice cap entries, so that a probe run stays short and ends. */
static int domain_index_alloc(struct model_interval *m, size_t cap)
{
	size_t n = 16;
	while (n < 2 * cap)
		n *= 2;
	m->dom_index = calloc(n, sizeof(*m->dom_index));
	m->dom_index_mask = n - 1;
	return m->dom_index ? 0 : -1;
}

static enum model_role role_of(uint32_t via, bool is_leaf)
{
	/* what the guest asked for: its backend device, its blkback thread's bios, or its
	 * device model's reads and writes of the image file */
	if (via == XIOTOP_VIA_DEV || via == XIOTOP_VIA_TASK || via == XIOTOP_VIA_FILEIO)
		return ROLE_BACKEND;
	return is_leaf ? ROLE_LEAF : ROLE_STACKED;
}

/* bios that carry a backing/image file's data */
static bool carries_file_data(uint32_t via)
{
	return via == XIOTOP_VIA_INODE || via == XIOTOP_VIA_LOOPWORK || via == XIOTOP_VIA_DMTASK;
}

/* Add bytes to the domain's layer (dev, role), creating it on first use. */
static int add_layer_bytes(struct model_domain *d, enum model_role role, uint32_t dev,
                           const struct xio_dev *info, const struct xiotop_io *io)
{
	struct model_layer *l = NULL;
	for (size_t i = 0; i < d->n_layers; i++)
		if (d->layers[i].dev == dev && d->layers[i].role == role)
			l = &d->layers[i];
	if (!l) {
		struct model_layer *p = realloc(d->layers, (d->n_layers + 1) * sizeof(*p));
		if (!p)
			return -1;
		d->layers = p;
		l = &d->layers[d->n_layers++];
		memset(l, 0, sizeof(*l));
		l->role = role;
		l->dev = dev;
		l->is_file = dev == 0;
		l->is_leaf = info && info->is_leaf;
		if (info)
			memcpy(l->name, info->name, sizeof(l->name));
	}
	model_layer_add_io(l, io);
	return 0;
}

void model_layer_add_io(struct model_layer *l, const struct xiotop_io *io)
{
	l->rd_bytes += io->rd_bytes;
	l->wr_bytes += io->wr_bytes;
	l->rd_ios += io->rd_ios;
	l->wr_ios += io->wr_ios;
}

void model_io_sums_add(struct model_io_sums *to, const struct model_io_sums *add)
{
	to->guest_rd_bytes += add->guest_rd_bytes;
	to->guest_wr_bytes += add->guest_wr_bytes;
	to->guest_rd_ios += add->guest_rd_ios;
	to->guest_wr_ios += add->guest_wr_ios;
	to->phys_rd_bytes += add->phys_rd_bytes;
	to->phys_wr_bytes += add->phys_wr_bytes;
	to->vmstat_wr_bytes += add->vmstat_wr_bytes;
	to->double_counted_bytes += add->double_counted_bytes;
	to->array_rd_bytes += add->array_rd_bytes;
	to->array_wr_bytes += add->array_wr_bytes;
	to->member_rd_bytes += add->member_rd_bytes;
	to->member_wr_bytes += add->member_wr_bytes;
	to->copy_rd_bytes += add->copy_rd_bytes;
	to->copy_wr_bytes += add->copy_wr_bytes;
}

static uint64_t beyond(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* phys - members + arrays, never clamped on the copies: an interval where md took bytes
 * its members take in the next one counts them here (as the array took them) and the
 * next one's member bytes not again, so intervals add up to their span's figure.
 * phys - beyond(members, arrays) summed over intervals lost those bytes: 26 of a 32 MiB
 * fio write on a file image over md RAID1 in a Xen dom0, its rate then 2x "the disks". */
static uint64_t stored(uint64_t phys, uint64_t members, uint64_t arrays)
{
	return beyond(phys, members) + arrays;
}

uint64_t model_io_stored_wr(const struct model_io_sums *io)
{
	return stored(io->phys_wr_bytes, io->member_wr_bytes, io->array_wr_bytes);
}

uint64_t model_io_stored_rd(const struct model_io_sums *io)
{
	return stored(io->phys_rd_bytes, io->member_rd_bytes, io->array_rd_bytes);
}

bool model_second_count(uint32_t via, const char *kind)
{
	/* submit_bio() counts every bio it is given (block/blk-core.c); blkback's bio to the
	 * loop device was the first, so what loop submits below it is the second: its direct
	 * I/O from its worker (lo_rw_aio), and the writeback of its file's pages by the
	 * flusher or by its own fsync. A device model's bios are its image's first: its
	 * guest's requests were syscalls, which pgpgout does not count. */
	if (via == XIOTOP_VIA_LOOPWORK)
		return true;
	return via == XIOTOP_VIA_INODE && !(kind && !strcmp(kind, "qdisk"));
}

void model_domain_add_io(struct model_domain *d, const struct xiotop_io *io,
                         const struct model_io_kind *k)
{
	struct model_io_sums *s = &d->io;
	if (k->guest) {
		s->guest_rd_bytes += io->rd_bytes;
		s->guest_wr_bytes += io->wr_bytes;
		s->guest_rd_ios += io->rd_ios;
		s->guest_wr_ios += io->wr_ios;
	}
	if (k->leaf) {
		s->phys_rd_bytes += io->rd_bytes;
		s->phys_wr_bytes += io->wr_bytes;
	}
	if (k->in_vmstat)
		s->vmstat_wr_bytes += io->wr_bytes;
	if (k->in_vmstat && k->second_count)
		s->double_counted_bytes += io->wr_bytes;
	if (k->array & XIO_DEV_ARRAY) {
		s->array_rd_bytes += io->rd_bytes;
		s->array_wr_bytes += io->wr_bytes;
	}
	if (k->array & XIO_DEV_MEMBER) {
		s->member_rd_bytes += io->rd_bytes;
		s->member_wr_bytes += io->wr_bytes;
	}
}

static int layer_order(const void *a, const void *b)
{
	const struct model_layer *x = a, *y = b;
	if (x->role != y->role)
		return (int)x->role - (int)y->role;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static int charge_layer(struct model_interval *m, const struct xio_sample *cur,
                        const struct xio_layer *l, const struct xiotop_io *io, size_t cap)
{
	/* without the stack below the guests nothing says what vmstat counted for a domain */
	bool in_vmstat = XIOTOP_VIA_IN_VMSTAT(l->via) && !(cur->absent & XIO_ABSENT_STACK);
	if (l->domid == XIOTOP_DOM_NONE) {
		if (in_vmstat) {
			m->unattr_rd_bytes += io->rd_bytes;
			m->unattr_wr_bytes += io->wr_bytes;
		}
		return 0;
	}
	struct model_domain *d = domain_slot(m, l->domid, cap);
	if (!d)
		return -1;
	bool file_io = l->via == XIOTOP_VIA_FILEIO; /* no device: the image file itself */
	const struct xio_dev *info = file_io ? NULL : sample_dev(cur, l->dev);
	bool is_leaf = info && info->is_leaf;
	enum model_role role = role_of(l->via, is_leaf);
	struct model_io_kind k = {.guest = role == ROLE_BACKEND,
	                          .leaf = is_leaf,
	                          .in_vmstat = in_vmstat,
	                          .second_count =
	                              model_second_count(l->via, d->info ? d->info->kind : NULL),
	                          .array = info ? info->array : 0};
	model_domain_add_io(d, io, &k);
	if (add_layer_bytes(d, role, file_io ? 0 : l->dev, info, io))
		return -1;
	/* bios that carry a backing file's data: the file layer of the stack */
	if (carries_file_data(l->via))
		return add_layer_bytes(d, ROLE_FILE, 0, NULL, io);
	return 0;
}

/* A copy of n items (at least one byte allocated, so NULL means out of memory). */
static void *copy_array(const void *items, size_t n, size_t size)
{
	void *copy = malloc(n ? n * size : 1);
	if (copy && n)
		memcpy(copy, items, n * size);
	return copy;
}

/* prev's histogram of (domid, op), looked for first at position i: samples list them in
 * the same order from one to the next (the tracer's slots, a recording's rows), so a
 * thousand domains' are not a million compares. NULL: none. */
static const struct xio_latency *prev_latency(const struct xio_sample *prev, size_t i,
                                              uint32_t domid, uint32_t op)
{
	if (i < prev->n_latency && prev->latency[i].domid == domid && prev->latency[i].op == op)
		return &prev->latency[i];
	return sample_latency(prev, domid, op);
}

/* Each domain's latency histograms this interval (a domain only seen in them is added). */
static int latency_of_interval(const struct xio_sample *prev, const struct xio_sample *cur,
                               struct model_interval *m, size_t cap)
{
	m->has_latency = cur->has_latency;
	for (size_t i = 0; cur->has_latency && i < cur->n_latency; i++) {
		const struct xio_latency *l = &cur->latency[i];
		if (l->op >= XIOTOP_LAT_OPS || l->domid == XIOTOP_DOM_NONE)
			continue;
		const struct xio_latency *p =
		    prev && prev->has_latency ? prev_latency(prev, i, l->domid, l->op) : NULL;
		struct model_domain *d = domain_slot(m, l->domid, cap);
		if (!d)
			return -1;
		latency_delta(&l->hist, p ? &p->hist : NULL, &d->lat[l->op]);
		/* not timed at either end: part of the interval was not */
		d->lat_untimed[l->op] = l->untimed | (p ? p->untimed : 0);
	}
	return 0;
}

void model_move(struct model_interval *dst, struct model_interval *src)
{
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

/* Each layer's bytes this interval, charged to its domain; prev's layers are looked up
 * by key in a sorted copy (a host has thousands). */
static int layer_deltas(const struct xio_sample *prev, const struct xio_sample *cur,
                        struct model_interval *out, size_t cap)
{
	struct xio_layer *sorted_prev = NULL;
	if (prev && prev->n_layers) {
		sorted_prev = malloc(prev->n_layers * sizeof(*sorted_prev));
		if (!sorted_prev)
			return -1;
		memcpy(sorted_prev, prev->layers, prev->n_layers * sizeof(*sorted_prev));
		qsort(sorted_prev, prev->n_layers, sizeof(*sorted_prev), xio_layer_key_cmp);
	}
	int rc = 0;
	for (size_t i = 0; i < cur->n_layers && !rc; i++) {
		const struct xio_layer *l = &cur->layers[i];
		const struct xio_layer *p = sorted_prev
		                                ? bsearch(l, sorted_prev, prev->n_layers,
		                                          sizeof(*sorted_prev), xio_layer_key_cmp)
		                                : NULL;
		struct xiotop_io io = io_delta(&l->io, p ? &p->io : NULL);
		rc = charge_layer(out, cur, l, &io, cap);
	}
	free(sorted_prev);
	return rc;
}

/* Each domain's dom0 CPU by role, its page-cache traffic and its vCPU time. */
static int counter_deltas(const struct xio_sample *prev, const struct xio_sample *cur,
                          struct model_interval *out, size_t cap)
{
	for (size_t i = 0; i < cur->n_counters; i++) {
		const struct xio_dom_counters *c = &cur->counters[i];
		const struct xio_dom_counters *p = prev ? sample_counters(prev, c->domid) : NULL;
		struct model_domain *d = domain_slot(out, c->domid, cap);
		if (!d)
			return -1;
		for (int r = 0; r < XIO_CPU_ROLES; r++) {
			d->cpu_ns_by_role[r] = delta(c->cpu_ns[r], p ? p->cpu_ns[r] : 0);
			d->cpu_ns += d->cpu_ns_by_role[r];
		}
		d->dirtied_bytes = delta(c->dirtied_bytes, p ? p->dirtied_bytes : 0);
		d->written_back_bytes = delta(c->written_back_bytes, p ? p->written_back_bytes : 0);
		d->dirty_backlog_bytes = c->dirtied_bytes > c->written_back_bytes
		                             ? c->dirtied_bytes - c->written_back_bytes
		                             : 0;
		d->guest_cpu_ns = c->guest_cpu_ns < 0 || !p || p->guest_cpu_ns < 0
		                      ? -1
		                      : c->guest_cpu_ns - p->guest_cpu_ns;
	}
	return 0;
}

/* Each leaf disk's bytes this interval (/proc/diskstats). */
static void disk_deltas(const struct xio_sample *prev, const struct xio_sample *cur,
                        struct model_interval *out)
{
	for (size_t i = 0; i < cur->n_disks; i++) {
		const struct xio_disk *c = &cur->disks[i];
		const struct xio_disk *p = NULL;
		for (size_t j = 0; prev && j < prev->n_disks; j++)
			if (prev->disks[j].dev == c->dev)
				p = &prev->disks[j];
		struct model_disk *md = &out->disks[out->n_disks++];
		md->disk = &out->own_disks[i];
		md->rd_bytes = delta(c->rd_bytes, p ? p->rd_bytes : 0);
		md->wr_bytes = delta(c->wr_bytes, p ? p->wr_bytes : 0);
		md->rd_ios = delta(c->rd_ios, p ? p->rd_ios : 0);
		md->wr_ios = delta(c->wr_ios, p ? p->wr_ios : 0);
	}
}

/* The tracer's bytes a leaf needs this interval before an idle diskstats line means the
 * device does no accounting: far more than one request queued just before the interval's
 * end and completed (counted by diskstats) just after it. */
#define UNACCOUNTED_MIN_BYTES (1u << 20)

static const struct model_disk *disk_of(const struct model_interval *m, uint32_t dev)
{
	for (size_t i = 0; i < m->n_disks; i++)
		if (m->disks[i].disk->dev == dev)
			return &m->disks[i];
	return NULL;
}

/* Leaves the tracer saw busy while /proc/diskstats saw nothing of them (brd keeps no
 * diskstats): the disks' totals would read 0 for bytes that reached them. */
static void find_unaccounted_leaves(struct model_interval *m)
{
	for (size_t i = 0; i < m->n_domains; i++) {
		const struct model_domain *d = &m->domains[i];
		for (size_t j = 0; j < d->n_layers; j++) {
			const struct model_layer *l = &d->layers[j];
			if (!l->is_leaf || l->is_file ||
			    l->rd_bytes + l->wr_bytes < UNACCOUNTED_MIN_BYTES)
				continue;
			const struct model_disk *k = disk_of(m, l->dev);
			if (k && (k->rd_bytes || k->wr_bytes))
				continue;
			if (!m->n_unaccounted_leaves++)
				snprintf(m->unaccounted_leaf, sizeof(m->unaccounted_leaf), "%s",
				         l->name);
		}
	}
}

/* Each leaf layer's device's own completed requests and bytes (diskstats), beside the
 * domain's bios at it: what the leaf took after the block layer merged them. */
static void leaf_devstats(struct model_interval *m)
{
	for (size_t i = 0; !(m->absent & XIO_ABSENT_DISKS) && i < m->n_domains; i++) {
		const struct model_domain *d = &m->domains[i];
		for (size_t j = 0; j < d->n_layers; j++) {
			struct model_layer *l = &d->layers[j];
			const struct model_disk *k =
			    l->is_leaf && !l->is_file ? disk_of(m, l->dev) : NULL;
			if (!k)
				continue;
			l->has_devstats = true;
			l->dev_rd_bytes = k->rd_bytes;
			l->dev_wr_bytes = k->wr_bytes;
			l->dev_rd_ios = k->rd_ios;
			l->dev_wr_ios = k->wr_ios;
		}
	}
}

int model_compute(const struct xio_sample *prev, const struct xio_sample *cur,
                  struct model_interval *out)
{
	return model_compute_after(prev, cur, NULL, out);
}

int model_compute_after(const struct xio_sample *prev, const struct xio_sample *cur,
                        struct model_carry *carry, struct model_interval *out)
{
	memset(out, 0, sizeof(*out));
	out->realtime_ns = cur->realtime_ns;
	if (prev && cur->monotonic_ns > prev->monotonic_ns)
		out->interval_s =
		    (double)(cur->monotonic_ns - prev->monotonic_ns) / (double)NS_PER_S;
	out->pgpgin_bytes = delta(cur->vmstat_pgpgin_kb, prev ? prev->vmstat_pgpgin_kb : 0) * 1024;
	out->pgpgout_bytes =
	    delta(cur->vmstat_pgpgout_kb, prev ? prev->vmstat_pgpgout_kb : 0) * 1024;
	out->lost_events = delta(cur->lost_events, prev ? prev->lost_events : 0);

	size_t cap = cur->n_domains + cur->n_layers + cur->n_counters + cur->n_latency;
	out->domains = calloc(cap ? cap : 1, sizeof(*out->domains));
	out->disks = calloc(cur->n_disks ? cur->n_disks : 1, sizeof(*out->disks));
	/* the interval keeps its own copy of what it names: it outlives cur */
	out->own_infos = copy_array(cur->domains, cur->n_domains, sizeof(*cur->domains));
	out->own_disks = copy_array(cur->disks, cur->n_disks, sizeof(*cur->disks));
	out->own_hooks = strdup(cur->hooks);
	if (!out->domains || !out->disks || !out->own_infos || !out->own_disks || !out->own_hooks ||
	    domain_index_alloc(out, cap))
		goto fail;
	for (size_t i = 0; i < cur->n_domains; i++) {
		struct model_domain *d = domain_slot(out, cur->domains[i].domid, cap);
		d->info = &out->own_infos[i];
	}

	if (layer_deltas(prev, cur, out, cap))
		goto fail;

	out->absent = cur->absent | (prev ? prev->absent : 0);
	out->has_cpu = cur->has_cpu;
	out->has_dirty = cur->has_dirty;
	out->hooks = out->own_hooks;
	out->host_busy_ns = delta(cur->host_busy_ns, prev ? prev->host_busy_ns : 0);
	out->host_irq_ns = delta(cur->host_irq_ns, prev ? prev->host_irq_ns : 0);
	out->host_steal_ns = delta(cur->host_steal_ns, prev ? prev->host_steal_ns : 0);
	out->cpu_unattributed_ns =
	    delta(cur->cpu_unattributed_ns, prev ? prev->cpu_unattributed_ns : 0);
	if (counter_deltas(prev, cur, out, cap))
		goto fail;
	if (latency_of_interval(prev, cur, out, cap))
		goto fail;
	for (size_t i = 0; i < out->n_domains; i++) {
		struct model_domain *d = &out->domains[i];
		if (d->n_layers)
			qsort(d->layers, d->n_layers, sizeof(*d->layers), layer_order);
	}

	disk_deltas(prev, cur, out);
	find_unaccounted_leaves(out);
	leaf_devstats(out);
	/* the domains are all in (model_xen_compute may drop and compact them) */
	free(out->dom_index);
	out->dom_index = NULL;
	if (!model_xen_compute(prev, cur, out) && !model_copies(out, carry))
		return 0;
fail:
	model_free(out);
	return -1;
}

void model_free(struct model_interval *m)
{
	for (size_t i = 0; m->domains && i < m->n_domains; i++) {
		free(m->domains[i].layers);
		free(m->domains[i].vbds);
	}
	FREE_ALL(m->domains, m->disks, m->own_infos, m->own_disks, m->own_hooks, m->dom_index);
	memset(m, 0, sizeof(*m));
}

void model_host_totals(const struct model_interval *m, struct model_host_totals *out)
{
	memset(out, 0, sizeof(*out));
	out->disks_complete = m->n_unaccounted_leaves == 0;
	for (size_t i = 0; i < m->n_disks; i++) {
		out->disk_rd_bytes += m->disks[i].rd_bytes;
		out->disk_wr_bytes += m->disks[i].wr_bytes;
	}
	for (size_t i = 0; i < m->n_domains; i++)
		out->double_counted_bytes += m->domains[i].io.double_counted_bytes;
}

uint64_t model_dom0_own_cpu_ns(const struct model_interval *m)
{
	if (m->interval_s <= 0)
		return 0;
	/* Not less the interrupt time: without CONFIG_IRQ_TIME_ACCOUNTING (common) an interrupt
	 * is in the runtime of the task it interrupted, so the ticks /proc/stat gives it are
	 * mostly charged already (measured: 98 % of softirq time ran inside a task under
	 * 16 KiB writes to loop); what no task holds is the idle loop's own time. */
	uint64_t charged = m->cpu_unattributed_ns;
	for (size_t i = 0; i < m->n_domains; i++)
		charged += m->domains[i].cpu_ns;
	return m->host_busy_ns > charged ? m->host_busy_ns - charged : 0;
}
