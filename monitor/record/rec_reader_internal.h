/* rec_reader_internal.h - the reader's state, shared by its two halves: rec_reader.c
 * (opening a file and loading its snapshot of keys, names, marks and meta) and
 * rec_read_sample.c (one sample's counters from the rows of that snapshot).
 *
 * Contract: rec_open() fills every array below in one read transaction, then calls
 * rec_reader_prepare() for the per-sample statements; rec_read() only reads. Not part
 * of the public API (record.h).
 */
#ifndef XIOTOP_REC_READER_INTERNAL_H
#define XIOTOP_REC_READER_INTERNAL_H

#include "record/rec_chain.h"
#include "record/rec_internal.h"
#include "record/rec_pack.h"

struct meta_kv {
	char *key, *value;
};

struct key_row {
	int64_t id;
	uint32_t domid, dev, via;
};

struct disk_row {
	int64_t id;
	uint32_t dev;
	char name[32];
};

struct vbd_row {
	int64_t id;
	uint32_t domid, devid, backend_dev, source;
	uint64_t instance;
};

struct hooks_row {
	int64_t id;
	char hooks[sizeof(((struct xio_sample *)0)->hooks)];
};

/* A device or domain as stored: present in samples first..last. */
struct dev_row {
	struct xio_dev dev;
	int64_t first, last;
};

struct dom_row {
	struct xio_domain dom;
	int64_t first, last;
};

/* RS_ITEMS for schema 3 and 4 files (RS_BASE: 4), the others for older ones (RS_LATENCY
 * NULL for a file written before latency_counts existed). */
enum reader_stmt {
	RS_SAMPLE,
	RS_ITEMS,
	RS_BASE,
	RS_LAYERS,
	RS_COUNTERS,
	RS_DISKS,
	RS_VBDS,
	RS_LATENCY,
	RS_COUNT
};

struct rec_reader {
	sqlite3 *db;
	char *path;
	int version;
	bool gap; /* sample indexes are not 0, 1, 2, ... */
	char load_error[160];
	sqlite3_stmt *st[RS_COUNT];
	size_t count;
	int64_t *times;
	struct rec_mark *marks;
	size_t n_marks;
	struct meta_kv *meta;
	size_t n_meta;
	struct key_row *keys; /* ordered by id */
	size_t n_keys;
	struct disk_row *disk_keys;
	size_t n_disk_keys;
	struct vbd_row *vbd_keys; /* ordered by id */
	size_t n_vbd_keys;
	struct hooks_row *hooks;
	size_t n_hooks;
	struct dev_row *devs;
	size_t n_devs;
	bool arrays_unknown; /* devices has no array_role column (a file written before it) */
	struct dom_row *doms;
	size_t n_doms;
	struct rec_keyframe kf; /* schema 3: the keyframe last read, the samples after it use */
	/* schema 4: the keyframes, and the items of the two samples last decoded */
	size_t *keyframes; /* ascending */
	size_t n_keyframes;
	struct rec_items chain[2];
	int64_t chain_at[2]; /* the sample each holds; -1: none */
	struct rec_buf code, scratch;
};

/* Schema 4: the items of sample i (whose samples.base is base: -1 NULL) decoded from its
 * keyframe on, or from the sample before it when that one is held; *items points into r,
 * valid until the next call. SQLite result code (SQLITE_CORRUPT for a bad chain). */
int rec_read_chain(struct rec_reader *r, size_t i, int64_t base, const struct rec_items **items);

static inline uint64_t col_u64(sqlite3_stmt *st, int col)
{
	return (uint64_t)sqlite3_column_int64(st, col);
}

/* Prepares the per-sample statements into r->st. SQLite result code. */
int rec_reader_prepare(struct rec_reader *r);

#endif
