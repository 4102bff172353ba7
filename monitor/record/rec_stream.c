/* rec_stream.c - see rec_stream.h. */
#include "record/rec_stream.h"

static int stream_next(void *ctx, struct xio_sample *out)
{
	struct rec_stream *s = ctx;
	if (s->next > s->last)
		return SOURCE_END;
	if (s->span ? rec_span_read(s->span, s->next, out, &s->err)
	            : rec_read(s->reader, s->next, out, &s->err))
		return SOURCE_FAILED;
	s->next++;
	return 0;
}

static const char *stream_why(void *ctx)
{
	return ((struct rec_stream *)ctx)->err.msg;
}

struct sample_source rec_stream_source(struct rec_stream *s)
{
	return (struct sample_source){
	    .ctx = s, .next = stream_next, .fail_status = 2, .why = stream_why};
}
