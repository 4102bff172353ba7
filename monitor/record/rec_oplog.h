/* rec_oplog.h - the rows a writer stored, waiting for their commit (record.h: samples are
 * committed in groups).
 *
 * Contract: each row the writer stores is an op: which of its prepared statements, and
 * the parameters (NULL, an integer, a text or a blob: copied into the log). Ops wait in
 * order, in units (a sample with its names and rows, a mark, a fact) closed by
 * rec_oplog_end_unit(): a commit is cut between units only, so each unit commits whole.
 * Every op carries each id it inserts (the writer numbers the rows of its tables itself),
 * so ops run in a transaction that was rolled back (a full disk, another writer holding
 * the file) run again the same in a later one. rec_oplog_run() binds and steps the first
 * n ops through the statements, rec_oplog_drop() forgets them once committed. A failed
 * copy (out of memory) leaves the log marked failed: the writer closes. Not part of the
 * public API (record.h).
 */
#ifndef XIOTOP_REC_OPLOG_H
#define XIOTOP_REC_OPLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

struct rec_oplog {
	struct rec_op *ops;
	size_t n_ops, cap_ops;
	struct rec_param *params;
	size_t n_params, cap_params;
	unsigned char *bytes; /* texts and blobs */
	size_t n_bytes, cap_bytes;
	struct rec_unit_end *ends; /* per unit: its last op + 1, and the log's bytes then */
	size_t n_ends, cap_ends;
	bool failed; /* a copy did not fit in memory */
};

void rec_oplog_init(struct rec_oplog *log);
void rec_oplog_free(struct rec_oplog *log);
/* A new op of statement stmt; its parameters follow, in order, by the calls below. */
void rec_oplog_add(struct rec_oplog *log, unsigned stmt);
void rec_oplog_null(struct rec_oplog *log);
void rec_oplog_int(struct rec_oplog *log, int64_t v);
void rec_oplog_text(struct rec_oplog *log, const char *s, size_t len);
void rec_oplog_blob(struct rec_oplog *log, const void *p, size_t len);
/* Closes the unit the ops since the last end make; samples: how many it holds (0, 1). */
void rec_oplog_end_unit(struct rec_oplog *log, unsigned samples);

/* Units waiting, the samples among them, and what they hold (bytes: their texts and
 * blobs, 8 per other value). */
size_t rec_oplog_units(const struct rec_oplog *log);
size_t rec_oplog_samples(const struct rec_oplog *log);
uint64_t rec_oplog_bytes(const struct rec_oplog *log);
/* The ops of the first units whose bytes add up to at most max_bytes (at least one unit);
 * *samples gets how many samples they hold. 0 when no unit waits. */
size_t rec_oplog_cut(const struct rec_oplog *log, uint64_t max_bytes, size_t *samples);
/* Ops [0, n) through st[op's statement]: SQLite's result code of the first failure. */
int rec_oplog_run(const struct rec_oplog *log, sqlite3_stmt *const *st, size_t n);
/* Forgets the first n ops (a unit's end: rec_oplog_cut's answer). */
void rec_oplog_drop(struct rec_oplog *log, size_t n);

#endif
