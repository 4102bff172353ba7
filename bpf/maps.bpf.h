/* maps.bpf.h - the maps shared by every program, and the lookups that answer "whose is
 * this?" for a device, an inode or the current task.
 *
 * User space fills dev_table (dev_dom past it), inode_dom, tgid_dom and tgid_bits from
 * the topology; the
 * programs only read them. Counters (layer_io, cpu_ns, stats, dirty) are written here
 * and read by user space once per interval.
 */
#ifndef XIOTOP_MAPS_BPF_H
#define XIOTOP_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "core_fixes.bpf.h"
#include "xiotop.h"

/* Devices with an owner or an image file system (xiotop.h says how it is laid out). */
struct xiotop_dev_slot dev_table[2][XIOTOP_DEV_SLOTS];
volatile unsigned int dev_table_live = 0;

/* Devices that found no slot within XIOTOP_DEV_PROBES: normally empty. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XIOTOP_MAX_DEVS);
	__type(key, u32);
	__type(value, struct xiotop_dev_owner);
} dev_dom SEC(".maps");

/* A file-backed image's file system has no block device of its own (btrfs, a network
 * file system): every bio's pages must be looked up, not only those on HOLDS_IMAGE. */
volatile unsigned int images_off_device = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XIOTOP_MAX_INODES);
	__type(key, struct xiotop_inode_key);
	__type(value, u32);
} inode_dom SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XIOTOP_MAX_TGIDS);
	__type(key, u32);
	__type(value, struct xiotop_dm_owner);
} tgid_dom SEC(".maps");

/* One bit per tgid that has an entry in tgid_dom: a cheap "no" on every bio. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XIOTOP_TGID_BITMAP_WORDS);
	__type(key, u32);
	__type(value, u64);
} tgid_bits SEC(".maps");

/* Counters kept in per-CPU slots first (xiotop.h: the layer counters, the latency
 * histograms), declared as the two maps they take: slots_map, an array of slot_type that
 * user space maps, slots_per_cpu a CPU (ncpus * slots_per_cpu, set before load), and
 * spill_map, a per-CPU hash of up to spill_max key_type -> value_type for a key whose
 * slot on that CPU another key holds. */
#define XIOTOP_SLOTS_AND_SPILL(slots_map, slot_type, slots_per_cpu, spill_map, key_type,           \
                               value_type, spill_max)                                              \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_PERCPU_HASH);                                            \
		__uint(max_entries, spill_max);                                                    \
		__type(key, key_type);                                                             \
		__type(value, value_type);                                                         \
	} spill_map SEC(".maps");                                                                  \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_ARRAY);                                                  \
		__uint(map_flags, BPF_F_MMAPABLE);                                                 \
		__uint(max_entries, slots_per_cpu);                                                \
		__type(key, u32);                                                                  \
		__type(value, slot_type);                                                          \
	} slots_map SEC(".maps")

/* Layer counters: layer_slots, layer_io for the keys that found their slot taken. */
XIOTOP_SLOTS_AND_SPILL(layer_slots, struct xiotop_layer_slot, XIOTOP_LAYER_SLOTS, layer_io,
                       struct xiotop_layer_key, struct xiotop_io, XIOTOP_MAX_LAYERS);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, XIOTOP_MAX_DEVS);
	__type(key, struct xiotop_cpu_key);
	__type(value, u64);
} cpu_ns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XIOTOP_STAT_MAX);
	__type(key, u32);
	__type(value, u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XIOTOP_MAX_DEVS);
	__type(key, u32);
	__type(value, struct xiotop_dirty);
} dirty SEC(".maps");

/* Owner and flags of a device, or NULL: a few plain loads on the common path. */
static __always_inline struct xiotop_dev_owner *dev_owner(u32 dev)
{
	struct xiotop_dev_slot *table = dev_table[dev_table_live & 1];
	u32 home = xiotop_dev_home(dev);
#pragma unroll
	for (int k = 0; k < XIOTOP_DEV_PROBES; k++) {
		struct xiotop_dev_slot *s = &table[(home + k) & (XIOTOP_DEV_SLOTS - 1)];
		if (s->dev == dev)
			return &s->owner;
		if (!s->dev)
			return NULL;
	}
	return bpf_map_lookup_elem(&dev_dom, &dev);
}

/* The map's value for key, created from `zero` if absent; NULL when the map is full. */
static __always_inline void *lookup_or_init(void *map, const void *key, const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);
	if (v)
		return v;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST); /* EEXIST: another CPU won */
	return bpf_map_lookup_elem(map, key);
}

static __always_inline void stat_add(u32 idx, u64 n)
{
	u64 *v = bpf_map_lookup_elem(&stats, &idx);
	if (v)
		*v += n;
}

static __always_inline void stat_inc(u32 idx)
{
	stat_add(idx, 1);
}

/* This CPU's slot for a layer key if the key owns it (claiming it if free), else NULL.
 * The claim is a compare-and-swap on via, so a program nested on this CPU (an interrupt)
 * cannot mix two keys in one slot; user space skips slots whose via is 0 or claiming. */
static __always_inline struct xiotop_io *layer_slot(u32 domid, u32 dev, u32 via)
{
	u32 idx =
	    bpf_get_smp_processor_id() * XIOTOP_LAYER_SLOTS + xiotop_layer_home(domid, dev, via);
	struct xiotop_layer_slot *s = bpf_map_lookup_elem(&layer_slots, &idx);
	if (!s)
		return NULL;
	if (!s->via && !__sync_val_compare_and_swap(&s->via, 0, XIOTOP_LAYER_CLAIMING)) {
		s->domid = domid;
		s->dev = dev;
		__sync_lock_test_and_set(&s->via,
		                         (u64)via); /* the key is whole before via says so */
	}
	if (s->via == via && s->domid == domid && s->dev == dev)
		return &s->io;
	return NULL;
}

/* Count a bio (or file I/O) for (domain, device, rule). */
static __always_inline void charge_io(u32 domid, u32 dev, u32 via, bool is_write, u64 bytes)
{
	struct xiotop_io *io = layer_slot(domid, dev, via);
	if (!io) {
		struct xiotop_layer_key key = {.domid = domid, .dev = dev, .via = via};
		struct xiotop_io zero = {};
		io = lookup_or_init(&layer_io, &key, &zero);
	}
	if (!io) {
		stat_inc(XIOTOP_STAT_LOST_LAYER);
		return;
	}
	if (is_write) {
		io->wr_bytes += bytes;
		io->wr_ios++;
	} else {
		io->rd_bytes += bytes;
		io->rd_ios++;
	}
}

/* How many device models tgid_dom holds, set by user space with the topology: with none
 * (the common host), no bio touches the 512 KiB bitmap. */
volatile unsigned int device_models = 0;

static __always_inline bool tgid_marked(u32 tgid)
{
	if (!device_models)
		return false;
	u32 word = tgid >> 6;
	u64 *bits = bpf_map_lookup_elem(&tgid_bits, &word);
	return bits && (*bits & (1ull << (tgid & 63)));
}

/* Domain whose device model `task` (of thread group `tgid`) belongs to, or NULL. A
 * reused pid is told apart by the process start time. */
static __always_inline u32 *device_model_of(struct task_struct *task, u32 tgid)
{
	if (!tgid_marked(tgid))
		return NULL;
	struct xiotop_dm_owner *o = bpf_map_lookup_elem(&tgid_dom, &tgid);
	if (!o)
		return NULL;
	u64 start = BPF_CORE_READ(task, group_leader, start_time) / NS_PER_USER_TICK;
	return start == o->start_ticks ? &o->domid : NULL;
}

/* Domain whose device model the current task belongs to, or NULL. */
static __always_inline u32 *device_model_domid(u32 tgid)
{
	return device_model_of(bpf_get_current_task_btf(), tgid);
}

/* Domain id from a blkback kthread name: "<domid>.<dev>-<ring>" or "blkback.<domid>.<dev>".
 * Returns XIOTOP_DOM_NONE for anything else (kworkers fail at the first byte). */
static __always_inline u32 blkback_domid(const char comm[16])
{
	u32 domid = 0;
	int i = 0, digits = 0;

	if (comm[0] == 'b') {
		if (comm[1] != 'l' || comm[2] != 'k' || comm[3] != 'b' || comm[4] != 'a' ||
		    comm[5] != 'c' || comm[6] != 'k' || comm[7] != '.')
			return XIOTOP_DOM_NONE;
		i = 8;
	} else if (comm[0] < '0' || comm[0] > '9') {
		return XIOTOP_DOM_NONE; /* the common case: one compare */
	}
#pragma unroll
	for (int k = 0; k < 6; k++) {
		char c = comm[(i + k) & 15];
		if (c < '0' || c > '9')
			break;
		domid = domid * 10 + (c - '0');
		digits++;
	}
	if (!digits || digits > 5 || comm[(i + digits) & 15] != '.' || domid > 0x7fff)
		return XIOTOP_DOM_NONE;
	/* a device name must follow the dot */
	char first = comm[(i + digits + 1) & 15];
	if (first < 'a' || first > 'z')
		return XIOTOP_DOM_NONE;
	return domid;
}

/* Domain owning the image/backing file (ino, fs_dev: its i_sb->s_dev), or NULL. */
static __always_inline u32 *image_owner(u64 ino, u32 fs_dev)
{
	struct xiotop_inode_key k = {.ino = ino, .fs_dev = fs_dev};
	return bpf_map_lookup_elem(&inode_dom, &k);
}

/* Domain owning an image/backing file inode, or NULL. */
static __always_inline u32 *inode_owner(struct inode *inode)
{
	if (!inode)
		return NULL;
	return image_owner(BPF_CORE_READ(inode, i_ino), BPF_CORE_READ(inode, i_sb, s_dev));
}

/* Can a file on the device whose table entry is d (NULL: none) be a domain's image? A
 * file system on a block device holds one only if the table says so
 * (XIOTOP_DEV_HOLDS_IMAGE); with images_off_device, any may. Asked before the inode hash,
 * it spares the lookup (and the reads of the file's identity) for every other file. */
static __always_inline bool fs_may_hold_image(const struct xiotop_dev_owner *d)
{
	return images_off_device || (d && (d->flags & XIOTOP_DEV_HOLDS_IMAGE));
}

static __always_inline struct xiotop_dirty *dirty_of(u32 domid)
{
	struct xiotop_dirty zero = {};
	return lookup_or_init(&dirty, &domid, &zero);
}

#endif
