/* claim.h - what a benchmark says it did, read from its own output: the tools, the runs
 * of a result and each tool's own details. The claims' interface is claim_post.h (a
 * whole post read into results); this header holds the types a result is made of.
 *
 * Contract: the tool is recognised from the content (never from the file name). Read:
 * GNU dd (any locale's words, decimal comma, status=progress lines), busybox dd (third
 * status line), BSD dd, bonnie++ 1.96/1.97/2.0x CSV (format versions 1.96, 1.97, 1.98) and
 * its 1.9x text table, classic bonnie's table (also as wrapped by mail archives), iozone's
 * default table and its -R report sections, fio --output-format=json / json+ and fio's
 * normal (default text) output; bash's or POSIX `time` "real" line after a dd run.
 *
 * Runs: a result has one run per phase and direction (a dd run; bonnie's block write,
 * rewrite and block read, classic bonnie's per-char tests too; each test of each iozone
 * row; each direction of a fio group), in the order the tool ran them, each with its own
 * bytes, seconds and direction, figures unscaled by anything xiotop observed. A run's
 * direction comes from the tool's own words: dd's pasted command line (if=/dev/zero:
 * write; of=/dev/null or of=/dev/zero: read), fio's read/write lines, bonnie's and
 * iozone's columns; otherwise it is 0 (unknown), for the recording to decide
 * (explain/tool_claims.h). Figures a tool does not report are -1 (doubles) or have a
 * false flag. Strings kept (machine and job names, versions) are copied as found in the
 * file, control bytes included: escape them when printing (core/sanitize.h).
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
	CLAIM_TOOL_BONNIE,         /* bonnie++: its CSV line or its text table's row */
	CLAIM_TOOL_BONNIE_CLASSIC, /* Tim Bray's bonnie: its text table */
	CLAIM_TOOL_IOZONE,
	CLAIM_TOOL_FIO,
};

/* Bits of a result's directions. dd copies: its output does not say which side was the
 * disk, so dd results carry both bits and the pasted command decides. */
#define CLAIM_DIR_READ  1u
#define CLAIM_DIR_WRITE 2u

#define CLAIM_NAME_MAX 64

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

/* fio's jobs of one group (the text output: the group's own summary as one job). */
struct claim_fio {
	char version[CLAIM_NAME_MAX]; /* "fio-3.33" */
	unsigned group;               /* its groupid */
	/* fio's text output: "Starting N processes" and the jobs' "Laying out IO file (1 file
	 * / 64MiB)" lines (printed only for a file fio had to create) */
	unsigned started_jobs, laid_out_jobs;
	uint64_t laid_out_bytes;
	size_t njobs;
	struct claim_fio_job *jobs; /* allocated with the post */
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
	char format_version[16]; /* "1.96", "1.97", "1.98"; "table" bonnie++'s text table;
	                          * "classic" for bonnie */
	char version[16];        /* bonnie++'s own version, "2.00a" */
	char machine[CLAIM_NAME_MAX];
	uint64_t file_size_bytes;
	uint64_t chunk_bytes; /* bonnie++'s chunk size when printed ("1G:32k", the CSV); 0 not */
	unsigned concurrency; /* bonnie++'s CSV concurrency field; 0 not given */
	double rate_bytes_per_s[CLAIM_BONNIE_NTESTS];
	bool too_fast[CLAIM_BONNIE_NTESTS];
	int64_t seed;                  /* bonnie++'s CSV seed field; -1 not given */
	unsigned table_line, csv_line; /* the lines it was read from; 0 none */
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
	struct claim_iozone_row *rows; /* allocated with the post */
};

/* One run (or phase) of a benchmark: what it says it moved one way, and how fast. */
struct claim_run {
	char label[CLAIM_NAME_MAX]; /* "run 2", "block write", "group 0 read", "64M/256K write" */
	char row[CLAIM_NAME_MAX];   /* the table row's label (bonnie's machine); "" none */
	unsigned direction; /* CLAIM_DIR_READ or CLAIM_DIR_WRITE; 0: the tool does not say */
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

/* "dd", "dd-busybox", "dd-bsd", "bonnie++", "bonnie", "iozone", "fio". */
const char *claim_tool_name(enum claim_tool tool);

#endif
