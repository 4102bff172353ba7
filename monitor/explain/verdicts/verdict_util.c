/* verdict_util.c - what every verdict needs: a verdict slot, its figures and evidence, a
 * claim's own settings as figures, and what a recording cannot give (not given). The
 * verdicts call it; it calls none of them (verdicts_rank.c runs and ranks them). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrays.h"
#include "explain/verdicts/verdicts.h"

struct ex_verdict *ex_verdict_new(struct explain *ex, enum ex_verdict_id id, uint32_t domid)
{
	const struct ex_verdict v = {.id = id, .domid = domid, .claim = EX_NO_CLAIM};
	return arrays_put(ex->verdicts, &ex->n_verdicts, EX_MAX_VERDICTS, &v, sizeof(v));
}

static void not_given(struct explain *ex, const char *key, const char *fmt, va_list ap)
{
	for (size_t i = 0; i < ex->n_not_given; i++)
		if (!strcmp(ex->not_given[i].key, key))
			return; /* once per recording, not per domain */
	arrays_put_text(ex->not_given, &ex->n_not_given, EX_MAX_NOT_GIVEN, key, fmt, ap);
}

void ex_not_given(struct explain *ex, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	not_given(ex, key, fmt, ap);
	va_end(ap);
}

void ex_verdict_not_given(struct explain *ex, enum ex_verdict_id id, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	not_given(ex, ex_verdict_key(id), fmt, ap);
	va_end(ap);
}

static struct ex_figure *new_fig(struct ex_verdict *v, enum ex_key key)
{
	struct ex_figure f = {.key = key};
	return arrays_put(v->figures, &v->n_figures, EX_MAX_FIGURES, &f, sizeof(f));
}

void ex_fig(struct ex_verdict *v, enum ex_key key, double value)
{
	struct ex_figure *f = new_fig(v, key);
	if (f)
		f->value = value;
}

void ex_fig_null(struct ex_verdict *v, enum ex_key key)
{
	struct ex_figure *f = new_fig(v, key);
	if (f)
		f->null = true;
}

void ex_fig_str(struct ex_verdict *v, enum ex_key key, const char *value)
{
	struct ex_figure *f = new_fig(v, key);
	if (f)
		snprintf(f->str, sizeof(f->str), "%s", value[0] ? value : "-");
}

void ex_evidence(struct ex_verdict *v, const char *counter)
{
	if (v->n_evidence < EX_MAX_EVIDENCE)
		v->evidence[v->n_evidence++] = counter;
}

void ex_said_figures(struct ex_verdict *v, const struct ex_claim *c)
{
	const struct claim_said *s = &c->fig.said;
	const struct claim_setting *flags[] = {&s->direct, &s->sync, &s->flush_end};
	const enum ex_key keys[] = {EXK_SAID_DIRECT, EXK_SAID_SYNC, EXK_SAID_FLUSH_END};
	for (int i = 0; i < 3; i++)
		if (flags[i]->from == CLAIM_FROM_NONE)
			ex_fig_null(v, keys[i]);
		else
			ex_fig(v, keys[i], flags[i]->value ? 1 : 0);
	if (s->block_bytes.from == CLAIM_FROM_NONE)
		ex_fig_null(v, EXK_BLOCK_BYTES);
	else
		ex_fig(v, EXK_BLOCK_BYTES, (double)s->block_bytes.value);
	if (s->queue_depth.from == CLAIM_FROM_NONE)
		ex_fig_null(v, EXK_QUEUE_DEPTH);
	else
		ex_fig(v, EXK_QUEUE_DEPTH, (double)s->queue_depth.value);
}
