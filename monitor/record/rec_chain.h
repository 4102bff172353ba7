/* rec_chain.h - a sample's counters as what changed since the sample before it (schema 4,
 * SCHEMA.md "sample_items"), for the writer and the reader.
 *
 * Contract: every counter of a sample that is per layer, per domain, per disk, per vbd or
 * per (domain, op) histogram is an item (rec_pack.h: its kind, its key and its fields).
 * A sample's items (struct rec_items: each kind's keys in recorded order, and their
 * fields) are coded against its base, the sample before it (NULL: a keyframe, coded
 * against nothing): each kind's key list only when it differs from the base's, a bit per
 * item saying whether it changed, and for a changed item only its changed fields, each
 * as its difference from the base item's (modulo 2^64: exact for any 64 bits; byte counts
 * in the largest of 512, 4 KiB and 64 KiB units that holds every changed byte count of the
 * item), a histogram's buckets as the span of those that changed and its count as what
 * it exceeds their sum by. An idle item costs one bit. The code is then compressed
 * (zlib), so repeated shapes cost little. rec_chain_encode() and rec_chain_decode() are
 * exact inverses: the values decoded are the writer's, bit for bit.
 *
 * Decoding checks every byte: a varint cut short or over 64 bits, a list or span out of
 * bounds, a field or unit not of the kind, a keyframe that names a base list, bytes left
 * over or a stream zlib refuses make the sample corrupt (SQLITE_CORRUPT). Not part of the
 * public API (record.h).
 */
#ifndef XIOTOP_REC_CHAIN_H
#define XIOTOP_REC_CHAIN_H

#include "record/rec_pack.h"

/* A growable byte buffer. */
struct rec_buf {
	unsigned char *p;
	size_t len, cap;
};
void rec_buf_free(struct rec_buf *b);
/* Room for n more bytes; SQLITE_NOMEM or SQLITE_OK. */
int rec_buf_reserve(struct rec_buf *b, size_t n);

/* One kind's items of a sample: keys in recorded order, fields rec_pack_fields() each. */
struct rec_item_list {
	uint64_t *keys;
	uint64_t *fields;
	size_t n, cap;
};

struct rec_items {
	struct rec_item_list kind[REC_ITEM_KINDS]; /* by enum rec_item_kind; [0] unused */
};
void rec_items_init(struct rec_items *it);
void rec_items_free(struct rec_items *it);
void rec_items_clear(struct rec_items *it);
/* SQLITE_NOMEM or SQLITE_OK. */
int rec_items_add(struct rec_items *it, enum rec_item_kind kind, uint64_t key,
                  const uint64_t *fields);
int rec_items_copy(struct rec_items *dst, const struct rec_items *src);

/* cur coded against base (NULL: a keyframe) and compressed, appended to out. SQLite code. */
int rec_chain_encode(const struct rec_items *base, const struct rec_items *cur,
                     struct rec_buf *out);
/* The compressed code in[0, len) against base (NULL: a keyframe) into cur (cleared
 * first); scratch holds the decompressed code between calls. SQLite code. */
int rec_chain_decode(const unsigned char *in, size_t len, const struct rec_items *base,
                     struct rec_items *cur, struct rec_buf *scratch);

#endif
