/* model.h - two samples -> per-interval, per-domain figures.
 *
 * Contract: model_compute(prev, cur) gives what happened between two cumulative samples
 * (prev may be NULL: everything since the tracer started). Per domain: guest bytes (the
 * top of its stack: backend devices, or bios its backend threads submitted), physical
 * bytes (leaf devices), what vmstat pgpgout counted for it (every write bio submit_bio()
 * took for it) and, of that, what was submitted at a second counted layer
 * (double_counted: below its loop device, by the page cache's writeback of the image or by
 * loop's direct I/O; never "vmstat less the disks"), the bytes its redundant arrays and
 * their members took (mirror and parity copies: copy_wr_bytes, carried over intervals:
 * model_compute_after()), and its layers with
 * roles. docs/DESIGN.md ("What vmstat counts twice") gives the kernel's call sites. The
 * identity it keeps:
 *   vmstat pgpgout ~= sum(vmstat_wr) + unattributed.wr_bytes
 * (each domain's vmstat_wr being its bytes counted once, at its first counted layer, plus
 * its double_counted).
 * Counters a sample marks absent (xio_sample.absent: an imported recording) are unknown in
 * the interval too (model_interval.absent): without the stack below the guests no layer is
 * counted in a domain's vmstat bytes, so its double_counted stays 0 and means nothing.
 * Pure: no I/O, no globals; safe on replayed or synthetic samples. An interval is
 * self-contained: it keeps its own copy of the names it shows (domain info, disks,
 * hooks), so it may outlive both samples and be moved (model_move) to whoever keeps it.
 */
#ifndef XIOTOP_MODEL_H
#define XIOTOP_MODEL_H

#include "core/sample.h"

enum model_role { ROLE_BACKEND, ROLE_STACKED, ROLE_FILE, ROLE_LEAF };

struct model_layer {
	enum model_role role;
	uint32_t dev;  /* 0 for the file layer */
	char name[32]; /* device name; for the file layer see domain file */
	bool is_leaf;
	bool is_file; /* a file, not a device: the domain's image/backing file */
	uint64_t rd_bytes, wr_bytes;
	uint64_t rd_ios, wr_ios; /* bios submitted at this layer (before the block layer merged) */
	/* a leaf device with diskstats: what the device itself completed this interval, every
	 * domain's and dom0's requests together (after merging), to be set against this
	 * domain's bytes at it (a leaf serving one domain: its requests are the domain's) */
	bool has_devstats;
	uint64_t dev_rd_bytes, dev_wr_bytes, dev_rd_ios, dev_wr_ios;
};

/* One vbd: blkback's own count beside xiotop's, this interval (see model_xen.c). */
struct model_vbd {
	uint32_t devid;
	uint32_t source;                             /* enum xio_vbd_source */
	uint64_t rd_bytes, wr_bytes, rd_req, wr_req; /* blkback's (or libxenstat's) count */
	bool xiotop_known; /* its backend device is known, so xiotop's figures mean something */
	uint64_t xiotop_rd_bytes, xiotop_wr_bytes; /* xiotop's bytes at that backend device */
	/* > 5 % apart, and more than the sampling explains (what blkback counted while
	 * the tracer was read, two mean requests), in a direction where either side saw
	 * >= 1 MiB */
	bool disagree;
};

/* A domain's byte and request figures that add up over intervals: an interval's
 * (model_domain), a window's (explain's ex_domain), dom0's own bios merged into domain
 * 0's (explain's dom0 subject). */
struct model_io_sums {
	uint64_t guest_rd_bytes, guest_wr_bytes, guest_rd_ios, guest_wr_ios;
	uint64_t phys_rd_bytes, phys_wr_bytes;
	uint64_t vmstat_wr_bytes; /* what pgpgout counted for this domain */
	/* of vmstat_wr_bytes, what was submitted at a second counted layer (model_second_count) */
	uint64_t double_counted_bytes;
	/* bytes at redundant arrays (xio_dev.array XIO_DEV_ARRAY) and at their members: the
	 * members' beyond the arrays' are the mirror and parity copies (copy_*_bytes) */
	uint64_t array_rd_bytes, array_wr_bytes, member_rd_bytes, member_wr_bytes;
	/* the mirror and parity copies: what the arrays' members took beyond what the arrays
	 * took, this interval's array bytes and those earlier ones their members had not yet
	 * taken (struct model_carry) matched first; they add up over intervals to the span's
	 * members less arrays (a clamp per interval counted a straddling write's copies twice) */
	uint64_t copy_rd_bytes, copy_wr_bytes;
};

/* to += add, figure by figure. */
void model_io_sums_add(struct model_io_sums *to, const struct model_io_sums *add);
/* What the disks took once: the physical bytes less the copies, as the arrays took them
 * (a benchmark's rate is set against these, not the sum of a mirror's copies): the
 * physical bytes less the members' plus the arrays', so that intervals add up to their
 * span's and each holds what the arrays took in it (its copies may fall in the next). */
uint64_t model_io_stored_wr(const struct model_io_sums *io);
uint64_t model_io_stored_rd(const struct model_io_sums *io);
/* Is a write charged with this `via` submitted at a second layer that vmstat counts for a
 * domain whose backends are of `kind` (xio_domain.kind; NULL or "" unknown)? loop's own
 * bios below its device are (its direct I/O, `loopwork`, and the writeback of its file,
 * `inode`); a device model's are its image's first submission (`dmtask`, and `inode` for
 * a domain whose backends are all its device model's: kind "qdisk"). */
bool model_second_count(uint32_t via, const char *kind);

struct model_domain {
	uint32_t domid;
	const struct xio_domain *info; /* names (cur's, copied); NULL if only seen in counters */
	struct model_io_sums io;       /* this interval */
	uint64_t cpu_ns_by_role[XIO_CPU_ROLES]; /* dom0 CPU spent for it this interval */
	uint64_t cpu_ns;
	uint64_t dirtied_bytes, written_back_bytes; /* this interval */
	uint64_t dirty_backlog_bytes;               /* dirtied, not yet written back (cumulative) */
	int64_t guest_cpu_ns;                       /* -1 unknown */
	/* I/O latency this interval by op (XIOTOP_LAT_READ/WRITE): when the interval
	 * has_latency; core/latency.h gives its quantiles */
	struct xiotop_lat lat[XIOTOP_LAT_OPS];
	/* why lat[op] is not the domain's latency this interval (enum xio_untimed: a kind of
	 * its backends was not timed, at either sample); 0: timed. Unknown, never 0 requests */
	uint32_t lat_untimed[XIOTOP_LAT_OPS];
	struct model_layer *layers;
	size_t n_layers;
	struct model_vbd *vbds; /* when the interval has_vbd_stats */
	size_t n_vbds;
};

struct model_disk {
	const struct xio_disk *disk;
	uint64_t rd_bytes, wr_bytes;
	uint64_t rd_ios, wr_ios; /* requests completed (diskstats), for their average size */
};

struct model_interval {
	double interval_s;
	int64_t realtime_ns;
	uint64_t pgpgin_bytes, pgpgout_bytes;
	uint64_t lost_events;
	uint64_t unattr_rd_bytes, unattr_wr_bytes;
	bool has_cpu, has_dirty;
	uint32_t absent;              /* enum xio_absent: counters either sample lacks (unknown) */
	uint64_t host_busy_ns;        /* this interval, all CPUs, steal not included */
	uint64_t host_irq_ns;         /* of it, interrupt time (hard and soft irq) */
	uint64_t host_steal_ns;       /* steal: the hypervisor's time, apart from busy */
	uint64_t cpu_unattributed_ns; /* this interval */
	const char *hooks;            /* from cur */
	struct model_disk *disks;
	size_t n_disks;
	struct model_domain *domains; /* every domain of cur, then ones only seen in counters */
	size_t n_domains;
	/* leaf devices that moved >= 1 MiB of the tracer's bytes this interval while
	 * /proc/diskstats shows them idle (a ram disk, brd, does no I/O accounting): the
	 * disks' totals are then unknown; the first one's name, to say so */
	size_t n_unaccounted_leaves;
	char unaccounted_leaf[32];
	bool has_vbd_stats; /* blkback's per-vbd counters were read (a Xen dom0) */
	bool has_latency;   /* I/O latency was timed (cur's histograms; not --no-latency) */
	/* domains[] by domid while model_compute() fills it: open addressing, slot + 1 (0 is
	 * empty), dom_index_mask + 1 entries, at least twice the capacity; freed with it */
	uint32_t *dom_index;
	size_t dom_index_mask;
	/* what info, disk and hooks point into (owned) */
	struct xio_domain *own_infos;
	struct xio_disk *own_disks;
	char *own_hooks;
};

int model_compute(const struct xio_sample *prev, const struct xio_sample *cur,
                  struct model_interval *out);

/* What each domain's redundant arrays took that their members have not yet taken, from one
 * interval to the next: md counts a write at the array when it is submitted there
 * (block_bio_queue, in submit_bio_noacct*) and its members' clones when md submits
 * them, after (raid1_write_request queues them on its plug or to raid1d), so a write's
 * copies may fall in the interval after its array bytes. Kept by whoever computes
 * consecutive intervals (the interval loop); zeroed: nothing owed. Per domid, the
 * tracer's counters' key; a domid the next interval does not list is dropped. */
struct model_owed {
	uint32_t domid;
	uint64_t rd_bytes, wr_bytes;
};
struct model_carry {
	struct model_owed *owed; /* sorted by domid; only domains owed something */
	size_t n;
};
/* model_compute() of consecutive intervals: each domain's copies are its members' bytes
 * beyond its arrays' and beyond what carry says they still owed; carry is then what they
 * owe after this interval (NULL: nothing owed before, nothing kept: model_compute()). 0,
 * or -1 (ENOMEM: out is freed, carry unchanged). */
int model_compute_after(const struct xio_sample *prev, const struct xio_sample *cur,
                        struct model_carry *carry, struct model_interval *out);
void model_carry_free(struct model_carry *carry);
/* Sets m's domains' copy_*_bytes (model_compute_after's last step; see model_copies.c). */
int model_copies(struct model_interval *m, struct model_carry *carry);
void model_free(struct model_interval *m);
/* Hands src's contents to dst (src is left empty; freeing it is a no-op). */
void model_move(struct model_interval *dst, struct model_interval *src);
/* The Xen part of model_compute(), run at its end: per-vbd cross-check, counters that
 * restart with a new domain on a reused domid, and domains that left. 0 or -1 (ENOMEM). */
int model_xen_compute(const struct xio_sample *prev, const struct xio_sample *cur,
                      struct model_interval *m);
const char *model_role_name(enum model_role r);
/* What one record of I/O adds to a domain's figures: the guest's (it is its backend's
 * request), the physical ones (at a leaf device), vmstat's write count (submitted where
 * vmstat counts), the double-counted (submitted at a second counted layer) and the array
 * and member bytes (the device's xio_dev.array bits). One place for the model and for
 * explain's dom0 subject. */
struct model_io_kind {
	bool guest, leaf, in_vmstat, second_count;
	uint8_t array; /* enum xio_dev_array */
};
void model_domain_add_io(struct model_domain *d, const struct xiotop_io *io,
                         const struct model_io_kind *k);
void model_layer_add_io(struct model_layer *l, const struct xiotop_io *io);

/* Derived figures of an interval, computed here once for every sink. */
struct model_host_totals {
	uint64_t disk_rd_bytes, disk_wr_bytes; /* all leaf devices (/proc/diskstats) */
	bool disks_complete; /* no leaf in use lacks diskstats (n_unaccounted_leaves == 0) */
	uint64_t double_counted_bytes; /* all domains' double_counted_bytes */
};
void model_host_totals(const struct model_interval *m, struct model_host_totals *out);
/* dom0's own CPU: what the host was busy with beyond the work charged to a domain or left
 * unattributed, so that these add up to the host's busy time (steal not in it). The first sample
 * has nothing before it: its "interval" (interval_s 0) holds the host's busy time since boot but
 * the charged time since the tracer started, so it tells nothing of dom0's own work since xiotop
 * started and counts none. */
uint64_t model_dom0_own_cpu_ns(const struct model_interval *m);

#endif
