/* rec_read_sample.c - one sample of a recording, from its per-sample rows and the
 * reader's snapshot of keys and names; see record.h and rec_reader_internal.h. */
#include "record/rec_latency.h"
#include "record/rec_reader_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The samples row as a table: each column, the schema that put it there (older files read
 * NULL), whether a file of that schema may still lack it (probed: NULL then too), whether
 * schema 4 moved it into the host item (REC_ITEM_HOST: not selected from a schema 4 file),
 * where it goes in the sample, and the absent bit a NULL there sets. */
enum sample_col_kind {
	SC_REALTIME, /* int64_t realtime_ns */
	SC_U64,      /* a uint64_t member */
	SC_FLAG,     /* a bool member: nonzero */
	SC_HOOKS,    /* the hooks row's id: hooks_of */
	SC_ABSENT,   /* the absent bits */
	SC_BASE,     /* the sample the items are coded against; NULL -1 */
};
struct sample_col {
	const char *name;
	enum sample_col_kind kind;
	size_t offset; /* SC_U64 and SC_FLAG */
	int since;     /* the schema version that has it */
	bool probed;   /* a file of that version may lack it */
	bool host_item;
	uint32_t absent_if_null;
};
#define SC_AT(member) offsetof(struct xio_sample, member)
static const struct sample_col sample_cols[] = {
    {"realtime_ns", SC_REALTIME, 0, 1, false, false, 0},
    {"monotonic_ns", SC_U64, SC_AT(monotonic_ns), 1, false, true, 0},
    {"vmstat_pgpgin_kb", SC_U64, SC_AT(vmstat_pgpgin_kb), 1, false, true, 0},
    {"vmstat_pgpgout_kb", SC_U64, SC_AT(vmstat_pgpgout_kb), 1, false, true, 0},
    {"lost_events", SC_U64, SC_AT(lost_events), 1, false, true, 0},
    {"host_busy_ns", SC_U64, SC_AT(host_busy_ns), 1, false, true, 0},
    {"cpu_unattributed_ns", SC_U64, SC_AT(cpu_unattributed_ns), 1, false, true, 0},
    {"has_cpu", SC_FLAG, SC_AT(has_cpu), 1, false, false, 0},
    {"has_dirty", SC_FLAG, SC_AT(has_dirty), 1, false, false, 0},
    {"hooks", SC_HOOKS, 0, 1, false, false, 0},
    {"domains_live", SC_FLAG, SC_AT(domains_live), 1, false, false, 0},
    {"has_vbd_stats", SC_FLAG, SC_AT(has_vbd_stats), 1, false, false, 0},
    /* a file without it holds every counter */
    {"absent", SC_ABSENT, 0, 1, true, false, 0},
    /* without it, no latency was timed */
    {"has_latency", SC_FLAG, SC_AT(has_latency), 1, true, false, 0},
    /* a file written before them (its host_busy_ns held the steal) or an import: unknown */
    {"host_irq_ns", SC_U64, SC_AT(host_irq_ns), 1, true, true, XIO_ABSENT_HOST_CPU},
    {"host_steal_ns", SC_U64, SC_AT(host_steal_ns), 1, true, true, 0},
    /* keyframes since schema 3 */
    {"base", SC_BASE, 0, 3, false, false, 0},
};
#define N_SAMPLE_COLS (sizeof(sample_cols) / sizeof(sample_cols[0]))

static bool sample_col_selected(const struct rec_reader *r, const struct sample_col *c)
{
	return !(c->host_item && r->version >= 4);
}

/* "SELECT ... FROM samples WHERE idx = ?" for r's file, into sql[size]; false: too long */
static bool sample_select(const struct rec_reader *r, char *sql, size_t size)
{
	size_t used = (size_t)snprintf(sql, size, "SELECT");
	const char *sep = " ";
	for (size_t i = 0; i < N_SAMPLE_COLS && used < size; i++) {
		const struct sample_col *c = &sample_cols[i];
		if (!sample_col_selected(r, c))
			continue;
		bool held = r->version >= c->since &&
		            (!c->probed || rec_has_column(r->db, "samples", c->name));
		used +=
		    (size_t)snprintf(sql + used, size - used, "%s%s", sep, held ? c->name : "NULL");
		sep = ", ";
	}
	if (used < size)
		used += (size_t)snprintf(sql + used, size - used, " FROM samples WHERE idx = ?");
	return used < size;
}

static const char *const reader_sql[RS_COUNT] = {
    [RS_ITEMS] = "SELECT items FROM sample_items WHERE slot BETWEEN ? AND ? ORDER BY slot",
    [RS_BASE] = "SELECT base FROM samples WHERE idx = ?",
    [RS_LAYERS] = "SELECT layer, rd_bytes, wr_bytes, rd_ios, wr_ios FROM layer_counts"
                  " WHERE slot BETWEEN ? AND ? ORDER BY slot",
    [RS_COUNTERS] = "SELECT domid, cpu_backend_ns, cpu_device_model_ns, cpu_loop_ns,"
                    " cpu_writeback_ns, dirtied_bytes, written_back_bytes, guest_cpu_ns"
                    " FROM dom_counters WHERE slot BETWEEN ? AND ? ORDER BY slot",
    [RS_DISKS] = "SELECT disk, rd_bytes, wr_bytes, rd_ios, wr_ios FROM disk_counts"
                 " WHERE slot BETWEEN ? AND ? ORDER BY slot",
    [RS_VBDS] = NULL,    /* vbds_sql: its columns depend on the file's age */
    [RS_LATENCY] = NULL, /* REC_LATENCY_SELECT_SQL: its columns depend on the file's age */
};
/* A file written before vbd_counts had its skew columns: unknown, read as 0; before its
 * read_state column: every vbd counted was read (NULL, XIO_VBD_READ). */
static const char vbds_sql[] = "SELECT vbd, rd_bytes, wr_bytes, rd_req, wr_req, oo_req, f_req,"
                               " ds_req, %s, %s FROM vbd_counts"
                               " WHERE slot BETWEEN ? AND ? ORDER BY slot";

int rec_reader_prepare(struct rec_reader *r)
{
	int rc = SQLITE_OK;
	bool packed = r->version >= 3;
	char sample[1024];
	if (!sample_select(r, sample, sizeof(sample)))
		return SQLITE_TOOBIG;
	if (packed) {
		rc = sqlite3_prepare_v3(r->db, sample, -1, SQLITE_PREPARE_PERSISTENT,
		                        &r->st[RS_SAMPLE], NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_prepare_v3(r->db, reader_sql[RS_ITEMS], -1,
			                        SQLITE_PREPARE_PERSISTENT, &r->st[RS_ITEMS], NULL);
		if (rc == SQLITE_OK && r->version >= 4)
			rc = sqlite3_prepare_v3(r->db, reader_sql[RS_BASE], -1,
			                        SQLITE_PREPARE_PERSISTENT, &r->st[RS_BASE], NULL);
		return rc;
	}
	bool skew_known = rec_has_column(r->db, "vbd_counts", "skew_rd_bytes");
	bool latency_table = rec_has_column(r->db, "latency_counts", "slot");
	char latency[sizeof(REC_LATENCY_SELECT_SQL) + 16];
	snprintf(latency, sizeof(latency), REC_LATENCY_SELECT_SQL,
	         rec_has_column(r->db, "latency_counts", "untimed") ? "untimed" : "NULL");
	char vbds[sizeof(vbds_sql) + 64];
	snprintf(vbds, sizeof(vbds), vbds_sql,
	         skew_known ? "skew_rd_bytes, skew_wr_bytes" : "NULL, NULL",
	         rec_has_column(r->db, "vbd_counts", "read_state") ? "read_state" : "NULL");
	for (int i = 0; rc == SQLITE_OK && i < RS_COUNT; i++) {
		const char *sql = i == RS_SAMPLE    ? sample
		                  : i == RS_VBDS    ? vbds
		                  : i == RS_LATENCY ? latency
		                                    : reader_sql[i];
		if (i == RS_ITEMS || i == RS_BASE || (i == RS_LATENCY && !latency_table))
			continue;
		rc = sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &r->st[i], NULL);
	}
	return rc;
}

/* The row of rows[0..n) (ordered by id, each `size` bytes, its id the first member) whose
 * id is id, or NULL: the key, vbd and other id-ordered tables of one recording. */
static const void *find_ordered(const void *rows, size_t n, size_t size, int64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *row = (const char *)rows + mid * size;
		int64_t at;
		memcpy(&at, row, sizeof(at));
		if (at == id)
			return row;
		if (at < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct key_row *find_key(const struct rec_reader *r, int64_t id)
{
	_Static_assert(offsetof(struct key_row, id) == 0, "find_ordered reads the id first");
	return find_ordered(r->keys, r->n_keys, sizeof(*r->keys), id);
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
	_Static_assert(offsetof(struct vbd_row, id) == 0, "find_ordered reads the id first");
	return find_ordered(r->vbd_keys, r->n_vbd_keys, sizeof(*r->vbd_keys), id);
}

static sqlite3_stmt *range_stmt(struct rec_reader *r, enum reader_stmt which, size_t i)
{
	sqlite3_stmt *st = r->st[which];
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, REC_SLOT(i, 0));
	sqlite3_bind_int64(st, 2, REC_SLOT(i, REC_SLOT_MAX));
	return st;
}

/* The hook set of id `id` into s. */
static void hooks_of(const struct rec_reader *r, int64_t id, struct xio_sample *s)
{
	for (size_t h = 0; h < r->n_hooks; h++)
		if (r->hooks[h].id == id)
			memcpy(s->hooks, r->hooks[h].hooks, sizeof(s->hooks));
}

/* The sample's scalars, by sample_cols; *base its keyframe (-1: itself one, or a file
 * before schema 3). */
static int read_scalars(struct rec_reader *r, size_t i, struct xio_sample *s, int64_t *base)
{
	sqlite3_stmt *st = r->st[RS_SAMPLE];
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
	*base = -1;
	int col = 0;
	for (size_t k = 0; k < N_SAMPLE_COLS; k++) {
		const struct sample_col *c = &sample_cols[k];
		if (!sample_col_selected(r, c))
			continue;
		bool null = sqlite3_column_type(st, col) == SQLITE_NULL;
		if (null)
			s->absent |= c->absent_if_null;
		switch (c->kind) {
		case SC_REALTIME:
			s->realtime_ns = sqlite3_column_int64(st, col);
			break;
		case SC_U64:
			*(uint64_t *)((char *)s + c->offset) = col_u64(st, col);
			break;
		case SC_FLAG:
			*(bool *)((char *)s + c->offset) = sqlite3_column_int(st, col) != 0;
			break;
		case SC_HOOKS:
			if (!null)
				hooks_of(r, sqlite3_column_int64(st, col), s);
			break;
		case SC_ABSENT:
			s->absent |= (uint32_t)sqlite3_column_int64(st, col);
			break;
		case SC_BASE:
			*base = null ? -1 : sqlite3_column_int64(st, col);
			break;
		}
		col++;
	}
	if (r->arrays_unknown) /* a file written before devices kept their arrays */
		s->absent |= XIO_ABSENT_ARRAYS;
	sqlite3_reset(st);
	return SQLITE_OK;
}

/* A counts row's counts, columns 1 to n (column 0 is its key), into *dst[0, n): the
 * columns bind_counts wrote. */
static void col_counts(sqlite3_stmt *st, uint64_t *const dst[], size_t n)
{
	for (size_t c = 0; c < n; c++)
		*dst[c] = col_u64(st, 1 + (int)c);
}

/* SQLITE_CORRUPT when a row names a key the snapshot does not have. */
static int read_layer(struct rec_reader *r, sqlite3_stmt *st, struct xio_sample *s)
{
	const struct key_row *k = find_key(r, sqlite3_column_int64(st, 0));
	if (!k)
		return SQLITE_CORRUPT;
	struct xio_layer l = {.domid = k->domid, .dev = k->dev, .via = k->via};
	l.io.rd_bytes = col_u64(st, 1);
	l.io.wr_bytes = col_u64(st, 2);
	l.io.rd_ios = col_u64(st, 3);
	l.io.wr_ios = col_u64(st, 4);
	return sample_add_layer(s, &l) ? SQLITE_NOMEM : SQLITE_OK;
}

static int read_counter(struct rec_reader *r, sqlite3_stmt *st, struct xio_sample *s)
{
	(void)r; /* a counters row names its domain itself */
	struct xio_dom_counters c = {.domid = (uint32_t)sqlite3_column_int64(st, 0)};
	for (int role = 0; role < XIO_CPU_ROLES; role++)
		c.cpu_ns[role] = col_u64(st, 1 + role);
	c.dirtied_bytes = col_u64(st, 1 + XIO_CPU_ROLES);
	c.written_back_bytes = col_u64(st, 2 + XIO_CPU_ROLES);
	c.guest_cpu_ns = sqlite3_column_type(st, 3 + XIO_CPU_ROLES) == SQLITE_NULL
	                     ? -1
	                     : sqlite3_column_int64(st, 3 + XIO_CPU_ROLES);
	return sample_add_counters(s, &c) ? SQLITE_NOMEM : SQLITE_OK;
}

static int read_disk(struct rec_reader *r, sqlite3_stmt *st, struct xio_sample *s)
{
	const struct disk_row *k = find_disk(r, sqlite3_column_int64(st, 0));
	if (!k)
		return SQLITE_CORRUPT;
	struct xio_disk d = {.dev = k->dev};
	memcpy(d.name, k->name, sizeof(d.name));
	uint64_t *const counts[] = {&d.rd_bytes, &d.wr_bytes, &d.rd_ios, &d.wr_ios};
	col_counts(st, counts, sizeof(counts) / sizeof(*counts));
	return sample_add_disk(s, &d) ? SQLITE_NOMEM : SQLITE_OK;
}

static int read_vbd(struct rec_reader *r, sqlite3_stmt *st, struct xio_sample *s)
{
	const struct vbd_row *k = find_vbd(r, sqlite3_column_int64(st, 0));
	if (!k)
		return SQLITE_CORRUPT;
	struct xio_vbd_stat v = {.domid = k->domid,
	                         .devid = k->devid,
	                         .backend_dev = k->backend_dev,
	                         .source = k->source,
	                         .instance = k->instance};
	uint64_t *const counts[] = {&v.rd_bytes, &v.wr_bytes,      &v.rd_req,
	                            &v.wr_req,   &v.oo_req,        &v.f_req,
	                            &v.ds_req,   &v.skew_rd_bytes, &v.skew_wr_bytes};
	col_counts(st, counts, sizeof(counts) / sizeof(*counts));
	v.read = (uint32_t)sqlite3_column_int(st, 10);
	if (v.read > XIO_VBD_UNREAD)
		return SQLITE_CORRUPT;
	return sample_add_vbd_stat(s, &v) ? SQLITE_NOMEM : SQLITE_OK;
}

/* Schemas 3 and 4: one item into the sample (rec_pack.h), its key resolved as the old
 * tables' rows were. */
struct item_ctx {
	struct rec_reader *r;
	struct xio_sample *s;
};

/* Schema 4: the host's counters (key 0, one a sample). */
static int host_item(struct xio_sample *s, uint64_t key, const uint64_t *f)
{
	if (key)
		return SQLITE_CORRUPT;
	s->monotonic_ns = f[0];
	s->vmstat_pgpgin_kb = f[1];
	s->vmstat_pgpgout_kb = f[2];
	s->lost_events = f[3];
	s->host_busy_ns = f[4];
	s->cpu_unattributed_ns = f[5];
	s->host_irq_ns = f[6];
	s->host_steal_ns = f[7];
	return SQLITE_OK;
}

static int item_to_sample(void *ctx, enum rec_item_kind kind, uint64_t key, const uint64_t *f)
{
	struct rec_reader *r = ((struct item_ctx *)ctx)->r;
	struct xio_sample *s = ((struct item_ctx *)ctx)->s;
	int64_t id = key > INT64_MAX ? -1 : (int64_t)key;
	switch (kind) {
	case REC_ITEM_LAYER: {
		const struct key_row *k = find_key(r, id);
		if (!k)
			return SQLITE_CORRUPT;
		struct xio_layer l = {.domid = k->domid, .dev = k->dev, .via = k->via};
		l.io = (struct xiotop_io){f[0], f[1], f[2], f[3]};
		return sample_add_layer(s, &l) ? SQLITE_NOMEM : SQLITE_OK;
	}
	case REC_ITEM_COUNTERS: {
		if (key > UINT32_MAX)
			return SQLITE_CORRUPT;
		struct xio_dom_counters c = {.domid = (uint32_t)key};
		memcpy(c.cpu_ns, f, sizeof(c.cpu_ns));
		c.dirtied_bytes = f[XIO_CPU_ROLES];
		c.written_back_bytes = f[XIO_CPU_ROLES + 1];
		c.guest_cpu_ns = (int64_t)f[XIO_CPU_ROLES + 2]; /* -1: unknown */
		return sample_add_counters(s, &c) ? SQLITE_NOMEM : SQLITE_OK;
	}
	case REC_ITEM_DISK: {
		const struct disk_row *k = find_disk(r, id);
		if (!k)
			return SQLITE_CORRUPT;
		struct xio_disk d = {.dev = k->dev,
		                     .rd_bytes = f[0],
		                     .wr_bytes = f[1],
		                     .rd_ios = f[2],
		                     .wr_ios = f[3]};
		memcpy(d.name, k->name, sizeof(d.name));
		return sample_add_disk(s, &d) ? SQLITE_NOMEM : SQLITE_OK;
	}
	case REC_ITEM_VBD: {
		const struct vbd_row *k = find_vbd(r, id);
		if (!k || f[9] > XIO_VBD_UNREAD)
			return SQLITE_CORRUPT;
		struct xio_vbd_stat v = {.domid = k->domid,
		                         .devid = k->devid,
		                         .backend_dev = k->backend_dev,
		                         .source = k->source,
		                         .instance = k->instance,
		                         .read = (uint32_t)f[9]};
		uint64_t *const counts[] = {&v.rd_bytes, &v.wr_bytes,      &v.rd_req,
		                            &v.wr_req,   &v.oo_req,        &v.f_req,
		                            &v.ds_req,   &v.skew_rd_bytes, &v.skew_wr_bytes};
		for (size_t c = 0; c < sizeof(counts) / sizeof(*counts); c++)
			*counts[c] = f[c];
		return sample_add_vbd_stat(s, &v) ? SQLITE_NOMEM : SQLITE_OK;
	}
	case REC_ITEM_LATENCY: {
		if (key >> 1 > UINT32_MAX || f[2] > UINT32_MAX)
			return SQLITE_CORRUPT;
		if (!s->has_latency) /* as the tables were read: only a timed sample's */
			return SQLITE_OK;
		struct xio_latency l;
		memset(&l, 0, sizeof(l));
		l.domid = (uint32_t)(key >> 1);
		l.op = (uint32_t)(key & 1);
		l.hist.count = f[0];
		l.hist.sum_ns = f[1];
		l.untimed = (uint32_t)f[2];
		memcpy(l.hist.buckets, f + 3, sizeof(l.hist.buckets));
		return sample_add_latency(s, &l) ? SQLITE_NOMEM : SQLITE_OK;
	}
	case REC_ITEM_HOST:
		return host_item(s, key, f);
	default:
		return SQLITE_CORRUPT;
	}
}

static int item_ignored(void *ctx, enum rec_item_kind kind, uint64_t key, const uint64_t *f)
{
	(void)ctx, (void)kind, (void)key, (void)f;
	return SQLITE_OK;
}

/* Each sample_items row of sample i through rec_unpack_row. */
static int unpack_sample(struct rec_reader *r, size_t i, const struct rec_keyframe *kf,
                         struct rec_keyframe *into, rec_item_fn fn, void *ctx)
{
	sqlite3_stmt *st = range_stmt(r, RS_ITEMS, i);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int row_rc = rec_unpack_row(sqlite3_column_blob(st, 0),
		                            (size_t)sqlite3_column_bytes(st, 0), kf, into, fn, ctx);
		if (row_rc != SQLITE_OK)
			return row_rc;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Keyframe sample k's items kept in r->kf for the samples after it, each also to fn; on
 * failure none is kept. */
static int load_keyframe(struct rec_reader *r, size_t k, rec_item_fn fn, void *ctx)
{
	rec_keyframe_start(&r->kf, (int64_t)k);
	int rc = unpack_sample(r, k, NULL, &r->kf, fn, ctx);
	if (rc == SQLITE_OK)
		rc = rec_keyframe_done(&r->kf);
	if (rc != SQLITE_OK)
		rec_keyframe_start(&r->kf, -1);
	return rc;
}

/* Sample i's items (schema 3): a keyframe (base -1) on its own, kept for the samples
 * after it; any other sample against its keyframe base, loaded unless it is the one kept. */
static int read_items(struct rec_reader *r, size_t i, int64_t base, struct xio_sample *s)
{
	struct item_ctx ctx = {r, s};
	if (base >= (int64_t)i)
		return SQLITE_CORRUPT; /* a keyframe is an earlier sample */
	if (base < 0)
		return r->kf.sample == (int64_t)i
		           ? unpack_sample(r, i, NULL, NULL, item_to_sample, &ctx)
		           : load_keyframe(r, i, item_to_sample, &ctx);
	if (r->kf.sample != base) {
		int rc = load_keyframe(r, (size_t)base, item_ignored, NULL);
		if (rc != SQLITE_OK)
			return rc;
	}
	return unpack_sample(r, i, &r->kf, NULL, item_to_sample, &ctx);
}

/* Sample i's items (schema 4): decoded along its chain (rec_read_chain.c), in the order
 * of their kinds, each kind's in recorded order. */
static int read_chain_items(struct rec_reader *r, size_t i, int64_t base, struct xio_sample *s)
{
	const struct rec_items *items;
	int rc = rec_read_chain(r, i, base, &items);
	if (rc == SQLITE_OK && items->kind[REC_ITEM_HOST].n != 1)
		rc = SQLITE_CORRUPT; /* every sample has the host's counters */
	struct item_ctx ctx = {r, s};
	for (int k = 1; rc == SQLITE_OK && k < REC_ITEM_KINDS; k++) {
		const struct rec_item_list *l = &items->kind[k];
		unsigned nf = rec_pack_fields((enum rec_item_kind)k);
		for (size_t j = 0; rc == SQLITE_OK && j < l->n; j++)
			rc = item_to_sample(&ctx, (enum rec_item_kind)k, l->keys[j],
			                    l->fields + j * nf);
	}
	return rc;
}

/* Each row of `which` in sample i into s by read_row; SQLite's status. */
static int read_each(struct rec_reader *r, enum reader_stmt which, size_t i, struct xio_sample *s,
                     int (*read_row)(struct rec_reader *r, sqlite3_stmt *st, struct xio_sample *s))
{
	sqlite3_stmt *st = range_stmt(r, which, i);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int row_rc = read_row(r, st, s);
		if (row_rc != SQLITE_OK)
			return row_rc;
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Sample i's counters from the tables of a file before schema 3. */
static int read_tables(struct rec_reader *r, size_t i, struct xio_sample *out)
{
	int rc = read_each(r, RS_LAYERS, i, out, read_layer);
	if (rc == SQLITE_OK)
		rc = read_each(r, RS_COUNTERS, i, out, read_counter);
	if (rc == SQLITE_OK)
		rc = read_each(r, RS_DISKS, i, out, read_disk);
	if (rc == SQLITE_OK)
		rc = read_each(r, RS_VBDS, i, out, read_vbd);
	if (rc == SQLITE_OK && out->has_latency && r->st[RS_LATENCY])
		rc = rec_read_latency(range_stmt(r, RS_LATENCY, i), r->version, out);
	return rc;
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
	int64_t base = -1;
	int rc = read_scalars(r, i, out, &base);
	if (rc == SQLITE_OK)
		rc = r->version >= 4   ? read_chain_items(r, i, base, out)
		     : r->st[RS_ITEMS] ? read_items(r, i, base, out)
		                       : read_tables(r, i, out);
	if (rc == SQLITE_OK)
		rc = read_names(r, i, out);
	for (int k = RS_ITEMS; k < RS_COUNT; k++)
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
