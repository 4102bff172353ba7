/* rec_reader.c - opening a recording and its snapshot; see record.h. One sample's
 * counters are read in rec_read_sample.c.
 *
 * rec_open() loads, in one read transaction, everything that is not per-sample counters
 * (meta, sample times, layer and disk keys, hook sets, device and domain rows, marks):
 * they are small, and a consistent snapshot of them makes every later rec_read() of a
 * sample below the snapshot's count see exactly the rows it needs, even while a recorder
 * keeps appending.
 */
#include "record/rec_reader_internal.h"

#include "core/arrays.h"
#include "core/free_all.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void copy_text(char *dst, size_t len, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(dst, len, "%s", t ? (const char *)t : "");
}
/* A device's or domain's samples: first_sample at col, last_sample after it (NULL while
 * it is still there: INT64_MAX). */
static void col_span(sqlite3_stmt *st, int col, int64_t *first, int64_t *last)
{
	*first = sqlite3_column_int64(st, col);
	*last = sqlite3_column_type(st, col + 1) == SQLITE_NULL ? INT64_MAX
	                                                        : sqlite3_column_int64(st, col + 1);
}

/* Per-row loader: 0, or an SQLite result code (SQLITE_NOMEM, SQLITE_CORRUPT). */
typedef int (*row_fn)(struct rec_reader *r, sqlite3_stmt *st);

/* Runs sql and calls fn per row. SQLite result code. */
static int each_row(struct rec_reader *r, const char *sql, row_fn fn)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int row_rc = fn(r, st);
		if (row_rc) {
			rc = row_rc;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Appends a copy of row (size bytes) to one of the snapshot's growable arrays
 * (core/arrays.h): 0, or SQLITE_NOMEM. Each row loader below builds its row and keeps it. */
static int keep_row(void **items, size_t *n, const void *row, size_t size)
{
	return arrays_append(items, n, row, size) ? SQLITE_NOMEM : 0;
}

static int meta_row(struct rec_reader *r, sqlite3_stmt *st)
{
	const unsigned char *k = sqlite3_column_text(st, 0), *v = sqlite3_column_text(st, 1);
	struct meta_kv m = {strdup(k ? (const char *)k : ""), strdup(v ? (const char *)v : "")};
	if (!m.key || !m.value || arrays_append((void **)&r->meta, &r->n_meta, &m, sizeof(m))) {
		free(m.key);
		free(m.value);
		return SQLITE_NOMEM;
	}
	return 0;
}

static int time_row(struct rec_reader *r, sqlite3_stmt *st)
{
	/* Sample indexes are dense from 0: anything else is not a file xiotop wrote. */
	if (sqlite3_column_int64(st, 0) != (sqlite3_int64)r->count) {
		r->gap = true;
		return SQLITE_CORRUPT;
	}
	int64_t t = sqlite3_column_int64(st, 1);
	return keep_row((void **)&r->times, &r->count, &t, sizeof(t));
}

static int key_row(struct rec_reader *r, sqlite3_stmt *st)
{
	struct key_row k = {sqlite3_column_int64(st, 0), (uint32_t)sqlite3_column_int64(st, 1),
	                    (uint32_t)sqlite3_column_int64(st, 2),
	                    (uint32_t)sqlite3_column_int64(st, 3)};
	return keep_row((void **)&r->keys, &r->n_keys, &k, sizeof(k));
}

static int disk_key_row(struct rec_reader *r, sqlite3_stmt *st)
{
	struct disk_row d = {.id = sqlite3_column_int64(st, 0),
	                     .dev = (uint32_t)sqlite3_column_int64(st, 1)};
	copy_text(d.name, sizeof(d.name), st, 2);
	return keep_row((void **)&r->disk_keys, &r->n_disk_keys, &d, sizeof(d));
}

static int vbd_key_row(struct rec_reader *r, sqlite3_stmt *st)
{
	struct vbd_row v = {
	    sqlite3_column_int64(st, 0),           (uint32_t)sqlite3_column_int64(st, 1),
	    (uint32_t)sqlite3_column_int64(st, 2), (uint32_t)sqlite3_column_int64(st, 3),
	    (uint32_t)sqlite3_column_int64(st, 4), col_u64(st, 5)};
	return keep_row((void **)&r->vbd_keys, &r->n_vbd_keys, &v, sizeof(v));
}

static int hooks_row(struct rec_reader *r, sqlite3_stmt *st)
{
	struct hooks_row h = {.id = sqlite3_column_int64(st, 0)};
	copy_text(h.hooks, sizeof(h.hooks), st, 1);
	return keep_row((void **)&r->hooks, &r->n_hooks, &h, sizeof(h));
}

static int dev_row(struct rec_reader *r, sqlite3_stmt *st)
{
	struct dev_row d = {.dev.dev = (uint32_t)sqlite3_column_int64(st, 0)};
	copy_text(d.dev.name, sizeof(d.dev.name), st, 1);
	d.dev.is_leaf = sqlite3_column_int(st, 2) != 0;
	col_span(st, 3, &d.first, &d.last);
	return keep_row((void **)&r->devs, &r->n_devs, &d, sizeof(d));
}

static int dom_row(struct rec_reader *r, sqlite3_stmt *st)
{
	struct dom_row d = {.dom.domid = (uint32_t)sqlite3_column_int64(st, 0)};
	copy_text(d.dom.name, sizeof(d.dom.name), st, 1);
	copy_text(d.dom.kind, sizeof(d.dom.kind), st, 2);
	copy_text(d.dom.file, sizeof(d.dom.file), st, 3);
	d.dom.missing = sqlite3_column_int(st, 4) != 0;
	col_span(st, 5, &d.first, &d.last);
	copy_text(d.dom.uuid, sizeof(d.dom.uuid), st, 7);
	d.dom.generation = (uint32_t)sqlite3_column_int64(st, 8); /* NULL: 0, unknown */
	d.dom.mem_bytes = col_u64(st, 9);
	return keep_row((void **)&r->doms, &r->n_doms, &d, sizeof(d));
}

static int mark_row(struct rec_reader *r, sqlite3_stmt *st)
{
	struct rec_mark m = {.realtime_ns = sqlite3_column_int64(st, 0)};
	copy_text(m.label, sizeof(m.label), st, 1);
	copy_text(m.origin, sizeof(m.origin), st, 2);
	m.exit_status = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 3);
	return keep_row((void **)&r->marks, &r->n_marks, &m, sizeof(m));
}

/* SQLite finds a damaged page only when a query reaches it; checking every page first
 * (about 3 ms per MB) turns a corrupt file into one clear error before any output. */
static int check_pages(struct rec_reader *r)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(r->db, "PRAGMA quick_check(1)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *verdict = sqlite3_column_text(st, 0);
		rc = verdict && !strcmp((const char *)verdict, "ok") ? SQLITE_OK : SQLITE_CORRUPT;
	}
	sqlite3_finalize(st);
	return rc;
}

/* The snapshot's queries, each with its row loader, in load order. */
static const struct {
	const char *sql;
	row_fn fn;
} snapshot[] = {
    {"SELECT key, value FROM meta", meta_row},
    {"SELECT idx, realtime_ns FROM samples ORDER BY idx", time_row},
    {"SELECT id, domid, dev, via FROM layer_keys ORDER BY id", key_row},
    {"SELECT id, dev, name FROM disk_keys ORDER BY id", disk_key_row},
    {"SELECT id, domid, devid, backend_dev, source, instance FROM vbd_keys ORDER BY id",
     vbd_key_row},
    {"SELECT id, hooks FROM hook_sets ORDER BY id", hooks_row},
    {"SELECT dev, name, is_leaf, first_sample, last_sample FROM devices ORDER BY dev, id", dev_row},
    {"SELECT domid, name, kind, file, missing, first_sample, last_sample, uuid, generation,"
     " mem_bytes FROM domains ORDER BY domid, id",
     dom_row},
    {"SELECT realtime_ns, label, origin, exit_status FROM marks ORDER BY realtime_ns, id",
     mark_row},
};

/* Each device row's array_role, in the order the devices were loaded; a file written
 * before the column has none: which devices are arrays is unknown in all its samples. */
static int load_arrays(struct rec_reader *r)
{
	r->arrays_unknown = !rec_has_column(r->db, "devices", "array_role");
	if (r->arrays_unknown)
		return SQLITE_OK;
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(r->db, "SELECT array_role FROM devices ORDER BY dev, id", -1,
	                            &st, NULL);
	size_t k = 0;
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (k == r->n_devs) {
			rc = SQLITE_CORRUPT;
			break;
		}
		r->devs[k++].dev.array =
		    (uint8_t)(sqlite3_column_int(st, 0) & (XIO_DEV_ARRAY | XIO_DEV_MEMBER));
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int keyframe_row(struct rec_reader *r, sqlite3_stmt *st)
{
	size_t k = (size_t)sqlite3_column_int64(st, 0);
	return keep_row((void **)&r->keyframes, &r->n_keyframes, &k, sizeof(k));
}

static int load_snapshot(struct rec_reader *r)
{
	int rc = check_pages(r);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_exec(r->db, "BEGIN", NULL, NULL, NULL);
	for (size_t q = 0; rc == SQLITE_OK && q < sizeof(snapshot) / sizeof(snapshot[0]); q++)
		rc = each_row(r, snapshot[q].sql, snapshot[q].fn);
	if (rc == SQLITE_OK && r->version >= 4) /* schema 4: a sample decodes from its keyframe */
		rc = each_row(r, "SELECT idx FROM samples WHERE base IS NULL ORDER BY idx",
		              keyframe_row);
	if (rc == SQLITE_OK)
		rc = load_arrays(r);
	if (rc != SQLITE_OK) /* COMMIT below would replace SQLite's message */
		snprintf(r->load_error, sizeof(r->load_error), "%s", sqlite3_errmsg(r->db));
	sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL);
	return rc;
}

void rec_reader_close(struct rec_reader *r)
{
	if (!r)
		return;
	for (int i = 0; i < RS_COUNT; i++)
		sqlite3_finalize(r->st[i]);
	sqlite3_close(r->db);
	for (size_t i = 0; i < r->n_meta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].value);
	}
	rec_keyframe_free(&r->kf);
	rec_items_free(&r->chain[0]);
	rec_items_free(&r->chain[1]);
	rec_buf_free(&r->code);
	rec_buf_free(&r->scratch);
	FREE_ALL(r->meta, r->times, r->marks, r->keys, r->disk_keys, r->vbd_keys, r->hooks, r->devs,
	         r->doms, r->keyframes, r->path, r);
}

struct rec_reader *rec_open(const char *path, struct xerr *err)
{
	struct rec_reader *r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path))) {
		free(r);
		rec_set_error(err, REC_ERR_NOMEM, "%s: out of memory", path);
		return NULL;
	}
	rec_keyframe_init(&r->kf);
	r->chain_at[0] = r->chain_at[1] = -1;
	r->db = rec_db_open_checked(path, false, &r->version, err);
	if (!r->db) {
		rec_reader_close(r);
		return NULL;
	}
	int rc = load_snapshot(r);
	if (r->gap) {
		rec_set_error(err, REC_ERR_CORRUPT, "%s is corrupt: sample %zu is missing", path,
		              r->count);
		rec_reader_close(r);
		return NULL;
	}
	if ((rc & 0xff) == SQLITE_ERROR) {
		/* A table or column of this schema version missing: not a file xiotop wrote. */
		rec_set_error(err, REC_ERR_CORRUPT, "%s is corrupt: %s", path, r->load_error);
		rec_reader_close(r);
		return NULL;
	}
	if (rc != SQLITE_OK) {
		/* SQLite's message went with the COMMIT: the code's own text says it. */
		rec_set_sqlite_error(err, NULL, rc, path, "reading its tables");
		rec_reader_close(r);
		return NULL;
	}
	rc = rec_reader_prepare(r);
	if ((rc & 0xff) == SQLITE_ERROR) {
		rec_set_error(err, REC_ERR_CORRUPT, "%s is corrupt: %s", path,
		              sqlite3_errmsg(r->db));
		rec_reader_close(r);
		return NULL;
	}
	if (rc != SQLITE_OK) {
		rec_set_sqlite_error(err, r->db, rc, path, "reading its tables");
		rec_reader_close(r);
		return NULL;
	}
	for (size_t i = 0; i < r->n_marks; i++)
		r->marks[i].at_or_after = rec_find_at_or_after(r, r->marks[i].realtime_ns);
	return r;
}

const char *rec_path(const struct rec_reader *r)
{
	return r->path;
}

const int64_t *rec_times(const struct rec_reader *r)
{
	return r->times;
}

size_t rec_count(const struct rec_reader *r)
{
	return r->count;
}

int64_t rec_time(const struct rec_reader *r, size_t i)
{
	return i < r->count ? r->times[i] : 0;
}

size_t rec_n_marks(const struct rec_reader *r)
{
	return r->n_marks;
}

const struct rec_mark *rec_marks(const struct rec_reader *r)
{
	return r->marks;
}

int rec_schema_version(const struct rec_reader *r)
{
	return r->version;
}

const char *rec_meta(const struct rec_reader *r, const char *key)
{
	for (size_t i = 0; i < r->n_meta; i++)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].value;
	return NULL;
}

/* Linear, not binary: a wall clock set back during a recording makes times unsorted,
 * and the answer must still be the first/last such sample. */
size_t rec_find_at_or_after(const struct rec_reader *r, int64_t t)
{
	size_t i = 0;
	while (i < r->count && r->times[i] < t)
		i++;
	return i;
}

size_t rec_find_at_or_before(const struct rec_reader *r, int64_t t)
{
	size_t i = r->count;
	while (i > 0 && r->times[i - 1] > t)
		i--;
	return i ? i - 1 : SIZE_MAX;
}
