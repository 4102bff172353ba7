/* rec_writer.c - samples -> a new recording, committed in groups; see record.h. This
 * part creates the file, keeps meta and marks, commits when the rule says (rec_commit.c)
 * and closes; rec_write_sample.c makes each sample's rows.
 *
 * Names that rarely change (layer keys, disk names, hook sets, devices, domains) are
 * stored once; the writer remembers what it stored so a sample costs only its counter
 * rows. Devices and domains are kept as "open" rows: a row is closed (last_sample set)
 * when its device or domain disappears or changes, and a changed one gets a new row.
 */
#include "record/rec_writer_internal.h"

#include "core/clock.h"
#include "core/free_all.h"

#include <stdint.h>

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
 * column, SCHEMA.md, the reader), then update the sizes. (xio_latency's histogram holds
 * seq, the programs' mark of a histogram being written, bpf/xiotop.h: not a figure, not
 * stored. xio_dev.in_flight and xio_sample.has_in_flight are live only, for the
 * recorder's drain: a replayed sample has has_in_flight false.) */
#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(struct xio_sample) == 720 && sizeof(struct xio_layer) == 48 &&
                   sizeof(struct xio_dev) == 44 && sizeof(struct xio_disk) == 72 &&
                   sizeof(struct xio_domain) == 392 && sizeof(struct xio_dom_counters) == 64 &&
                   sizeof(struct xio_vbd_stat) == 104 && sizeof(struct xio_latency) == 296,
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
	static const char *const sides[] = {"-journal", "-wal", "-shm"};
	char side[4200];
	for (size_t i = 0; i < sizeof(sides) / sizeof(*sides); i++)
		/* a name cut short would be another file's */
		if (snprintf(side, sizeof(side), "%s%s", path, sides[i]) < (int)sizeof(side))
			unlink(side);
}

static void free_memory(struct rec_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	rec_items_free(&w->items[0]);
	rec_items_free(&w->items[1]);
	rec_buf_free(&w->code);
	rec_oplog_free(&w->log);
	FREE_ALL(w->keys, w->disk_keys, w->vbd_keys, w->hook_sets, w->devs, w->doms, w->path, w);
}

/* Closes the database after a fatal error; keeps the error for later calls. What waited
 * for its commit is lost with it (said in the error). */
static int fail(struct rec_writer *w, struct xerr *err)
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

static int fail_sqlite(struct rec_writer *w, int rc, const char *doing, struct xerr *err)
{
	rec_set_sqlite_error(&w->failed, w->db, rc, w->path, doing);
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
	free_memory(w);
	return NULL;
}

static void set_exists(struct xerr *err, const char *path)
{
	rec_set_error(err, REC_ERR_EXISTS,
	              "%s exists: a recording is never overwritten; remove it or choose another "
	              "name",
	              path);
}

/* A -journal or -wal at PATH without PATH is a recording's that was renamed or removed
 * while its writer was killed: it holds that recording's last samples (a -wal) or the
 * pages to put back into it (a -journal), and SQLite would take it for the new file's.
 * Neither lost nor taken: the caller is told. */
static bool stale_side_file(const char *path, struct xerr *err)
{
	static const char *const sides[] = {"-journal", "-wal"};
	for (size_t i = 0; i < sizeof(sides) / sizeof(*sides); i++) {
		char side[4200];
		struct stat st;
		snprintf(side, sizeof(side), "%s%s", path, sides[i]);
		if (lstat(side, &st))
			continue;
		rec_set_error(err, REC_ERR_EXISTS,
		              "%s exists without %s: left by the writer of a recording renamed or "
		              "removed while it was killed; put it beside that recording as its %s "
		              "file, or remove it",
		              side, path, sides[i]);
		return true;
	}
	return false;
}

/* Schema and facts into the file at m->tmp, committed and closed. SQLite result code. */
static int make_tables(struct making *m, const struct rec_host_facts *facts)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(m->tmp, &db, SQLITE_OPEN_READWRITE, NULL);
	m->w->db = db;
	if (rc != SQLITE_OK)
		return rc;
	/* A rollback journal (SQLite's default), not a WAL: the samples' new pages are written
	 * once, and a reader needs nothing beside the file (SCHEMA.md "The promise"). */
	rc = sqlite3_exec(db, "PRAGMA synchronous=FULL", NULL, NULL, NULL);
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

/* The database at w->path, open for appending. SQLite result code. */
static int connect_db(struct rec_writer *w)
{
	int rc = sqlite3_open_v2(w->path, &w->db, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_busy_timeout(w->db, REC_BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(w->db, 1); /* SQLITE_READONLY_DBMOVED: follow_file() */
	rc = sqlite3_exec(w->db, "PRAGMA synchronous=FULL; PRAGMA cache_size=" REC_WRITER_CACHE,
	                  NULL, NULL, NULL);
	return rc == SQLITE_OK ? rec_writer_prepare(w) : rc;
}

/* The recording at its path, open for appending. */
static struct rec_writer *open_made(struct making *m, struct xerr *err)
{
	struct rec_writer *w = m->w;
	struct stat st;
	w->fd = open(w->path, O_RDONLY | O_CLOEXEC);
	if (w->fd >= 0 && fstat(w->fd, &st) == 0) {
		w->file_dev = st.st_dev;
		w->file_ino = st.st_ino;
	}
	for (int i = 0; i < ID_COUNT; i++)
		w->next_id[i] = 1; /* a new file: every table empty */
	int rc = connect_db(w);
	if (rc != SQLITE_OK)
		return create_failed(m, rc, "opening it", err);
	return w;
}

/* The file renamed under the writer (by logrotate, say): SQLite writes no file moved
 * since it was opened (its journal would be another's), so the writer opens it again at
 * its new name, which the kernel keeps for the descriptor held. -1 when it was removed. */
static int follow_file(struct rec_writer *w)
{
	char link[64], now[4096];
	struct stat st;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", w->fd);
	ssize_t n = w->fd >= 0 ? readlink(link, now, sizeof(now) - 1) : -1;
	if (n <= 0 || (size_t)n >= sizeof(now) - 1)
		return -1;
	now[n] = 0;
	char *p = strdup(now);
	if (!p || stat(now, &st) || st.st_dev != w->file_dev || st.st_ino != w->file_ino) {
		free(p); /* removed ("... (deleted)"), or not ours */
		return -1;
	}
	finalize_all(w);
	sqlite3_close(w->db);
	w->db = NULL;
	free(w->path);
	w->path = p;
	return connect_db(w) == SQLITE_OK ? 0 : -1;
}

/* What waits committed, following the file where it was renamed. SQLite result code. */
static int commit(struct rec_writer *w)
{
	int rc = rec_commit(w);
	if (rc == SQLITE_READONLY_DBMOVED && follow_file(w) == 0)
		rc = rec_commit(w);
	return rc;
}

struct rec_writer *rec_create(const char *path, const struct rec_host_facts *facts,
                              struct xerr *err)
{
	struct stat st;
	if (lstat(path, &st) == 0) {
		set_exists(err, path);
		return NULL;
	}
	if (stale_side_file(path, err))
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
	m.w->fd = -1;
	m.w->commit_bytes = REC_COMMIT_BYTES;
	m.w->commit_age_ns = REC_COMMIT_AGE_NS;
	m.w->wait_max = REC_WAIT_MAX;
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

/* A unit of its own (a fact, a mark) waiting, committed with the next sample. */
static int unit_added(struct rec_writer *w, struct xerr *err)
{
	rec_oplog_end_unit(&w->log, 0);
	if (w->log.failed)
		return fail_sqlite(w, SQLITE_NOMEM, "keeping a row", err);
	if (!w->waiting_since)
		w->waiting_since = clock_mono_ns();
	w->commit_soon = true;
	return 0;
}

int rec_set_meta(struct rec_writer *w, const char *key, const char *value, struct xerr *err)
{
	if (!w->db)
		return fail(w, err);
	rec_oplog_add(&w->log, ST_META);
	rec_oplog_text(&w->log, key, strlen(key));
	rec_oplog_text(&w->log, value, strlen(value));
	return unit_added(w, err);
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

void rec_set_commit_rule(struct rec_writer *w, uint64_t bytes, int64_t age_ns, uint64_t wait_max)
{
	w->commit_bytes = bytes;
	w->commit_age_ns = age_ns;
	w->wait_max = wait_max;
}

/* A commit that did not happen: waiting (full, busy) is no failure; anything else is. */
static int commit_failed(struct rec_writer *w, int rc, struct xerr *err)
{
	if (w->waits.code == REC_ERR_FULL || w->waits.code == REC_ERR_BUSY)
		return 0;
	(void)rc;
	w->failed = w->waits;
	return fail(w, err);
}

int rec_flush(struct rec_writer *w, struct xerr *err)
{
	if (!w->db)
		return fail(w, err);
	int rc = commit(w);
	if (rc == SQLITE_OK)
		return 0;
	if (commit_failed(w, rc, err))
		return -1;
	if (err)
		*err = w->waits;
	return -1;
}

size_t rec_writer_waiting(const struct rec_writer *w, const struct xerr **why)
{
	if (why)
		*why = w->waits.code ? &w->waits : NULL;
	return rec_oplog_samples(&w->log);
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
	int rc;
	if (w->waits.code && rec_oplog_bytes(&w->log) >= w->wait_max && (rc = commit(w))) {
		if (commit_failed(w, rc, err))
			return -1;
		/* Nothing changed: the next sample is coded against the last one kept. */
		rec_set_error(err, w->waits.code,
		              "%s: a sample not kept: %zu samples (%llu KiB) wait already (%s)",
		              w->path, rec_oplog_samples(&w->log),
		              (unsigned long long)(rec_oplog_bytes(&w->log) >> 10), w->waits.msg);
		return -1;
	}
	rc = rec_store_sample(w, s);
	if (rc != SQLITE_OK)
		return fail_sqlite(w, rc, "keeping a sample", err);
	w->count++;
	int64_t now = clock_mono_ns();
	if (!w->waiting_since)
		w->waiting_since = now;
	w->gap_ns = w->last_sample_ns ? now - w->last_sample_ns : 0;
	w->last_sample_ns = now;
	if (rec_commit_due(w, now) && (rc = commit(w)) != SQLITE_OK)
		return commit_failed(w, rc, err);
	return 0;
}

int rec_add_mark_from(struct rec_writer *w, const char *label, int64_t realtime_ns,
                      const char *origin, int exit_status, struct xerr *err)
{
	if (!w->db)
		return fail(w, err);
	rec_oplog_add(&w->log, ST_MARK);
	rec_oplog_int(&w->log, realtime_ns);
	rec_oplog_text(&w->log, label, strlen(label));
	rec_oplog_text(&w->log, origin, strlen(origin));
	if (exit_status >= 0)
		rec_oplog_int(&w->log, exit_status);
	else
		rec_oplog_null(&w->log);
	return unit_added(w, err);
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
		int rc = commit(w);
		if (rc != SQLITE_OK) {
			size_t lost = rec_oplog_samples(&w->log);
			if (err)
				rec_set_error(err, w->waits.code ? w->waits.code : REC_ERR_IO,
				              "%s: %zu samples (of %zu) could not be committed: %s",
				              w->path, lost, w->count, w->waits.msg);
			ret = -1;
		}
		finalize_all(w);
		rc = sqlite3_close(w->db);
		if (rc != SQLITE_OK && !ret) {
			rec_set_sqlite_error(err, w->db, rc, w->path, "closing it");
			ret = -1;
		}
	} else if (w->failed.code) {
		if (err)
			*err = w->failed;
		ret = -1;
	}
	free_memory(w);
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
