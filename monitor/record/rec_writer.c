/* rec_writer.c - samples -> a new recording, one transaction per sample; see record.h.
 *
 * Names that rarely change (layer keys, disk names, hook sets, devices, domains) are
 * stored once; the writer remembers what it stored so a sample costs only its counter
 * rows. Devices and domains are kept as "open" rows: a row is closed (last_sample set)
 * when its device or domain disappears or changes, and a changed one gets a new row.
 */
#include "rec_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A tripwire, not a limit: these sizes change when sample.h gains a field, and a field
 * the recorder does not store is lost from every recording. Store it (a new nullable
 * column, SCHEMA.md, the reader), then update the sizes. */
#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(struct xs_sample) == 424 && sizeof(struct xs_layer) == 48 &&
                   sizeof(struct xs_dev) == 40 && sizeof(struct xs_disk) == 72 &&
                   sizeof(struct xs_domain) == 392 && sizeof(struct xs_dom_counters) == 64 &&
                   sizeof(struct xs_vbd_stat) == 96,
               "sample.h changed: store the new field in recordings (monitor/record)");
#endif

struct layer_key_id {
	uint32_t domid, dev, via;
	int64_t id;
};

struct disk_key_id {
	uint32_t dev;
	char name[32];
	int64_t id;
};

struct vbd_key_id {
	uint32_t domid, devid, backend_dev, source;
	uint64_t instance;
	int64_t id;
};

struct open_dev {
	struct xs_dev dev;
	int64_t id;
	bool seen; /* present in the sample being appended */
};

struct open_domain {
	struct xs_domain dom;
	int64_t id;
	bool seen;
};

enum writer_stmt {
	ST_SAMPLE,
	ST_LAYER_KEY,
	ST_LAYER,
	ST_COUNTERS,
	ST_DISK_KEY,
	ST_DISK,
	ST_HOOKS_ADD,
	ST_HOOKS_GET,
	ST_DEV_OPEN,
	ST_DEV_CLOSE,
	ST_DOM_OPEN,
	ST_DOM_CLOSE,
	ST_VBD_KEY,
	ST_VBD,
	ST_COUNT
};

static const char *const writer_sql[ST_COUNT] = {
    [ST_SAMPLE] = "INSERT INTO samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_LAYER_KEY] = "INSERT INTO layer_keys (domid, dev, via) VALUES (?,?,?)",
    [ST_LAYER] = "INSERT INTO layer_counts VALUES (?,?,?,?,?,?)",
    [ST_COUNTERS] = "INSERT INTO dom_counters VALUES (?,?,?,?,?,?,?,?,?)",
    [ST_DISK_KEY] = "INSERT INTO disk_keys (dev, name) VALUES (?,?)",
    [ST_DISK] = "INSERT INTO disk_counts VALUES (?,?,?,?,?,?)",
    [ST_HOOKS_ADD] = "INSERT OR IGNORE INTO hook_sets (hooks) VALUES (?)",
    [ST_HOOKS_GET] = "SELECT id FROM hook_sets WHERE hooks = ?",
    [ST_DEV_OPEN] = "INSERT INTO devices (dev, name, is_leaf, first_sample) VALUES (?,?,?,?)",
    [ST_DEV_CLOSE] = "UPDATE devices SET last_sample = ? WHERE id = ?",
    [ST_DOM_OPEN] = "INSERT INTO domains (domid, name, kind, file, missing, first_sample, uuid,"
                    " generation, mem_bytes) VALUES (?,?,?,?,?,?,?,?,?)",
    [ST_DOM_CLOSE] = "UPDATE domains SET last_sample = ? WHERE id = ?",
    [ST_VBD_KEY] = "INSERT INTO vbd_keys (domid, devid, backend_dev, source, instance) "
                   "VALUES (?,?,?,?,?)",
    [ST_VBD] = "INSERT INTO vbd_counts VALUES (?,?,?,?,?,?,?,?,?,?,?)",
};

struct rec_writer {
	sqlite3 *db;
	char *path;
	size_t count;            /* samples committed */
	struct rec_error failed; /* sticky: set once the writer is closed by an error */
	sqlite3_stmt *st[ST_COUNT];

	struct layer_key_id *keys; /* sorted by (domid, dev, via) */
	size_t n_keys, cap_keys;
	struct disk_key_id *disk_keys;
	size_t n_disk_keys;
	struct vbd_key_id *vbd_keys;
	size_t n_vbd_keys;
	struct open_dev *devs;
	size_t n_devs;
	struct open_domain *doms;
	size_t n_doms;
	char hooks[sizeof(((struct xs_sample *)0)->hooks)];
	int64_t hooks_id; /* 0: no hook set stored yet */
};

static void finalize_all(struct rec_writer *w)
{
	for (int i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(w->st[i]);
		w->st[i] = NULL;
	}
}

/* Closes the database after a fatal error; keeps the error for later calls. */
static int fail(struct rec_writer *w, struct rec_error *err)
{
	if (w->db) {
		sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
		finalize_all(w);
		sqlite3_close(w->db);
		w->db = NULL;
	}
	if (err)
		*err = w->failed;
	return -1;
}

static int fail_sqlite(struct rec_writer *w, int rc, const char *doing, struct rec_error *err)
{
	rec_set_sqlite_error(&w->failed, w->db, rc, w->path, doing);
	if (w->failed.code == REC_ERR_FULL)
		rec_set_error(&w->failed, REC_ERR_FULL,
		              "disk full while writing %s: recording stopped after %zu samples, "
		              "all of them readable",
		              w->path, w->count);
	return fail(w, err);
}

static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int put_meta(sqlite3 *db, const char *key, const char *value)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES (?, ?)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int put_meta_u64(sqlite3 *db, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return put_meta(db, key, buf);
}

static int store_facts(sqlite3 *db, const struct rec_host_facts *f)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	char created[40];
	struct tm tm;
	gmtime_r(&now.tv_sec, &tm);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	char version[16];
	snprintf(version, sizeof(version), "%d", REC_SCHEMA_VERSION);
	int rc = put_meta(db, "schema_version", version);
	if (rc == SQLITE_OK)
		rc = put_meta(db, "xiotop_version", XIOTOP_VERSION);
	if (rc == SQLITE_OK)
		rc = put_meta(db, "created", created);
	if (rc == SQLITE_OK)
		rc = put_meta_u64(db, "created_ns",
		                  (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
	if (!f)
		return rc;
	if (rc == SQLITE_OK && f->hostname[0])
		rc = put_meta(db, "hostname", f->hostname);
	if (rc == SQLITE_OK && f->kernel_release[0])
		rc = put_meta(db, "kernel_release", f->kernel_release);
	if (rc == SQLITE_OK && f->cpu_count > 0)
		rc = put_meta_u64(db, "cpu_count", (uint64_t)f->cpu_count);
	if (rc == SQLITE_OK && f->mem_total_kb)
		rc = put_meta_u64(db, "dom0_mem_kb", f->mem_total_kb);
	for (int i = 0; rc == SQLITE_OK && i < REC_DIRTY_SYSCTLS; i++)
		if (f->dirty[i].name && f->dirty[i].value[0])
			rc = put_meta(db, f->dirty[i].name, f->dirty[i].value);
	return rc;
}

/* Removes a file this writer created but could not make into a recording. */
static void remove_files(const char *path)
{
	char side[4096];
	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

static struct rec_writer *create_failed(struct rec_writer *w, int rc, const char *doing,
                                        struct rec_error *err)
{
	rec_set_sqlite_error(err, w->db, rc, w->path, doing);
	finalize_all(w);
	sqlite3_close(w->db);
	remove_files(w->path);
	free(w->path);
	free(w);
	return NULL;
}

struct rec_writer *rec_create(const char *path, const struct rec_host_facts *facts,
                              struct rec_error *err)
{
	/* Created here, not by SQLite, so that it is new (never someone's file overwritten)
	 * and 0640 whatever the umask lets SQLite use; its -wal and -shm files take the
	 * database file's mode. */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (fd < 0) {
		if (errno == EEXIST)
			rec_set_error(err, REC_ERR_EXISTS,
			              "%s exists: a recording is never overwritten; remove it or "
			              "choose another name",
			              path);
		else
			rec_set_error(err, REC_ERR_IO, "cannot create recording %s: %s", path,
			              strerror(errno));
		return NULL;
	}
	int chmod_rc = fchmod(fd, 0640);
	close(fd);
	struct rec_writer *w = calloc(1, sizeof(*w));
	char *p = strdup(path);
	if (!w || !p || chmod_rc) {
		rec_set_error(err, w && p ? REC_ERR_IO : REC_ERR_NOMEM,
		              "cannot create recording %s: %s", path, strerror(errno));
		unlink(path);
		free(w);
		free(p);
		return NULL;
	}
	w->path = p;
	int rc = sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK)
		return create_failed(w, rc, "opening it", err);
	sqlite3_busy_timeout(w->db, REC_BUSY_TIMEOUT_MS);
	/* WAL: readers (export, mark) never block the recorder. synchronous=FULL: each
	 * committed interval survives a host crash, at one fsync per interval. */
	rc = sqlite3_exec(w->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL", NULL, NULL,
	                  NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = rec_schema_create(w->db);
	if (rc == SQLITE_OK)
		rc = store_facts(w->db, facts);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return create_failed(w, rc, "creating its tables", err);
	for (int i = 0; i < ST_COUNT; i++) {
		rc = sqlite3_prepare_v3(w->db, writer_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		                        &w->st[i], NULL);
		if (rc != SQLITE_OK)
			return create_failed(w, rc, "preparing statements", err);
	}
	return w;
}

int rec_set_meta(struct rec_writer *w, const char *key, const char *value, struct rec_error *err)
{
	if (!w->db)
		return fail(w, err);
	int rc = put_meta(w->db, key, value);
	return rc == SQLITE_OK ? 0 : fail_sqlite(w, rc, "storing a fact", err);
}

int rec_set_size_limit(struct rec_writer *w, uint64_t max_bytes, struct rec_error *err)
{
	if (!w->db)
		return fail(w, err);
	int64_t page_size = 4096;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(w->db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			page_size = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count=%llu",
	         (unsigned long long)(max_bytes / (uint64_t)page_size));
	int rc = sqlite3_exec(w->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : fail_sqlite(w, rc, "setting a size limit", err);
}

static int key_cmp(const struct layer_key_id *k, const struct xs_layer *l)
{
	if (k->domid != l->domid)
		return k->domid < l->domid ? -1 : 1;
	if (k->dev != l->dev)
		return k->dev < l->dev ? -1 : 1;
	if (k->via != l->via)
		return k->via < l->via ? -1 : 1;
	return 0;
}

/* The id of a layer key, stored on first use. 0 on an SQLite error (rc in *rc). */
static int64_t layer_key(struct rec_writer *w, const struct xs_layer *l, int *rc)
{
	size_t lo = 0, hi = w->n_keys;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(&w->keys[mid], l);
		if (c == 0)
			return w->keys[mid].id;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (w->n_keys == w->cap_keys) {
		size_t cap = w->cap_keys ? w->cap_keys * 2 : 64;
		struct layer_key_id *p = realloc(w->keys, cap * sizeof(*p));
		if (!p) {
			*rc = SQLITE_NOMEM;
			return 0;
		}
		w->keys = p;
		w->cap_keys = cap;
	}
	sqlite3_stmt *st = w->st[ST_LAYER_KEY];
	sqlite3_bind_int64(st, 1, l->domid);
	sqlite3_bind_int64(st, 2, l->dev);
	sqlite3_bind_int64(st, 3, l->via);
	*rc = step_done(st);
	if (*rc != SQLITE_OK)
		return 0;
	memmove(&w->keys[lo + 1], &w->keys[lo], (w->n_keys - lo) * sizeof(*w->keys));
	w->keys[lo] =
	    (struct layer_key_id){l->domid, l->dev, l->via, sqlite3_last_insert_rowid(w->db)};
	w->n_keys++;
	return w->keys[lo].id;
}

static int64_t disk_key(struct rec_writer *w, const struct xs_disk *d, int *rc)
{
	for (size_t i = 0; i < w->n_disk_keys; i++)
		if (w->disk_keys[i].dev == d->dev &&
		    !strncmp(w->disk_keys[i].name, d->name, sizeof(d->name)))
			return w->disk_keys[i].id;
	struct disk_key_id *p = realloc(w->disk_keys, (w->n_disk_keys + 1) * sizeof(*p));
	if (!p) {
		*rc = SQLITE_NOMEM;
		return 0;
	}
	w->disk_keys = p;
	sqlite3_stmt *st = w->st[ST_DISK_KEY];
	sqlite3_bind_int64(st, 1, d->dev);
	sqlite3_bind_text(st, 2, d->name, (int)strnlen(d->name, sizeof(d->name)), SQLITE_STATIC);
	*rc = step_done(st);
	if (*rc != SQLITE_OK)
		return 0;
	struct disk_key_id *k = &w->disk_keys[w->n_disk_keys++];
	k->dev = d->dev;
	memcpy(k->name, d->name, sizeof(k->name));
	k->name[sizeof(k->name) - 1] = 0;
	k->id = sqlite3_last_insert_rowid(w->db);
	return k->id;
}

static int store_hooks(struct rec_writer *w, const char *hooks)
{
	if (w->hooks_id && !strcmp(w->hooks, hooks))
		return SQLITE_OK;
	sqlite3_bind_text(w->st[ST_HOOKS_ADD], 1, hooks, -1, SQLITE_STATIC);
	int rc = step_done(w->st[ST_HOOKS_ADD]);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_stmt *st = w->st[ST_HOOKS_GET];
	sqlite3_bind_text(st, 1, hooks, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		w->hooks_id = sqlite3_column_int64(st, 0);
		snprintf(w->hooks, sizeof(w->hooks), "%s", hooks);
		rc = SQLITE_OK;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	/* The first sample's hooks are also a fact of the recording, for `sqlite3` users. */
	if (rc == SQLITE_OK && w->count == 0)
		rc = put_meta(w->db, "hooks", hooks);
	return rc;
}

static void bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	/* Stored as the same 64 bits: exact round trip; SQL shows >= 2^63 as negative. */
	sqlite3_bind_int64(st, col, (sqlite3_int64)v);
}

static int store_sample_row(struct rec_writer *w, const struct xs_sample *s)
{
	if (s->hooks[0]) {
		int rc = store_hooks(w, s->hooks);
		if (rc != SQLITE_OK)
			return rc;
	}
	sqlite3_stmt *st = w->st[ST_SAMPLE];
	sqlite3_bind_int64(st, 1, (sqlite3_int64)w->count);
	sqlite3_bind_int64(st, 2, s->realtime_ns);
	bind_u64(st, 3, s->monotonic_ns);
	bind_u64(st, 4, s->vmstat_pgpgin_kb);
	bind_u64(st, 5, s->vmstat_pgpgout_kb);
	bind_u64(st, 6, s->lost_events);
	bind_u64(st, 7, s->host_busy_ns);
	bind_u64(st, 8, s->cpu_unattributed_ns);
	sqlite3_bind_int(st, 9, s->has_cpu);
	sqlite3_bind_int(st, 10, s->has_dirty);
	if (s->hooks[0])
		sqlite3_bind_int64(st, 11, w->hooks_id);
	sqlite3_bind_int(st, 12, s->domains_live);
	sqlite3_bind_int(st, 13, s->has_vbd_stats);
	return step_done(st);
}

static int store_layers(struct rec_writer *w, const struct xs_sample *s)
{
	sqlite3_stmt *st = w->st[ST_LAYER];
	for (size_t i = 0; i < s->n_layers; i++) {
		const struct xs_layer *l = &s->layers[i];
		int rc = SQLITE_OK;
		int64_t id = layer_key(w, l, &rc);
		if (!id)
			return rc;
		sqlite3_bind_int64(st, 1, REC_SLOT(w->count, i));
		sqlite3_bind_int64(st, 2, id);
		bind_u64(st, 3, l->io.rd_bytes);
		bind_u64(st, 4, l->io.wr_bytes);
		bind_u64(st, 5, l->io.rd_ios);
		bind_u64(st, 6, l->io.wr_ios);
		rc = step_done(st);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static int store_counters(struct rec_writer *w, const struct xs_sample *s)
{
	sqlite3_stmt *st = w->st[ST_COUNTERS];
	for (size_t i = 0; i < s->n_counters; i++) {
		const struct xs_dom_counters *c = &s->counters[i];
		sqlite3_bind_int64(st, 1, REC_SLOT(w->count, i));
		sqlite3_bind_int64(st, 2, c->domid);
		for (int r = 0; r < XS_CPU_ROLES; r++)
			bind_u64(st, 3 + r, c->cpu_ns[r]);
		bind_u64(st, 3 + XS_CPU_ROLES, c->dirtied_bytes);
		bind_u64(st, 4 + XS_CPU_ROLES, c->written_back_bytes);
		if (c->guest_cpu_ns >= 0) /* unknown: NULL */
			sqlite3_bind_int64(st, 5 + XS_CPU_ROLES, c->guest_cpu_ns);
		int rc = step_done(st);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static int store_disks(struct rec_writer *w, const struct xs_sample *s)
{
	sqlite3_stmt *st = w->st[ST_DISK];
	for (size_t i = 0; i < s->n_disks; i++) {
		const struct xs_disk *d = &s->disks[i];
		int rc = SQLITE_OK;
		int64_t id = disk_key(w, d, &rc);
		if (!id)
			return rc;
		sqlite3_bind_int64(st, 1, REC_SLOT(w->count, i));
		sqlite3_bind_int64(st, 2, id);
		bind_u64(st, 3, d->rd_bytes);
		bind_u64(st, 4, d->wr_bytes);
		bind_u64(st, 5, d->rd_ios);
		bind_u64(st, 6, d->wr_ios);
		rc = step_done(st);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static int64_t vbd_key(struct rec_writer *w, const struct xs_vbd_stat *v, int *rc)
{
	for (size_t i = 0; i < w->n_vbd_keys; i++) {
		const struct vbd_key_id *k = &w->vbd_keys[i];
		if (k->domid == v->domid && k->devid == v->devid &&
		    k->backend_dev == v->backend_dev && k->source == v->source &&
		    k->instance == v->instance)
			return k->id;
	}
	struct vbd_key_id *p = realloc(w->vbd_keys, (w->n_vbd_keys + 1) * sizeof(*p));
	if (!p) {
		*rc = SQLITE_NOMEM;
		return 0;
	}
	w->vbd_keys = p;
	sqlite3_stmt *st = w->st[ST_VBD_KEY];
	sqlite3_bind_int64(st, 1, v->domid);
	sqlite3_bind_int64(st, 2, v->devid);
	sqlite3_bind_int64(st, 3, v->backend_dev);
	sqlite3_bind_int64(st, 4, v->source);
	bind_u64(st, 5, v->instance);
	*rc = step_done(st);
	if (*rc != SQLITE_OK)
		return 0;
	p[w->n_vbd_keys] =
	    (struct vbd_key_id){v->domid,  v->devid,    v->backend_dev,
	                        v->source, v->instance, sqlite3_last_insert_rowid(w->db)};
	return p[w->n_vbd_keys++].id;
}

static int store_vbds(struct rec_writer *w, const struct xs_sample *s)
{
	sqlite3_stmt *st = w->st[ST_VBD];
	for (size_t i = 0; i < s->n_vbd_stats; i++) {
		const struct xs_vbd_stat *v = &s->vbd_stats[i];
		int rc = SQLITE_OK;
		int64_t id = vbd_key(w, v, &rc);
		if (!id)
			return rc;
		sqlite3_bind_int64(st, 1, REC_SLOT(w->count, i));
		sqlite3_bind_int64(st, 2, id);
		bind_u64(st, 3, v->rd_bytes);
		bind_u64(st, 4, v->wr_bytes);
		bind_u64(st, 5, v->rd_req);
		bind_u64(st, 6, v->wr_req);
		bind_u64(st, 7, v->oo_req);
		bind_u64(st, 8, v->f_req);
		bind_u64(st, 9, v->ds_req);
		bind_u64(st, 10, v->skew_rd_bytes);
		bind_u64(st, 11, v->skew_wr_bytes);
		rc = step_done(st);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static bool same_dev(const struct xs_dev *a, const struct xs_dev *b)
{
	return a->dev == b->dev && a->is_leaf == b->is_leaf &&
	       !strncmp(a->name, b->name, sizeof(a->name));
}

static bool same_domain(const struct xs_domain *a, const struct xs_domain *b)
{
	return a->domid == b->domid && a->missing == b->missing && a->generation == b->generation &&
	       a->mem_bytes == b->mem_bytes && !strncmp(a->uuid, b->uuid, sizeof(a->uuid)) &&
	       !strncmp(a->name, b->name, sizeof(a->name)) &&
	       !strncmp(a->kind, b->kind, sizeof(a->kind)) &&
	       !strncmp(a->file, b->file, sizeof(a->file));
}

static int close_row(struct rec_writer *w, enum writer_stmt which, int64_t id)
{
	sqlite3_stmt *st = w->st[which];
	sqlite3_bind_int64(st, 1, (sqlite3_int64)w->count - 1);
	sqlite3_bind_int64(st, 2, id);
	return step_done(st);
}

static void bind_name(sqlite3_stmt *st, int col, const char *s, size_t max)
{
	sqlite3_bind_text(st, col, s, (int)strnlen(s, max), SQLITE_STATIC);
}

static int store_devices(struct rec_writer *w, const struct xs_sample *s)
{
	for (size_t j = 0; j < w->n_devs; j++)
		w->devs[j].seen = false;
	for (size_t i = 0; i < s->n_devs; i++) {
		const struct xs_dev *d = &s->devs[i];
		size_t j = 0;
		while (j < w->n_devs && (w->devs[j].seen || !same_dev(&w->devs[j].dev, d)))
			j++;
		if (j < w->n_devs) {
			w->devs[j].seen = true;
			continue;
		}
		struct open_dev *p = realloc(w->devs, (w->n_devs + 1) * sizeof(*p));
		if (!p)
			return SQLITE_NOMEM;
		w->devs = p;
		sqlite3_stmt *st = w->st[ST_DEV_OPEN];
		sqlite3_bind_int64(st, 1, d->dev);
		bind_name(st, 2, d->name, sizeof(d->name));
		sqlite3_bind_int(st, 3, d->is_leaf);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)w->count);
		int rc = step_done(st);
		if (rc != SQLITE_OK)
			return rc;
		p[w->n_devs] = (struct open_dev){*d, sqlite3_last_insert_rowid(w->db), true};
		w->n_devs++;
	}
	size_t kept = 0;
	for (size_t j = 0; j < w->n_devs; j++) {
		if (!w->devs[j].seen) {
			int rc = close_row(w, ST_DEV_CLOSE, w->devs[j].id);
			if (rc != SQLITE_OK)
				return rc;
			continue;
		}
		w->devs[kept++] = w->devs[j];
	}
	w->n_devs = kept;
	return SQLITE_OK;
}

static int store_domains(struct rec_writer *w, const struct xs_sample *s)
{
	for (size_t j = 0; j < w->n_doms; j++)
		w->doms[j].seen = false;
	for (size_t i = 0; i < s->n_domains; i++) {
		const struct xs_domain *d = &s->domains[i];
		size_t j = 0;
		while (j < w->n_doms && (w->doms[j].seen || !same_domain(&w->doms[j].dom, d)))
			j++;
		if (j < w->n_doms) {
			w->doms[j].seen = true;
			continue;
		}
		struct open_domain *p = realloc(w->doms, (w->n_doms + 1) * sizeof(*p));
		if (!p)
			return SQLITE_NOMEM;
		w->doms = p;
		sqlite3_stmt *st = w->st[ST_DOM_OPEN];
		sqlite3_bind_int64(st, 1, d->domid);
		bind_name(st, 2, d->name, sizeof(d->name));
		bind_name(st, 3, d->kind, sizeof(d->kind));
		bind_name(st, 4, d->file, sizeof(d->file));
		sqlite3_bind_int(st, 5, d->missing);
		sqlite3_bind_int64(st, 6, (sqlite3_int64)w->count);
		bind_name(st, 7, d->uuid, sizeof(d->uuid));
		if (d->generation) /* unknown: NULL */
			sqlite3_bind_int64(st, 8, d->generation);
		if (d->mem_bytes)
			bind_u64(st, 9, d->mem_bytes);
		int rc = step_done(st);
		if (rc != SQLITE_OK)
			return rc;
		p[w->n_doms] = (struct open_domain){*d, sqlite3_last_insert_rowid(w->db), true};
		w->n_doms++;
	}
	size_t kept = 0;
	for (size_t j = 0; j < w->n_doms; j++) {
		if (!w->doms[j].seen) {
			int rc = close_row(w, ST_DOM_CLOSE, w->doms[j].id);
			if (rc != SQLITE_OK)
				return rc;
			continue;
		}
		w->doms[kept++] = w->doms[j];
	}
	w->n_doms = kept;
	return SQLITE_OK;
}

int rec_append(struct rec_writer *w, const struct xs_sample *s, struct rec_error *err)
{
	if (!w->db)
		return fail(w, err);
	if (s->n_layers > REC_SLOT_MAX + 1u || s->n_counters > REC_SLOT_MAX + 1u ||
	    s->n_disks > REC_SLOT_MAX + 1u || s->n_vbd_stats > REC_SLOT_MAX + 1u) {
		rec_set_error(&w->failed, REC_ERR_RANGE,
		              "%s: a sample with more than %u layers, domains, disks or vbds",
		              w->path, REC_SLOT_MAX + 1);
		return fail(w, err);
	}
	int rc = sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if ((rc & 0xff) == SQLITE_BUSY) {
		/* Nothing changed yet: skip this sample, the next one's cumulative counters
		 * cover the gap. */
		rec_set_error(err, REC_ERR_BUSY,
		              "%s is locked by another writer: one sample skipped", w->path);
		return -1;
	}
	if (rc == SQLITE_OK)
		rc = store_sample_row(w, s);
	if (rc == SQLITE_OK)
		rc = store_layers(w, s);
	if (rc == SQLITE_OK)
		rc = store_counters(w, s);
	if (rc == SQLITE_OK)
		rc = store_disks(w, s);
	if (rc == SQLITE_OK)
		rc = store_vbds(w, s);
	if (rc == SQLITE_OK)
		rc = store_devices(w, s);
	if (rc == SQLITE_OK)
		rc = store_domains(w, s);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return fail_sqlite(w, rc, "appending a sample", err);
	w->count++;
	return 0;
}

int rec_add_mark_from(struct rec_writer *w, const char *label, int64_t realtime_ns,
                      const char *origin, int exit_status, struct rec_error *err)
{
	if (!w->db)
		return fail(w, err);
	int rc = rec_db_insert_mark(w->db, label, realtime_ns, origin, exit_status);
	return rc == SQLITE_OK ? 0 : fail_sqlite(w, rc, "storing a mark", err);
}

int rec_add_mark(struct rec_writer *w, const char *label, int64_t realtime_ns,
                 struct rec_error *err)
{
	return rec_add_mark_from(w, label, realtime_ns, "api", -1, err);
}

size_t rec_writer_count(const struct rec_writer *w)
{
	return w->count;
}

int rec_close(struct rec_writer *w, struct rec_error *err)
{
	if (!w)
		return 0;
	int ret = 0;
	if (w->db) {
		finalize_all(w);
		/* The last connection to close folds the WAL into the file and removes it. */
		int rc = sqlite3_close(w->db);
		if (rc != SQLITE_OK) {
			rec_set_sqlite_error(err, w->db, rc, w->path, "closing it");
			ret = -1;
		}
	} else if (w->failed.code) {
		if (err)
			*err = w->failed;
		ret = -1;
	}
	free(w->keys);
	free(w->disk_keys);
	free(w->vbd_keys);
	free(w->devs);
	free(w->doms);
	free(w->path);
	free(w);
	return ret;
}

int rec_mark_file(const char *path, const char *label, int64_t realtime_ns, const char *origin,
                  struct rec_error *err)
{
	int version = 0;
	sqlite3 *db = rec_db_open_checked(path, true, &version, err);
	if (!db)
		return -1;
	int rc = rec_db_insert_mark(db, label, realtime_ns, origin, -1);
	if (rc != SQLITE_OK)
		rec_set_sqlite_error(err, db, rc, path, "storing the mark");
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}
