/* loop.c - the interval loop; see loop.h. */
#include "core/loop.h"

#include "core/clock.h"

/* A sink's verdict; a failure's sentence into l->err, the first one only. */
static int sink_verdict(const struct loop *l, const struct interval_sink *k, int verdict)
{
	const struct xerr *why = verdict > 0 && k->failure ? k->failure(k->ctx) : NULL;
	if (why && why->kind != XERR_NONE && l->err && l->err->kind == XERR_NONE)
		*l->err = *why;
	return verdict;
}

/* Every sink's sample hook (m NULL) or interval hook; the first non-zero verdict (the
 * others still run). */
static int hand_out(const struct loop *l, const struct xio_sample *s, bool first,
                    struct model_interval *m, unsigned long index)
{
	int verdict = LOOP_GO_ON;
	for (size_t i = 0; i < l->n_sinks; i++) {
		const struct interval_sink *k = &l->sinks[i];
		if (m ? !k->interval : !k->sample)
			continue;
		int v = sink_verdict(
		    l, k, m ? k->interval(k->ctx, m, index) : k->sample(k->ctx, s, first));
		if (verdict == LOOP_GO_ON)
			verdict = v;
	}
	return verdict;
}

static int hand_sample(const struct loop *l, const struct xio_sample *s, bool first)
{
	return hand_out(l, s, first, NULL, 0);
}

static int hand_interval(const struct loop *l, struct model_interval *m, unsigned long index)
{
	return hand_out(l, NULL, false, m, index);
}

/* One sample after prev: handed out, then its interval (computed after the previous one:
 * carry). LOOP_GO_ON or how to end. */
static int step(const struct loop *l, struct xio_sample *prev, struct xio_sample *cur,
                struct model_carry *carry, unsigned long index)
{
	int verdict = hand_sample(l, cur, false);
	if (verdict != LOOP_GO_ON)
		return verdict;
	struct model_interval m;
	if (model_compute_after(prev, cur, carry, &m)) {
		xerr_set(l->err, XERR_NOMEM, "out of memory");
		return 1;
	}
	verdict = hand_interval(l, &m, index);
	model_free(&m);
	return verdict;
}

/* The source failed: its sentence into l->err; its exit status. */
static int source_failed(const struct loop *l)
{
	const char *why = l->src->why ? l->src->why(l->src->ctx) : l->src->fail_why;
	if (why)
		xerr_set(l->err, l->src->fail_status == 2 ? XERR_INPUT : XERR_RUNTIME, "%s", why);
	return l->src->fail_status;
}

static int verdict_status(int verdict)
{
	return verdict == LOOP_DONE ? 0 : verdict;
}

int interval_loop(const struct loop *l)
{
	struct xio_sample prev, cur;
	/* from the loop's first sample on: one started mid-recording (export --from) or
	 * mid-write owes nothing, as a console started then would not */
	struct model_carry carry = {0};
	int rc = l->src->next(l->src->ctx, &prev);
	if (rc)
		return rc == SOURCE_END ? 0 : source_failed(l);
	int verdict = hand_sample(l, &prev, true);
	for (unsigned long index = 0; verdict == LOOP_GO_ON; index++) {
		if (l->max_intervals > 0 && (long)index >= l->max_intervals)
			break;
		enum pace pace = l->pacer.wait ? l->pacer.wait(l->pacer.ctx) : PACE_DUE;
		if (pace == PACE_STOP)
			break;
		rc = l->src->next(l->src->ctx, &cur);
		if (rc) {
			verdict = rc == SOURCE_END ? LOOP_DONE : source_failed(l);
			break;
		}
		verdict = step(l, &prev, &cur, &carry, index);
		sample_free(&prev);
		prev = cur;
		if (pace == PACE_LAST && verdict == LOOP_GO_ON)
			verdict = LOOP_DONE;
	}
	sample_free(&prev);
	model_carry_free(&carry);
	return verdict_status(verdict);
}

enum pace pace_every_wait(void *ctx)
{
	struct pace_every *p = ctx;
	int64_t now = clock_mono_ns(), delay = (int64_t)(*p->delay_s * (double)NS_PER_S);
	if (!p->next_ns || p->next_ns + delay <= now) /* started, or fell behind: no burst */
		p->next_ns = now;
	p->next_ns += delay;
	while (!(p->stop && *p->stop)) {
		int64_t left = p->next_ns - clock_mono_ns();
		if (left <= 0)
			return PACE_DUE;
		clock_sleep_ns(left, p->stop);
	}
	return PACE_STOP;
}
