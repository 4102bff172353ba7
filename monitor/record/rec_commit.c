/* rec_commit.c - the writer's commits: the rows waiting in its op log go into the file,
 * in transactions of at most twice commit_bytes each, when the commit rule says; see
 * record.h and rec_writer_internal.h. */
#include "record/rec_writer_internal.h"

/* Due once the oldest waiting would be commit_age_ns old by the next sample (expected
 * one gap later): nothing waits longer, whatever the interval. */
bool rec_commit_due(const struct rec_writer *w, int64_t now_ns)
{
	if (!rec_oplog_units(&w->log))
		return false;
	return w->commit_soon || rec_oplog_bytes(&w->log) >= w->commit_bytes ||
	       now_ns + w->gap_ns - w->waiting_since >= w->commit_age_ns;
}

int rec_commit(struct rec_writer *w)
{
	while (rec_oplog_units(&w->log)) {
		size_t samples;
		/* twice the rule's bytes: a commit due holds them and the sample that made them
		 * due, in one transaction; a long wait (a full disk) goes in chunks */
		size_t n = rec_oplog_cut(&w->log, 2 * w->commit_bytes, &samples);
		int rc = sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = rec_oplog_run(&w->log, w->st, n);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			/* why, before the rollback replaces SQLite's message */
			rec_set_sqlite_error(&w->waits, w->db, rc, w->path, "committing samples");
			if ((rc & 0xff) == SQLITE_BUSY)
				rec_set_error(&w->waits, REC_ERR_BUSY,
				              "%s is locked by another process: %zu samples wait",
				              w->path, rec_oplog_samples(&w->log));
			sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
		rec_oplog_drop(&w->log, n);
		w->committed += samples;
	}
	w->waits = (struct xerr){0};
	w->commit_soon = false;
	w->waiting_since = 0;
	return SQLITE_OK;
}
