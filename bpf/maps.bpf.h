/* maps.bpf.h - the maps shared by every program, and the lookups that answer "whose is
 * this?" for a device, an inode or the current task.
 *
 * User space fills dev_dom, inode_dom, tgid_dom and tgid_bits from the topology; the
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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XIOTOP_MAX_DEVS);
	__type(key, u32);
	__type(value, struct xiotop_dev_owner);
} dev_dom SEC(".maps");

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

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, XIOTOP_MAX_LAYERS);
	__type(key, struct xiotop_layer_key);
	__type(value, struct xiotop_io);
} layer_io SEC(".maps");

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

/* Count a bio (or file I/O) for (domain, device, rule). */
static __always_inline void charge_io(u32 domid, u32 dev, u32 via, bool is_write, u64 bytes)
{
	struct xiotop_layer_key key = {.domid = domid, .dev = dev, .via = via};
	struct xiotop_io zero = {};
	struct xiotop_io *io = lookup_or_init(&layer_io, &key, &zero);
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

/* Domain owning an image/backing file inode, or NULL. */
static __always_inline u32 *inode_owner(struct inode *inode)
{
	if (!inode)
		return NULL;
	struct xiotop_inode_key k = {.ino = BPF_CORE_READ(inode, i_ino),
	                             .fs_dev = BPF_CORE_READ(inode, i_sb, s_dev)};
	return bpf_map_lookup_elem(&inode_dom, &k);
}

static __always_inline struct xiotop_dirty *dirty_of(u32 domid)
{
	struct xiotop_dirty zero = {};
	return lookup_or_init(&dirty, &domid, &zero);
}

#endif
