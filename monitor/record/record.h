/* record.h - the session file: samples -> SQLite file (writer); file -> samples (reader).
 *
 * Contract: a recording is an SQLite database (a rollback journal, created 0640) holding
 * every sample's RAW CUMULATIVE counters, each coded as what changed since the sample
 * before it (record/SCHEMA.md); rates are computed on reading by model_compute() over
 * two consecutive read samples, so live view, replay, export and explain share one
 * reader. The schema is versioned (PRAGMA user_version, meta table, PRAGMA
 * application_id) and documented in record/SCHEMA.md.
 *
 * Writer: rec_create() makes a new file (refusing to overwrite one) and stores the host
 * facts; rec_append() keeps one sample, rec_add_mark_from() a labelled instant. What is
 * kept waits in memory and is committed in groups (the commit rule below): a transaction
 * of at most REC_COMMIT_BYTES once that much waits or the oldest would have waited
 * REC_COMMIT_AGE_NS by the next sample (expected as far after this one as this one came
 * after the one before), with the sample after a mark, and at rec_flush() and
 * rec_close(). So a killed recorder loses what waited (at most REC_COMMIT_AGE_NS of
 * samples at a steady pace, or the one sample in flight when samples are further apart),
 * never what was committed. A commit
 * the file system has no room for (or another process holding the file) is rolled back
 * and what waits goes on waiting, tried again at every sample (rec_writer_waiting() says
 * why): the writer stays open and loses nothing until REC_WAIT_MAX waits, after which a
 * sample is not kept (rec_append fails, REC_ERR_FULL) until a commit succeeds. After any
 * other error the writer is closed cleanly: what was committed stays readable, later
 * calls fail with the same error, and the caller keeps running.
 *
 * Reader: rec_open() validates the file and says in one sentence what is wrong with it
 * (truncated, corrupt, garbage, empty, foreign SQLite file, newer schema naming both
 * versions). rec_read() reconstructs sample i: every scalar, the layers, disks and
 * per-domain counters in their recorded order; devices ordered by dev_t and domains by
 * domid (their recorded order is not kept: no consumer depends on it). The reader sees a
 * snapshot of the file as it was at rec_open() (a recorder may still be appending). It
 * opens the file read-only and makes nothing beside it (no -wal, -shm or -journal; a
 * closed file of the WAL schemas 1-3 is opened immutable), so it reads on a full or
 * read-only file system; the one write it may make is SQLite's roll-back of a journal a
 * writer killed while committing left behind, in place, when the file is writable.
 *
 * Every function reporting failure fills a struct xerr (core/error.h) with its
 * enum rec_errcode as the code; commands print err.msg and exit with the kind's status.
 */
#ifndef XIOTOP_RECORD_H
#define XIOTOP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/sample.h"

#ifndef XIOTOP_VERSION
#define XIOTOP_VERSION "0.1.0"
#endif

/* The schema this code writes and the newest it reads. Bumped only when an older reader
 * would misread a newer file; adding a nullable column or a table does not bump it. */
#define REC_SCHEMA_VERSION 4 /* 4: what changed since the sample before (SCHEMA.md) */
/* The commit rule (see the writer above). */
#define REC_COMMIT_BYTES  (64u * 1024)
#define REC_COMMIT_AGE_NS (10 * 1000000000LL)
#define REC_WAIT_MAX      (8u << 20)
/* PRAGMA application_id of every recording: "xiot". */
#define REC_APPLICATION_ID 0x78696f74

enum rec_errcode {
	REC_OK = 0,
	REC_ERR_IO,        /* cannot open/create/read: errno-style reason in msg */
	REC_ERR_EXISTS,    /* rec_create: the file exists */
	REC_ERR_EMPTY,     /* 0 bytes */
	REC_ERR_GARBAGE,   /* not an SQLite database at all */
	REC_ERR_TRUNCATED, /* shorter than its own header says */
	REC_ERR_CORRUPT,   /* SQLite says malformed, or the xiotop tables are inconsistent */
	REC_ERR_FOREIGN,   /* an SQLite database, but not an xiotop recording */
	REC_ERR_NEWER,     /* written by a newer schema than this xiotop reads */
	REC_ERR_FULL,      /* disk (or size limit) full while writing */
	REC_ERR_RANGE,     /* index, mark or time outside the recording */
	REC_ERR_NOMEM,
	REC_ERR_BUSY, /* a commit: another process held the file past the busy timeout; what
	               * waits goes on waiting and the writer stays open */
};

/* What failed, in a struct xerr (core/error.h): code holds the enum rec_errcode, kind what it
 * means for the exit status (rec_errcode_kind). */
enum xerr_kind rec_errcode_kind(enum rec_errcode code);
/* Sets code, its kind and the sentence, escaped as a whole (core/sanitize.h): text from the
 * file may be quoted as is, and never a message already set (it would be escaped twice). */
void rec_set_error(struct xerr *err, enum rec_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Host facts stored once per recording (meta table). */
#define REC_DIRTY_SYSCTLS 6
struct rec_host_facts {
	char hostname[65];
	char kernel_release[65];
	long cpu_count;
	uint64_t mem_total_kb; /* dom0 MemTotal; 0 unknown */
	struct {
		const char *name; /* "vm.dirty_ratio", ... */
		char value[32];   /* "" unknown */
	} dirty[REC_DIRTY_SYSCTLS];
};

/* Reads hostname, kernel release, CPU count, MemTotal and the vm.dirty_* sysctls from
 * proc_root ("/proc" live, a fixture tree in tests). Missing files leave fields unknown;
 * never fails. */
void rec_host_facts_read(const char *proc_root, struct rec_host_facts *f);

/* ---- writer ---- */
struct rec_writer;

/* A new recording at path (created 0640, never overwriting). NULL on error. The file is
 * made under the name PATH.new-PID and renamed to path once it holds its tables, so a
 * recorder killed meanwhile leaves no half-made recording at path. */
struct rec_writer *rec_create(const char *path, const struct rec_host_facts *facts,
                              struct xerr *err);
/* Extra meta facts (command line, interval, tracer mode). 0 or -1. */
int rec_set_meta(struct rec_writer *w, const char *key, const char *value, struct xerr *err);
/* Caps the file at about max_bytes; past it, a commit fails as on a full disk (tests; a
 * quota). */
int rec_set_size_limit(struct rec_writer *w, uint64_t max_bytes, struct xerr *err);
/* The commit rule's bounds: REC_COMMIT_BYTES, REC_COMMIT_AGE_NS and REC_WAIT_MAX by
 * default (tests: 0, 0 commits every sample). */
void rec_set_commit_rule(struct rec_writer *w, uint64_t bytes, int64_t age_ns, uint64_t wait_max);
/* One sample kept (committed when the rule says). 0; -1 when it was not kept: REC_WAIT_MAX
 * waits for a commit the file system has no room for (REC_ERR_FULL; the writer stays
 * open), or the writer failed and is closed (any other code). */
int rec_append(struct rec_writer *w, const struct xio_sample *s, struct xerr *err);
/* A mark at realtime_ns (wall clock) with its origin ("wrap", "console", ...) and, for
 * the end of a wrapped command, its exit status (< 0: none); committed with the next
 * sample (or rec_flush). */
int rec_add_mark_from(struct rec_writer *w, const char *label, int64_t realtime_ns,
                      const char *origin, int exit_status, struct xerr *err);
/* Everything kept committed now. 0, or -1: what waits still waits (err: REC_ERR_FULL,
 * REC_ERR_BUSY), or the writer failed and is closed (any other code). */
int rec_flush(struct rec_writer *w, struct xerr *err);
/* Samples kept: committed, or waiting for their commit. */
size_t rec_writer_count(const struct rec_writer *w);
/* Samples waiting for their commit; *why (when not NULL) the reason the last commit did
 * not happen (REC_ERR_FULL, REC_ERR_BUSY), or NULL when it did. */
size_t rec_writer_waiting(const struct rec_writer *w, const struct xerr **why);
/* True when path no longer names the file this writer writes: removed, renamed (by
 * logrotate, say) or replaced. The writer still writes that file; the caller decides. */
bool rec_writer_moved(const struct rec_writer *w);
/* Commits what waits and closes; 0, or -1 if something could not be committed (err says
 * how many samples were lost). Frees w in every case. NULL is allowed. */
int rec_close(struct rec_writer *w, struct xerr *err);

/* Removes a recording with its -journal, -wal and -shm files (what exists of them). */
void rec_remove(const char *path);

/* A mark into an existing recording from another process (`xiotop mark`): validates the
 * file, then inserts with a busy timeout so a running recorder is never disturbed. */
int rec_mark_file(const char *path, const char *label, int64_t realtime_ns, const char *origin,
                  struct xerr *err);

/* ---- reader ---- */
struct rec_mark {
	int64_t realtime_ns;
	char label[256];    /* raw (user-supplied): sanitize on output */
	char origin[16];    /* "cli", "wrap", "console", "api", "domain N" */
	int exit_status;    /* wrap mode end mark; -1 none */
	size_t at_or_after; /* first sample at or after the mark (== count if after the end) */
};

struct rec_reader;

struct rec_reader *rec_open(const char *path, struct xerr *err);
void rec_reader_close(struct rec_reader *r);
const char *rec_path(const struct rec_reader *r);
size_t rec_count(const struct rec_reader *r);
/* Wall-clock time of sample i (i < count); all of them, in order. */
int64_t rec_time(const struct rec_reader *r, size_t i);
const int64_t *rec_times(const struct rec_reader *r);
size_t rec_n_marks(const struct rec_reader *r);
const struct rec_mark *rec_marks(const struct rec_reader *r); /* ordered by time */
/* A meta value ("kernel_release", "xiotop_version", ...) or NULL. */
const char *rec_meta(const struct rec_reader *r, const char *key);
int rec_schema_version(const struct rec_reader *r);
/* Reconstructs sample i into out (a fresh sample; sample_free() it). 0 or -1. */
int rec_read(struct rec_reader *r, size_t i, struct xio_sample *out, struct xerr *err);

/* First sample whose time is >= t (count if none), and last sample whose time is <= t
 * (-1 if none: returned as SIZE_MAX). */
size_t rec_find_at_or_after(const struct rec_reader *r, int64_t t);
size_t rec_find_at_or_before(const struct rec_reader *r, int64_t t);

/* A window of the recording given as `--from X --to Y`, each X either a mark label, a
 * time as people give it (core/when.h: 2024-05-01T12:00:00Z, with another zone, a local
 * time, 14:00, "yesterday 14:00", "1h ago") or +SECONDS from the first sample.
 * NULL: the start / the end. The window is samples [*first, *last] (the intervals
 * first+1..last); a mark's interval is included on both sides. 0, or -1 (REC_ERR_RANGE,
 * the message lists what was looked for and does not name the file). */
int rec_resolve_window(const struct rec_reader *r, const char *from, const char *to, size_t *first,
                       size_t *last, struct xerr *err);

#endif
