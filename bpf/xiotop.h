/* xiotop.h - structs and keys shared by the BPF programs and the user side.
 *
 * Contract: the kernel side only aggregates into maps (no per-event stream). User space
 * fills the lookup tables (dev_table, inode_dom, tgid_dom) from the topology and reads the
 * per-CPU counter map once per interval. Device numbers are kernel dev_t (major << 20 |
 * minor). Counters are cumulative for the life of the maps.
 */
#ifndef XIOTOP_SHARED_H
#define XIOTOP_SHARED_H

#define XIOTOP_DOM_NONE          0xffffffffu /* unattributed: dom0 itself or unknown */
#define XIOTOP_MAX_LAYERS        16384       /* distinct (domain, device, via) keys */
#define XIOTOP_MAX_DEVS          4096
#define XIOTOP_MAX_INODES        8192
#define XIOTOP_MAX_TGIDS         4096
#define XIOTOP_MAX_REMAPS        65536          /* bios in flight between a remap and its queue */
#define XIOTOP_TGID_BITMAP_WORDS (4194304 / 64) /* PID_MAX_LIMIT bits */
#define XIOTOP_MAX_LAT_KEYS      2048           /* (domain, op) latency histograms */
#define XIOTOP_LAT_SLOTS         65536          /* stamp slots of timed bios (a power of 2) */

/* How a bio was charged: by which of docs/DESIGN.md's attribution rules (0-4). */
enum xiotop_via {
	XIOTOP_VIA_DEV = 1,  /* rule 1: the device is a domain's backend */
	XIOTOP_VIA_TASK,     /* rule 2: submitted by a blkback thread / device model */
	XIOTOP_VIA_LOOPWORK, /* rule 2: a kworker running loop work for a domain's loopN */
	XIOTOP_VIA_INODE,    /* rule 3: its pages belong to a domain's backing/image file */
	XIOTOP_VIA_REMAP,    /* rule 0: a dm/md clone of a charged bio (not in pgpgout) */
	XIOTOP_VIA_PART,     /* no rule: the whole disk under a partition bio (the same bio) */
	XIOTOP_VIA_NONE,     /* rule 4: unattributed */
	XIOTOP_VIA_DMTASK,   /* rule 2: a bio a device model submitted (image data, below it) */
	XIOTOP_VIA_FILEIO,   /* not a bio: a device model read/wrote its image file (guest) */
	XIOTOP_VIA_MAX
};

/* Is a bio charged with this `via` counted by vmstat pgpgin/pgpgout? submit_bio() counts
 * every bio once; dm/md clones go through submit_bio_noacct() and are not counted, and
 * a partition's whole disk is the same bio seen again. */
#define XIOTOP_VIA_IN_VMSTAT(v)                                                                    \
	((v) != XIOTOP_VIA_REMAP && (v) != XIOTOP_VIA_PART && (v) != XIOTOP_VIA_FILEIO)

struct xiotop_layer_key {
	unsigned int domid;
	unsigned int dev; /* device the bio was queued to */
	unsigned int via; /* enum xiotop_via */
	unsigned int pad;
};

struct xiotop_io {
	unsigned long long rd_bytes;
	unsigned long long wr_bytes;
	unsigned long long rd_ios;
	unsigned long long wr_ios;
};

/* The fast path of the layer counters: per CPU, XIOTOP_LAYER_SLOTS slots each owned for
 * good by the first key that lands on it (via 0: free), so a key's counts on one CPU
 * are always in one place: its slot there, or the layer_io hash when another key holds
 * the slot. Nothing ever moves, so user space reading at any instant sees totals that
 * only grow. An array with a cache line per slot , indexed cpu * SLOTS + home: programs
 * reach it with plain loads and user space reads it mapped, without system calls. */
#define XIOTOP_LAYER_SLOT_BITS 6
#define XIOTOP_LAYER_SLOTS     (1u << XIOTOP_LAYER_SLOT_BITS)
#define XIOTOP_LAYER_CLAIMING  0xffffffffull /* via while a program writes the key */

struct xiotop_layer_slot {
	unsigned int domid;
	unsigned int dev;
	unsigned long long via; /* 0: free; 64 bits for the compare-and-swap of BPF ISA v1 */
	struct xiotop_io io;
	unsigned long long pad[2];
};

static inline unsigned int xiotop_layer_home(unsigned int domid, unsigned int dev, unsigned int via)
{
	return ((domid * 2654435769u) ^ (dev * 2246822519u) ^ (via * 3266489917u)) >>
	       (32 - XIOTOP_LAYER_SLOT_BITS);
}

/* dev_dom values: which domain a device belongs to, and how (flags). */
#define XIOTOP_DEV_IS_BACKEND 1u /* rule 1 applies to bios queued to this device */
#define XIOTOP_DEV_IS_LOOP    2u /* a loop device whose work is done for this domain */

#define XIOTOP_DEV_HOLDS_IMAGE 4u /* a file system holding a domain's image file is on it */
/* A backend device whose layer is read from /proc/diskstats (zram; a blk-mq device with
 * iostats on while block_split is traced: sources/dev_counts.h): its bios are not counted
 * by the programs, only what diskstats counts there and they would not (dev_extras). */
#define XIOTOP_DEV_COUNTED   8u
#define XIOTOP_DEV_BIO_BASED 16u /* a backend with no blk-mq queue: its bios are stamped */

struct xiotop_dev_owner {
	unsigned int domid; /* XIOTOP_DOM_NONE for a device that only holds image files */
	unsigned int flags; /* XIOTOP_DEV_IS_*, XIOTOP_DEV_HOLDS_IMAGE */
};

/* The device table every bio looks up: open addressing in a global array (the
 * programs read it with plain loads, no map helper), two copies so that user space
 * fills the one not in use and then flips dev_table_live. A device sits within
 * XIOTOP_DEV_PROBES slots of its home slot; one that does not fit goes to the dev_dom
 * hash, which a program asks only after a full probe run. dev 0 marks an empty slot
 * (no block device is 0:0). */
#define XIOTOP_DEV_SLOT_BITS 13
#define XIOTOP_DEV_SLOTS     (1u << XIOTOP_DEV_SLOT_BITS)
#define XIOTOP_DEV_PROBES    8

struct xiotop_dev_slot {
	unsigned int dev;
	struct xiotop_dev_owner owner;
};

/* Home slot of a device: Fibonacci hashing, so consecutive minors spread out. */
static inline unsigned int xiotop_dev_home(unsigned int dev)
{
	return (dev * 2654435769u) >> (32 - XIOTOP_DEV_SLOT_BITS);
}

/* A device model process; its start time tells a reused pid apart. */
struct xiotop_dm_owner {
	unsigned int domid;
	unsigned int pad;
	unsigned long long start_ticks; /* /proc/<pid>/stat field 22 (USER_HZ ticks) */
};

/* Page-cache bytes of a domain's image/backing files (global, atomically updated). */
struct xiotop_dirty {
	unsigned long long dirtied_bytes;
	unsigned long long written_back_bytes; /* never more than dirtied: see bpf */
};

struct xiotop_inode_key {
	unsigned long long ino;
	unsigned int fs_dev; /* i_sb->s_dev */
	unsigned int pad;
};

/* dom0 CPU roles; the sample's enum xio_cpu_role uses the same order (tracer.c asserts it at
 * compile time, so the two cannot drift apart). */
enum xiotop_cpu_role {
	XIOTOP_CPU_BACKEND = 0,  /* blkback threads */
	XIOTOP_CPU_DEVICE_MODEL, /* qemu threads */
	XIOTOP_CPU_LOOP,         /* kworkers running loop work for the domain's loop device */
	XIOTOP_CPU_WRITEBACK,    /* flusher work, apportioned by bytes written back */
	XIOTOP_CPU_ROLES
};

/* On-CPU time key of a domain (time of tasks serving no one domain is
 * XIOTOP_STAT_SHARED_RUNTIME_NS). */
struct xiotop_cpu_key {
	unsigned int domid;
	unsigned int role;
};

/* I/O latency at the guest-visible layer (not --no-latency): a log2 histogram of nanoseconds
 * per (domain, op). Bucket 0 holds 0 and 1 ns; bucket i (1 <= i < XIOTOP_LAT_BUCKETS - 1)
 * holds [2^i, 2^(i+1)) ns; the last bucket holds everything from 2^(BUCKETS-1) ns (2.1 s)
 * up. Cumulative, like every counter. */
#define XIOTOP_LAT_BUCKETS 32
#define XIOTOP_LAT_READ    0
#define XIOTOP_LAT_WRITE   1
#define XIOTOP_LAT_OPS     2

struct xiotop_lat_key {
	unsigned int domid;
	unsigned int op; /* XIOTOP_LAT_READ or XIOTOP_LAT_WRITE */
};

/* seq first: user space copies a histogram while a program may be adding to it (the
 * mapped slots, a per-CPU hash value copied by the kernel, both in address order). The
 * program makes seq odd before it adds and even after, its stores in that order (x86's
 * own order, a fully ordered atomic elsewhere: lat_seq_step); a copy whose seq was even
 * and the same before and after is whole. A torn one showed in the Xen test: an
 * interval's buckets held 2 more I/Os than its count, the next 2 fewer. count is not
 * written by the programs: user space sets it to the buckets' sum. */
struct xiotop_lat {
	unsigned long long seq;
	unsigned long long count;
	unsigned long long sum_ns;
	unsigned long long buckets[XIOTOP_LAT_BUCKETS];
};

/* The fast path of the histograms, as the layer slots: per CPU, XIOTOP_LAT_DOM_SLOTS
 * slots each owned for good by the first domain that lands on it (its histograms for
 * both ops), the lat_hist hash for a domain whose slot another holds. An array indexed
 * cpu * XIOTOP_LAT_DOM_SLOTS + home: plain loads for the programs, mapped by user space. */
#define XIOTOP_LAT_SLOT_BITS 5
#define XIOTOP_LAT_DOM_SLOTS (1u << XIOTOP_LAT_SLOT_BITS)

struct xiotop_lat_slot {
	unsigned long long owner; /* domid + 1; 0: free */
	struct xiotop_lat lat[XIOTOP_LAT_OPS];
};

static inline unsigned int xiotop_lat_home(unsigned int domid)
{
	return (domid * 2654435769u) >> (32 - XIOTOP_LAT_SLOT_BITS);
}

/* Global counters (per-CPU array indexes). */
enum xiotop_stat {
	XIOTOP_STAT_LOST_LAYER = 0,    /* counter map full: an event not counted */
	XIOTOP_STAT_LOST_REMAP,        /* remap map full: a clone may be charged wrong */
	XIOTOP_STAT_LOST_CPU,          /* cpu map full, or task storage not created (busy) */
	XIOTOP_STAT_SHARED_RUNTIME_NS, /* runtime of tasks serving no one domain (kworkers too) */
	XIOTOP_STAT_LOST_LATENCY,      /* latency map full: an I/O not timed */
	XIOTOP_STAT_LATENCY_DISPLACED, /* a stamp never taken: its I/O not timed (latency.bpf.h) */
	XIOTOP_STAT_LATENCY_UNSTAMPED, /* a backend's request without the kernel's start time */
	XIOTOP_STAT_LATENCY_RQ_SEEN,   /* backends' requests whose last completion a program saw */
	XIOTOP_STAT_MAX
};

#endif
