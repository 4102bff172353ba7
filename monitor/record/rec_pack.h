/* rec_pack.h - a sample's counters as items, and how schema 3 packed them into rows of
 * table sample_items (SCHEMA.md "Schema 3 files"), for its reader; schema 4 codes the
 * items otherwise (rec_chain.h).
 *
 * Contract: every counter of a sample that is per layer, per domain, per disk, per vbd or
 * per (domain, op) histogram is an item: a kind, a key naming what it counts (a layer
 * key's id, a domid, a disk key's id, a vbd key's id, domid << 1 | op) and a fixed list
 * of 64-bit fields (rec_pack_fields()). A sample's items are packed in their recorded
 * order, each kind's order kept, into BLOBs of LEB128 varints cut at item boundaries
 * into rows of at most REC_PACK_ROW_MAX bytes: a row decodes on its own, and never
 * spills to an overflow page. An item of a keyframe sample holds its fields; an item of
 * any other sample holds, when its keyframe has an item of the same kind and key (the
 * first of them), each field's difference from that item's (zigzag, wrapping: exact for
 * any 64 bits) and says so in its head; else its fields. So a sample reads from its own
 * rows and its keyframe's, never a chain. A histogram's 32 buckets are stored as the span
 * from the first to the last bucket whose difference is not 0.
 *
 * Reading checks every byte: a varint cut short or over 64 bits, an unknown kind, a span
 * past the last bucket, a difference in a keyframe or against an item the keyframe lacks
 * make the sample corrupt (SQLITE_CORRUPT). Not part of the public API (record.h).
 */
#ifndef XIOTOP_REC_PACK_H
#define XIOTOP_REC_PACK_H

#include "record/rec_internal.h"

enum rec_item_kind {
	REC_ITEM_LAYER = 1, /* key: layer_keys.id */
	REC_ITEM_COUNTERS,  /* key: domid */
	REC_ITEM_DISK,      /* key: disk_keys.id */
	REC_ITEM_VBD,       /* key: vbd_keys.id */
	REC_ITEM_LATENCY,   /* key: domid << 1 | op */
	REC_ITEM_HOST,      /* key: 0; schema 4 only (in schema 3 the samples row holds them) */
	REC_ITEM_KINDS
};

/* Fields of an item: a layer's or disk's 4 counts; a domain's CPU by role, dirtied,
 * written back and guest CPU (its int64 bits: -1 unknown); a vbd's 9 counts and its read
 * state; a histogram's count, sum, untimed bits and 32 buckets; the host's monotonic
 * clock, vmstat pgpgin and pgpgout, lost events, busy, unattributed, irq and steal ns. */
#define REC_PACK_FIELDS_MAX (3 + XIOTOP_LAT_BUCKETS)
#define REC_VARINT_MAX      10 /* bytes of a 64-bit value in LEB128 */
/* The longest item: its head, and every field (a histogram: its span's two varints). */
#define REC_PACK_ITEM_MAX ((REC_PACK_FIELDS_MAX + 3) * REC_VARINT_MAX)
/* A row is closed once it holds REC_PACK_ROW_FILL bytes: rows of about this size waste
 * little of a page and cost ~9 bytes each of cell and record header. */
#define REC_PACK_ROW_FILL 480
#define REC_PACK_ROW_MAX  (REC_PACK_ROW_FILL + REC_PACK_ITEM_MAX)
/* SQLite keeps a cell's payload on its B-tree leaf page up to page size - 35 bytes and
 * spills the rest to overflow pages, of which the last is mostly empty: every row must
 * fit a 4 KiB page (the default; recordings are made with it). */
_Static_assert(REC_PACK_ROW_MAX + 16 <= 4096 - 35, "a sample_items row fits its leaf page");

unsigned rec_pack_fields(enum rec_item_kind kind);

/* One unsigned LEB128 varint of in[*at, len) into *v, *at moved past it: false for one
 * cut short or over 64 bits (schema 2's histogram buckets are the same varints). */
bool rec_varint_get(const unsigned char *in, size_t len, size_t *at, uint64_t *v);

/* The items of one keyframe: each (kind, key)'s first item's fields, looked up by key. */
struct rec_keyframe {
	int64_t sample; /* -1: none held */
	struct rec_kf_entry *e;
	size_t n, cap;
	uint64_t *pool; /* the fields, in the order of the items */
	size_t n_pool, cap_pool;
};
void rec_keyframe_init(struct rec_keyframe *k);
void rec_keyframe_free(struct rec_keyframe *k);
/* Empties k to hold sample `sample`'s items (-1: none, e.g. after a failed load). */
void rec_keyframe_start(struct rec_keyframe *k, int64_t sample);

/* The reader's side: each item of one row, its fields whole (its keyframe's added: kf
 * NULL for a keyframe's own rows), to fn; when into is not NULL each item is also kept
 * there (a keyframe being loaded). SQLite result code: SQLITE_CORRUPT for a bad row, or
 * fn's. */
typedef int (*rec_item_fn)(void *ctx, enum rec_item_kind kind, uint64_t key,
                           const uint64_t *fields);
int rec_unpack_row(const unsigned char *blob, size_t len, const struct rec_keyframe *kf,
                   struct rec_keyframe *into, rec_item_fn fn, void *ctx);
/* After the last rec_unpack_row into k: k answers lookups. SQLITE_NOMEM or SQLITE_OK. */
int rec_keyframe_done(struct rec_keyframe *k);

#endif
