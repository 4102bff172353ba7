/* rec_schema.c - the schema of SCHEMA.md, file validation and error text; see
 * rec_internal.h. */
#include "record/rec_internal.h"

#include "core/sanitize.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum xerr_kind rec_errcode_kind(enum rec_errcode code)
{
	switch (code) {
	case REC_OK:
		return XERR_NONE;
	case REC_ERR_NOMEM:
		return XERR_NOMEM;
	case REC_ERR_FULL:
	case REC_ERR_BUSY:
		return XERR_RUNTIME;
	default:
		/* the file named cannot be opened, created or read as a recording (the window
		 * asked of it included): bad input, as the commands always said (status 2) */
		return XERR_INPUT;
	}
}

void rec_set_error(struct xerr *err, enum rec_errcode code, const char *fmt, ...)
{
	if (!err)
		return;
	/* Messages quote the file: its name, SQLite's text naming its schema objects
	 * ("malformed database schema (...)"), its table names, meta values, mark labels.
	 * Escaped here, once, so that no message a command prints can carry a terminal
	 * escape from a recording (core/sanitize.h). */
	char raw[2 * sizeof(err->msg)];
	va_list ap;
	va_start(ap, fmt);
	err->code = code;
	err->kind = rec_errcode_kind(code);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	sanitize_text(raw, err->msg, sizeof(err->msg));
}

void rec_set_sqlite_error(struct xerr *err, sqlite3 *db, int rc, const char *path,
                          const char *doing)
{
	const char *why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
	/* SQLite says SQLITE_FULL only for a write into the database or its WAL; making or
	 * growing the -shm file on a full file system is an I/O error (SQLITE_IOERR_SHMSIZE
	 * and the like), whose system call failed with ENOSPC: full all the same (the
	 * recorder opening a new file on a full 1 MiB file system stopped on it, exit 2). */
	int sys_errno = db ? sqlite3_system_errno(db) : 0;
	if ((rc & 0xff) == SQLITE_IOERR && (sys_errno == ENOSPC || sys_errno == EDQUOT))
		rc = SQLITE_FULL;
	switch (rc & 0xff) {
	case SQLITE_FULL:
		rec_set_error(err, REC_ERR_FULL, "%s: disk full while %s", path, doing);
		break;
	case SQLITE_CORRUPT:
		rec_set_error(err, REC_ERR_CORRUPT, "%s is corrupt (%s) while %s", path, why,
		              doing);
		break;
	case SQLITE_NOTADB:
		rec_set_error(err, REC_ERR_GARBAGE,
		              "%s is not an xiotop recording: not an SQLite database", path);
		break;
	case SQLITE_NOMEM:
		rec_set_error(err, REC_ERR_NOMEM, "%s: out of memory while %s", path, doing);
		break;
	default:
		rec_set_error(err, REC_ERR_IO, "%s: %s while %s", path, why, doing);
		break;
	}
}

/* The DDL, documented column by column in SCHEMA.md. Keep the two in step. */
static const char schema_sql[] =
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;"
    "CREATE TABLE samples ("
    " idx INTEGER PRIMARY KEY, realtime_ns INTEGER NOT NULL,"
    " has_cpu INTEGER, has_dirty INTEGER, hooks INTEGER, domains_live INTEGER,"
    " has_vbd_stats INTEGER, absent INTEGER, has_latency INTEGER, base INTEGER);"
    "CREATE TABLE sample_items (slot INTEGER PRIMARY KEY, items BLOB NOT NULL);"
    "CREATE TABLE hook_sets (id INTEGER PRIMARY KEY, hooks TEXT NOT NULL UNIQUE);"
    "CREATE TABLE layer_keys (id INTEGER PRIMARY KEY, domid INTEGER NOT NULL,"
    " dev INTEGER NOT NULL, via INTEGER NOT NULL, UNIQUE (domid, dev, via));"
    "CREATE TABLE disk_keys (id INTEGER PRIMARY KEY, dev INTEGER NOT NULL,"
    " name TEXT NOT NULL, UNIQUE (dev, name));"
    "CREATE TABLE devices (id INTEGER PRIMARY KEY, dev INTEGER NOT NULL, name TEXT NOT NULL,"
    " is_leaf INTEGER NOT NULL, first_sample INTEGER NOT NULL, last_sample INTEGER,"
    " array_role INTEGER);"
    "CREATE TABLE domains (id INTEGER PRIMARY KEY, domid INTEGER NOT NULL,"
    " name TEXT NOT NULL, kind TEXT NOT NULL, file TEXT NOT NULL, missing INTEGER NOT NULL,"
    " first_sample INTEGER NOT NULL, last_sample INTEGER, uuid TEXT NOT NULL DEFAULT '',"
    " generation INTEGER, mem_bytes INTEGER);"
    "CREATE TABLE vbd_keys (id INTEGER PRIMARY KEY, domid INTEGER NOT NULL,"
    " devid INTEGER NOT NULL, backend_dev INTEGER NOT NULL, source INTEGER NOT NULL,"
    " instance INTEGER NOT NULL, UNIQUE (domid, devid, backend_dev, source, instance));"
    "CREATE TABLE marks (id INTEGER PRIMARY KEY, realtime_ns INTEGER NOT NULL,"
    " label TEXT NOT NULL, origin TEXT NOT NULL, exit_status INTEGER);"
    "CREATE TABLE vias (via INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    "INSERT INTO vias VALUES (1,'dev'),(2,'task'),(3,'loopwork'),(4,'inode'),(5,'remap'),"
    " (6,'part'),(7,'none'),(8,'dmtask'),(9,'fileio');";

int rec_schema_create(sqlite3 *db)
{
	char pragmas[128];
	snprintf(pragmas, sizeof(pragmas), "PRAGMA application_id=%d; PRAGMA user_version=%d;",
	         REC_APPLICATION_ID, REC_SCHEMA_VERSION);
	int rc = sqlite3_exec(db, schema_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, pragmas, NULL, NULL, NULL);
	return rc;
}

bool rec_has_column(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", -1, &st,
	                       NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	bool found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int rec_db_insert_mark(sqlite3 *db, const char *label, int64_t realtime_ns, const char *origin,
                       int exit_status)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db,
	                            "INSERT INTO marks (realtime_ns, label, origin, exit_status) "
	                            "VALUES (?, ?, ?, ?)",
	                            -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(st, 1, realtime_ns);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, origin, -1, SQLITE_TRANSIENT);
	if (exit_status >= 0)
		sqlite3_bind_int(st, 4, exit_status);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static const char sqlite_magic[16] = "SQLite format 3";

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The checks SQLite itself does not make before answering: an empty file is a valid
 * empty database to it, and a file cut short answers queries until one reaches a
 * missing page. 0, or -1 with err set. */
static int check_bytes(const char *path, bool *wal_mode, struct xerr *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rec_set_error(err, REC_ERR_IO, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	unsigned char hdr[100];
	if (fstat(fd, &st)) {
		int saved = errno;
		close(fd);
		rec_set_error(err, REC_ERR_IO, "cannot read %s: %s", path, strerror(saved));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		rec_set_error(err, REC_ERR_IO, "%s is not a regular file", path);
		return -1;
	}
	ssize_t got = pread(fd, hdr, sizeof(hdr), 0);
	int saved = errno;
	close(fd);
	if (got < 0) {
		rec_set_error(err, REC_ERR_IO, "cannot read %s: %s", path, strerror(saved));
		return -1;
	}
	if (st.st_size == 0) {
		rec_set_error(err, REC_ERR_EMPTY, "%s is empty (0 bytes): not an xiotop recording",
		              path);
		return -1;
	}
	size_t magic_len = got < 16 ? (size_t)got : 16;
	if (memcmp(hdr, sqlite_magic, magic_len)) {
		rec_set_error(err, REC_ERR_GARBAGE,
		              "%s is not an xiotop recording: not an SQLite database", path);
		return -1;
	}
	if (got < (ssize_t)sizeof(hdr)) {
		rec_set_error(err, REC_ERR_TRUNCATED,
		              "%s is truncated: %zd bytes, shorter than an SQLite header", path,
		              got);
		return -1;
	}
	*wal_mode = hdr[18] == 2 && hdr[19] == 2; /* the file format's WAL read/write versions */
	uint32_t page_size = (uint32_t)hdr[16] << 8 | hdr[17];
	if (page_size == 1)
		page_size = 65536;
	uint32_t pages = be32(hdr + 28);
	/* The in-header size is valid only when its change counter matches (format doc). */
	bool size_valid = pages && !memcmp(hdr + 24, hdr + 92, 4);
	uint64_t declared = (uint64_t)page_size * pages;
	if (page_size < 512 || (page_size & (page_size - 1))) {
		rec_set_error(err, REC_ERR_CORRUPT, "%s is corrupt: page size %u in its header",
		              path, page_size);
		return -1;
	}
	/* With a WAL beside it the file may be mid-checkpoint (its header already counting
	 * pages still only in the WAL, e.g. a checkpoint cut short by a full disk): SQLite
	 * reads those pages from the WAL, and quick_check judges the whole. */
	char wal[4096];
	struct stat wal_st;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	bool has_wal = stat(wal, &wal_st) == 0 && wal_st.st_size > 0;
	if (!has_wal &&
	    ((size_valid && (uint64_t)st.st_size < declared) || st.st_size % page_size)) {
		rec_set_error(err, REC_ERR_TRUNCATED,
		              "%s is truncated: %lld bytes, its header declares %llu", path,
		              (long long)st.st_size, (unsigned long long)declared);
		return -1;
	}
	return 0;
}

static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_EMPTY;
	}
	sqlite3_finalize(st);
	return rc;
}

/* "a, b, c" of the first table names: what a foreign file is, in the error. */
static void table_names(sqlite3 *db, char *buf, size_t len)
{
	sqlite3_stmt *st;
	buf[0] = 0;
	if (sqlite3_prepare_v2(db,
	                       "SELECT name FROM sqlite_schema WHERE type='table' ORDER BY name "
	                       "LIMIT 5",
	                       -1, &st, NULL) != SQLITE_OK)
		return;
	size_t used = 0;
	while (sqlite3_step(st) == SQLITE_ROW && used + 1 < len) {
		int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
		                 (const char *)sqlite3_column_text(st, 0));
		if (n < 0)
			break;
		used += (size_t)n;
	}
	sqlite3_finalize(st);
}

static int check_identity(sqlite3 *db, const char *path, int *version, struct xerr *err)
{
	int64_t app_id = 0, user_version = 0, has_meta = 0;
	int rc = query_int(db, "PRAGMA application_id", &app_id);
	if (rc == SQLITE_OK)
		rc = query_int(db, "PRAGMA user_version", &user_version);
	if (rc == SQLITE_OK)
		rc = query_int(db,
		               "SELECT count(*) FROM sqlite_schema WHERE type='table' AND "
		               "name='meta'",
		               &has_meta);
	if (rc != SQLITE_OK) {
		rec_set_sqlite_error(err, db, rc, path, "reading its header");
		return -1;
	}
	if (app_id != REC_APPLICATION_ID || !has_meta) {
		char tables[160];
		table_names(db, tables, sizeof(tables));
		rec_set_error(err, REC_ERR_FOREIGN,
		              "%s is an SQLite database but not an xiotop recording "
		              "(application_id %#llx, tables: %s)",
		              path, (unsigned long long)app_id, tables[0] ? tables : "none");
		return -1;
	}
	*version = (int)user_version;
	if (user_version > REC_SCHEMA_VERSION) {
		char by[64] = "";
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='xiotop_version'", -1,
		                       &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
				snprintf(by, sizeof(by), " (by xiotop %s)",
				         (const char *)sqlite3_column_text(st, 0));
			sqlite3_finalize(st);
		}
		rec_set_error(err, REC_ERR_NEWER,
		              "%s has recording schema version %lld%s; this xiotop (%s) reads "
		              "schema versions up to %d: use a newer xiotop",
		              path, (long long)user_version, by, XIOTOP_VERSION,
		              REC_SCHEMA_VERSION);
		return -1;
	}
	if (user_version < 1) {
		rec_set_error(err, REC_ERR_CORRUPT, "%s is corrupt: recording schema version %lld",
		              path, (long long)user_version);
		return -1;
	}
	return 0;
}

/* "file:" URI of path with SQLite's query and escape characters escaped (% ? #), the
 * authority left empty for an absolute path (a path "//x" would name a host). */
static int path_uri(const char *path, const char *query, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "file:%s", path[0] == '/' ? "//" : "");
	for (const char *p = path; *p && n + 4 < len; p++)
		n += (size_t)(strchr("%?#", *p) ? snprintf(buf + n, len - n, "%%%02X", *p & 0xff)
		                                : snprintf(buf + n, len - n, "%c", *p));
	int q = snprintf(buf + n, len - n, "?%s", query);
	return q < 0 || (size_t)q >= len - n ? -1 : 0;
}

static bool side_file_exists(const char *path, const char *suffix)
{
	char side[4200];
	struct stat st;
	return snprintf(side, sizeof(side), "%s%s", path, suffix) < (int)sizeof(side) &&
	       lstat(side, &st) == 0;
}

/* How a reader opens path, read-only and creating nothing beside it (a reader on a full
 * or read-only file system is the one who most needs the recording):
 *   - a rollback-journal file (every file since schema 4): read-only;
 *   - a WAL file without its -wal (closed by its writer, schemas 1-3): immutable, so that
 *     SQLite makes no -wal and no -shm (it would on opening such a file, and fail when
 *     the file system is full: issue 45);
 *   - a WAL file with its -wal (a writer running, or killed): read-only through the -shm
 *     the writer made (SQLite makes one only when it is missing). */
static int open_for_reading(const char *path, bool wal_mode, bool writable, sqlite3 **db)
{
	char uri[8400];
	int flags = (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_URI;
	bool closed_wal = wal_mode && !writable && !side_file_exists(path, "-wal");
	if (path_uri(path, closed_wal ? "immutable=1" : "", uri, sizeof(uri)))
		return SQLITE_CANTOPEN;
	return sqlite3_open_v2(uri, db, flags, NULL);
}

sqlite3 *rec_db_open_checked(const char *path, bool want_write, int *version, struct xerr *err)
{
	bool wal_mode = false;
	if (check_bytes(path, &wal_mode, err))
		return NULL;
	sqlite3 *db = NULL;
	int rc = open_for_reading(path, wal_mode, want_write, &db);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(db, REC_BUSY_TIMEOUT_MS);
		int64_t ignored;
		rc = query_int(db, "PRAGMA application_id", &ignored);
	}
	/* A hot journal (its writer killed while committing) is rolled back by the first
	 * connection that may write: the one change a reader makes, in place (no new space). */
	if (!want_write && (rc & 0xff) == SQLITE_READONLY && access(path, W_OK) == 0) {
		sqlite3_close(db);
		db = NULL;
		rc = open_for_reading(path, wal_mode, true, &db);
		if (rc == SQLITE_OK)
			sqlite3_busy_timeout(db, REC_BUSY_TIMEOUT_MS);
	}
	if (rc != SQLITE_OK) {
		if ((rc & 0xff) == SQLITE_READONLY)
			rec_set_error(
			    err, REC_ERR_IO,
			    "%s was being written when its writer was killed (%s-journal is "
			    "left): it must be rolled back by a process that may write it",
			    path, path);
		else
			rec_set_sqlite_error(err, db, rc, path, "opening it");
		sqlite3_close(db);
		return NULL;
	}
	if (check_identity(db, path, version, err)) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

int rec_db_put_meta(sqlite3 *db, const char *key, const char *value)
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
