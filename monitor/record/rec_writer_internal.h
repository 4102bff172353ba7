/* rec_writer_internal.h - the writer's state, shared by its two halves: rec_writer.c
 * (creating the file, meta, marks, the transaction of each sample, closing) and
 * rec_write_sample.c (one sample's rows, and the names stored once).
 *
 * Contract: rec_create() makes the file and calls rec_writer_prepare(); rec_append()
 * opens a transaction and calls rec_store_sample(), which only inserts rows and updates
 * the writer's memory of what is stored. Not part of the public API (record.h).
 */
#ifndef XIOTOP_REC_WRITER_INTERNAL_H
#define XIOTOP_REC_WRITER_INTERNAL_H

#include "record/rec_internal.h"
#include "record/rec_pack.h"

#include <sys/types.h>

struct layer_key_id {
	uint32_t domid, dev, via;
	int64_t id;
};

struct disk_key_id {
	uint32_t dev;
	char name[32];
	int64_t id;
};

struct vbd_key_id {
	uint32_t domid, devid, backend_dev, source;
	uint64_t instance;
	int64_t id;
};

struct open_dev {
	struct xio_dev dev;
	int64_t id;
	bool seen; /* present in the sample being appended */
};

struct open_domain {
	struct xio_domain dom;
	int64_t id;
	bool seen;
};

enum writer_stmt {
	ST_SAMPLE,
	ST_LAYER_KEY,
	ST_DISK_KEY,
	ST_HOOKS_ADD,
	ST_HOOKS_GET,
	ST_DEV_OPEN,
	ST_DEV_CLOSE,
	ST_DOM_OPEN,
	ST_DOM_CLOSE,
	ST_VBD_KEY,
	ST_ITEMS,
	ST_COUNT
};

struct rec_writer {
	sqlite3 *db;
	char *path;
	dev_t file_dev; /* the file created at path: rec_writer_moved() compares */
	ino_t file_ino;
	size_t count;       /* samples committed */
	struct xerr failed; /* sticky: set once the writer is closed by an error */
	sqlite3_stmt *st[ST_COUNT];

	struct layer_key_id *keys; /* sorted by (domid, dev, via) */
	size_t n_keys, cap_keys;
	struct disk_key_id *disk_keys;
	size_t n_disk_keys;
	struct vbd_key_id *vbd_keys;
	size_t n_vbd_keys;
	struct open_dev *devs;
	size_t n_devs;
	struct open_domain *doms;
	size_t n_doms;
	char hooks[sizeof(((struct xio_sample *)0)->hooks)];
	int64_t hooks_id;       /* 0: no hook set stored yet */
	struct rec_packer pack; /* the sample's items, against the last keyframe's */
};

/* Every REC_KEYFRAME_EVERY-th sample (the first of each file) is a keyframe: its items
 * hold their counters, the others' their differences from it (rec_pack.h). Fewer
 * keyframes store fewer whole items but larger differences: bench/record_size.sh measured
 * 147.4 bytes per domain-sample at 10 (5: 147.7, 20: 150.1, 60: 158.6, 300: 173.2; 1, no
 * differences at all: 197.6), and reading any sample decodes at most one more. */
#define REC_KEYFRAME_EVERY 10

/* Prepares the statements of rec_store_sample into w->st. SQLite result code. */
int rec_writer_prepare(struct rec_writer *w);
/* One sample's rows, in the caller's transaction. SQLite result code. */
int rec_store_sample(struct rec_writer *w, const struct xio_sample *s);

#endif
