/* rec_internal.h - what the writer, the reader and the mark command share: the schema
 * text, opening and validating a file, and turning SQLite failures into a struct xerr.
 *
 * Contract: rec_schema_create() runs the DDL of SCHEMA.md inside the caller's
 * transaction. rec_db_open_checked() opens an existing file and classifies it (empty,
 * garbage, truncated, foreign, newer schema, corrupt) before anything else touches it.
 * Not part of the public API (record.h).
 */
#ifndef XIOTOP_REC_INTERNAL_H
#define XIOTOP_REC_INTERNAL_H

#include <sqlite3.h>

#include "record/record.h"

/* Row keys of the per-sample tables: sample index << REC_SLOT_BITS | position in the
 * sample's array. One integer key keeps rows in rowid B-trees (appends fill pages
 * completely) and makes a sample's rows one key range. */
#define REC_SLOT_BITS         16
#define REC_SLOT_MAX          ((1u << REC_SLOT_BITS) - 1)
#define REC_SLOT(sample, pos) (((int64_t)(sample) << REC_SLOT_BITS) | (int64_t)(pos))

/* How long a writer waits for another writer (a `xiotop mark`, the recorder). */
#define REC_BUSY_TIMEOUT_MS 5000

/* Error from an SQLite result code: full/corrupt/nomem/io, with what was being done. */
void rec_set_sqlite_error(struct xerr *err, sqlite3 *db, int rc, const char *path,
                          const char *doing);

/* DDL + application_id + user_version, in the caller's transaction. SQLite result code. */
int rec_schema_create(sqlite3 *db);

/* Opens an existing recording (read-write if possible, else read-only) after checking its
 * bytes, then checks application_id, user_version and the meta table. *version gets the
 * file's schema version. NULL on error. */
sqlite3 *rec_db_open_checked(const char *path, bool want_write, int *version, struct xerr *err);

/* One meta row (INSERT OR REPLACE): the writer's facts and rec_write_sample's hook
 * sets. SQLite result code. */
int rec_db_put_meta(sqlite3 *db, const char *key, const char *value);
/* Does the file's table have the column? (Columns are added without a version change:
 * SCHEMA.md's compatibility rule.) */
bool rec_has_column(sqlite3 *db, const char *table, const char *column);

/* The times and marks a window is resolved over: one file's, or a span's. */
struct rec_times_marks {
	const int64_t *times;
	size_t count;
	const struct rec_mark *marks;
	size_t n_marks;
};
/* --from/--to over them (record.h, rec_resolve_window). 0, or -1 with err. */
int rec_window_of(const struct rec_times_marks *tm, const char *from, const char *to, size_t *first,
                  size_t *last, struct xerr *err);

/* Inserts a mark row (used by the writer and by rec_mark_file). SQLite result code. */
int rec_db_insert_mark(sqlite3 *db, const char *label, int64_t realtime_ns, const char *origin,
                       int exit_status);

#endif
