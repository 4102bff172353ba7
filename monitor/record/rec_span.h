/* rec_span.h - recordings read as one timeline: one file, or the files of a --dir
 * directory within a window, for replay (its console too), export and the window rules.
 *
 * Contract:
 *   - rec_span_open_file() is one recording; rec_span_open_dir() the recordings of a
 *     directory the always-on recorder left (record/rec_dir.h), those whose period meets
 *     [from_ns, to_ns] (INT64_MIN, INT64_MAX: all), oldest first. A file that cannot be
 *     read is left out with a note naming it and why (the others still read); none that
 *     can is a failure naming the directory.
 *   - Samples are numbered 0..count-1 across the files in time order; the sample a
 *     rotation wrote at the end of one file and the start of the next (a file's first
 *     samples not after the previous file's last) is counted once. rec_span_times() and
 *     rec_span_marks() (every file's marks, by time, each with the first sample at or
 *     after it across the span) are whole arrays; rec_span_read() reads sample i from its
 *     file. Counters restart where a recorder did (a new file after a restart): the model
 *     counts a counter that went backwards from zero, as everywhere.
 *   - rec_span_window(): --from/--to over the span, as rec_resolve_window() (record.h)
 *     over one file: a mark's label, a time as people give it (core/when.h: with a zone,
 *     local, "1h ago", "yesterday 14:00"), or +SECONDS from the first sample.
 *   - Every file is opened read-only (record.h): nothing is made beside any of them.
 */
#ifndef XIOTOP_REC_SPAN_H
#define XIOTOP_REC_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

struct rec_span;

struct rec_span *rec_span_open_file(const char *path, struct xerr *err);
struct rec_span *rec_span_open_dir(const char *dir, int64_t from_ns, int64_t to_ns,
                                   struct xerr *err);
void rec_span_close(struct rec_span *s);
/* The file or directory, as given. */
const char *rec_span_name(const struct rec_span *s);
size_t rec_span_files(const struct rec_span *s);
size_t rec_span_count(const struct rec_span *s);
const int64_t *rec_span_times(const struct rec_span *s);
size_t rec_span_n_marks(const struct rec_span *s);
const struct rec_mark *rec_span_marks(const struct rec_span *s);
/* Sample i (i < count) into out (sample_free it). 0, or -1 (err names the file). */
int rec_span_read(struct rec_span *s, size_t i, struct xio_sample *out, struct xerr *err);
/* The samples [*first, *last] of --from/--to (NULL: the start, the end). 0, or -1 with err
 * (REC_ERR_RANGE: what was looked for, the marks there are, the forms a time takes). */
int rec_span_window(const struct rec_span *s, const char *from, const char *to, size_t *first,
                    size_t *last, struct xerr *err);

#endif
