/* rec_writer_internal.h - the writer's state, shared by its two halves: rec_writer.c
 * (creating the file, meta, marks, the commits, closing) and rec_write_sample.c (one
 * sample's rows, and the names stored once).
 *
 * Contract: rec_create() makes the file and calls rec_writer_prepare(); rec_append()
 * calls rec_store_sample(), which only adds the sample's rows to the op log (rec_oplog.h)
 * and updates the writer's memory of what is stored, then commits what waits when the
 * commit rule says (record.h). The writer numbers the rows of its tables itself
 * (next_id), so that rows waiting are whole whatever was committed before them. Not part
 * of the public API (record.h).
 */
#ifndef XIOTOP_REC_WRITER_INTERNAL_H
#define XIOTOP_REC_WRITER_INTERNAL_H

#include "record/rec_chain.h"
#include "record/rec_internal.h"
#include "record/rec_oplog.h"

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

struct hooks_id {
	char hooks[sizeof(((struct xio_sample *)0)->hooks)];
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
	ST_DEV_OPEN,
	ST_DEV_CLOSE,
	ST_DOM_OPEN,
	ST_DOM_CLOSE,
	ST_VBD_KEY,
	ST_ITEMS,
	ST_MARK,
	ST_META,
	ST_COUNT
};

/* The tables whose row ids the writer gives. */
enum writer_ids { ID_LAYER_KEY, ID_DISK_KEY, ID_HOOKS, ID_DEV, ID_DOM, ID_VBD_KEY, ID_COUNT };

struct rec_writer {
	sqlite3 *db;
	char *path;
	dev_t file_dev; /* the file created at path: rec_writer_moved() compares */
	ino_t file_ino;
	int fd;           /* the file, open read-only: where it went when it was renamed; -1 none */
	size_t count;     /* samples kept: committed, or waiting in the log */
	size_t committed; /* of those, committed */
	struct xerr failed; /* sticky: set once the writer is closed by an error */
	struct xerr waits;  /* why the last commit did not happen (full, busy); code 0: it did */
	sqlite3_stmt *st[ST_COUNT];
	int64_t next_id[ID_COUNT];

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
	struct hooks_id *hook_sets; /* each set stored */
	size_t n_hook_sets;
	char hooks[sizeof(((struct xio_sample *)0)->hooks)];
	int64_t hooks_id; /* the last sample's set; 0: none stored yet */

	struct rec_items items[2]; /* the sample's items and its base's (the one before) */
	int cur;                   /* items[cur] is the sample being stored */
	size_t since_keyframe;     /* samples since the last keyframe, */
	uint64_t code_since;       /* their codes' bytes, */
	uint64_t keyframe_code;    /* and the keyframe's */
	struct rec_buf code;       /* the sample's items, coded (rec_chain.h) */
	struct rec_oplog log;      /* rows waiting for their commit */
	int64_t waiting_since;     /* CLOCK_MONOTONIC of the oldest unit waiting; 0: none */
	int64_t last_sample_ns;    /* CLOCK_MONOTONIC of the last sample kept; 0: none */
	int64_t gap_ns;            /* between the last two: when the next is expected */
	bool commit_soon;          /* a mark waits: commit at the next sample */
	uint64_t commit_bytes;     /* the commit rule (record.h) */
	int64_t commit_age_ns;
	uint64_t wait_max;
};

/* Keyframes: the first sample of each file, then one once REC_KEYFRAME_EVERY samples came
 * after the last and their codes add up to REC_KEYFRAME_SPAN times its code (or once
 * REC_KEYFRAME_MAX came): a keyframe's items are coded against nothing, every other
 * sample's against the sample before it, so a sample is read by decoding from its
 * keyframe on, at most that much. Busy samples have a keyframe every 60, resting ones
 * (each small against a keyframe) every few hundred: bench/record_size.sh measured a busy
 * hour at 52.7 bytes per domain-sample with one every 60 (52.3 at 600), a resting one at
 * 9.1 with one every 60, 7.9 at 600 (SCHEMA.md). */
#define REC_KEYFRAME_EVERY 60
#define REC_KEYFRAME_SPAN  16
#define REC_KEYFRAME_MAX   3600

/* Whether what waits is due for its commit at monotonic now_ns (record.h's rule). */
bool rec_commit_due(const struct rec_writer *w, int64_t now_ns);
/* Everything waiting into the file, in transactions of at most 2 commit_bytes. SQLite
 * result code; on a failure the transaction is rolled back, what waits still waits and
 * w->waits says why (REC_ERR_FULL, REC_ERR_BUSY, or another code: the caller closes). */
int rec_commit(struct rec_writer *w);

/* Prepares the statements of rec_store_sample into w->st. SQLite result code. */
int rec_writer_prepare(struct rec_writer *w);
/* One sample's rows into the op log (a unit). SQLite result code (SQLITE_NOMEM). */
int rec_store_sample(struct rec_writer *w, const struct xio_sample *s);

#endif
