/* verdicts_rank.c - explain_verdicts(): the verdict table (verdict_table.c) run on every
 * domain it applies to, then ranked; see verdicts.h. Apart from verdict_util.c so that the
 * helpers the verdicts call do not call the verdicts back. */
#include <string.h>

#include "explain/dom0_subject.h"
#include "explain/verdicts/verdicts.h"

/* x before y: the larger share, then the lower rank, then the lower domain. */
static bool before(const struct ex_verdict *x, const struct ex_verdict *y)
{
	if (x->share != y->share)
		return x->share > y->share;
	unsigned rx = ex_verdict_kinds[x->id].rank, ry = ex_verdict_kinds[y->id].rank;
	if (rx != ry)
		return rx < ry;
	return x->domid < y->domid;
}

/* Stable (an insertion sort: at most EX_MAX_VERDICTS): a claim's rows keep the order they
 * were added in when nothing else tells them apart. */
static void rank(struct explain *ex)
{
	for (size_t i = 1; i < ex->n_verdicts; i++) {
		struct ex_verdict v = ex->verdicts[i];
		size_t j = i;
		for (; j > 0 && before(&v, &ex->verdicts[j - 1]); j--)
			ex->verdicts[j] = ex->verdicts[j - 1];
		ex->verdicts[j] = v;
	}
}

static void judge_recording(struct explain *ex)
{
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		if (d->io.guest_wr_bytes + d->io.guest_rd_bytes < EX_ACTIVE_BYTES)
			continue;
		if (d->domid == EX_DOM0_ID && !d->dom0_subject)
			continue; /* dom0's own I/O beside a guest's run: other programs' */
		/* dom0's own run has no backend: no serving CPU, its requests merged above its
		 * bios, no path below a guest */
		unsigned who = d->dom0_subject ? EXV_DOM0 : EXV_GUESTS;
		for (int k = 0; k < EXV_COUNT; k++)
			if (ex_verdict_kinds[k].applies & who)
				ex_verdict_kinds[k].judge(ex, d);
	}
	for (int k = 0; k < EXV_COUNT; k++)
		if (ex_verdict_kinds[k].applies & EXV_ONCE)
			ex_verdict_kinds[k].judge(ex, NULL);
}

/* An import: each verdict once for the host (given host-wide, or named as not given),
 * then on each domain where it applies. */
static void judge_import(struct explain *ex)
{
	ex->n_not_given = 0;
	for (int k = 0; k < EXV_COUNT; k++)
		ex_verdict_kinds[k].judge_import(ex, NULL);
	for (size_t i = 0; i < ex->n_doms; i++)
		for (int k = 0; k < EXV_COUNT; k++)
			if (ex_verdict_kinds[k].applies & EXV_IMPORT)
				ex_verdict_kinds[k].judge_import(ex, &ex->doms[i]);
}

void explain_verdicts(struct explain *ex)
{
	ex->n_verdicts = 0;
	if (ex->host.absent) /* an imported recording: what its logs allow */
		judge_import(ex);
	else
		judge_recording(ex);
	rank(ex);
}
