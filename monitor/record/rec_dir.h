/* rec_dir.h - a directory of recordings, as the always-on recorder leaves it: one file
 * per period, named by the UTC time it starts, oldest removed first.
 *
 * Contract:
 *   - Files are DIR/xiotop-YYYYMMDDTHHMMSSZ.xrec (the UTC time of their first sample), so
 *     name order is time order; nothing else in DIR is touched or read.
 *   - rec_dir_period_start() aligns periods on the UTC epoch (a 1 d period starts at
 *     00:00 UTC, 1 h on the hour), so every recorder cuts at the same instants.
 *   - rec_dir_prune() removes the oldest files until none is older than max_age_ns (by
 *     the time in its name, 0: no age limit) and the files add up to at most max_bytes
 *     (0: no size limit); `keep` (the file being written) is never removed.
 *   - A rec_dir_stream is a sample source over every file with samples in
 *     [from_ns, to_ns] (wall clock), in time order, as one recording: a sample repeated
 *     at a file boundary (the recorder writes it at the end of one file and the start of
 *     the next) is handed out once. A file that cannot be read ends the stream with one
 *     line naming it (fail_status 2).
 */
#ifndef XIOTOP_REC_DIR_H
#define XIOTOP_REC_DIR_H

#include <stddef.h>
#include <stdint.h>

#include "core/source.h"
#include "record/record.h"

#define REC_DIR_SUFFIX ".xrec"

/* The file a period starting at realtime_ns is recorded to, into buf. -1 if too long. */
int rec_dir_file_name(const char *dir, int64_t realtime_ns, char *buf, size_t len);
int64_t rec_dir_period_start(int64_t realtime_ns, int64_t period_ns);
/* The recordings in dir, oldest first (malloc'd paths; free with rec_dir_free_list). The
 * count, or -1 (errno) if dir cannot be read. */
long rec_dir_list(const char *dir, char ***paths);
void rec_dir_free_list(char **paths, long n);
/* Number of files removed, or -1 (errno) if dir cannot be read. */
long rec_dir_prune(const char *dir, int64_t now_ns, int64_t max_age_ns, uint64_t max_bytes,
                   const char *keep);

struct rec_dir_stream {
	char **paths;
	long n_paths, next_path;
	struct rec_reader *reader; /* the file being read */
	size_t next, count;        /* in it */
	int64_t from_ns, to_ns;
	int64_t last_ns; /* realtime of the last sample handed out */
	struct xerr err; /* why it failed (the source's why()) */
};

/* 0, or -1 with err (dir unreadable, no recording in it within the window). */
int rec_dir_stream_open(struct rec_dir_stream *s, const char *dir, int64_t from_ns, int64_t to_ns,
                        struct xerr *err);
struct sample_source rec_dir_stream_source(struct rec_dir_stream *s);
void rec_dir_stream_close(struct rec_dir_stream *s);

/* "2026-05-01 14:00[:SS]" (local time), "2026-05-01T14:00:00Z" (UTC), "yesterday 14:00"
 * style is not taken. 0 with *ns, or -1. */
int rec_dir_parse_time(const char *text, int64_t *ns);

#endif
