/* rec_latency.h - the latency histograms of a sample in a recording (table latency_counts,
 * SCHEMA.md), for the writer and the reader.
 *
 * Contract: a histogram is stored as its count, sum and the span of buckets from the
 * first to the last non-empty one (`low`, and a BLOB of little-endian 64-bit counts), so
 * an idle (domain, op) costs a few bytes. Reading checks the span: a blob that is not
 * whole 64-bit counts, or reaches past the last bucket, is a corrupt file. Not part of the
 * public API (record.h).
 */
#ifndef XIOTOP_REC_LATENCY_H
#define XIOTOP_REC_LATENCY_H

#include "record/rec_internal.h"

#define REC_LATENCY_INSERT_SQL "INSERT INTO latency_counts VALUES (?,?,?,?,?,?,?)"
#define REC_LATENCY_SELECT_SQL                                                                     \
	"SELECT domid, op, count, sum_ns, low, buckets FROM latency_counts"                        \
	" WHERE slot BETWEEN ? AND ? ORDER BY slot"

/* Sample `sample`'s histograms through the prepared insert st. SQLite result code. */
int rec_store_latency(sqlite3_stmt *st, size_t sample, const struct xio_sample *s);
/* The rows of the select st (bound to one sample's slots) into s. SQLite result code
 * (SQLITE_CORRUPT for a bad span). */
int rec_read_latency(sqlite3_stmt *st, struct xio_sample *s);

#endif
