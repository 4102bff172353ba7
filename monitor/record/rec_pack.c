/* rec_pack.c - a sample's items, and schema 3's rows of them; see rec_pack.h. */
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
	case REC_ITEM_HOST:
		return 8;
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

static uint64_t unzigzag(uint64_t z, uint64_t base)
{
	return base + (z >> 1 ^ (uint64_t) - (int64_t)(z & 1));
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
		if (!nf || kind > REC_ITEM_LATENCY) /* schema 3 had no host item */
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
