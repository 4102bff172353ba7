/* sample.h - the one thing that flows: one interval's cumulative counters.
 *
 * Contract: a sample holds cumulative counters (since the tracer started) plus what
 * is needed to interpret them without the live system: domain names, device names and
 * which devices are leaves. Live collection, replay and tests all produce samples; the
 * console, batch output, recorder and explain only consume them. Rates and per-interval
 * figures come from two samples through model.h. All arrays are owned by the sample.
 * Its names start with xio_ (XIO_): xs_ is xenstore's, for Xen people and in this tree
 * (sources/topology/xsdump.c, libxenstore).
 */
#ifndef XIOTOP_SAMPLE_H
#define XIOTOP_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/xiotop.h"

#define XIO_NAME_MAX 64
#define XIO_PATH_MAX 256

/* Bytes charged to one (domain, device, rule). */
struct xio_layer {
	uint32_t domid; /* XIOTOP_DOM_NONE: unattributed */
	uint32_t dev;   /* kernel dev_t */
	uint32_t via;   /* enum xiotop_via */
	struct xiotop_io io;
};

/* A device's part in a redundant array (bits of xio_dev.array): md RAID 1, 4, 5, 6 and 10
 * write each block to more than one member (mirror copies, parity), so its members' bytes
 * are more than what the array took. */
enum xio_dev_array {
	XIO_DEV_ARRAY = 1u << 0,  /* a redundant array (sysfs md/level raid1/4/5/6/10) */
	XIO_DEV_MEMBER = 1u << 1, /* a member of one (a holder of it in sysfs holders/) */
};

/* A block device named in the sample. */
struct xio_dev {
	uint32_t dev;
	char name[32];
	bool is_leaf;  /* physical: counted in phys_* and host disks */
	uint8_t array; /* enum xio_dev_array bits; 0: in no redundant array */
	/* I/Os in progress on it at the sample's /proc/diskstats read (its "in progress"
	 * field), which comes after the tracer's counters are read: 0 there means every bio
	 * the tracer counted as queued to it had completed, and that read's diskstats counted
	 * it. Live only, for the recorder's drain (record/rec_drain.h): not kept in
	 * recordings; known only when xio_sample.has_in_flight. */
	uint32_t in_flight;
};

/* Host ground truth for one leaf device, from /proc/diskstats. */
struct xio_disk {
	uint32_t dev;
	char name[32];
	uint64_t rd_bytes, wr_bytes, rd_ios, wr_ios;
};

/* dom0 CPU spent for a domain, by role (cumulative ns). */
enum xio_cpu_role {
	XIO_CPU_BACKEND,
	XIO_CPU_DEVICE_MODEL,
	XIO_CPU_LOOP,
	XIO_CPU_WRITEBACK,
	XIO_CPU_ROLES
};

/* Per-domain counters that are not per device (cumulative). */
struct xio_dom_counters {
	uint32_t domid;
	uint64_t cpu_ns[XIO_CPU_ROLES];
	uint64_t dirtied_bytes;      /* written into dom0 page cache for it */
	uint64_t written_back_bytes; /* of those, written back since */
	int64_t guest_cpu_ns;        /* vCPU time from the hypervisor; -1 unknown */
};

struct xio_domain {
	uint32_t domid;
	char name[XIO_NAME_MAX]; /* raw (guest-controlled): sanitize on output */
	char kind[8];            /* "vbd", "qdisk", "mixed", "" */
	char file[XIO_PATH_MAX]; /* backing/image file of its first file-backed backend */
	bool missing;            /* a backend could not be resolved */
	/* which domain this is, beyond its id: ids are reused after a domain is destroyed */
	char uuid[40];       /* from /local/domain/<domid>/vm; "" unknown */
	uint32_t generation; /* 1, 2, ...: the how-manieth domain with this id; 0 unknown */
	uint64_t mem_bytes;  /* current memory reservation (libxenstat); 0 unknown */
};

/* Why a (domain, op)'s latency was not timed: a kind of backend it has is timed by a hook
 * that is not attached (bits; none: timed). Each kind is timed by its own hook
 * (bpf/latency.bpf.h), so one refused hook leaves the other kinds timed. */
enum xio_untimed {
	XIO_UNTIMED_RQ = 1u << 0,      /* a blk-mq backend (loop, a disk): block_rq_complete */
	XIO_UNTIMED_BIO = 1u << 1,     /* a bio-based backend (zram, dm, md): block_bio_complete */
	XIO_UNTIMED_SYSCALL = 1u << 2, /* a device model's image file: sys_enter/sys_exit */
};
/* The hook a set of xio_untimed bits names first ("block_rq_complete"); "" for none. */
const char *xio_untimed_hook(uint32_t untimed);

/* I/O latency of one (domain, op) at its guest-visible layer (cumulative). */
struct xio_latency {
	uint32_t domid;
	uint32_t op;       /* XIOTOP_LAT_READ, XIOTOP_LAT_WRITE */
	uint32_t untimed;  /* enum xio_untimed: not 0, hist is not the domain's latency (unknown) */
	uint32_t zero_pad; /* named, so an initializer zeroes it: copies compare byte for byte */
	struct xiotop_lat hist;
};

/* blkback's own per-vbd counters (cumulative), for cross-checking xiotop's figures. */
enum xio_vbd_source {
	XIO_VBD_BLKBACK, /* <sysfs>/bus/xen-backend/devices/vbd-<domid>-<devid>/statistics */
	XIO_VBD_XENSTAT, /* libxenstat (xentop's counts), in an imported xentop log */
	XIO_VBD_QMP,     /* QEMU's query-blockstats, for a qdisk vbd (sources/xen/qdisk_stats.h) */
};
/* Whether a vbd's counters were read for this sample. A vbd that is listed but was not
 * read is not a new vbd: its next counters are not a delta from zero. */
enum xio_vbd_read {
	XIO_VBD_READ,    /* read now */
	XIO_VBD_CARRIED, /* not read now (its QEMU did not answer in time): the counters are
	                  * the ones last read, in an earlier sample */
	XIO_VBD_UNREAD,  /* not read now nor since xiotop started, and older than that: its
	                  * counters are unknown (0 here) */
};
struct xio_vbd_stat {
	uint32_t domid;
	uint32_t devid;       /* xenstore <devid>: 51712 is xvda */
	uint32_t backend_dev; /* kernel dev_t blkback serves it from; 0 unknown */
	uint32_t source;      /* enum xio_vbd_source */
	uint32_t read;        /* enum xio_vbd_read */
	uint32_t zero_pad;    /* named, so an initializer zeroes it: copies compare byte for byte */
	uint64_t instance;    /* changes when the vbd is torn down and made again; 0 unknown */
	uint64_t rd_bytes, wr_bytes; /* rd_sect, wr_sect x 512 */
	uint64_t rd_req, wr_req, oo_req, f_req, ds_req;
	/* how far rd/wr_bytes moved while the tracer's counters were read (blkback read
	 * before and after them): the two sides' sampling instants are this far apart in
	 * bytes; and the requests in flight at the backend device then, each at the vbd's mean
	 * request size: a layer read from /proc/diskstats counts a request as it completes,
	 * blkback as it submits (sources/dev_counts.h). Live only (0 in recordings: unknown). */
	uint64_t skew_rd_bytes, skew_wr_bytes;
};

/* Counters a sample does not hold (xio_sample.absent, a set of these bits). A live sample
 * holds every one (0); an imported one (import/) only those its logs gave. Whoever shows
 * or judges an absent counter shows it unknown (null, "-") or says it is missing, never 0. */
enum xio_absent {
	XIO_ABSENT_GUEST_IO = 1u << 0, /* per-domain guest bytes and requests (the top layers) */
	XIO_ABSENT_STACK = 1u << 1,    /* what only the tracer attributes: the layers below each
	                                * guest (its physical bytes, its share of vmstat bo and so
	                                * its double counting) and the unattributed bytes */
	XIO_ABSENT_VMSTAT = 1u << 2,   /* vmstat_pgpgin_kb, vmstat_pgpgout_kb */
	XIO_ABSENT_DISKS = 1u << 3,    /* disks[]: the leaf devices' bytes */
	XIO_ABSENT_HOST_CPU = 1u << 4, /* host_irq_ns and host_steal_ns (a recording made before
	                                * them, where host_busy_ns held the steal; an import) */
	XIO_ABSENT_ARRAYS = 1u << 5,   /* which devices are redundant arrays and their members
	                                * (xio_dev.array): a recording made before they were kept */
};

struct xio_sample {
	int64_t realtime_ns;   /* wall clock, for output */
	uint64_t monotonic_ns; /* for intervals */
	uint64_t vmstat_pgpgin_kb, vmstat_pgpgout_kb;
	uint64_t lost_events;
	uint64_t host_busy_ns;        /* /proc/stat non-idle time but steal, all CPUs; 0 unknown */
	uint64_t host_irq_ns;         /* of it, /proc/stat irq + softirq (interrupt time) */
	uint64_t host_steal_ns;       /* /proc/stat steal: the hypervisor ran others, not dom0 */
	uint64_t cpu_unattributed_ns; /* on-CPU time charged to no domain */
	bool has_cpu;                 /* CPU counters were collected */
	bool has_dirty;               /* dirty page counters were collected */
	bool has_in_flight;           /* devs[].in_flight were read (live only; not recorded) */
	char hooks[512];              /* which hooks are active, for headers */
	uint32_t absent;              /* enum xio_absent bits; 0: every counter is there */

	struct xio_layer *layers;
	size_t n_layers;
	struct xio_dev *devs;
	size_t n_devs;
	struct xio_disk *disks;
	size_t n_disks;
	struct xio_domain *domains;
	size_t n_domains; /* sorted by domid */
	struct xio_dom_counters *counters;
	size_t n_counters;
	bool domains_live;  /* domains[] is the hypervisor's list: one not in it has left */
	bool has_vbd_stats; /* vbd_stats were read (a Xen dom0); else none exist here */
	struct xio_vbd_stat *vbd_stats;
	size_t n_vbd_stats;
	/* timed (not --no-latency): latency[] holds every histogram, and an entry per op for
	 * each domain whose latency is not timed (its untimed bits set) */
	bool has_latency;
	struct xio_latency *latency;
	size_t n_latency;
};

void sample_free(struct xio_sample *s);
const struct xio_dev *sample_dev(const struct xio_sample *s, uint32_t dev);
const struct xio_domain *sample_domain(const struct xio_sample *s, uint32_t domid);
/* The order of layer keys (domid, dev, via): <0, 0 or >0 as key a sorts before, with or
 * after key b. One order for the tracer, which merges equal keys, the model, which finds a
 * layer's previous value, and the recorder's key ids. */
int xio_layer_key_order(uint32_t a_domid, uint32_t a_dev, uint32_t a_via, uint32_t b_domid,
                        uint32_t b_dev, uint32_t b_via);
/* qsort/bsearch comparator of struct xio_layer by that order. */
int xio_layer_key_cmp(const void *a, const void *b);
/* Append helpers used by producers (collector, replay, tests). -1 on ENOMEM. */
int sample_add_layer(struct xio_sample *s, const struct xio_layer *l);
int sample_add_dev(struct xio_sample *s, const struct xio_dev *d);
int sample_add_disk(struct xio_sample *s, const struct xio_disk *d);
int sample_add_domain(struct xio_sample *s, const struct xio_domain *d);
int sample_add_counters(struct xio_sample *s, const struct xio_dom_counters *c);
int sample_add_vbd_stat(struct xio_sample *s, const struct xio_vbd_stat *v);
int sample_add_latency(struct xio_sample *s, const struct xio_latency *l);
const struct xio_latency *sample_latency(const struct xio_sample *s, uint32_t domid, uint32_t op);
const struct xio_vbd_stat *sample_vbd_stat(const struct xio_sample *s, uint32_t domid,
                                           uint32_t devid);
const struct xio_dom_counters *sample_counters(const struct xio_sample *s, uint32_t domid);

#endif
