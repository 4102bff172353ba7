/* claim.h - what a benchmark says it did, read from the benchmark's own output.
 *
 * Contract: claim_parse_file() / claim_parse_buffer() recognise the tool from the
 * content (never from the file name) and fill a struct claim with the tool's own
 * figures, unscaled by anything xiotop observed. Supported: GNU dd (any locale's words,
 * decimal comma, status=progress lines), busybox dd (third status line), BSD dd,
 * bonnie++ 1.96/1.97/2.0x CSV (format versions 1.96, 1.97, 1.98), classic bonnie's
 * table (also as wrapped by mail archives), iozone's default
 * table and its -R report sections, fio --output-format=json / json+ and fio's normal
 * (default text) output; bash's or POSIX `time` "real" line after a dd run.
 *
 * Runs: a file may hold several runs (a dd write then a dd read, bonnie++ -x N, every
 * phase of bonnie and iozone, each fio group and direction, each row of a table). Each is
 * one struct claim_run with its own bytes, seconds and direction, in the order the tool
 * ran them; the headline fields below are kept as they were (the first run of dd, the
 * tool's headline for the others). A run's direction comes from the tool's own words:
 * dd's pasted command line (if=/dev/zero: write; of=/dev/null or of=/dev/zero: read),
 * fio's read/write lines, bonnie's and iozone's columns; otherwise it is 0 (unknown), for
 * the recording to decide (claim_locate.h). A table with rows of several labels (classic
 * bonnie's "dom0-raw", "dom0-lvm", "domU") is narrowed to one by claim_pick_row().
 *
 * On success: 0, *out filled. On unknown, truncated or garbled input: -1, *out zeroed
 * and `err` holds ONE line "NAME[:LINE]: what was expected" in which every control byte,
 * DEL and non-ASCII byte is escaped (\xNN), so it can be printed as is; the caller exits
 * 2. A text output whose last non-blank line has no newline is refused so: a cut inside a
 * figure ("0.0500984 s" as "0.05") looks whole otherwise (fio's JSON ends with its
 * object). A file cut at a line's end may still parse, with its later runs missing: each
 * run it gives is one of the whole file's, figure for figure. Nothing is allocated; a
 * struct claim is self-contained (large: keep it off small stacks). Figures that a tool
 * does not report are -1 (doubles) or have a false flag. Strings kept in a claim (machine
 * and job names, versions) are copied as found in the file, control bytes included:
 * escape them when printing (ui/sanitize.h).
 *
 * A whole post (several outputs among prose, each a result with its labels and what it
 * says about how it ran) is read through claim_post.h, the claims' interface; struct
 * claim and claim_parse_*() below read one tool's output and give way to it.
 *
 * Units: bytes, seconds, bytes per second. Tools that print K/sec (bonnie++, iozone)
 * mean KiB (1024); GNU dd's kB/MB/GB are 1000-based, its KiB/MiB/GiB and busybox's
 * K/M/G are 1024-based.
 */
#ifndef XIOTOP_CLAIM_H
#define XIOTOP_CLAIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum claim_tool {
	CLAIM_TOOL_DD,             /* GNU coreutils dd */
	CLAIM_TOOL_DD_BUSYBOX,     /* busybox dd */
	CLAIM_TOOL_DD_BSD,         /* NetBSD/FreeBSD dd: "N bytes transferred in S secs" */
	CLAIM_TOOL_BONNIE,         /* bonnie++ CSV */
	CLAIM_TOOL_BONNIE_CLASSIC, /* Tim Bray's bonnie: its text table */
	CLAIM_TOOL_IOZONE,
	CLAIM_TOOL_FIO,
};

/* Bits of claim.directions. dd copies: its output does not say which side was the
 * disk, so dd claims carry both bits and the caller decides from the command. */
#define CLAIM_DIR_READ  1u
#define CLAIM_DIR_WRITE 2u

#define CLAIM_FIO_MAX_JOBS    64
#define CLAIM_IOZONE_MAX_ROWS 256
#define CLAIM_NAME_MAX        64
#define CLAIM_MAX_RUNS        64

struct claim_dd {
	uint64_t records_in_full, records_in_partial;
	uint64_t records_out_full, records_out_partial;
	unsigned progress_lines;      /* status=progress updates seen before the summary */
	uint64_t progress_last_bytes; /* bytes of the last progress update, 0 if none */
};

/* One direction of one fio job; `present` is false when the job did no I/O that way. */
struct claim_fio_dir {
	bool present;
	uint64_t io_bytes;
	uint64_t bw_bytes; /* bytes per second, as fio computed it */
	uint64_t runtime_ms;
	bool has_clat; /* clat_ns.percentile present (not with clat_percentiles=0) */
	uint64_t clat_p50_ns, clat_p99_ns;
};

struct claim_fio_job {
	char name[CLAIM_NAME_MAX];
	uint64_t size_bytes; /* its size= option (fio's default 1024-based units); 0 not given */
	bool named_file;     /* its filename= option is set: jobs may share one file */
	struct claim_fio_dir read, write;
};

struct claim_fio {
	char version[CLAIM_NAME_MAX]; /* "fio-3.33" */
	/* fio's text output: "Starting N processes" and the jobs' "Laying out IO file (1 file
	 * / 64MiB)" lines (printed only for a file fio had to create) */
	unsigned started_jobs, laid_out_jobs;
	uint64_t laid_out_bytes;
	unsigned njobs;
	struct claim_fio_job jobs[CLAIM_FIO_MAX_JOBS];
};

/* Sequential figures of one bonnie++ run, KiB/s as printed times 1024; -1 when the
 * field is empty (test skipped) and too_fast[] set when it was "+++++". */
enum claim_bonnie_test {
	CLAIM_BONNIE_PUTC,
	CLAIM_BONNIE_BLOCK_WRITE,
	CLAIM_BONNIE_REWRITE,
	CLAIM_BONNIE_GETC,
	CLAIM_BONNIE_BLOCK_READ,
	CLAIM_BONNIE_NTESTS,
};

struct claim_bonnie {
	char format_version[16]; /* "1.96", "1.97", "1.98"; "classic" for bonnie */
	char version[16];        /* bonnie++'s own version, "2.00a" */
	char machine[CLAIM_NAME_MAX];
	uint64_t file_size_bytes;
	double rate_bytes_per_s[CLAIM_BONNIE_NTESTS];
	bool too_fast[CLAIM_BONNIE_NTESTS];
	unsigned runs; /* CSV data lines in the file (-x N); figures are from the first */
};

/* iozone columns in the order iozone prints them. */
enum claim_iozone_test {
	CLAIM_IOZONE_WRITE,
	CLAIM_IOZONE_REWRITE,
	CLAIM_IOZONE_READ,
	CLAIM_IOZONE_REREAD,
	CLAIM_IOZONE_RANDOM_READ,
	CLAIM_IOZONE_RANDOM_WRITE,
	CLAIM_IOZONE_NTESTS,
};

struct claim_iozone_row {
	uint64_t file_kib, record_kib;
	/* KiB/s as printed; -1 when the test was not run for this row */
	double kib_per_s[CLAIM_IOZONE_NTESTS];
};

struct claim_iozone {
	bool from_report; /* figures from the -R "... report" sections, not the table */
	size_t nrows;
	struct claim_iozone_row rows[CLAIM_IOZONE_MAX_ROWS];
};

/* Where a setting a result says about itself was read (claim_post.h struct claim_said). */
enum claim_from {
	CLAIM_FROM_NONE = 0, /* nothing gives it: unknown */
	CLAIM_FROM_COMMAND,  /* the tool's command line pasted before the output */
	CLAIM_FROM_OUTPUT,   /* the tool's own output: iozone's "O_DIRECT feature enabled", fio's
	                      * job line or JSON options, bonnie's size column */
	CLAIM_FROM_TOOL,     /* what the tool does when not told otherwise: dd issues one request
	                      * at a time; bs=512 for a pasted dd command without bs= */
};

/* One setting: `value` holds only when `from` is not CLAIM_FROM_NONE. */
struct claim_setting {
	enum claim_from from;
	uint64_t value;
};

/* One run (or phase) of a benchmark: what it says it moved one way, and how fast. */
struct claim_run {
	char
	    label[CLAIM_NAME_MAX]; /* "dd run 2", "block write", "group 0 read", "64M/256K write" */
	char row[CLAIM_NAME_MAX];  /* the table row's label (classic bonnie's machine); "" none */
	unsigned direction;        /* CLAIM_DIR_READ or CLAIM_DIR_WRITE; 0: the tool does not say */
	uint64_t bytes;
	double seconds;          /* -1: not reported */
	double rate_bytes_per_s; /* as the tool printed it; -1: not reported */
	/* seconds is bytes / rate (bonnie, iozone print only a rate), not a measured time */
	bool seconds_from_rate;
	bool seconds_from_time; /* seconds is `time`'s real line (dd; sync), not dd's own */
	/* The test file's size as the tool gives it, for the benchmark's own size rule (the
	 * file against the caches' memory): bonnie's -s (its "Size" column), iozone's file
	 * size, dd's bytes copied (bs x count), fio's size= from its JSON job options (the
	 * jobs' own files added up; the largest when they name a shared filename=), or in
	 * fio's text output the files it laid out when it laid out one for every job started.
	 * 0: the output does not give it (files that existed, a size in % or IEC units). */
	uint64_t file_bytes;
	/* bytes of one request of this run (its iozone row's record size, else the result's
	 * claim_said.block_bytes) */
	struct claim_setting block_bytes;
};

/* The tool's own details of one result, as each parser keeps them. */
union claim_details {
	struct claim_dd dd;
	struct claim_fio fio;
	struct claim_bonnie bonnie;
	struct claim_iozone iozone;
};

struct claim {
	enum claim_tool tool;
	unsigned directions; /* CLAIM_DIR_* bits */
	/* The tool's headline: dd its summary line; fio all jobs, write if any job wrote,
	 * else read; bonnie++ the block write (else block read) over the file size;
	 * iozone the first row's write (else read) over its file size. */
	uint64_t bytes;
	double seconds;          /* -1: not reported */
	double rate_bytes_per_s; /* as the tool printed it; -1: not reported */
	/* Everything the tool says it wrote / read over the whole run, for comparison
	 * with what dom0 saw (bonnie++: block write + rewrite, iozone: every write-type
	 * column of every row, fio: all jobs). */
	uint64_t written_bytes, read_bytes;
	union {
		struct claim_dd dd;
		struct claim_fio fio;
		struct claim_bonnie bonnie;
		struct claim_iozone iozone;
	} u;
	unsigned nruns;
	unsigned runs_dropped; /* runs past CLAIM_MAX_RUNS, not kept (iozone -a) */
	struct claim_run runs[CLAIM_MAX_RUNS];
};

/* "dd", "dd-busybox", "dd-bsd", "bonnie++", "bonnie", "iozone", "fio". */
const char *claim_tool_name(enum claim_tool tool);

/* Reads `path` (at most 16 MiB) and parses it; errors name `path`. */
int claim_parse_file(const char *path, struct claim *out, char *err, size_t errlen);

/* Parses `len` bytes of `buf` (need not be NUL terminated); errors name `name`. */
int claim_parse_buffer(const char *name, const char *buf, size_t len, struct claim *out, char *err,
                       size_t errlen);

/* Keeps only the runs of table row `row` (exact label). row NULL or "": fine when the
 * runs have at most one distinct row label; otherwise -1 with ONE line in err naming
 * `name` and every row label ("... holds rows dom0-raw, dom0-lvm, domU; pick one with
 * FILE@DOMAIN:ROW"). An unknown row: -1, the same list. */
int claim_pick_row(struct claim *c, const char *name, const char *row, char *err, size_t errlen);

/* Whether `label` is one of the runs' row labels. */
bool claim_has_row(const struct claim *c, const char *label);

#endif
