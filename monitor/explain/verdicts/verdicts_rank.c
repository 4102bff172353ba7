/* verdicts_rank.c - explain_verdicts(): every verdict run on every domain that moved, the
 * claims set against the window, and the verdicts ranked; see verdicts.h. Apart from
 * verdict_util.c so that the helpers the verdicts call do not call the verdicts back. */
#include <stdlib.h>
#include <string.h>

#include "explain/verdicts/verdicts.h"

static const char *const order[] = {
    "page_cache_inflation", "double_counting", "dom0_cpu_cost", "read_cache",
    "test_size_vs_memory",  "request_size",    "path",          "claim"};

static int order_of(const char *id)
{
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(order[i], id))
			return (int)i;
	return 99;
}

static int by_share(const void *a, const void *b)
{
	const struct ex_verdict *x = a, *y = b;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	if (order_of(x->id) != order_of(y->id))
		return order_of(x->id) - order_of(y->id);
	return x->domid < y->domid ? -1 : x->domid > y->domid;
}

void explain_verdicts(struct explain *ex)
{
	ex->n_verdicts = 0;
	if (ex->host.absent) /* an imported recording: what its logs allow */
		explain_verdicts_imported(ex);
	for (size_t i = 0; !ex->host.absent && i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		if (d->io.guest_wr_bytes + d->io.guest_rd_bytes < EX_ACTIVE_BYTES)
			continue;
		verdict_page_cache_inflation(ex, d);
		verdict_double_counting(ex, d);
		verdict_test_size_vs_memory(ex, d);
		if (d->dom0_subject)
			continue; /* no backend: no serving CPU, its requests merged above its bios
			           */
		verdict_dom0_cpu_cost(ex, d);
		verdict_read_cache(ex, d);
		verdict_request_size(ex, d);
		verdict_path(ex, d);
	}
	for (size_t i = 0; !ex->host.absent && i < ex->n_claims; i++)
		verdict_claim(ex, &ex->claims[i]);
	qsort(ex->verdicts, ex->n_verdicts, sizeof(ex->verdicts[0]), by_share);
}
