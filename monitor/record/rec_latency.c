/* rec_latency.c - latency histograms from latency_counts rows (schemas 1 and 2); see
 * rec_latency.h. */
#include "record/rec_latency.h"

#include "record/rec_pack.h"

#include <string.h>

/* Schema 1's span: little-endian 64-bit counts. False when it does not fit. */
static bool decode_fixed(const unsigned char *blob, int len, int64_t low, struct xiotop_lat *h)
{
	if (len % 8 || low + len / 8 > XIOTOP_LAT_BUCKETS)
		return false;
	for (int b = 0; b < len / 8; b++) {
		uint64_t v = 0;
		for (int byte = 0; byte < 8; byte++)
			v |= (uint64_t)blob[8 * b + byte] << (8 * byte);
		h->buckets[low + b] = v;
	}
	return true;
}

/* Schema 2's span: LEB128 counts. False for a count cut short or over 64 bits, or a span
 * past the last bucket. */
static bool decode_varints(const unsigned char *blob, int len, int64_t low, struct xiotop_lat *h)
{
	size_t at = 0;
	for (int64_t b = low; at < (size_t)len; b++) {
		uint64_t v;
		if (b >= XIOTOP_LAT_BUCKETS || !rec_varint_get(blob, (size_t)len, &at, &v))
			return false;
		h->buckets[b] = v;
	}
	return true;
}

/* The buckets of one row from its span; false when the span does not fit. */
static bool decode_buckets(sqlite3_stmt *st, int version, struct xiotop_lat *h)
{
	if (sqlite3_column_type(st, 5) == SQLITE_NULL)
		return true; /* no I/O timed yet */
	int64_t low = sqlite3_column_int64(st, 4);
	const unsigned char *blob = sqlite3_column_blob(st, 5);
	int len = sqlite3_column_bytes(st, 5);
	if (low < 0 || low >= XIOTOP_LAT_BUCKETS || (len && !blob))
		return false;
	return version < 2 ? decode_fixed(blob, len, low, h) : decode_varints(blob, len, low, h);
}

int rec_read_latency(sqlite3_stmt *st, int version, struct xio_sample *s)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct xio_latency l;
		memset(&l, 0, sizeof(l));
		l.domid = (uint32_t)sqlite3_column_int64(st, 0);
		int64_t op = sqlite3_column_int64(st, 1);
		if (op < 0 || op >= XIOTOP_LAT_OPS)
			return SQLITE_CORRUPT;
		l.op = (uint32_t)op;
		l.hist.count = (uint64_t)sqlite3_column_int64(st, 2);
		l.hist.sum_ns = (uint64_t)sqlite3_column_int64(st, 3);
		if (!decode_buckets(st, version, &l.hist))
			return SQLITE_CORRUPT;
		l.untimed = (uint32_t)sqlite3_column_int64(st, 6); /* NULL: 0, timed */
		if (sample_add_latency(s, &l))
			return SQLITE_NOMEM;
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}
