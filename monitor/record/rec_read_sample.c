/* rec_read_sample.c - one sample of a recording, from its per-sample rows and the
 * reader's snapshot of keys and names; see record.h and rec_reader_internal.h. */
#include "record/rec_latency.h"
#include "record/rec_reader_internal.h"

#include <stdio.h>
#include <string.h>

/* The samples row: columns a file written before them lacks read as NULL (%s). */
static const char sample_sql[] =
    "SELECT realtime_ns, monotonic_ns, vmstat_pgpgin_kb, vmstat_pgpgout_kb,"
    " lost_events, host_busy_ns, cpu_unattributed_ns, has_cpu,"
    " has_dirty, hooks, domains_live, has_vbd_stats, %s, %s, %s FROM samples WHERE idx = ?";
static const char *const reader_sql[RS_COUNT] = {
    [RS_LAYERS] = "SELECT layer, rd_bytes, wr_bytes, rd_ios, wr_ios FROM layer_counts"
                  " WHERE slot BETWEEN ? AND ? ORDER BY slot",
    [RS_COUNTERS] = "SELECT domid, cpu_backend_ns, cpu_device_model_ns, cpu_loop_ns,"
                    " cpu_writeback_ns, dirtied_bytes, written_back_bytes, guest_cpu_ns"
                    " FROM dom_counters WHERE slot BETWEEN ? AND ? ORDER BY slot",
    [RS_DISKS] = "SELECT disk, rd_bytes, wr_bytes, rd_ios, wr_ios FROM disk_counts"
                 " WHERE slot BETWEEN ? AND ? ORDER BY slot",
    [RS_VBDS] = NULL, /* vbds_sql: its columns depend on the file's age */
    [RS_LATENCY] = REC_LATENCY_SELECT_SQL,
};
/* A file written before vbd_counts had its skew columns: unknown, read as 0; before its
 * read_state column: every vbd counted was read (NULL, XIO_VBD_READ). */
static const char vbds_sql[] = "SELECT vbd, rd_bytes, wr_bytes, rd_req, wr_req, oo_req, f_req,"
                               " ds_req, %s, %s FROM vbd_counts"
                               " WHERE slot BETWEEN ? AND ? ORDER BY slot";

static bool has_column(sqlite3 *db, const char *table, const char *column)
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

int rec_reader_prepare(struct rec_reader *r)
{
	int rc = SQLITE_OK;
	bool skew_known = has_column(r->db, "vbd_counts", "skew_rd_bytes");
	/* a file without the absent column holds every counter; without has_latency, no
	 * latency was timed */
	char sample[sizeof(sample_sql) + 64];
	snprintf(sample, sizeof(sample), sample_sql,
	         has_column(r->db, "samples", "absent") ? "absent" : "NULL",
	         has_column(r->db, "samples", "has_latency") ? "has_latency" : "NULL",
	         has_column(r->db, "samples", "host_irq_ns") ? "host_irq_ns, host_steal_ns"
	                                                     : "NULL, NULL");
	bool latency_table = has_column(r->db, "latency_counts", "slot");
	char vbds[sizeof(vbds_sql) + 64];
	snprintf(vbds, sizeof(vbds), vbds_sql,
	         skew_known ? "skew_rd_bytes, skew_wr_bytes" : "NULL, NULL",
	         has_column(r->db, "vbd_counts", "read_state") ? "read_state" : "NULL");
	for (int i = 0; rc == SQLITE_OK && i < RS_COUNT; i++) {
		const char *sql = i == RS_SAMPLE ? sample : i == RS_VBDS ? vbds : reader_sql[i];
		if (i == RS_LATENCY && !latency_table)
			continue;
		rc = sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &r->st[i], NULL);
	}
	return rc;
}

static const struct key_row *find_key(const struct rec_reader *r, int64_t id)
{
	size_t lo = 0, hi = r->n_keys;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->keys[mid].id == id)
			return &r->keys[mid];
		if (r->keys[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct disk_row *find_disk(const struct rec_reader *r, int64_t id)
{
	for (size_t i = 0; i < r->n_disk_keys; i++)
		if (r->disk_keys[i].id == id)
			return &r->disk_keys[i];
	return NULL;
}

static const struct vbd_row *find_vbd(const struct rec_reader *r, int64_t id)
{
	size_t lo = 0, hi = r->n_vbd_keys;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->vbd_keys[mid].id == id)
			return &r->vbd_keys[mid];
		if (r->vbd_keys[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static sqlite3_stmt *range_stmt(struct rec_reader *r, enum reader_stmt which, size_t i)
{
	sqlite3_stmt *st = r->st[which];
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, REC_SLOT(i, 0));
	sqlite3_bind_int64(st, 2, REC_SLOT(i, REC_SLOT_MAX));
	return st;
}

static int read_scalars(struct rec_reader *r, size_t i, struct xio_sample *s)
{
	sqlite3_stmt *st = r->st[RS_SAMPLE];
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
	s->realtime_ns = sqlite3_column_int64(st, 0);
	s->monotonic_ns = col_u64(st, 1);
	s->vmstat_pgpgin_kb = col_u64(st, 2);
	s->vmstat_pgpgout_kb = col_u64(st, 3);
	s->lost_events = col_u64(st, 4);
	s->host_busy_ns = col_u64(st, 5);
	s->cpu_unattributed_ns = col_u64(st, 6);
	s->has_cpu = sqlite3_column_int(st, 7) != 0;
	s->has_dirty = sqlite3_column_int(st, 8) != 0;
	if (sqlite3_column_type(st, 9) != SQLITE_NULL) {
		int64_t id = sqlite3_column_int64(st, 9);
		for (size_t h = 0; h < r->n_hooks; h++)
			if (r->hooks[h].id == id)
				memcpy(s->hooks, r->hooks[h].hooks, sizeof(s->hooks));
	}
	s->domains_live = sqlite3_column_int(st, 10) != 0;
	s->has_vbd_stats = sqlite3_column_int(st, 11) != 0;
	s->absent = (uint32_t)sqlite3_column_int64(st, 12);
	s->has_latency = sqlite3_column_int(st, 13) != 0;
	/* a file written before them (its host_busy_ns held the steal) or an import: unknown */
	if (sqlite3_column_type(st, 14) == SQLITE_NULL)
		s->absent |= XIO_ABSENT_HOST_CPU;
	s->host_irq_ns = col_u64(st, 14);
	s->host_steal_ns = col_u64(st, 15);
	sqlite3_reset(st);
	return SQLITE_OK;
}

/* SQLITE_CORRUPT when a row names a key the snapshot does not have. */
static int read_layers(struct rec_reader *r, size_t i, struct xio_sample *s)
{
	sqlite3_stmt *st = range_stmt(r, RS_LAYERS, i);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const struct key_row *k = find_key(r, sqlite3_column_int64(st, 0));
		if (!k)
			return SQLITE_CORRUPT;
		struct xio_layer l = {.domid = k->domid, .dev = k->dev, .via = k->via};
		l.io.rd_bytes = col_u64(st, 1);
		l.io.wr_bytes = col_u64(st, 2);
		l.io.rd_ios = col_u64(st, 3);
		l.io.wr_ios = col_u64(st, 4);
		if (sample_add_layer(s, &l))
			return SQLITE_NOMEM;
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int read_counters(struct rec_reader *r, size_t i, struct xio_sample *s)
{
	sqlite3_stmt *st = range_stmt(r, RS_COUNTERS, i);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct xio_dom_counters c = {.domid = (uint32_t)sqlite3_column_int64(st, 0)};
		for (int role = 0; role < XIO_CPU_ROLES; role++)
			c.cpu_ns[role] = col_u64(st, 1 + role);
		c.dirtied_bytes = col_u64(st, 1 + XIO_CPU_ROLES);
		c.written_back_bytes = col_u64(st, 2 + XIO_CPU_ROLES);
		c.guest_cpu_ns = sqlite3_column_type(st, 3 + XIO_CPU_ROLES) == SQLITE_NULL
		                     ? -1
		                     : sqlite3_column_int64(st, 3 + XIO_CPU_ROLES);
		if (sample_add_counters(s, &c))
			return SQLITE_NOMEM;
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int read_disks(struct rec_reader *r, size_t i, struct xio_sample *s)
{
	sqlite3_stmt *st = range_stmt(r, RS_DISKS, i);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const struct disk_row *k = find_disk(r, sqlite3_column_int64(st, 0));
		if (!k)
			return SQLITE_CORRUPT;
		struct xio_disk d = {.dev = k->dev};
		memcpy(d.name, k->name, sizeof(d.name));
		d.rd_bytes = col_u64(st, 1);
		d.wr_bytes = col_u64(st, 2);
		d.rd_ios = col_u64(st, 3);
		d.wr_ios = col_u64(st, 4);
		if (sample_add_disk(s, &d))
			return SQLITE_NOMEM;
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int read_vbds(struct rec_reader *r, size_t i, struct xio_sample *s)
{
	sqlite3_stmt *st = range_stmt(r, RS_VBDS, i);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const struct vbd_row *k = find_vbd(r, sqlite3_column_int64(st, 0));
		if (!k)
			return SQLITE_CORRUPT;
		struct xio_vbd_stat v = {.domid = k->domid,
		                         .devid = k->devid,
		                         .backend_dev = k->backend_dev,
		                         .source = k->source,
		                         .instance = k->instance};
		v.rd_bytes = col_u64(st, 1);
		v.wr_bytes = col_u64(st, 2);
		v.rd_req = col_u64(st, 3);
		v.wr_req = col_u64(st, 4);
		v.oo_req = col_u64(st, 5);
		v.f_req = col_u64(st, 6);
		v.ds_req = col_u64(st, 7);
		v.skew_rd_bytes = col_u64(st, 8);
		v.skew_wr_bytes = col_u64(st, 9);
		v.read = (uint32_t)sqlite3_column_int(st, 10);
		if (v.read > XIO_VBD_UNREAD)
			return SQLITE_CORRUPT;
		if (sample_add_vbd_stat(s, &v))
			return SQLITE_NOMEM;
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Devices and domains present in sample i; the rows are loaded ordered by dev / domid. */
static int read_names(struct rec_reader *r, size_t i, struct xio_sample *s)
{
	int64_t at = (int64_t)i;
	for (size_t j = 0; j < r->n_devs; j++)
		if (r->devs[j].first <= at && at <= r->devs[j].last &&
		    sample_add_dev(s, &r->devs[j].dev))
			return SQLITE_NOMEM;
	for (size_t j = 0; j < r->n_doms; j++)
		if (r->doms[j].first <= at && at <= r->doms[j].last &&
		    sample_add_domain(s, &r->doms[j].dom))
			return SQLITE_NOMEM;
	return SQLITE_OK;
}

int rec_read(struct rec_reader *r, size_t i, struct xio_sample *out, struct xerr *err)
{
	memset(out, 0, sizeof(*out));
	if (i >= r->count) {
		rec_set_error(err, REC_ERR_RANGE, "%s holds %zu samples: no sample %zu", r->path,
		              r->count, i);
		return -1;
	}
	int rc = read_scalars(r, i, out);
	if (rc == SQLITE_OK)
		rc = read_layers(r, i, out);
	if (rc == SQLITE_OK)
		rc = read_counters(r, i, out);
	if (rc == SQLITE_OK)
		rc = read_disks(r, i, out);
	if (rc == SQLITE_OK)
		rc = read_vbds(r, i, out);
	if (rc == SQLITE_OK && out->has_latency && r->st[RS_LATENCY])
		rc = rec_read_latency(range_stmt(r, RS_LATENCY, i), out);
	if (rc == SQLITE_OK)
		rc = read_names(r, i, out);
	for (int k = RS_LAYERS; k < RS_COUNT; k++)
		sqlite3_reset(r->st[k]);
	if (rc == SQLITE_OK)
		return 0;
	char doing[64];
	snprintf(doing, sizeof(doing), "reading sample %zu", i);
	rec_set_sqlite_error(err, r->db, rc, r->path, doing);
	if (rc == SQLITE_CORRUPT && err)
		rec_set_error(err, REC_ERR_CORRUPT, "%s is corrupt: sample %zu is incomplete",
		              r->path, i);
	sample_free(out);
	return -1;
}
