/* rec_pack.c - a sample's items packed into sample_items rows; see rec_pack.h. */
#include "record/rec_pack.h"

#include <stdlib.h>
#include <string.h>

/* An item's head: key << 4 | kind << 1 | 1 when its fields are differences. */
#define HEAD_KIND_BITS 3
_Static_assert(REC_ITEM_KINDS <= 1 << HEAD_KIND_BITS, "a kind fits its bits of the head");
_Static_assert(XIOTOP_LAT_OPS <= 2, "a histogram's key is domid << 1 | op");
_Static_assert(XIOTOP_LAT_BUCKETS <= 64, "a span's start and length are small varints");

/* A keyframe's item: kind and key as one number (key << 3 | kind), its fields at off in
 * the pool, and its position among the keyframe's items (the first of a key wins). */
struct rec_kf_entry {
	uint64_t kk;
	size_t off, order;
};

unsigned rec_pack_fields(enum rec_item_kind kind)
{
	switch (kind) {
	case REC_ITEM_LAYER:
	case REC_ITEM_DISK:
		return 4;
	case REC_ITEM_COUNTERS:
		return XIO_CPU_ROLES + 3;
	case REC_ITEM_VBD:
		return 10;
	case REC_ITEM_LATENCY:
		return REC_PACK_FIELDS_MAX;
	default:
		return 0;
	}
}

static uint64_t kind_key(enum rec_item_kind kind, uint64_t key)
{
	return key << HEAD_KIND_BITS | (uint64_t)kind;
}

void rec_keyframe_init(struct rec_keyframe *k)
{
	memset(k, 0, sizeof(*k));
	k->sample = -1;
}

void rec_keyframe_free(struct rec_keyframe *k)
{
	free(k->e);
	free(k->pool);
	rec_keyframe_init(k);
}

void rec_keyframe_start(struct rec_keyframe *k, int64_t sample)
{
	k->n = k->n_pool = 0;
	k->sample = sample;
}

/* Keeps an item (appended; rec_keyframe_done sorts). SQLITE_NOMEM or SQLITE_OK. */
static int keyframe_add(struct rec_keyframe *k, enum rec_item_kind kind, uint64_t key,
                        const uint64_t *fields)
{
	unsigned nf = rec_pack_fields(kind);
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		struct rec_kf_entry *e = realloc(k->e, cap * sizeof(*e));
		if (!e)
			return SQLITE_NOMEM;
		k->e = e;
		k->cap = cap;
	}
	if (k->n_pool + nf > k->cap_pool) {
		size_t cap = k->cap_pool ? 2 * k->cap_pool : 1024;
		while (cap < k->n_pool + nf)
			cap *= 2;
		uint64_t *p = realloc(k->pool, cap * sizeof(*p));
		if (!p)
			return SQLITE_NOMEM;
		k->pool = p;
		k->cap_pool = cap;
	}
	memcpy(k->pool + k->n_pool, fields, nf * sizeof(*fields));
	k->e[k->n] = (struct rec_kf_entry){kind_key(kind, key), k->n_pool, k->n};
	k->n++;
	k->n_pool += nf;
	return SQLITE_OK;
}

static int entry_order(const void *a, const void *b)
{
	const struct rec_kf_entry *x = a, *y = b;
	if (x->kk != y->kk)
		return x->kk < y->kk ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int rec_keyframe_done(struct rec_keyframe *k)
{
	if (!k->n)
		return SQLITE_OK;
	qsort(k->e, k->n, sizeof(*k->e), entry_order);
	size_t kept = 1; /* of a key held twice, the first item */
	for (size_t i = 1; i < k->n; i++)
		if (k->e[i].kk != k->e[kept - 1].kk)
			k->e[kept++] = k->e[i];
	k->n = kept;
	return SQLITE_OK;
}

/* The fields of the keyframe's item of (kind, key), or NULL. */
static const uint64_t *keyframe_find(const struct rec_keyframe *k, enum rec_item_kind kind,
                                     uint64_t key)
{
	uint64_t kk = kind_key(kind, key);
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->e[mid].kk == kk)
			return k->pool + k->e[mid].off;
		if (k->e[mid].kk < kk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static size_t put_varint(unsigned char *out, uint64_t v)
{
	size_t n = 0;
	for (;; v >>= 7) { /* LEB128: 7 bits a byte, the lowest first */
		out[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		if (v <= 0x7f)
			return n;
	}
}

bool rec_varint_get(const unsigned char *in, size_t len, size_t *at, uint64_t *v)
{
	*v = 0;
	for (int shift = 0;; shift += 7) {
		if (*at >= len || shift > 63 || (shift == 63 && in[*at] > 1))
			return false;
		unsigned char b = in[(*at)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
}

/* A difference as a small number either way: 0, -1, 1, -2, ... as 0, 1, 2, 3, ... */
static uint64_t zigzag(uint64_t now, uint64_t base)
{
	uint64_t d = now - base; /* wrapping: exact for any two values */
	return d << 1 ^ (uint64_t) - (int64_t)(d >> 63);
}

static uint64_t unzigzag(uint64_t z, uint64_t base)
{
	return base + (z >> 1 ^ (uint64_t) - (int64_t)(z & 1));
}

void rec_packer_init(struct rec_packer *p)
{
	memset(p, 0, sizeof(*p));
	rec_keyframe_init(&p->kf);
	rec_keyframe_init(&p->next);
}

void rec_packer_free(struct rec_packer *p)
{
	rec_keyframe_free(&p->kf);
	rec_keyframe_free(&p->next);
}

void rec_pack_begin(struct rec_packer *p, size_t sample, bool keyframe)
{
	p->sample = sample;
	p->keyframe = keyframe || p->kf.sample < 0;
	p->rows = 0;
	p->len = 0;
	if (p->keyframe)
		rec_keyframe_start(&p->next, (int64_t)sample);
}

int64_t rec_pack_base(const struct rec_packer *p)
{
	return p->keyframe ? -1 : p->kf.sample;
}

static int flush_row(struct rec_packer *p, sqlite3_stmt *st)
{
	if (!p->len)
		return SQLITE_OK;
	if (p->rows > REC_SLOT_MAX)
		return SQLITE_TOOBIG; /* over 64 Ki rows of items in one sample */
	sqlite3_bind_int64(st, 1, REC_SLOT(p->sample, p->rows));
	sqlite3_bind_blob(st, 2, p->row, (int)p->len, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	p->rows++;
	p->len = 0;
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int rec_pack_item(struct rec_packer *p, sqlite3_stmt *st, enum rec_item_kind kind, uint64_t key,
                  const uint64_t *fields)
{
	static const uint64_t zeros[REC_PACK_FIELDS_MAX];
	const uint64_t *base = p->keyframe ? NULL : keyframe_find(&p->kf, kind, key);
	if (p->keyframe) {
		int rc = keyframe_add(&p->next, kind, key, fields);
		if (rc != SQLITE_OK)
			return rc;
	}
	unsigned char *out = p->row + p->len;
	size_t n =
	    put_varint(out, key << (HEAD_KIND_BITS + 1) | (uint64_t)kind << 1 | (base != NULL));
	if (!base)
		base = zeros;
	unsigned nf = rec_pack_fields(kind);
	unsigned plain = kind == REC_ITEM_LATENCY ? nf - XIOTOP_LAT_BUCKETS : nf;
	for (unsigned f = 0; f < plain; f++)
		n += put_varint(out + n, zigzag(fields[f], base[f]));
	if (kind == REC_ITEM_LATENCY) {
		const uint64_t *b = fields + plain, *bb = base + plain;
		int low = 0, high = XIOTOP_LAT_BUCKETS - 1;
		while (low < XIOTOP_LAT_BUCKETS && b[low] == bb[low])
			low++;
		while (high >= low && b[high] == bb[high])
			high--;
		n += put_varint(out + n, (uint64_t)(low < XIOTOP_LAT_BUCKETS ? low : 0));
		n += put_varint(out + n, (uint64_t)(high - low + 1 > 0 ? high - low + 1 : 0));
		for (int i = low; i <= high; i++)
			n += put_varint(out + n, zigzag(b[i], bb[i]));
	}
	p->len += n;
	return p->len >= REC_PACK_ROW_FILL ? flush_row(p, st) : SQLITE_OK;
}

int rec_pack_end(struct rec_packer *p, sqlite3_stmt *st)
{
	int rc = flush_row(p, st);
	if (rc == SQLITE_OK && p->keyframe) {
		rc = rec_keyframe_done(&p->next);
		struct rec_keyframe t = p->kf;
		p->kf = p->next;
		p->next = t;
	}
	return rc;
}

int rec_unpack_row(const unsigned char *blob, size_t len, const struct rec_keyframe *kf,
                   struct rec_keyframe *into, rec_item_fn fn, void *ctx)
{
	static const uint64_t zeros[REC_PACK_FIELDS_MAX];
	size_t at = 0;
	if (!len)
		return SQLITE_CORRUPT; /* the writer stores no empty row */
	while (at < len) {
		uint64_t head, v;
		if (!rec_varint_get(blob, len, &at, &head))
			return SQLITE_CORRUPT;
		enum rec_item_kind kind =
		    (enum rec_item_kind)(head >> 1 & ((1u << HEAD_KIND_BITS) - 1));
		uint64_t key = head >> (HEAD_KIND_BITS + 1);
		unsigned nf = rec_pack_fields(kind);
		if (!nf)
			return SQLITE_CORRUPT;
		const uint64_t *base = zeros;
		if (head & 1) {
			base = kf ? keyframe_find(kf, kind, key) : NULL;
			if (!base)
				return SQLITE_CORRUPT;
		}
		uint64_t fields[REC_PACK_FIELDS_MAX];
		unsigned plain = kind == REC_ITEM_LATENCY ? nf - XIOTOP_LAT_BUCKETS : nf;
		for (unsigned f = 0; f < plain; f++) {
			if (!rec_varint_get(blob, len, &at, &v))
				return SQLITE_CORRUPT;
			fields[f] = unzigzag(v, base[f]);
		}
		if (kind == REC_ITEM_LATENCY) {
			uint64_t low, span;
			if (!rec_varint_get(blob, len, &at, &low) ||
			    !rec_varint_get(blob, len, &at, &span) || low >= XIOTOP_LAT_BUCKETS ||
			    span > XIOTOP_LAT_BUCKETS - low)
				return SQLITE_CORRUPT;
			memcpy(fields + plain, base + plain, XIOTOP_LAT_BUCKETS * sizeof(*fields));
			for (uint64_t i = low; i < low + span; i++) {
				if (!rec_varint_get(blob, len, &at, &v))
					return SQLITE_CORRUPT;
				fields[plain + i] = unzigzag(v, base[plain + i]);
			}
		}
		int rc = into ? keyframe_add(into, kind, key, fields) : SQLITE_OK;
		if (rc == SQLITE_OK)
			rc = fn(ctx, kind, key, fields);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}
