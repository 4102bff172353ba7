/* rec_latency.h - the latency histograms of a sample in a schema 1 or 2 recording (table
 * latency_counts, SCHEMA.md), for the reader; schema 3 packs them (rec_pack.h).
 *
 * Contract: a histogram is stored as its count, sum and the span of buckets from the
 * first to the last non-empty one (`low`, and a BLOB of the counts: LEB128 varints since
 * schema 2, little-endian 64-bit counts in schema 1), so an idle (domain, op) costs a few
 * bytes and a count a byte per 7 bits. Reading checks the span: a count cut short or
 * over 64 bits (schema 1: a blob that is not whole 64-bit counts), or a span past the
 * last bucket, is a corrupt file. An entry not timed (xio_latency.untimed) keeps its bits in
 * `untimed`; NULL there (and a file without the column) is timed. Not part of the public
 * API (record.h).
 */
#ifndef XIOTOP_REC_LATENCY_H
#define XIOTOP_REC_LATENCY_H

#include "record/rec_internal.h"

/* %s: the untimed column, or NULL for a file written before it (every entry timed) */
#define REC_LATENCY_SELECT_SQL                                                                     \
	"SELECT domid, op, count, sum_ns, low, buckets, %s FROM latency_counts"                    \
	" WHERE slot BETWEEN ? AND ? ORDER BY slot"

/* The rows of the select st (bound to one sample's slots) into s, their spans encoded as
 * schema `version` writes them. SQLite result code (SQLITE_CORRUPT for a bad span). */
int rec_read_latency(sqlite3_stmt *st, int version, struct xio_sample *s);

#endif
