/* rec_write_sample.c - one sample's rows for a recording, into the writer's op log: its
 * items coded (rec_chain.h), and the names (layer keys, disks, hook sets, devices,
 * domains) stored once and remembered; see rec_writer_internal.h. */
#include "record/rec_writer_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const writer_sql[ST_COUNT] = {
    [ST_SAMPLE] = "INSERT INTO samples VALUES (?,?,?,?,?,?,?,?,?,?)",
    [ST_LAYER_KEY] = "INSERT INTO layer_keys (id, domid, dev, via) VALUES (?,?,?,?)",
    [ST_DISK_KEY] = "INSERT INTO disk_keys (id, dev, name) VALUES (?,?,?)",
    [ST_HOOKS_ADD] = "INSERT INTO hook_sets (id, hooks) VALUES (?,?)",
    [ST_DEV_OPEN] = "INSERT INTO devices (id, dev, name, is_leaf, first_sample, array_role)"
                    " VALUES (?,?,?,?,?,?)",
    [ST_DEV_CLOSE] = "UPDATE devices SET last_sample = ? WHERE id = ?",
    [ST_DOM_OPEN] = "INSERT INTO domains (id, domid, name, kind, file, missing, first_sample,"
                    " uuid, generation, mem_bytes) VALUES (?,?,?,?,?,?,?,?,?,?)",
    [ST_DOM_CLOSE] = "UPDATE domains SET last_sample = ? WHERE id = ?",
    [ST_VBD_KEY] = "INSERT INTO vbd_keys (id, domid, devid, backend_dev, source, instance) "
                   "VALUES (?,?,?,?,?,?)",
    [ST_ITEMS] = "INSERT INTO sample_items VALUES (?,?)",
    [ST_MARK] = "INSERT INTO marks (realtime_ns, label, origin, exit_status) VALUES (?,?,?,?)",
    [ST_META] = "INSERT OR REPLACE INTO meta VALUES (?,?)",
};

int rec_writer_prepare(struct rec_writer *w)
{
	for (int i = 0; i < ST_COUNT; i++) {
		int rc = sqlite3_prepare_v3(w->db, writer_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		                            &w->st[i], NULL);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

/* A row of one of the writer's tables: its id, numbered here, begins the op. */
static int64_t new_row(struct rec_writer *w, enum writer_stmt stmt, enum writer_ids ids)
{
	int64_t id = w->next_id[ids]++;
	rec_oplog_add(&w->log, stmt);
	rec_oplog_int(&w->log, id);
	return id;
}

static void op_text(struct rec_writer *w, const char *s, size_t max)
{
	rec_oplog_text(&w->log, s, strnlen(s, max));
}

static int key_cmp(const struct layer_key_id *k, const struct xio_layer *l)
{
	return xio_layer_key_order(k->domid, k->dev, k->via, l->domid, l->dev, l->via);
}

/* The id of a layer key, stored on first use. 0 when out of memory (rc in *rc). */
static int64_t layer_key(struct rec_writer *w, const struct xio_layer *l, int *rc)
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
	memmove(&w->keys[lo + 1], &w->keys[lo], (w->n_keys - lo) * sizeof(*w->keys));
	w->keys[lo] =
	    (struct layer_key_id){l->domid, l->dev, l->via, new_row(w, ST_LAYER_KEY, ID_LAYER_KEY)};
	rec_oplog_int(&w->log, l->domid);
	rec_oplog_int(&w->log, l->dev);
	rec_oplog_int(&w->log, l->via);
	w->n_keys++;
	return w->keys[lo].id;
}

/* Room for one more item in *arr (n items of size bytes); false, *rc SQLITE_NOMEM, when
 * there is none. */
static bool room_for_one(void *arr, size_t n, size_t size, int *rc)
{
	void **p = arr;
	void *q = realloc(*p, (n + 1) * size);
	if (!q) {
		*rc = SQLITE_NOMEM;
		return false;
	}
	*p = q;
	return true;
}

static int64_t disk_key(struct rec_writer *w, const struct xio_disk *d, int *rc)
{
	for (size_t i = 0; i < w->n_disk_keys; i++)
		if (w->disk_keys[i].dev == d->dev &&
		    !strncmp(w->disk_keys[i].name, d->name, sizeof(d->name)))
			return w->disk_keys[i].id;
	if (!room_for_one(&w->disk_keys, w->n_disk_keys, sizeof(*w->disk_keys), rc))
		return 0;
	struct disk_key_id *k = &w->disk_keys[w->n_disk_keys++];
	k->dev = d->dev;
	memcpy(k->name, d->name, sizeof(k->name));
	k->name[sizeof(k->name) - 1] = 0;
	k->id = new_row(w, ST_DISK_KEY, ID_DISK_KEY);
	rec_oplog_int(&w->log, d->dev);
	op_text(w, d->name, sizeof(d->name));
	return k->id;
}

/* The hook set's id, each distinct set stored once. */
static int store_hooks(struct rec_writer *w, const char *hooks)
{
	if (w->hooks_id && !strcmp(w->hooks, hooks))
		return SQLITE_OK;
	for (size_t i = 0; i < w->n_hook_sets; i++)
		if (!strcmp(w->hook_sets[i].hooks, hooks)) {
			w->hooks_id = w->hook_sets[i].id;
			snprintf(w->hooks, sizeof(w->hooks), "%s", hooks);
			return SQLITE_OK;
		}
	int rc = SQLITE_OK;
	if (!room_for_one(&w->hook_sets, w->n_hook_sets, sizeof(*w->hook_sets), &rc))
		return rc;
	struct hooks_id *h = &w->hook_sets[w->n_hook_sets++];
	snprintf(h->hooks, sizeof(h->hooks), "%s", hooks);
	h->id = w->hooks_id = new_row(w, ST_HOOKS_ADD, ID_HOOKS);
	rec_oplog_text(&w->log, hooks, strlen(hooks));
	snprintf(w->hooks, sizeof(w->hooks), "%s", hooks);
	/* The first sample's hooks are also a fact of the recording, for `sqlite3` users. */
	if (w->count == 0) {
		rec_oplog_add(&w->log, ST_META);
		rec_oplog_text(&w->log, "hooks", 5);
		rec_oplog_text(&w->log, hooks, strlen(hooks));
	}
	return SQLITE_OK;
}

static void op_u64(struct rec_writer *w, uint64_t v)
{
	/* Stored as the same 64 bits: exact round trip; SQL shows >= 2^63 as negative. */
	rec_oplog_int(&w->log, (int64_t)v);
}

/* The samples row; base: the sample the items are coded against, -1 for a keyframe. */
static int store_sample_row(struct rec_writer *w, const struct xio_sample *s, int64_t base)
{
	if (s->hooks[0]) {
		int rc = store_hooks(w, s->hooks);
		if (rc != SQLITE_OK)
			return rc;
	}
	rec_oplog_add(&w->log, ST_SAMPLE);
	rec_oplog_int(&w->log, (int64_t)w->count);
	rec_oplog_int(&w->log, s->realtime_ns);
	rec_oplog_int(&w->log, s->has_cpu);
	rec_oplog_int(&w->log, s->has_dirty);
	if (s->hooks[0])
		rec_oplog_int(&w->log, w->hooks_id);
	else
		rec_oplog_null(&w->log);
	rec_oplog_int(&w->log, s->domains_live);
	rec_oplog_int(&w->log, s->has_vbd_stats);
	if (s->absent) /* NULL for a live sample: every counter is there */
		rec_oplog_int(&w->log, s->absent);
	else
		rec_oplog_null(&w->log);
	if (s->has_latency) /* NULL: latency was not timed */
		rec_oplog_int(&w->log, 1);
	else
		rec_oplog_null(&w->log);
	if (base >= 0) /* NULL: a keyframe */
		rec_oplog_int(&w->log, base);
	else
		rec_oplog_null(&w->log);
	return SQLITE_OK;
}

/* The host's counters: an item of their own, so that only what changed is stored. */
static int pack_host(struct rec_writer *w, const struct xio_sample *s)
{
	const uint64_t fields[] = {s->monotonic_ns, s->vmstat_pgpgin_kb, s->vmstat_pgpgout_kb,
	                           s->lost_events,  s->host_busy_ns,     s->cpu_unattributed_ns,
	                           s->host_irq_ns,  s->host_steal_ns};
	_Static_assert(sizeof(fields) / sizeof(*fields) == 8, "rec_pack_fields(REC_ITEM_HOST)");
	return rec_items_add(&w->items[w->cur], REC_ITEM_HOST, 0, fields);
}

/* Each pack_* adds one item (its key first stored if new) to the sample's items;
 * SQLite's status. */
typedef int (*pack_fn)(struct rec_writer *w, const void *item);

/* Every item of items[0, n) (size bytes each), packed by pack. */
static int pack_each(struct rec_writer *w, const void *items, size_t n, size_t size, pack_fn pack)
{
	for (size_t i = 0; i < n; i++) {
		int rc = pack(w, (const char *)items + i * size);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static int add_item(struct rec_writer *w, enum rec_item_kind kind, uint64_t key,
                    const uint64_t *fields)
{
	return rec_items_add(&w->items[w->cur], kind, key, fields);
}

/* An item whose key is a row of a key table: id 0, the key could not be stored, *key_rc
 * (set by the key's function, called before) says why and is returned. */
static int pack_keyed(struct rec_writer *w, enum rec_item_kind kind, int64_t id, const int *key_rc,
                      const uint64_t *fields)
{
	if (!id)
		return *key_rc;
	return add_item(w, kind, (uint64_t)id, fields);
}

static int pack_layer(struct rec_writer *w, const void *item)
{
	const struct xio_layer *l = item;
	const uint64_t fields[] = {l->io.rd_bytes, l->io.wr_bytes, l->io.rd_ios, l->io.wr_ios};
	int key_rc = SQLITE_OK;
	return pack_keyed(w, REC_ITEM_LAYER, layer_key(w, l, &key_rc), &key_rc, fields);
}

static int pack_counter(struct rec_writer *w, const void *item)
{
	const struct xio_dom_counters *c = item;
	uint64_t fields[XIO_CPU_ROLES + 3];
	_Static_assert(sizeof(fields) / sizeof(*fields) == XIO_CPU_ROLES + 3,
	               "rec_pack_fields(REC_ITEM_COUNTERS)");
	for (int r = 0; r < XIO_CPU_ROLES; r++)
		fields[r] = c->cpu_ns[r];
	fields[XIO_CPU_ROLES] = c->dirtied_bytes;
	fields[XIO_CPU_ROLES + 1] = c->written_back_bytes;
	fields[XIO_CPU_ROLES + 2] = (uint64_t)c->guest_cpu_ns; /* -1: unknown, bit for bit */
	return add_item(w, REC_ITEM_COUNTERS, c->domid, fields);
}

static int pack_disk(struct rec_writer *w, const void *item)
{
	const struct xio_disk *d = item;
	const uint64_t fields[] = {d->rd_bytes, d->wr_bytes, d->rd_ios, d->wr_ios};
	int key_rc = SQLITE_OK;
	return pack_keyed(w, REC_ITEM_DISK, disk_key(w, d, &key_rc), &key_rc, fields);
}

static int pack_latency(struct rec_writer *w, const void *item)
{
	const struct xio_latency *l = item;
	uint64_t fields[REC_PACK_FIELDS_MAX] = {l->hist.count, l->hist.sum_ns, l->untimed};
	memcpy(fields + 3, l->hist.buckets, sizeof(l->hist.buckets));
	_Static_assert(3 + sizeof(l->hist.buckets) / sizeof(*l->hist.buckets) ==
	                   REC_PACK_FIELDS_MAX,
	               "rec_pack_fields(REC_ITEM_LATENCY)");
	return add_item(w, REC_ITEM_LATENCY, (uint64_t)l->domid << 1 | l->op, fields);
}

static int64_t vbd_key(struct rec_writer *w, const struct xio_vbd_stat *v, int *rc)
{
	for (size_t i = 0; i < w->n_vbd_keys; i++) {
		const struct vbd_key_id *k = &w->vbd_keys[i];
		if (k->domid == v->domid && k->devid == v->devid &&
		    k->backend_dev == v->backend_dev && k->source == v->source &&
		    k->instance == v->instance)
			return k->id;
	}
	if (!room_for_one(&w->vbd_keys, w->n_vbd_keys, sizeof(*w->vbd_keys), rc))
		return 0;
	w->vbd_keys[w->n_vbd_keys] =
	    (struct vbd_key_id){v->domid, v->devid, v->backend_dev, v->source, v->instance, 0};
	int64_t id = w->vbd_keys[w->n_vbd_keys++].id = new_row(w, ST_VBD_KEY, ID_VBD_KEY);
	rec_oplog_int(&w->log, v->domid);
	rec_oplog_int(&w->log, v->devid);
	rec_oplog_int(&w->log, v->backend_dev);
	rec_oplog_int(&w->log, v->source);
	op_u64(w, v->instance);
	return id;
}

static int pack_vbd(struct rec_writer *w, const void *item)
{
	const struct xio_vbd_stat *v = item;
	const uint64_t fields[] = {v->rd_bytes,      v->wr_bytes, v->rd_req, v->wr_req,
	                           v->oo_req,        v->f_req,    v->ds_req, v->skew_rd_bytes,
	                           v->skew_wr_bytes, v->read};
	_Static_assert(sizeof(fields) / sizeof(*fields) == 10, "rec_pack_fields(REC_ITEM_VBD)");
	int key_rc = SQLITE_OK;
	return pack_keyed(w, REC_ITEM_VBD, vbd_key(w, v, &key_rc), &key_rc, fields);
}

static bool same_dev(const void *open_item, const void *item)
{
	const struct xio_dev *a = open_item, *b = item;
	return a->dev == b->dev && a->is_leaf == b->is_leaf && a->array == b->array &&
	       !strncmp(a->name, b->name, sizeof(a->name));
}

static bool same_domain(const void *open_item, const void *item)
{
	const struct xio_domain *a = open_item, *b = item;
	return a->domid == b->domid && a->missing == b->missing && a->generation == b->generation &&
	       a->mem_bytes == b->mem_bytes && !strncmp(a->uuid, b->uuid, sizeof(a->uuid)) &&
	       !strncmp(a->name, b->name, sizeof(a->name)) &&
	       !strncmp(a->kind, b->kind, sizeof(a->kind)) &&
	       !strncmp(a->file, b->file, sizeof(a->file));
}

static int close_row(struct rec_writer *w, enum writer_stmt which, int64_t id)
{
	rec_oplog_add(&w->log, which);
	rec_oplog_int(&w->log, (int64_t)w->count - 1);
	rec_oplog_int(&w->log, id);
	return SQLITE_OK;
}

/* One kind of row that stays open while the samples hold its item (devices, domains):
 * each open row is its item (at offset 0), its row id and a seen flag. */
struct row_kind {
	size_t row_size, item_size, id_off, seen_off;
	enum writer_stmt close;
	bool (*same)(const void *open_item, const void *item);
	/* the op opening the item's row; its id */
	int64_t (*insert)(struct rec_writer *w, const void *item);
};

static char *row_at(const struct row_kind *k, void *rows, size_t j)
{
	return (char *)rows + j * k->row_size;
}

static bool *row_seen(const struct row_kind *k, void *rows, size_t j)
{
	return (bool *)(row_at(k, rows, j) + k->seen_off);
}

static int64_t row_id(const struct row_kind *k, void *rows, size_t j)
{
	int64_t id;
	memcpy(&id, row_at(k, rows, j) + k->id_off, sizeof(id));
	return id;
}

/* The sample's items against the open rows (n of them; the array may move: returned):
 * an item already open stays so, a new one opens a row, a row no item matches is closed
 * at the previous sample. *rc: SQLite's status. */
static void *store_rows(struct rec_writer *w, const struct row_kind *k, const void *items,
                        size_t n_items, void *rows, size_t *n, int *rc)
{
	*rc = SQLITE_OK;
	for (size_t j = 0; j < *n; j++)
		*row_seen(k, rows, j) = false;
	for (size_t i = 0; i < n_items; i++) {
		const char *item = (const char *)items + i * k->item_size;
		size_t j = 0;
		while (j < *n && (*row_seen(k, rows, j) || !k->same(row_at(k, rows, j), item)))
			j++;
		if (j < *n) {
			*row_seen(k, rows, j) = true;
			continue;
		}
		void *p = realloc(rows, (*n + 1) * k->row_size);
		if (!p) {
			*rc = SQLITE_NOMEM;
			return rows;
		}
		rows = p;
		char *row = row_at(k, rows, *n);
		int64_t id = k->insert(w, item);
		memset(row, 0, k->row_size);
		memcpy(row, item, k->item_size);
		memcpy(row + k->id_off, &id, sizeof(id));
		*row_seen(k, rows, *n) = true;
		(*n)++;
	}
	size_t kept = 0;
	for (size_t j = 0; j < *n; j++) {
		if (!*row_seen(k, rows, j)) {
			if ((*rc = close_row(w, k->close, row_id(k, rows, j))) != SQLITE_OK)
				return rows;
			continue;
		}
		memmove(row_at(k, rows, kept++), row_at(k, rows, j), k->row_size);
	}
	*n = kept;
	return rows;
}

static int64_t insert_dev(struct rec_writer *w, const void *item)
{
	const struct xio_dev *d = item;
	int64_t id = new_row(w, ST_DEV_OPEN, ID_DEV);
	rec_oplog_int(&w->log, d->dev);
	op_text(w, d->name, sizeof(d->name));
	rec_oplog_int(&w->log, d->is_leaf);
	rec_oplog_int(&w->log, (int64_t)w->count);
	rec_oplog_int(&w->log, d->array);
	return id;
}

static int64_t insert_domain(struct rec_writer *w, const void *item)
{
	const struct xio_domain *d = item;
	int64_t id = new_row(w, ST_DOM_OPEN, ID_DOM);
	rec_oplog_int(&w->log, d->domid);
	op_text(w, d->name, sizeof(d->name));
	op_text(w, d->kind, sizeof(d->kind));
	op_text(w, d->file, sizeof(d->file));
	rec_oplog_int(&w->log, d->missing);
	rec_oplog_int(&w->log, (int64_t)w->count);
	op_text(w, d->uuid, sizeof(d->uuid));
	if (d->generation) /* unknown: NULL */
		rec_oplog_int(&w->log, d->generation);
	else
		rec_oplog_null(&w->log);
	if (d->mem_bytes)
		op_u64(w, d->mem_bytes);
	else
		rec_oplog_null(&w->log);
	return id;
}

/* An open row is its item (at offset 0), its row id and a seen flag. */
#define ROW_KIND(open_type, item_type, close_stmt, same_fn, insert_fn)                             \
	{                                                                                          \
		sizeof(open_type), sizeof(item_type), offsetof(open_type, id),                     \
		    offsetof(open_type, seen), close_stmt, same_fn, insert_fn                      \
	}
_Static_assert(offsetof(struct open_dev, dev) == 0, "an open row starts with its item");
_Static_assert(offsetof(struct open_domain, dom) == 0, "an open row starts with its item");
static const struct row_kind device_rows =
    ROW_KIND(struct open_dev, struct xio_dev, ST_DEV_CLOSE, same_dev, insert_dev);
static const struct row_kind domain_rows =
    ROW_KIND(struct open_domain, struct xio_domain, ST_DOM_CLOSE, same_domain, insert_domain);

/* The sample's coded items, cut into sample_items rows of REC_PACK_ROW_FILL bytes. */
static int store_items(struct rec_writer *w, int64_t base)
{
	w->code.len = 0;
	int rc =
	    rec_chain_encode(base >= 0 ? &w->items[!w->cur] : NULL, &w->items[w->cur], &w->code);
	for (size_t at = 0, row = 0; rc == SQLITE_OK && at < w->code.len; row++) {
		if (row > REC_SLOT_MAX)
			return SQLITE_TOOBIG;
		size_t n =
		    w->code.len - at < REC_PACK_ROW_FILL ? w->code.len - at : REC_PACK_ROW_FILL;
		rec_oplog_add(&w->log, ST_ITEMS);
		rec_oplog_int(&w->log, REC_SLOT(w->count, row));
		rec_oplog_blob(&w->log, w->code.p + at, n);
		at += n;
	}
	return rc;
}

int rec_store_sample(struct rec_writer *w, const struct xio_sample *s)
{
	bool keyframe = w->count == 0 || w->since_keyframe >= REC_KEYFRAME_MAX ||
	                (w->since_keyframe >= REC_KEYFRAME_EVERY &&
	                 w->code_since >= REC_KEYFRAME_SPAN * w->keyframe_code);
	int64_t base = keyframe ? -1 : (int64_t)w->count - 1;
	rec_items_clear(&w->items[w->cur]);
	int rc = store_sample_row(w, s, base);
	if (rc == SQLITE_OK)
		rc = pack_each(w, s->layers, s->n_layers, sizeof(*s->layers), pack_layer);
	if (rc == SQLITE_OK)
		rc = pack_each(w, s->counters, s->n_counters, sizeof(*s->counters), pack_counter);
	if (rc == SQLITE_OK)
		rc = pack_each(w, s->disks, s->n_disks, sizeof(*s->disks), pack_disk);
	if (rc == SQLITE_OK)
		rc = pack_each(w, s->vbd_stats, s->n_vbd_stats, sizeof(*s->vbd_stats), pack_vbd);
	if (rc == SQLITE_OK)
		rc = pack_each(w, s->latency, s->n_latency, sizeof(*s->latency), pack_latency);
	if (rc == SQLITE_OK)
		rc = pack_host(w, s);
	if (rc == SQLITE_OK)
		w->devs = store_rows(w, &device_rows, s->devs, s->n_devs, w->devs, &w->n_devs, &rc);
	if (rc == SQLITE_OK)
		w->doms =
		    store_rows(w, &domain_rows, s->domains, s->n_domains, w->doms, &w->n_doms, &rc);
	if (rc == SQLITE_OK)
		rc = store_items(w, base);
	rec_oplog_end_unit(&w->log, 1);
	if (rc == SQLITE_OK && w->log.failed)
		rc = SQLITE_NOMEM;
	if (rc != SQLITE_OK)
		return rc;
	w->cur = !w->cur; /* this sample is the next one's base */
	if (keyframe) {
		w->since_keyframe = 0;
		w->code_since = 0;
		w->keyframe_code = w->code.len;
	} else {
		w->code_since += w->code.len;
	}
	w->since_keyframe++;
	return SQLITE_OK;
}
