/* rec_stream.c - see rec_stream.h. */
#include "record/rec_stream.h"

#include <stdio.h>

static int stream_next(void *ctx, struct xs_sample *out)
{
	struct rec_stream *s = ctx;
	if (s->next > s->last)
		return SOURCE_END;
	struct rec_error err;
	if (rec_read(s->reader, s->next, out, &err)) {
		fprintf(stderr, "xiotop: %s\n", err.msg);
		return SOURCE_FAILED;
	}
	s->next++;
	return 0;
}

struct sample_source rec_stream_source(struct rec_stream *s)
{
	return (struct sample_source){.ctx = s, .next = stream_next, .fail_status = 2};
}
