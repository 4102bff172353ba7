/* rec_writer.c - samples -> a new recording, one transaction per sample; see record.h.
 * This half creates the file, stores meta and marks, and closes; rec_write_sample.c
 * writes each sample's rows.
 *
 * Names that rarely change (layer keys, disk names, hook sets, devices, domains) are
 * stored once; the writer remembers what it stored so a sample costs only its counter
 * rows. Devices and domains are kept as "open" rows: a row is closed (last_sample set)
 * when its device or domain disappears or changes, and a changed one gets a new row.
 */
#include "record/rec_writer_internal.h"

#include "core/clock.h"
#include "core/free_all.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A tripwire, not a limit: these sizes change when sample.h gains a field, and a field
 * the recorder does not store is lost from every recording. Store it (a new nullable
 * column, SCHEMA.md, the reader), then update the sizes. */
#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(struct xio_sample) == 720 && sizeof(struct xio_layer) == 48 &&
                   sizeof(struct xio_dev) == 40 && sizeof(struct xio_disk) == 72 &&
                   sizeof(struct xio_domain) == 392 && sizeof(struct xio_dom_counters) == 64 &&
                   sizeof(struct xio_vbd_stat) == 104 && sizeof(struct xio_latency) == 288,
               "sample.h changed: store the new field in recordings (record/)");
#endif
static void finalize_all(struct rec_writer *w)
{
	for (int i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(w->st[i]);
		w->st[i] = NULL;
	}
}

static void remove_side_files(const char *path)
{
	char side[4200];
	/* a name cut short would be another file's */
	if (snprintf(side, sizeof(side), "%s-wal", path) < (int)sizeof(side))
		unlink(side);
	if (snprintf(side, sizeof(side), "%s-shm", path) < (int)sizeof(side))
		unlink(side);
}

/* SQLite does not checkpoint on close a database file that was renamed or removed while
 * open, and leaves its WAL at the old name: the renamed file would lack its last samples,
 * and a new file at the path would take the stale WAL for its own. So a moved file's WAL
 * is folded in here, and the emptied WAL and shared-memory files at the old name, ours,
 * removed. SQLite result code of the close. */
static int close_db(struct rec_writer *w)
{
	bool moved = rec_writer_moved(w);
	if (moved)
		sqlite3_exec(w->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	int rc = sqlite3_close(w->db);
	if (moved && rc == SQLITE_OK)
		remove_side_files(w->path);
	return rc;
}

/* Closes the database after a fatal error; keeps the error for later calls. */
static int fail(struct rec_writer *w, struct xerr *err)
{
	if (w->db) {
		sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
		finalize_all(w);
		close_db(w);
		w->db = NULL;
	}
	if (err)
		*err = w->failed;
	return -1;
}

static int fail_sqlite(struct rec_writer *w, int rc, const char *doing, struct xerr *err)
{
	rec_set_sqlite_error(&w->failed, w->db, rc, w->path, doing);
	if (w->failed.code == REC_ERR_FULL)
		rec_set_error(&w->failed, REC_ERR_FULL,
		              "disk full while writing %s: recording stopped after %zu samples, "
		              "all of them readable",
		              w->path, w->count);
	return fail(w, err);
}

static int put_meta_u64(sqlite3 *db, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return rec_db_put_meta(db, key, buf);
}

static int store_facts(sqlite3 *db, const struct rec_host_facts *f)
{
	int64_t now_ns = clock_real_ns();
	char created[40];
	if (clock_iso8601(now_ns, false, created, sizeof(created)))
		snprintf(created, sizeof(created), "?");
	char version[16];
	snprintf(version, sizeof(version), "%d", REC_SCHEMA_VERSION);
	int rc = rec_db_put_meta(db, "schema_version", version);
	if (rc == SQLITE_OK)
		rc = rec_db_put_meta(db, "xiotop_version", XIOTOP_VERSION);
	if (rc == SQLITE_OK)
		rc = rec_db_put_meta(db, "created", created);
	if (rc == SQLITE_OK)
		rc = put_meta_u64(db, "created_ns", (uint64_t)now_ns);
	if (!f)
		return rc;
	if (rc == SQLITE_OK && f->hostname[0])
		rc = rec_db_put_meta(db, "hostname", f->hostname);
	if (rc == SQLITE_OK && f->kernel_release[0])
		rc = rec_db_put_meta(db, "kernel_release", f->kernel_release);
	if (rc == SQLITE_OK && f->cpu_count > 0)
		rc = put_meta_u64(db, "cpu_count", (uint64_t)f->cpu_count);
	if (rc == SQLITE_OK && f->mem_total_kb)
		rc = put_meta_u64(db, "dom0_mem_kb", f->mem_total_kb);
	for (int i = 0; rc == SQLITE_OK && i < REC_DIRTY_SYSCTLS; i++)
		if (f->dirty[i].name && f->dirty[i].value[0])
			rc = rec_db_put_meta(db, f->dirty[i].name, f->dirty[i].value);
	return rc;
}

void rec_remove(const char *path)
{
	unlink(path);
	remove_side_files(path);
}

/* The file being made, under a name of its own until it holds the schema and the facts:
 * a recorder killed while creating leaves that name behind, never a half-made recording
 * at the path readers look for. */
struct making {
	struct rec_writer *w;
	char tmp[4200];
	bool published; /* renamed to w->path */
};

static struct rec_writer *create_failed(struct making *m, int rc, const char *doing,
                                        struct xerr *err)
{
	struct rec_writer *w = m->w;
	rec_set_sqlite_error(err, w->db, rc, w->path, doing);
	finalize_all(w);
	sqlite3_close(w->db);
	rec_remove(m->published ? w->path : m->tmp); /* created, not made into a recording */
	free(w->path);
	free(w);
	return NULL;
}

static void set_exists(struct xerr *err, const char *path)
{
	rec_set_error(err, REC_ERR_EXISTS,
	              "%s exists: a recording is never overwritten; remove it or choose another "
	              "name",
	              path);
}

/* A WAL at PATH-wal without PATH is a recording's that was renamed or removed while its
 * recorder was killed: it holds that recording's last samples, and SQLite would take it
 * for the new file's. Neither lost nor taken: the caller is told. */
static bool stale_wal(const char *path, struct xerr *err)
{
	char wal[4200];
	struct stat st;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (lstat(wal, &st))
		return false;
	rec_set_error(err, REC_ERR_EXISTS,
	              "%s exists without %s: the write-ahead log of a recording renamed or "
	              "removed while its recorder was killed, holding its last samples; put it "
	              "beside that recording as its -wal file, or remove it",
	              wal, path);
	return true;
}

/* Schema and facts into the file at m->tmp, committed and closed (WAL folded in, so the
 * file stands alone; WAL mode stays set in it). SQLite result code. */
static int make_tables(struct making *m, const struct rec_host_facts *facts)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(m->tmp, &db, SQLITE_OPEN_READWRITE, NULL);
	m->w->db = db;
	if (rc != SQLITE_OK)
		return rc;
	/* WAL: readers (export, mark) never block the recorder. synchronous=FULL: each
	 * committed interval survives a host crash, at one fsync per interval. */
	rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = rec_schema_create(db);
	if (rc == SQLITE_OK)
		rc = store_facts(db, facts);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_close(db);
		m->w->db = NULL;
	}
	return rc;
}

/* The made file takes its name, unless something else took it meanwhile (never
 * overwritten: RENAME_NOREPLACE, or link() where the file system lacks it). 0, or -1
 * with errno. */
static int publish(const char *tmp, const char *path)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (link(tmp, path))
		return -1;
	unlink(tmp);
	return 0;
}

/* The name made durable too: a host crash right after must not take the file with it. */
static void sync_dir_of(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* The writer's page cache, in KiB (negative: SQLite's unit for KiB). The writer only
 * appends: every counter table's key grows with the sample, so it touches the last pages
 * of each table and their parents, plus the small key tables. SQLite's default, 2000 KiB,
 * kept every page written until the file reached 2 MiB, within the first day at 20
 * domains: the recorder's memory grew for hours (bench/churn_month.sh: RSS +20 % after
 * the first hour) for pages it never reads again. 512 KiB holds that working set many
 * times over and is full within the first hour; bench/churn_month.sh took 6 % more CPU
 * time at 20 domains, 7 % less at 200 (one run each). */
#define REC_WRITER_CACHE "-512"

/* The recording at its path, open for appending. */
static struct rec_writer *open_made(struct making *m, struct xerr *err)
{
	struct rec_writer *w = m->w;
	struct stat st;
	if (stat(w->path, &st) == 0) {
		w->file_dev = st.st_dev;
		w->file_ino = st.st_ino;
	}
	int rc = sqlite3_open_v2(w->path, &w->db, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK)
		return create_failed(m, rc, "opening it", err);
	sqlite3_busy_timeout(w->db, REC_BUSY_TIMEOUT_MS);
	rc = sqlite3_exec(w->db, "PRAGMA synchronous=FULL; PRAGMA cache_size=" REC_WRITER_CACHE,
	                  NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = rec_writer_prepare(w);
	if (rc != SQLITE_OK)
		return create_failed(m, rc, "preparing statements", err);
	return w;
}

struct rec_writer *rec_create(const char *path, const struct rec_host_facts *facts,
                              struct xerr *err)
{
	struct stat st;
	if (lstat(path, &st) == 0) {
		set_exists(err, path);
		return NULL;
	}
	if (stale_wal(path, err))
		return NULL;
	struct making m = {0};
	snprintf(m.tmp, sizeof(m.tmp), "%s.new-%ld", path, (long)getpid());
	/* Created here, not by SQLite, so that it is new and 0640 whatever the umask lets
	 * SQLite use; its -wal and -shm files take the database file's mode. */
	int fd = open(m.tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (fd < 0) {
		rec_set_error(err, REC_ERR_IO, "cannot create recording %s: %s", path,
		              strerror(errno));
		return NULL;
	}
	int chmod_rc = fchmod(fd, 0640);
	close(fd);
	m.w = calloc(1, sizeof(*m.w));
	char *p = strdup(path);
	if (!m.w || !p || chmod_rc) {
		rec_set_error(err, m.w && p ? REC_ERR_IO : REC_ERR_NOMEM,
		              "cannot create recording %s: %s", path, strerror(errno));
		unlink(m.tmp);
		free(m.w);
		free(p);
		return NULL;
	}
	m.w->path = p;
	rec_packer_init(&m.w->pack);
	int rc = make_tables(&m, facts);
	if (rc != SQLITE_OK)
		return create_failed(&m, rc, "creating its tables", err);
	if (publish(m.tmp, path)) {
		int e = errno;
		create_failed(&m, SQLITE_OK, "naming it", err);
		if (e == EEXIST)
			set_exists(err, path);
		else
			rec_set_error(err, REC_ERR_IO, "cannot create recording %s: %s", path,
			              strerror(e));
		return NULL;
	}
	m.published = true;
	sync_dir_of(path);
	return open_made(&m, err);
}

bool rec_writer_moved(const struct rec_writer *w)
{
	struct stat st;
	if (stat(w->path, &st))
		return errno == ENOENT || errno == ENOTDIR;
	return st.st_dev != w->file_dev || st.st_ino != w->file_ino;
}

int rec_set_meta(struct rec_writer *w, const char *key, const char *value, struct xerr *err)
{
	if (!w->db)
		return fail(w, err);
	int rc = rec_db_put_meta(w->db, key, value);
	return rc == SQLITE_OK ? 0 : fail_sqlite(w, rc, "storing a fact", err);
}

int rec_set_size_limit(struct rec_writer *w, uint64_t max_bytes, struct xerr *err)
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
int rec_append(struct rec_writer *w, const struct xio_sample *s, struct xerr *err)
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
		rc = rec_store_sample(w, s);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return fail_sqlite(w, rc, "appending a sample", err);
	w->count++;
	return 0;
}

int rec_add_mark_from(struct rec_writer *w, const char *label, int64_t realtime_ns,
                      const char *origin, int exit_status, struct xerr *err)
{
	if (!w->db)
		return fail(w, err);
	int rc = rec_db_insert_mark(w->db, label, realtime_ns, origin, exit_status);
	return rc == SQLITE_OK ? 0 : fail_sqlite(w, rc, "storing a mark", err);
}

size_t rec_writer_count(const struct rec_writer *w)
{
	return w->count;
}

int rec_close(struct rec_writer *w, struct xerr *err)
{
	if (!w)
		return 0;
	int ret = 0;
	if (w->db) {
		finalize_all(w);
		/* The last connection to close folds the WAL into the file and removes it. */
		int rc = close_db(w);
		if (rc != SQLITE_OK) {
			rec_set_sqlite_error(err, w->db, rc, w->path, "closing it");
			ret = -1;
		}
	} else if (w->failed.code) {
		if (err)
			*err = w->failed;
		ret = -1;
	}
	rec_packer_free(&w->pack);
	FREE_ALL(w->keys, w->disk_keys, w->vbd_keys, w->devs, w->doms, w->path, w);
	return ret;
}

int rec_mark_file(const char *path, const char *label, int64_t realtime_ns, const char *origin,
                  struct xerr *err)
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
