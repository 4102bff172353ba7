/* rec_read_chain.c - one sample's items in a schema 4 recording: decoded from its
 * keyframe on, each sample against the one before it (rec_chain.h); see
 * rec_reader_internal.h. The two samples decoded last are kept, so reading a file in
 * order, or an interval's two samples in either order, decodes each sample once. */
#include "record/rec_reader_internal.h"

#include <string.h>

/* Sample i's rows, joined, into r->code. */
static int fetch_code(struct rec_reader *r, size_t i)
{
	sqlite3_stmt *st = r->st[RS_ITEMS];
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, REC_SLOT(i, 0));
	sqlite3_bind_int64(st, 2, REC_SLOT(i, REC_SLOT_MAX));
	r->code.len = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(st, 0);
		if (!n)
			return SQLITE_CORRUPT; /* the writer stores no empty row */
		if (rec_buf_reserve(&r->code, n))
			return SQLITE_NOMEM;
		memcpy(r->code.p + r->code.len, sqlite3_column_blob(st, 0), n);
		r->code.len += n;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return rc;
	return r->code.len ? SQLITE_OK : SQLITE_CORRUPT;
}

/* samples.base of sample i: -1 NULL (a keyframe). */
static int base_of(struct rec_reader *r, size_t i, int64_t *base)
{
	sqlite3_stmt *st = r->st[RS_BASE];
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*base =
		    sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? SQLITE_OK : rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
}

static int held(const struct rec_reader *r, size_t i)
{
	for (int k = 0; k < 2; k++)
		if (r->chain_at[k] == (int64_t)i)
			return k;
	return -1;
}

/* Sample i into the slot that does not hold `keep` (-1: either), against slot `from`
 * (-1: a keyframe). The slot it went to, or -1 with *rc. */
static int decode_into(struct rec_reader *r, size_t i, int from, int *rc)
{
	int to = from >= 0 ? !from : r->chain_at[0] <= r->chain_at[1] ? 0 : 1;
	*rc = fetch_code(r, i);
	r->chain_at[to] = -1;
	if (*rc == SQLITE_OK)
		*rc = rec_chain_decode(r->code.p, r->code.len, from >= 0 ? &r->chain[from] : NULL,
		                       &r->chain[to], &r->scratch);
	if (*rc != SQLITE_OK)
		return -1;
	r->chain_at[to] = (int64_t)i;
	return to;
}

/* The last keyframe at or before i; -1 none. */
static int64_t keyframe_before(const struct rec_reader *r, size_t i)
{
	size_t lo = 0, hi = r->n_keyframes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->keyframes[mid] <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? (int64_t)r->keyframes[lo - 1] : -1;
}

int rec_read_chain(struct rec_reader *r, size_t i, int64_t base, const struct rec_items **items)
{
	int rc = SQLITE_OK, slot = held(r, i);
	if (slot < 0 && base >= 0 && base != (int64_t)i - 1)
		return SQLITE_CORRUPT; /* a base is the sample before */
	if (slot < 0 && base < 0)
		slot = decode_into(r, i, -1, &rc);
	else if (slot < 0 && held(r, i - 1) >= 0)
		slot = decode_into(r, i, held(r, i - 1), &rc);
	else if (slot < 0) {
		int64_t k = keyframe_before(r, i);
		if (k < 0)
			return SQLITE_CORRUPT;
		slot = decode_into(r, (size_t)k, -1, &rc);
		for (size_t j = (size_t)k + 1; slot >= 0 && j <= i; j++) {
			int64_t b = -1;
			if ((rc = base_of(r, j, &b)) != SQLITE_OK)
				return rc;
			if (b != (int64_t)j - 1)
				return SQLITE_CORRUPT; /* a keyframe list that is not the file's */
			slot = decode_into(r, j, slot, &rc);
		}
	}
	if (slot < 0)
		return rc;
	*items = &r->chain[slot];
	return SQLITE_OK;
}
