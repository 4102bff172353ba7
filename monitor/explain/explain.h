/* explain.h - what a recording says about a benchmark: one window's figures per domain and
 * the verdicts a Xen storage expert would draw from them.
 *
 * Contract: explain_collect() reads a recording's window (and the samples after it, for
 * the drain time) through the interval loop into a struct explain: per domain its guest,
 * physical and double-counted bytes, dirty backlog at the window's end and how long it
 * took to drain, dom0 CPU by role, its layers, and a time series for charts; plus the
 * recording's host facts and marks. explain_verdicts() then ranks the verdicts
 * (verdicts/verdicts.h). Claims (a benchmark's own figures) come in through explain_add_claim()
 * (tool_claims.h) before explain_verdicts(). Nothing here prints: report/ does. Every
 * string taken from the recording (names, files, labels) is kept raw and must be
 * escaped on output (core/sanitize.h, report_html.c). Errors: one sentence in
 * struct xerr (REC_ERR_RANGE for an empty window or unknown mark), exit 2.
 */
#ifndef XIOTOP_EXPLAIN_H
#define XIOTOP_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arrays.h"
#include "core/model.h"
#include "explain/claims/claim_post.h"
#include "explain/findings.h"
#include "record/record.h"

#define EX_MAX_LAYERS    16
#define EX_MAX_MARKS     64
#define EX_MAX_CLAIMS    32
#define EX_MAX_VERDICTS  96
#define EX_MAX_NOT_GIVEN 12
#define EX_NO_DOMAIN     0xffffffffu /* a verdict about the host, not one domain */
#define EX_GIB           1073741824.0
#define EX_MIB           1048576.0
/* a domain with less guest I/O in the window is not judged */
#define EX_ACTIVE_BYTES (1024 * 1024)

/* One interval of one domain, for the charts (rates per second of that interval). */
struct ex_point {
	double t; /* seconds from the window's start to the interval's end */
	double guest_bps, phys_bps, double_bps;
	double backlog_bytes;
	double cpu_frac; /* dom0 CPU seconds per second spent for the domain */
	/* the interval's own figures, for locating a claim's run in time (ex_locate_claim) */
	double interval_s;
	uint64_t guest_wr_bytes, guest_rd_bytes, phys_wr_bytes, phys_rd_bytes;
	uint64_t guest_rd_ios, guest_wr_ios; /* the guest's requests (its layer) */
	/* I/O latency at the domain's guest layer by op (XIOTOP_LAT_READ/WRITE): requests
	 * completed and their summed latency; lat_timed[op] false: not timed (--no-latency,
	 * a hook not attached, an import) */
	uint64_t lat_count[XIOTOP_LAT_OPS], lat_sum_ns[XIOTOP_LAT_OPS];
	bool lat_timed[XIOTOP_LAT_OPS];
};

struct ex_layer {
	char name[32]; /* device name; "" for the file layer */
	enum model_role role;
	bool is_leaf, is_file;
	uint64_t rd_bytes, wr_bytes;
	uint64_t rd_ios, wr_ios; /* bios submitted at this layer (the tracer's count) */
	/* a leaf's own diskstats over the same intervals (model_layer's dev_*): its requests
	 * after merging, every user's; all of them had them (has_devstats) or it is unknown */
	bool has_devstats;
	uint64_t dev_rd_bytes, dev_wr_bytes, dev_rd_ios, dev_wr_ios;
};

/* A domain's path below its guest, from the layers and rules the tracer charged its bytes
 * to (ex_path_of, path.c); its name (ex_path_name) is the JSON "path". */
enum ex_path {
	EXP_PHY,       /* phy: the backend device is a disk */
	EXP_PHY_PART,  /* phy: a partition (iostat shows it and its disk) */
	EXP_PHY_DM,    /* phy: a device-mapper device (an LV) */
	EXP_FILE,      /* a file on a loop device */
	EXP_FILE_PART, /* a partition of a file on a loop device */
	EXP_QEMU,      /* a device model (qemu) reading and writing an image */
	EXP_DOM0,      /* dom0's own I/O, the subject domain 0 (dom0_subject.h) */
};

struct ex_domain {
	uint32_t domid;
	char name[XIO_NAME_MAX], kind[8], file[XIO_PATH_MAX]; /* raw */
	/* dom0's own I/O (explain/dom0_subject.h): guest bytes are the bios dom0 submitted
	 * itself, its writes the window's and the drain's; no dirty counter, no CPU role */
	bool dom0_subject;
	uint64_t mem_bytes; /* guest memory; 0 unknown */
	/* the window */
	/* the window's sums of its intervals (model_domain's io); guest_*_ios: requests as the
	 * guest issued them (its layer) */
	struct model_io_sums io;
	uint64_t cpu_ns_by_role[XIO_CPU_ROLES], cpu_ns;
	uint64_t dirtied, written_back, backlog_end, backlog_peak;
	uint64_t via_wr[XIOTOP_VIA_MAX], via_rd[XIOTOP_VIA_MAX]; /* window and after it */
	struct ex_layer layers[EX_MAX_LAYERS];                   /* the window and its drain */
	size_t n_layers;
	/* after the window's end, until drained (or the recording's end) */
	uint64_t after_phys_wr, after_vmstat_wr, after_double_counted, after_cpu_ns;
	uint64_t after_stored_wr; /* after_phys_wr less the arrays' copies (model_io_stored_wr) */
	uint64_t after_cpu_ns_by_role[XIO_CPU_ROLES];
	uint64_t guest_cpu_ns; /* the window's vCPU time (xentop, libxenstat), when known: */
	bool guest_cpu_known;
	bool drained;
	double drain_s; /* valid when drained: seconds after the window's end */
	struct ex_point *series;
	size_t n_series;
};

struct ex_mark {
	double t; /* seconds from the window's start */
	char label[256];
	char origin[16];
};

/* A benchmark's own figures for one run (filled by the claim parsers, or by hand). */
struct claim_figures {
	char file[256];  /* where they were read, as given */
	char tool[16];   /* "dd", "fio", "bonnie++", "iozone" */
	char domain[64]; /* FILE@DOMAIN's DOMAIN (id or name); "" the busiest domain */
	uint64_t wr_bytes, rd_bytes;
	double wr_seconds, rd_seconds;   /* 0 unknown */
	double wr_rate_bps, rd_rate_bps; /* bytes per second as the tool says; 0 unknown */
	char run[64]; /* which run of the file ("run 2", "block write"); "" the whole file */
	/* the tool does not say which way (dd without its command line): the same figures
	 * are in both directions' fields and explain_add_claim() decides from the timeline */
	bool direction_unknown;
	bool seconds_from_rate; /* seconds are bytes / the tool's rate, not a measured time */
	/* the test file's size as the tool gives it (claim.h's claim_run.file_bytes), for
	 * test_size_vs_memory; 0 not given */
	uint64_t file_bytes;
	/* what its result says of itself (claims/claim_post.h): how it ran (O_DIRECT, sync,
	 * a flush inside the timing, request size, queue depth; CLAIM_FROM_NONE unknown), the
	 * tool's own clock, and the result's runs' seconds added up (what the clock spans) */
	struct claim_said said;
	struct claim_clock clock;
	double result_seconds;
};

/* Where a claim's run is in a domain's timeline (ex_locate_claim). */
struct ex_located {
	bool found;
	size_t first, last;   /* series indices, inclusive */
	double from_s, to_s;  /* seconds from the window's start */
	uint64_t guest_bytes; /* the domain's guest bytes that way over [from_s, to_s] */
	uint64_t phys_bytes;  /* and its physical bytes that way */
	/* writes: the quiet tail after the run in which the disk took the rest of its bytes
	 * (a tool's closing fsync, flushed through dom0's cache in the next interval): the
	 * end of that tail, seconds from the window's start; 0 none (phys_bytes counts it) */
	double on_disk_s;
};

/* Bytes a located run may differ from the claim's: a guest file system adds its journal
 * and metadata (a few %), and other guest I/O shares the intervals. */
#define EX_LOCATE_BYTES_TOLERANCE 0.10

/* Writes look inflated when the guest's rate is 10 % above the rate until on disk: less
 * is the last interval's writeback still under way at the window's end. */
#define EX_INFLATION_MIN 1.1
/* A claim is called inflated (a cache above the disks) when the tool's rate is above what
 * the disks did over its run by more than the window's margin (EX_INFLATION_MIN) times
 * the margin of the run's bytes (EX_LOCATE_BYTES_TOLERANCE: the run located may hold 10 %
 * fewer bytes than the tool says, its file system's share): 1.1 x 1.1 = 1.21. The same
 * threshold holds for the guest's own layer against the tool (the guest's cache). */
#define EX_CLAIM_INFLATION_MIN (EX_INFLATION_MIN * (1 + EX_LOCATE_BYTES_TOLERANCE))

/* The sub-window of series[from..n) whose guest bytes in the direction (write or read)
 * add up to `bytes` within EX_LOCATE_BYTES_TOLERANCE, starting and ending with an
 * interval that moved bytes that way (idle around a run is left out). Of several, the one
 * whose span is nearest `seconds` (when > 0), then the nearest in bytes, then the
 * earliest. 0 and *out filled (found), or -1 with out->found false: no sub-window holds
 * those bytes (the run is outside the recording, or the guest's own cache served it). */
int ex_locate_claim(const struct ex_point *series, size_t n, size_t from, uint64_t bytes,
                    double seconds, bool write, struct ex_located *out);

/* At most this many distinct stretches of a timeline are weighed for one run. */
#define EX_MAX_STRETCHES 32

/* Every distinct stretch of series[from..n) that holds `bytes` that way (as
 * ex_locate_claim: overlapping sub-windows are one stretch, the nearest in bytes stands
 * for it), in time order, at most max of them into out; how many. */
size_t ex_find_stretches(const struct ex_point *series, size_t n, size_t from, uint64_t bytes,
                         double seconds, bool write, struct ex_located *out, size_t max);

/* How sure a claim's run is placed in its domain's timeline (placement.c). */
enum ex_sureness {
	EXS_NOT_PLACED, /* no evidence ties it to a stretch: no rate is set against it */
	EXS_LIKELY,     /* the one stretch holding its bytes that also fits its duration or its
	                 * place among the file's runs */
	EXS_SURE,       /* marks naming the tool, or the tool's own clock, bound the stretch */
};

/* The evidence a placement stands on (bits of ex_claim.placed_by). */
enum {
	EXPE_BITS = 8,              /* how many (the last is 1u << (EXPE_BITS - 1)) */
	EXPE_GUEST_MARKS = 1u << 0, /* the guest's own marks "start TOOL" .. "end TOOL" */
	EXPE_DOM0_MARKS = 1u << 1,  /* marks made in dom0 (xiotop mark, the console's m) */
	EXPE_WRAP = 1u << 2,        /* the recorder's wrapped command is the tool (record -- CMD) */
	EXPE_CLOCK = 1u << 3,       /* the tool's own clock (fio's report time, bonnie++'s seed) */
	EXPE_BYTES = 1u << 4,    /* a stretch of the domain's guest I/O that way holds its bytes */
	EXPE_DURATION = 1u << 5, /* that stretch lasts as long as the run itself */
	EXPE_ORDER = 1u << 6,    /* after the file's run before it, before the one after */
	EXPE_TAKEN = 1u << 7,    /* other stretches holding its bytes are other runs' */
};

/* Where a claim's direction came from: the tool's own words (dd's command line, fio's
 * READ:/WRITE:), the timeline (the direction whose stretch holds the run), or neither
 * (the direction the domain moved more bytes in). */
enum ex_direction_from { EXD_TOOL, EXD_TIMELINE, EXD_LARGER };

struct ex_claim {
	struct claim_figures fig;
	uint32_t domid; /* the domain it is set against */
	bool write;     /* the direction of this row */
	uint64_t bytes;
	double seconds, rate_bps;
	uint64_t observed_guest, observed_phys; /* that domain, window (+ drain for writes) */
	double observed_phys_rate_bps;
	double inflation; /* rate_bps / observed_phys_rate_bps; < 0 unknown */
	/* the run is shorter than whole intervals can time: at the stretch's shortest (two
	 * intervals less: the run may start late in the first, end early in the last) the
	 * disks were as fast as the tool says, so no inflation is given */
	bool below_resolution;
	/* the run in the domain's timeline (located.found: placed, placed_how not
	 * EXS_NOT_PLACED), observed_* over that stretch; not placed: observed_* unknown (0),
	 * no inflation */
	struct ex_located located;
	enum ex_sureness placed_how;
	unsigned placed_by; /* EXPE_* bits */
	size_t n_stretches; /* stretches of the timeline (in its range) that hold its bytes */
	size_t n_fitting;   /* of them, those that fit its duration and its file's next run */
	enum ex_direction_from direction_from; /* ex_direction_from_name() */
	/* set against the busiest domain (no @DOMAIN) while this one moved 1 MiB too;
	 * EX_NO_DOMAIN: named, or no other was active */
	uint32_t also_active_domid;
};

struct ex_host {
	char hostname[65], kernel[65];
	long cpu_count;
	uint64_t mem_total_kb;
	char dirty_ratio[32], dirty_background_ratio[32], dirty_bytes[32],
	    dirty_background_bytes[32], dirty_expire_cs[32], dirty_writeback_cs[32];
	bool has_dirty, has_cpu;
	uint64_t lost_events;
	/* an imported recording (xiotop import): which counters its samples lack (enum
	 * xio_absent, any sample of the window); 0 for every live recording */
	uint32_t absent;
	char imported_from[256];     /* meta imported_from ("xentop=NAME vmstat=NAME ...") */
	char busy_source[64];        /* meta host_busy_source (sanitized): host_busy_ns from */
	char imported_counters[256]; /* meta imported_counters (record/SCHEMA.md) */
	char stacked_devices[256];   /* meta iostat_stacked_devices (loop0,dm-0: not disks) */
	char leaf_devices[256];      /* meta iostat_leaf_devices */
	char dom0_os[16];            /* meta dom0_os of an import: "linux", "netbsd", "" */
};

struct ex_window {
	int64_t from_ns, to_ns; /* wall clock */
	double seconds;
	size_t first, last;                  /* samples */
	char from_label[256], to_label[256]; /* the marks bounding it; "" none */
	double interval_s;                   /* the recording's sampling interval */
	double recorded_after_s;             /* how long the recording goes on after to_ns */
	/* the default window's marks: "wrap" (the wrapped command), "domain N" (a guest's own),
	 * "domains" (every guest's, first to last); "" given bounds or none */
	char marks_of[16];
};

struct ex_dom0_drain; /* explain/dom0_subject.h */
struct ex_day;        /* explain/day.h */
struct ex_claim_file; /* explain/claim_list.h */

struct explain {
	char file[512]; /* raw */
	struct ex_window win;
	struct ex_host host;
	struct ex_domain *doms;
	size_t n_doms;
	uint64_t pgpgout_bytes, unattr_wr; /* the window */
	struct ex_mark marks[EX_MAX_MARKS];
	size_t n_marks;
	struct ex_claim claims[EX_MAX_CLAIMS];
	size_t n_claims;
	/* every --claim file with all its results, judged or not (claim_list.h) */
	struct ex_claim_file *claim_files;
	size_t n_claim_files;
	struct ex_verdict verdicts[EX_MAX_VERDICTS];
	size_t n_verdicts;
	double series_end_s; /* last chart point's t */
	/* the window's host totals (used on imported recordings, where no domain has them) */
	uint64_t host_busy_ns, pgpgin_bytes, disk_wr, disk_rd;
	uint64_t disk_wr_ios, disk_rd_ios; /* the leaf disks' requests (diskstats, iostat) */
	/* the leaf disks interval by interval, window and tail (guest_* and phys_* both their
	 * bytes): where an import's claims are placed */
	struct ex_point *host_series;
	size_t n_host_series;
	/* verdicts the recording's counters do not allow (imports): each with what is
	 * missing and which log would give it */
	struct keyed_text not_given[EX_MAX_NOT_GIVEN]; /* key: the verdict's id */
	size_t n_not_given;
	/* dom0's own run (the subject domain 0): its intervals after the window, to end its
	 * drain where its disks took the run's data (dom0_subject.h); NULL none */
	struct ex_dom0_drain *dom0_drain;
	/* the whole recording per domain, for the HTML report's day chart (day.h): set by
	 * whoever collected it, owned by it; NULL none */
	const struct ex_day *day;
};

/* The window [from, to] (marks or times, NULL: default: the wrapped command's start and
 * end marks when the recording has them, else the first to the last mark the guests wrote
 * themselves (origin "domain N", sources/xen/xenlive.h), else the whole file) of reader r.
 * 0 or -1. */
int explain_collect(struct rec_reader *r, const char *from, const char *to, struct explain *ex,
                    struct xerr *err);
/* The same, the default window from guest marks being domain marks_domid's own first and
 * last (every guest's when < 0): that domain's window. */
int explain_collect_marked(struct rec_reader *r, const char *from, const char *to, long marks_domid,
                           struct explain *ex, struct xerr *err);
/* Domain domid wrote at least two marks of its own, at different times. */
bool explain_has_guest_marks(const struct rec_reader *r, uint32_t domid);
void explain_free(struct explain *ex);

/* Keeps only the domains named (ids or names); unknown one: -1 with err naming it. */
int explain_keep_domains(struct explain *ex, const char *const *names, size_t n, struct xerr *err);

/* The domain a name (decimal id or name) means; NULL if none. */
const struct ex_domain *explain_find_domain(const struct explain *ex, const char *name);
/* The domain with the most guest bytes in the window other than `except` (NULL: any);
 * NULL if none moved a byte. */
const struct ex_domain *explain_busiest(const struct explain *ex, const struct ex_domain *except);
/* When `picked` was taken as the busiest domain (no name given): the next busiest, if it
 * moved 1 MiB too (EX_ACTIVE_BYTES), the one the reader may have meant; else NULL. */
const struct ex_domain *explain_also_active(const struct explain *ex,
                                            const struct ex_domain *picked);

/* The path of d (its name: "phy", "phy partition", "phy dm", "file via loop", "file via
 * loop, partition", "qemu", "dom0"), and the name of a direction's source ("the tool",
 * "the timeline", "the larger direction"). path.c */
enum ex_path ex_path_of(const struct ex_domain *d);
const char *ex_path_name(enum ex_path p);
static inline bool ex_path_is_file(enum ex_path p)
{
	return p == EXP_FILE || p == EXP_FILE_PART;
}
const char *ex_direction_from_name(enum ex_direction_from f);
/* "sure", "likely", "not placed"; an EXPE_* bit's name ("guest_marks", "dom0_marks",
 * "wrap", "clock", "bytes", "duration", "order", "taken"). path.c */
const char *ex_sureness_name(enum ex_sureness s);
const char *ex_place_evidence_name(unsigned bit);

/* An import's dom0 ran NetBSD (meta dom0_os); what gives a figure the logs lack on that
 * dom0: "xiotop record" (Linux eBPF), or on NetBSD iostat -x and vmstat. collect.c */
bool ex_dom0_netbsd(const struct explain *ex);
const char *ex_tracer_advice(const struct explain *ex);

/* Derived figures shared by verdicts, comparison and reports. */
double ex_dom0_cpu_s(const struct ex_domain *d);    /* window */
double ex_cpu_s_per_gib(const struct ex_domain *d); /* window + drain CPU per guest GiB */
double ex_guest_wr_rate(const struct explain *ex, const struct ex_domain *d);
/* Guest writes over the window plus the drain (the rate they reached the disk at); uses
 * the recording's end when not drained. */
double ex_end_to_end_wr_rate(const struct explain *ex, const struct ex_domain *d);
/* The recording ended before d's window data reached the disk: d had dirty bytes in dom0's
 * page cache at the window's end, and not all of them were written back by the recording's
 * end (its drain cut short). A figure built on the drain would be built on part of it. */
bool ex_drain_cut(const struct explain *ex, const struct ex_domain *d);

#endif
