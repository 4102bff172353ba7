/* tracer_topology.c - the topology into the BPF lookup maps: devices into the device
 * table (else the dev_dom hash), image files into inode_dom, device models into tgid_dom
 * and its bitmap (kept a while after they leave, dm_keep.h); every update's result counted
 * (sources/map_updates.h). See tracer.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/arrays.h"
#include "core/clock.h"
#include "core/error.h"
#include "sources/dev_counts.h"
#include "sources/dev_table.h"
#include "sources/dm_keep.h"
#include "sources/hostinfo.h"
#include "sources/lat_untimed.h"
#include "sources/proc_stat.h"
#include "sources/tracer.h"
#include "sources/tracer_internal.h"
#include "xiotop.skel.h"

static void clear_map(int fd, size_t key_size)
{
	unsigned char key[64], next[64];
	/* deleting while iterating restarts from the first key each time */
	while (key_size <= sizeof(key) && !bpf_map_get_next_key(fd, NULL, next)) {
		memcpy(key, next, key_size);
		if (bpf_map_delete_elem(fd, key))
			break;
	}
}

/* A device's owner and flags into the table being built, else the overflow hash. */
static void set_dev_owner(struct tracer *t, uint32_t dev, uint32_t domid, unsigned int flags)
{
	unsigned int prev = XIOTOP_DOM_NONE;
	enum dev_table_result r = dev_table_add(t->dev_staging, dev, domid, flags, &prev);
	if (r == DEV_TABLE_OVERFLOW) {
		int fd = bpf_map__fd(t->skel->maps.dev_dom);
		struct xiotop_dev_owner o = {.domid = XIOTOP_DOM_NONE};
		if (!bpf_map_lookup_elem(fd, &dev, &o))
			prev = o.domid;
		if (o.domid == XIOTOP_DOM_NONE)
			o.domid = domid;
		else if (domid != XIOTOP_DOM_NONE && domid != o.domid)
			r = DEV_TABLE_CLAIMED;
		/* counted by the programs, not from diskstats: dev_counts reads the table's */
		o.flags |= flags & ~(unsigned int)XIOTOP_DEV_COUNTED;
		map_update_counted(&t->updates, TOPO_MAP_DEV_DOM,
		                   bpf_map_update_elem(fd, &dev, &o, BPF_ANY));
	}
	if (r == DEV_TABLE_CLAIMED)
		xnote("device %u:%u is claimed by domains %u and %u (kept %u)", XT_KDEV_MAJOR(dev),
		      XT_KDEV_MINOR(dev), prev, domid, prev);
}

/* What a topology's backends need of the programs beyond the maps. */
struct backend_needs {
	bool images_off_device; /* an image's file system has no block device of its own */
	/* a loop device or an image file backs a domain: its loop work items and the
	 * flusher's writeback of its pages are tracked (workqueue hooks) */
	bool work_items;
};

/* A domain's backend device: rule 1 applies to it; whether the kernel counts it (then its
 * layer is diskstats', sources/dev_counts.h) and whether it is bio-based (its bios are
 * stamped for latency: no request holds their start). */
static unsigned int backend_flags(const struct tracer *t, const struct xt_roots *roots,
                                  uint32_t dev)
{
	unsigned int flags = XIOTOP_DEV_IS_BACKEND;
	if (dev_counts_kernel_counts(roots->sysfs, dev, t->hooks.links[HOOK_BIO_SPLIT] != NULL))
		flags |= XIOTOP_DEV_COUNTED;
	if (!lat_dev_is_blk_mq(roots->sysfs, dev))
		flags |= XIOTOP_DEV_BIO_BASED;
	return flags;
}

static void map_backend(struct tracer *t, const struct xt_roots *roots, uint32_t domid,
                        const struct xt_backend *b, struct backend_needs *needs)
{
	int inode_fd = bpf_map__fd(t->skel->maps.inode_dom);
	bool above_file = true; /* only devices above the backing file are the domain's own */

	for (size_t i = 0; i < b->n_layers; i++) {
		const struct xt_layer *l = &b->layers[i];
		if (l->role == XT_ROLE_FILE) {
			above_file = false;
			needs->work_items = true;
			if (l->ino) {
				struct xiotop_inode_key k = {.ino = l->ino, .fs_dev = l->fs_dev};
				map_update_counted(
				    &t->updates, TOPO_MAP_INODE_DOM,
				    bpf_map_update_elem(inode_fd, &k, &domid, BPF_ANY));
				/* bios carrying its pages are queued to the file system's device */
				if (XT_KDEV_MAJOR(l->fs_dev))
					set_dev_owner(t, l->fs_dev, XIOTOP_DOM_NONE,
					              XIOTOP_DEV_HOLDS_IMAGE);
				else
					needs->images_off_device = true;
			}
			continue;
		}
		if (!above_file || !l->dev)
			continue;
		struct xt_devinfo info;
		unsigned int flags =
		    l->role == XT_ROLE_BACKEND ? backend_flags(t, roots, l->dev) : 0;
		if (!topo_devinfo(roots, l->dev, &info) && info.is_loop) {
			flags |= XIOTOP_DEV_IS_LOOP;
			needs->work_items = true;
		}
		if (flags)
			set_dev_owner(t, l->dev, domid, flags);
	}
}

/* Whether topo maps the image file k (map_backend writes it to inode_dom). */
static bool topo_maps_image(const struct xt_topology *topo, const struct xiotop_inode_key *k)
{
	for (size_t i = 0; i < topo->n_domains; i++)
		for (size_t j = 0; j < topo->domains[i].n_backends; j++) {
			const struct xt_backend *b = &topo->domains[i].backends[j];
			for (size_t l = 0; !b->missing && l < b->n_layers; l++)
				if (b->layers[l].role == XT_ROLE_FILE &&
				    b->layers[l].ino == k->ino && b->layers[l].fs_dev == k->fs_dev)
					return true;
		}
	return false;
}

/* The image files no longer in the topology out of inode_dom, once the current ones are
 * written: an image in both topologies never misses its entry (cleared and refilled, the
 * map had none for a moment each interval, and a writeback bio then went unattributed). */
static void prune_images(struct tracer *t, const struct xt_topology *topo)
{
	int fd = bpf_map__fd(t->skel->maps.inode_dom);
	struct xiotop_inode_key key, next, *gone = NULL;
	const struct xiotop_inode_key *prev = NULL;
	size_t n = 0, cap = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (topo_maps_image(topo, &key))
			continue;
		if (n == cap) {
			size_t more = cap ? 2 * cap : 16;
			struct xiotop_inode_key *grown = realloc(gone, more * sizeof(*gone));
			if (!grown)
				break; /* kept: an image gone keeps its domain until the next
				          topology */
			gone = grown;
			cap = more;
		}
		gone[n++] = key;
	}
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &gone[i]);
	free(gone);
}

/* The device models of topo into tgid_dom and tgid_bits, with those kept past their
 * topology (dm_keep.h). Entries and bits are written before the gone ones are taken out:
 * a model in both topologies is never missing from the maps. Returns how many the
 * programs will find. */
static unsigned int map_device_models(struct tracer *t, const struct xt_topology *topo,
                                      const struct xt_roots *roots)
{
	int tgid_fd = bpf_map__fd(t->skel->maps.tgid_dom);
	int bits_fd = bpf_map__fd(t->skel->maps.tgid_bits);
	dm_keep_begin(&t->dms);
	for (size_t i = 0; i < topo->n_domains; i++) {
		const struct xt_domain *d = &topo->domains[i];
		if (d->device_model_pid <= 0)
			continue;
		if (d->device_model_pid >= XIOTOP_TGID_BITMAP_WORDS * 64) {
			/* a pid past the bitmap has no word: counted as tgid_bits full */
			map_update_counted(&t->updates, TOPO_MAP_TGID_BITS, -E2BIG);
			continue;
		}
		struct xiotop_dm_owner owner = {.domid = d->domid};
		if (proc_start_ticks(roots->proc, d->device_model_pid, &owner.start_ticks)) {
			xnote("device model pid %d of domain %u is not running",
			      d->device_model_pid, d->domid);
			continue;
		}
		if (!dm_keep_see(&t->dms, (uint32_t)d->device_model_pid, &owner))
			map_update_counted(&t->updates, TOPO_MAP_TGID_DOM, -E2BIG);
	}
	dm_keep_end(&t->dms, clock_mono_ns());
	unsigned int mapped = 0;
	for (size_t i = 0; i < t->dms.n; i++) {
		const struct dm_kept *k = &t->dms.v[i];
		uint32_t word = k->tgid >> 6;
		uint64_t bits = dm_keep_word(&t->dms, word);
		if (!map_update_counted(
		        &t->updates, TOPO_MAP_TGID_DOM,
		        bpf_map_update_elem(tgid_fd, &k->tgid, &k->owner, BPF_ANY)) &&
		    !map_update_counted(&t->updates, TOPO_MAP_TGID_BITS,
		                        bpf_map_update_elem(bits_fd, &word, &bits, BPF_ANY)))
			mapped++;
	}
	for (size_t i = 0; i < t->dms.n_dropped; i++) {
		uint32_t word = t->dms.dropped[i] >> 6;
		uint64_t bits = dm_keep_word(&t->dms, word);
		map_update_counted(&t->updates, TOPO_MAP_TGID_BITS,
		                   bpf_map_update_elem(bits_fd, &word, &bits, BPF_ANY));
		bpf_map_delete_elem(tgid_fd, &t->dms.dropped[i]);
	}
	return mapped;
}

/* The backend devices of the table now live that are blk-mq (or, !blk_mq, bio-based:
 * zram, dm, md), into devs; with devs NULL, 1 at the first such one (is there one?). */
static size_t backends_of_kind(const struct tracer *t, bool blk_mq, uint32_t *devs)
{
	size_t n = 0;
	for (size_t i = 0; i < XIOTOP_DEV_SLOTS; i++) {
		const struct xiotop_dev_slot *s = &t->dev_staging[i];
		if (!s->dev || !(s->owner.flags & XIOTOP_DEV_IS_BACKEND) ||
		    !(s->owner.flags & XIOTOP_DEV_BIO_BASED) != blk_mq)
			continue;
		if (!devs)
			return 1;
		devs[n++] = s->dev;
	}
	return n;
}

/* The blk-mq backend devices of the table now live, watched for completions no program
 * saw (rq_watch.h), when their requests are timed. */
static void watch_rq_backends(struct tracer *t, const struct host_diskstat *ds, size_t n_ds)
{
	if (!hooks_latency(&t->hooks) || !t->hooks.attached[HOOK_RQ_COMPLETE])
		return;
	uint32_t *devs = malloc(XIOTOP_DEV_SLOTS * sizeof(*devs));
	if (!devs)
		return;
	size_t n = backends_of_kind(t, true, devs);
	if (rq_watch_set(&t->rq_watch, devs, n, ds, n_ds))
		xnote("out of memory: requests of blk-mq backends no program saw are not counted");
	free(devs);
}

/* The backend devices of the table now live that the kernel counts: their layers from
 * diskstats from now on (dev_counts.h), a partition's stacked one on its whole disk too. */
static void count_backends(struct tracer *t, const struct xt_roots *roots,
                           const struct host_diskstat *ds, size_t n_ds)
{
	struct dev_count_src *src = malloc(XIOTOP_DEV_SLOTS * sizeof(*src));
	size_t n = 0;
	for (size_t i = 0; src && i < XIOTOP_DEV_SLOTS; i++) {
		const struct xiotop_dev_slot *s = &t->dev_staging[i];
		if (!s->dev || !(s->owner.flags & XIOTOP_DEV_COUNTED))
			continue;
		struct xt_devinfo info;
		bool part = !topo_devinfo(roots, s->dev, &info) && info.is_partition;
		src[n++] = (struct dev_count_src){
		    .dev = s->dev, .whole = part ? info.parent : 0, .domid = s->owner.domid};
	}
	if (!src || dev_counts_set(&t->dev_counts, src, n, ds, n_ds, t->extras, tracer_extras(t)))
		xnote("out of memory: the devices the kernel counts keep the topology before");
	free(src);
}

/* block_bio_complete from the first bio-based backend on (hooks_start_stamping). True
 * when one exists and the hook would not attach: its bios are not timed. */
static bool want_bio_complete(struct tracer *t)
{
	if (!hooks_can_stamp(&t->hooks) || hooks_stamping(&t->hooks) ||
	    !backends_of_kind(t, false, NULL))
		return false;
	return !hooks_start_stamping(&t->hooks);
}

/* The domains whose latency is not timed: one of their backends' kinds is not (a domain
 * with a loop backend and block_rq_complete refused; not when only block_bio_complete
 * is refused). Nothing when latency is not timed at all (no histogram is read). */
static void find_untimed(struct tracer *t, const struct xt_topology *topo,
                         const struct xt_roots *roots, bool device_models, bool bio_refused)
{
	t->n_untimed = 0;
	if (!t->has_latency)
		return;
	const struct hook_set *h = &t->hooks;
	struct lat_hooks timing = {
	    .rq = h->attached[HOOK_RQ_COMPLETE],
	    .bio = hooks_can_stamp(h) && !bio_refused,
	    .syscalls = h->attached[HOOK_SYS_ENTER] && h->attached[HOOK_SYS_EXIT] &&
	                (!device_models || (h->links[HOOK_SYS_ENTER] && h->links[HOOK_SYS_EXIT])),
	};
	if (timing.rq && timing.bio && timing.syscalls)
		return; /* every kind timed (the common case): no sysfs read per backend */
	for (size_t i = 0; i < topo->n_domains; i++) {
		const struct xt_domain *d = &topo->domains[i];
		uint32_t untimed = lat_untimed_domain(d, &timing, roots->sysfs);
		if (!untimed)
			continue;
		struct tracer_untimed u = {.domid = d->domid, .untimed = untimed};
		if (arrays_append((void **)&t->untimed, &t->n_untimed, &u, sizeof(u))) {
			xnote("out of memory: domains whose latency is not timed may show it as 0");
			return;
		}
	}
}

int tracer_set_topology(struct tracer *t, const struct xt_topology *topo,
                        const struct xt_roots *roots)
{
	/* the overflow of the device table is built afresh (set_dev_owner merges into it);
	 * image files are updated in place and pruned after (prune_images) */
	clear_map(bpf_map__fd(t->skel->maps.dev_dom), sizeof(uint32_t));
	dev_table_clear(t->dev_staging);
	struct backend_needs needs = {0};
	bool device_models = false;
	for (size_t i = 0; i < topo->n_domains; i++) {
		const struct xt_domain *d = &topo->domains[i];
		device_models |= d->device_model_pid > 0;
		for (size_t j = 0; j < d->n_backends; j++)
			if (!d->backends[j].missing)
				map_backend(t, roots, d->domid, &d->backends[j], &needs);
	}
	prune_images(t, topo);
	unsigned int n_device_models = map_device_models(t, topo, roots);
	hooks_want_syscalls(&t->hooks, device_models);
	/* the table not in use gets the new topology, then programs switch to it whole; one
	 * still reading the old copy finishes long before the next topology overwrites it */
	unsigned int next = !t->skel->bss->dev_table_live;
	memcpy(t->skel->bss->dev_table[next], t->dev_staging, sizeof(t->dev_staging));
	__atomic_store_n(&t->skel->bss->dev_table_live, next, __ATOMIC_RELEASE);
	t->skel->bss->images_off_device = needs.images_off_device;
	t->skel->bss->topology_gen++; /* cached loop-work owners are stale now */
	/* after the maps: a program that sees the count finds the entries */
	t->skel->bss->device_models = n_device_models;
	/* after the table too: the first work items find their loop device's domain. A
	 * device model's buffered I/O (an emulated disk's, a qdisk's without direct I/O)
	 * puts its domain's data in dom0's page cache, whatever its backend: the flusher
	 * writes it back */
	if ((needs.work_items || device_models) && !hooks_start_work_items(&t->hooks))
		hooks_describe(&t->hooks, t->hooks_line, sizeof(t->hooks_line));
	/* after the table is live: a window only hides misses (rq_watch), and what the
	 * programs stopped counting is counted from here (dev_counts) */
	struct host_diskstat *ds = NULL;
	size_t n_ds = 0;
	snprintf(t->proc_root, sizeof(t->proc_root), "%s", roots->proc);
	/* none read: rq_watch counts from 0, dev_counts from its first read with the line */
	if (host_read_diskstats(roots->proc, &ds, &n_ds))
		n_ds = 0;
	watch_rq_backends(t, ds, n_ds);
	count_backends(t, roots, ds, n_ds);
	free(ds);
	find_untimed(t, topo, roots, device_models, want_bio_complete(t));
	return 0;
}

const struct map_updates *tracer_map_updates(const struct tracer *t)
{
	return &t->updates;
}
