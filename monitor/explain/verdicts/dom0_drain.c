/* dom0_drain.c - dom0's own run's drain (explain/dom0_subject.h) as a verdict's figures:
 * which rule ended it, and the run's disks' writes after its data. */
#include "explain/dom0_subject.h"
#include "explain/verdicts/verdicts.h"

/* A byte figure, null unless known. */
static void fig_bytes(struct ex_verdict *v, enum ex_key key, bool known, uint64_t bytes)
{
	if (known)
		ex_fig(v, key, (double)bytes);
	else
		ex_fig_null(v, key);
}

void ex_dom0_drain_figures(struct ex_verdict *v, const struct explain *ex,
                           const struct ex_domain *d)
{
	const struct ex_dom0_drain *log = ex->dom0_drain;
	bool data = log && log->data_drained;
	ex_fig_str(v, EXK_DRAIN_FROM,
	           data         ? "the run's data"
	           : d->drained ? "a quiet stretch"
	                        : "");
	fig_bytes(v, EXK_RUN_DATA_BYTES, log && log->data_bytes, log ? log->data_bytes : 0);
	fig_bytes(v, EXK_DATA_TAKEN_BYTES, data, data ? log->data_taken : 0);
	fig_bytes(v, EXK_AFTER_DATA_WR_BYTES, data, data ? log->after_data_wr : 0);
	if (data && log->after_data_last_s > 0)
		ex_fig(v, EXK_AFTER_DATA_LAST_SECONDS, log->after_data_last_s);
	else
		ex_fig_null(v, EXK_AFTER_DATA_LAST_SECONDS);
}
