/* fuzz_rec_edit.c - libFuzzer harness for edited recordings: a valid recording made by
 * the recorder (fuzz_rec.h), changed as a hostile sender would, then given to
 * everything export and replay do (fuzz_rec.h). The first input byte picks the kind:
 *   even: byte flips - (3-byte offset, xor byte) pairs applied to the file's bytes;
 *   odd:  SQL edits - (op, small int, 8-byte int, text length, text) records, each an
 *         UPDATE/INSERT/DELETE/DROP/PRAGMA of the recording's tables or schema. */
#include <sqlite3.h>

#include "fuzz/fuzz_rec.h"

static const char *const edits[] = {
    "UPDATE samples SET realtime_ns=?2 WHERE idx=?1",
    "UPDATE samples SET monotonic_ns=?2 WHERE idx=?1",
    "UPDATE samples SET hooks=?2 WHERE idx=?1",
    "DELETE FROM samples WHERE idx=?1",
    "UPDATE domains SET name=?3 WHERE id=?1",
    "UPDATE domains SET first_sample=?2, last_sample=?1 WHERE id=?1",
    "UPDATE devices SET name=?3, first_sample=?2 WHERE id=?1",
    "UPDATE disk_keys SET name=?3, dev=?2 WHERE id=?1",
    "UPDATE marks SET label=?3, realtime_ns=?2 WHERE id=?1",
    "INSERT INTO marks (realtime_ns, label, origin) VALUES (?2, ?3, 'fuzz')",
    "UPDATE meta SET value=?3 WHERE key=(SELECT key FROM meta LIMIT 1 OFFSET ?1)",
    "INSERT OR REPLACE INTO meta VALUES ('xiotop_version', ?3)",
    /* 12 to 16: where the per-sample tables of schema 2 were (the seeds pick by index) */
    "UPDATE sample_items SET items=CAST(?3 AS BLOB) WHERE slot=(SELECT slot FROM sample_items"
    " LIMIT 1 OFFSET ?1)",
    "UPDATE sample_items SET items=substr(items, 1, ?2) WHERE slot=(SELECT slot FROM"
    " sample_items LIMIT 1 OFFSET ?1)",
    "UPDATE samples SET base=?2 WHERE idx=?1",
    "UPDATE vbd_keys SET domid=?2, instance=?2 WHERE id=?1",
    "UPDATE sample_items SET items=CAST(?3 AS BLOB) || substr(items, ?2) WHERE slot=(SELECT"
    " slot FROM sample_items LIMIT 1 OFFSET ?1)",
    "UPDATE hook_sets SET hooks=?3",
    "UPDATE layer_keys SET via=?2, dev=?2 WHERE id=?1",
    "DELETE FROM layer_keys WHERE id=?1",
    "UPDATE samples SET idx=idx+?1 WHERE idx=?1",
    "UPDATE sqlite_schema SET sql=?3 WHERE rowid=?1",
    "UPDATE sqlite_schema SET name=?3 WHERE rowid=?1",
};
#define N_EDITS (sizeof(edits) / sizeof(edits[0]))
/* Statements that cannot bind their argument: picked by the op's int, formatted in. */
static const char *const schema_edits[] = {
    "PRAGMA user_version=%lld",
    "PRAGMA application_id=%lld",
    "DROP TABLE IF EXISTS %s",
    "DROP VIEW IF EXISTS %s",
    "ALTER TABLE %s RENAME TO \"\x1b]2;x\x07\"",
};
static const char *const tables[] = {"samples",   "meta",         "marks",     "domains",
                                     "devices",   "sample_items", "disk_keys", "vbd_keys",
                                     "hook_sets", "vias"};

static uint64_t take(const uint8_t **p, const uint8_t *end, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && *p < end; i++)
		v = v << 8 | *(*p)++;
	return v;
}

static void schema_edit(sqlite3 *db, unsigned which, int64_t arg)
{
	char sql[256];
	const char *fmt = schema_edits[which % 5];
	if (which % 5 < 2)
		snprintf(sql, sizeof(sql), fmt, (long long)arg);
	else
		snprintf(sql, sizeof(sql), fmt, tables[(uint64_t)arg % 10]);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
}

static void sql_edits(const char *path, const uint8_t *p, const uint8_t *end)
{
	sqlite3 *db;
	if (sqlite3_open(path, &db) != SQLITE_OK)
		abort();
	/* no fsync per edit: the file is scratch */
	sqlite3_exec(
	    db, "PRAGMA synchronous=OFF; PRAGMA journal_mode=MEMORY; PRAGMA writable_schema=ON",
	    NULL, NULL, NULL);
	for (int n = 0; p < end && n < 8; n++) {
		unsigned op = (unsigned)take(&p, end, 1);
		int64_t small = (int64_t)take(&p, end, 1);
		int64_t big = (int64_t)take(&p, end, 8);
		size_t len = (size_t)take(&p, end, 1);
		if (len > (size_t)(end - p))
			len = (size_t)(end - p);
		const char *text = (const char *)p;
		p += len;
		if (op >= N_EDITS) {
			schema_edit(db, op - N_EDITS, big);
			continue;
		}
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, edits[op], -1, &st, NULL) != SQLITE_OK)
			continue;
		sqlite3_bind_int64(st, 1, small);
		sqlite3_bind_int64(st, 2, big);
		sqlite3_bind_text(st, 3, text, (int)len, SQLITE_TRANSIENT);
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *valid;
	static size_t valid_len;
	static char path[4200];
	if (!valid) {
		snprintf(path, sizeof(path), "%s/valid.xiotop", fuzz_dir());
		fuzz_make_recording(path);
		FILE *f = fopen(path, "rb");
		if (!f || fseek(f, 0, SEEK_END) || (valid_len = (size_t)ftell(f)) == 0)
			abort();
		rewind(f);
		valid = malloc(valid_len);
		if (!valid || fread(valid, 1, valid_len, f) != valid_len)
			abort();
		fclose(f);
		snprintf(path, sizeof(path), "%s/edited.xiotop", fuzz_dir());
	}
	if (!size)
		return 0;
	uint8_t *copy = malloc(valid_len);
	memcpy(copy, valid, valid_len);
	const uint8_t *p = data + 1, *end = data + size;
	if (!(data[0] & 1)) {
		while (end - p >= 4) {
			size_t off = (size_t)take(&p, end, 3) % valid_len;
			copy[off] ^= (uint8_t)take(&p, end, 1);
		}
	}
	fuzz_write("edited.xiotop", copy, valid_len);
	free(copy);
	char side[4300];
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-journal", path);
	unlink(side);
	if (data[0] & 1)
		sql_edits(path, p, end);
	fuzz_rec_check(path);
	return 0;
}
