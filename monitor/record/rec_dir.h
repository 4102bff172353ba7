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
 *   - Reading them as one recording is rec_span.h's.
 */
#ifndef XIOTOP_REC_DIR_H
#define XIOTOP_REC_DIR_H

#include <stddef.h>
#include <stdint.h>

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

#endif
