/* rec_chain.c - a sample's items as what changed since its base; see rec_chain.h. */
#include "record/rec_chain.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The fields of each kind that count bytes (bit f: field f), coded in the item's unit. */
static const uint32_t byte_fields[REC_ITEM_KINDS] = {
    [REC_ITEM_LAYER] = 0x3,     /* rd_bytes, wr_bytes */
    [REC_ITEM_COUNTERS] = 0x30, /* dirtied_bytes, written_back_bytes */
    [REC_ITEM_DISK] = 0x3,
    [REC_ITEM_VBD] = 0x183, /* rd_bytes, wr_bytes, skew_rd_bytes, skew_wr_bytes */
};
/* The units an item's byte counts are coded in (the head's low 2 bits): 1, 512 (a
 * sector), 4 KiB (a page), 64 KiB. */
static const unsigned unit_shift[4] = {0, 9, 12, 16};
#define UNIT_BITS 2
/* A histogram's head: which of its parts changed. */
enum { LAT_COUNT = 1, LAT_SUM = 2, LAT_UNTIMED = 4, LAT_BUCKETS = 8 };
#define LAT_PLAIN 3 /* count, sum_ns, untimed, then the buckets */
/* The most a decompressed code may hold (a sample of 4,000 busy domains is ~1.5 MiB). */
#define CODE_MAX (64u << 20)

void rec_buf_free(struct rec_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int rec_buf_reserve(struct rec_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return SQLITE_OK;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	unsigned char *p = realloc(b->p, cap);
	if (!p)
		return SQLITE_NOMEM;
	b->p = p;
	b->cap = cap;
	return SQLITE_OK;
}

static void put(struct rec_buf *b, uint64_t v) /* room reserved by the caller */
{
	for (;; v >>= 7) { /* LEB128: 7 bits a byte, the lowest first */
		b->p[b->len++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		if (v <= 0x7f)
			return;
	}
}

void rec_items_init(struct rec_items *it)
{
	memset(it, 0, sizeof(*it));
}

void rec_items_free(struct rec_items *it)
{
	for (int k = 0; k < REC_ITEM_KINDS; k++) {
		free(it->kind[k].keys);
		free(it->kind[k].fields);
	}
	rec_items_init(it);
}

void rec_items_clear(struct rec_items *it)
{
	for (int k = 0; k < REC_ITEM_KINDS; k++)
		it->kind[k].n = 0;
}

static int list_reserve(struct rec_item_list *l, unsigned nf, size_t n)
{
	if (n <= l->cap)
		return SQLITE_OK;
	size_t cap = l->cap ? l->cap : 16;
	while (cap < n)
		cap *= 2;
	uint64_t *keys = realloc(l->keys, cap * sizeof(*keys));
	if (keys)
		l->keys = keys;
	uint64_t *fields = realloc(l->fields, cap * nf * sizeof(*fields));
	if (fields)
		l->fields = fields;
	if (!keys || !fields)
		return SQLITE_NOMEM;
	l->cap = cap;
	return SQLITE_OK;
}

int rec_items_add(struct rec_items *it, enum rec_item_kind kind, uint64_t key,
                  const uint64_t *fields)
{
	struct rec_item_list *l = &it->kind[kind];
	unsigned nf = rec_pack_fields(kind);
	if (list_reserve(l, nf, l->n + 1))
		return SQLITE_NOMEM;
	l->keys[l->n] = key;
	memcpy(l->fields + l->n * nf, fields, nf * sizeof(*fields));
	l->n++;
	return SQLITE_OK;
}

int rec_items_copy(struct rec_items *dst, const struct rec_items *src)
{
	for (int k = 1; k < REC_ITEM_KINDS; k++) {
		const struct rec_item_list *s = &src->kind[k];
		struct rec_item_list *d = &dst->kind[k];
		unsigned nf = rec_pack_fields((enum rec_item_kind)k);
		if (list_reserve(d, nf, s->n))
			return SQLITE_NOMEM;
		if (s->n) {
			memcpy(d->keys, s->keys, s->n * sizeof(*s->keys));
			memcpy(d->fields, s->fields, s->n * nf * sizeof(*s->fields));
		}
		d->n = s->n;
	}
	return SQLITE_OK;
}

/* The base items of one kind, by key when the lists differ: (key, position) sorted, so
 * that of a key held twice the first is found. */
struct base_index {
	struct pos_key {
		uint64_t key;
		size_t pos;
	} * e;
	size_t n;
};

static int by_key_pos(const void *a, const void *b)
{
	const struct pos_key *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int index_of(const struct rec_item_list *base, struct base_index *ix)
{
	ix->n = base->n;
	ix->e = malloc((base->n ? base->n : 1) * sizeof(*ix->e));
	if (!ix->e)
		return SQLITE_NOMEM;
	for (size_t i = 0; i < base->n; i++)
		ix->e[i] = (struct pos_key){base->keys[i], i};
	qsort(ix->e, ix->n, sizeof(*ix->e), by_key_pos);
	return SQLITE_OK;
}

/* Where item j of cur (of key `key`) finds its base: the base's item j when the key
 * lists are the same, else the base's first item of that key; NULL: none (zeros). */
static const uint64_t *base_of(const struct rec_item_list *base, const struct base_index *ix,
                               unsigned nf, size_t j, uint64_t key)
{
	if (!base)
		return NULL;
	if (!ix->e)
		return base->fields + j * nf;
	size_t lo = 0, hi = ix->n;
	while (lo < hi) { /* the first entry >= (key, 0) */
		size_t mid = lo + (hi - lo) / 2;
		if (ix->e[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && ix->e[lo].key == key ? base->fields + ix->e[lo].pos * nf : NULL;
}

static bool same_keys(const struct rec_item_list *a, const struct rec_item_list *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->keys, b->keys, a->n * sizeof(*a->keys)));
}

/* The largest unit (its index in unit_shift) that holds every changed byte count. */
static unsigned unit_of(const uint64_t *d, uint32_t changed, uint32_t bytes)
{
	uint64_t all = 0;
	for (unsigned f = 0; f < 32; f++)
		if (changed & bytes & (1u << f))
			all |= d[f];
	unsigned u = 3;
	while (u && (all & ((1ull << unit_shift[u]) - 1)))
		u--;
	return u;
}

/* A changed item's differences from its base (into d: a histogram's count as what it
 * exceeds its changed buckets by) and its head: which fields changed and, in the low
 * bits, the unit of its byte counts; a histogram's: which of its parts changed. */
static uint64_t item_head(enum rec_item_kind kind, const uint64_t *f, const uint64_t *base,
                          uint64_t *d)
{
	static const uint64_t zeros[REC_PACK_FIELDS_MAX];
	unsigned nf = rec_pack_fields(kind);
	if (!base)
		base = zeros;
	for (unsigned i = 0; i < nf; i++)
		d[i] = f[i] - base[i];
	if (kind == REC_ITEM_LATENCY) {
		bool buckets = false;
		for (unsigned i = LAT_PLAIN; i < nf; i++) {
			d[0] -= d[i];
			buckets |= d[i] != 0;
		}
		return (d[0] ? LAT_COUNT : 0) | (d[1] ? LAT_SUM : 0) | (d[2] ? LAT_UNTIMED : 0) |
		       (buckets ? LAT_BUCKETS : 0);
	}
	uint32_t changed = 0;
	for (unsigned i = 0; i < nf; i++)
		if (d[i])
			changed |= 1u << i;
	return (uint64_t)changed << UNIT_BITS | unit_of(d, changed, byte_fields[kind]);
}

/* A changed item's differences, as its head says. */
static void item_values(struct rec_buf *b, enum rec_item_kind kind, const uint64_t *d,
                        uint64_t head)
{
	unsigned nf = rec_pack_fields(kind);
	if (kind == REC_ITEM_LATENCY) {
		for (unsigned i = 0; i < LAT_PLAIN; i++)
			if (head & (1u << i))
				put(b, d[i]);
		if (!(head & LAT_BUCKETS))
			return;
		unsigned low = LAT_PLAIN, high = nf - 1;
		while (!d[low])
			low++;
		while (!d[high])
			high--;
		put(b, low - LAT_PLAIN);
		put(b, high - low + 1);
		for (unsigned i = low; i <= high; i++)
			put(b, d[i]);
		return;
	}
	unsigned shift = unit_shift[head & ((1u << UNIT_BITS) - 1)];
	for (unsigned i = 0; i < nf; i++)
		if (head >> UNIT_BITS & (1u << i))
			put(b, byte_fields[kind] & (1u << i) ? d[i] >> shift : d[i]);
}

static bool same_fields(const uint64_t *f, const uint64_t *base, unsigned nf)
{
	static const uint64_t zeros[REC_PACK_FIELDS_MAX];
	return !memcmp(f, base ? base : zeros, nf * sizeof(*f));
}

/* One kind's section: its key list (0: the base's), the changed bits, the changed items. */
static int encode_kind(struct rec_buf *b, enum rec_item_kind kind, const struct rec_item_list *base,
                       const struct rec_item_list *cur)
{
	unsigned nf = rec_pack_fields(kind);
	bool same = base && same_keys(base, cur);
	struct base_index ix = {0};
	if (base && !same && index_of(base, &ix))
		return SQLITE_NOMEM;
	size_t bitmap = (cur->n + 7) / 8;
	int rc = rec_buf_reserve(b, REC_VARINT_MAX + cur->n * (REC_VARINT_MAX + REC_PACK_ITEM_MAX) +
	                                bitmap);
	if (rc == SQLITE_OK) {
		put(b, same ? 0 : cur->n + 1);
		for (size_t j = 0; !same && j < cur->n; j++) {
			uint64_t dk = cur->keys[j] - (j ? cur->keys[j - 1] : 0);
			put(b, dk << 1 ^ (uint64_t) - (int64_t)(dk >> 63)); /* zigzag */
		}
		unsigned char *bits = b->p + b->len;
		memset(bits, 0, bitmap);
		b->len += bitmap;
		/* the heads of the changed items, then their values: heads repeat (a fleet's
		 * guests change the same fields), and together zlib codes them in a few bits */
		for (int pass = 0; pass < 2; pass++)
			for (size_t j = 0; j < cur->n; j++) {
				const uint64_t *f = cur->fields + j * nf;
				const uint64_t *bf = base_of(base, &ix, nf, j, cur->keys[j]);
				if (same_fields(f, bf, nf))
					continue;
				bits[j / 8] |= (unsigned char)(1u << (j % 8));
				uint64_t d[REC_PACK_FIELDS_MAX], head = item_head(kind, f, bf, d);
				if (pass == 0)
					put(b, head);
				else
					item_values(b, kind, d, head);
			}
	}
	free(ix.e);
	return rc;
}

int rec_chain_encode(const struct rec_items *base, const struct rec_items *cur, struct rec_buf *out)
{
	struct rec_buf code = {0};
	int rc = SQLITE_OK;
	for (int k = 1; rc == SQLITE_OK && k < REC_ITEM_KINDS; k++)
		rc = encode_kind(&code, (enum rec_item_kind)k, base ? &base->kind[k] : NULL,
		                 &cur->kind[k]);
	uLongf zlen = compressBound((uLong)code.len);
	if (rc == SQLITE_OK)
		rc = rec_buf_reserve(out, zlen);
	if (rc == SQLITE_OK) {
		if (compress2(out->p + out->len, &zlen, code.p, (uLong)code.len,
		              Z_DEFAULT_COMPRESSION) != Z_OK)
			rc = SQLITE_NOMEM;
		else
			out->len += zlen;
	}
	rec_buf_free(&code);
	return rc;
}

/* The decompressed code of a sample, read in order. */
struct reader {
	const unsigned char *p;
	size_t len, at;
};

static bool get(struct reader *r, uint64_t *v)
{
	return rec_varint_get(r->p, r->len, &r->at, v);
}

/* A changed item's head, checked against its kind. */
static bool head_valid(enum rec_item_kind kind, uint64_t head)
{
	if (kind == REC_ITEM_LATENCY)
		return head && head < 16;
	uint64_t changed = head >> UNIT_BITS;
	return changed && !(changed >> rec_pack_fields(kind));
}

/* A changed item's values, as its head says, over its base's (f holds the base's). */
static bool decode_values(struct reader *r, enum rec_item_kind kind, uint64_t head, uint64_t *f)
{
	unsigned nf = rec_pack_fields(kind);
	uint64_t v;
	if (kind == REC_ITEM_LATENCY) {
		uint64_t d[LAT_PLAIN] = {0};
		for (unsigned i = 0; i < LAT_PLAIN; i++)
			if ((head & (1u << i)) && !get(r, &d[i]))
				return false;
		uint64_t sum = 0, low = 0, n = 0;
		if (head & LAT_BUCKETS) {
			if (!get(r, &low) || !get(r, &n) || !n || low >= nf - LAT_PLAIN ||
			    n > nf - LAT_PLAIN - low)
				return false;
			for (uint64_t i = 0; i < n; i++) {
				if (!get(r, &v))
					return false;
				f[LAT_PLAIN + low + i] += v;
				sum += v;
			}
		}
		f[0] += d[0] + sum;
		f[1] += d[1];
		f[2] += d[2];
		return true;
	}
	unsigned shift = unit_shift[head & ((1u << UNIT_BITS) - 1)];
	for (unsigned i = 0; i < nf; i++) {
		if (!(head >> UNIT_BITS & (1u << i)))
			continue;
		if (!get(r, &v))
			return false;
		f[i] += byte_fields[kind] & (1u << i) ? v << shift : v;
	}
	return true;
}

/* One kind's section into cur, against base (NULL: a keyframe). */
static int decode_kind(struct reader *r, enum rec_item_kind kind, const struct rec_item_list *base,
                       struct rec_item_list *cur)
{
	unsigned nf = rec_pack_fields(kind);
	uint64_t listed, v;
	if (!get(r, &listed) || (!listed && !base) || (listed && listed - 1 > r->len - r->at))
		return SQLITE_CORRUPT; /* each key takes a byte at least */
	size_t n = listed ? (size_t)(listed - 1) : base->n;
	if (list_reserve(cur, nf, n))
		return SQLITE_NOMEM;
	for (size_t j = 0; j < n; j++) {
		if (!listed) {
			cur->keys[j] = base->keys[j];
			continue;
		}
		if (!get(r, &v))
			return SQLITE_CORRUPT;
		cur->keys[j] =
		    (j ? cur->keys[j - 1] : 0) + (v >> 1 ^ (uint64_t) - (int64_t)(v & 1));
	}
	cur->n = n;
	size_t bitmap = (n + 7) / 8;
	if (bitmap > r->len - r->at)
		return SQLITE_CORRUPT;
	const unsigned char *bits = r->p + r->at;
	r->at += bitmap;
	struct base_index ix = {0};
	if (base && listed && index_of(base, &ix))
		return SQLITE_NOMEM;
	uint64_t *heads = malloc((n ? n : 1) * sizeof(*heads));
	int rc = heads ? SQLITE_OK : SQLITE_NOMEM;
	for (size_t j = 0; rc == SQLITE_OK && j < n; j++) {
		uint64_t *f = cur->fields + j * nf;
		const uint64_t *bf = base_of(base, &ix, nf, j, cur->keys[j]);
		if (bf)
			memcpy(f, bf, nf * sizeof(*f));
		else
			memset(f, 0, nf * sizeof(*f));
		if ((bits[j / 8] >> (j % 8) & 1) &&
		    (!get(r, &heads[j]) || !head_valid(kind, heads[j])))
			rc = SQLITE_CORRUPT;
	}
	for (size_t j = 0; rc == SQLITE_OK && j < n; j++)
		if ((bits[j / 8] >> (j % 8) & 1) &&
		    !decode_values(r, kind, heads[j], cur->fields + j * nf))
			rc = SQLITE_CORRUPT;
	if (rc == SQLITE_OK && n % 8 && bits[n / 8] >> (n % 8))
		rc = SQLITE_CORRUPT; /* bits past the last item */
	free(heads);
	free(ix.e);
	return rc;
}

/* The compressed code into scratch, whole. */
static int inflate_all(const unsigned char *in, size_t len, struct rec_buf *out)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return SQLITE_NOMEM;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	out->len = 0;
	int zrc = Z_OK, rc = SQLITE_OK;
	while (zrc == Z_OK) {
		if (out->len >= CODE_MAX || (rc = rec_buf_reserve(out, out->cap ? out->cap : 4096)))
			break;
		z.next_out = out->p + out->len;
		z.avail_out = (uInt)(out->cap - out->len);
		zrc = inflate(&z, Z_FINISH);
		out->len = out->cap - z.avail_out;
		if (zrc == Z_BUF_ERROR && !z.avail_out)
			zrc = Z_OK; /* room was what it lacked */
	}
	bool whole = zrc == Z_STREAM_END && !z.avail_in;
	inflateEnd(&z);
	if (rc != SQLITE_OK)
		return rc;
	return whole ? SQLITE_OK : SQLITE_CORRUPT;
}

int rec_chain_decode(const unsigned char *in, size_t len, const struct rec_items *base,
                     struct rec_items *cur, struct rec_buf *scratch)
{
	rec_items_clear(cur);
	int rc = inflate_all(in, len, scratch);
	struct reader r = {scratch->p, scratch->len, 0};
	for (int k = 1; rc == SQLITE_OK && k < REC_ITEM_KINDS; k++)
		rc = decode_kind(&r, (enum rec_item_kind)k, base ? &base->kind[k] : NULL,
		                 &cur->kind[k]);
	if (rc == SQLITE_OK && r.at != r.len)
		rc = SQLITE_CORRUPT;
	return rc;
}
