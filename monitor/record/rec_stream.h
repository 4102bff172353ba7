/* rec_stream.h - a window of a recording (or of a span of them, rec_span.h) read in order,
 * as a sample source.
 *
 * Contract: rec_stream_source() hands out samples first..last of the reader (or the span,
 * when set), one per call, then SOURCE_END. A sample that cannot be read ends it with
 * SOURCE_FAILED, the sentence naming the file kept for the source's why() (fail_status 2: a bad
 * recording is bad input). It prints nothing. The reader or span stays the caller's and must
 * outlive the stream.
 */
#ifndef XIOTOP_REC_STREAM_H
#define XIOTOP_REC_STREAM_H

#include <stddef.h>

#include "core/source.h"
#include "record/rec_span.h"
#include "record/record.h"

struct rec_stream {
	struct rec_reader *reader;
	struct rec_span *span; /* instead of reader */
	size_t next, last;     /* the next sample to hand out; the last one */
	struct xerr err;       /* why it failed */
};

struct sample_source rec_stream_source(struct rec_stream *s);

#endif
