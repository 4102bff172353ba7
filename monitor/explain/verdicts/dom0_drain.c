/* dom0_drain.c - dom0's own run's drain (explain/dom0_subject.h) as a verdict's figures and
 * text: which rule ended it, and the run's disks' writes after its data. */
#include <stdio.h>

#include "explain/dom0_subject.h"
#include "explain/verdicts/verdicts.h"

/* A byte figure, null unless known. */
static void fig_bytes(struct ex_verdict *v, const char *key, bool known, uint64_t bytes)
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
	ex_fig_str(v, "drain_from", data ? "the run's data" : d->drained ? "a quiet stretch" : "");
	fig_bytes(v, "run_data_bytes", log && log->data_bytes, log ? log->data_bytes : 0);
	fig_bytes(v, "data_taken_bytes", data, data ? log->data_taken : 0);
	fig_bytes(v, "after_data_wr_bytes", data, data ? log->after_data_wr : 0);
	if (data && log->after_data_last_s > 0)
		ex_fig(v, "after_data_last_seconds", log->after_data_last_s);
	else
		ex_fig_null(v, "after_data_last_seconds");
}

void ex_dom0_say_after_data(struct ex_verdict *v, const struct explain *ex, const char *before)
{
	const struct ex_dom0_drain *log = ex->dom0_drain;
	char b1[32], b2[32];
	if (!log || !log->data_drained || log->after_data_wr < DOM0_ACTIVE_WR_BYTES)
		return;
	ex_say(v,
	       "%sThen dom0 wrote %s more to those disks, the last %.1f s after the run: ", before,
	       ex_bytes((double)log->after_data_wr, b1, sizeof(b1)), log->after_data_last_s);
	if (log->data_taken < log->data_bytes)
		ex_say(
		    v,
		    "up to %s of it the run's last pages, left in dom0's cache for the "
		    "flusher's timer (at most 1/%d of the run, waiting for a timer, not a disk), "
		    "the rest its file system's metadata and journal or other programs' "
		    "writes; not counted as the drain.",
		    ex_bytes((double)(log->data_bytes - log->data_taken), b2, sizeof(b2)),
		    EX_DOM0_DATA_SLACK_DEN);
	else
		ex_say(v, "its file system's metadata and journal or other programs' writes, not "
		          "the run's data; not counted as the drain.");
}

void ex_dom0_say_drain(struct ex_verdict *v, const struct explain *ex, const struct ex_domain *d)
{
	const struct ex_dom0_drain *log = ex->dom0_drain;
	char b1[32], b2[32];
	ex_say(v, "dom0's own dirty pages are not counted per file; ");
	if (log && log->data_drained) {
		if (log->data_taken >= log->data_bytes)
			ex_say(v, "the run's disks had taken the %s it wrote (the claims' bytes)",
			       ex_bytes((double)log->data_bytes, b1, sizeof(b1)));
		else
			ex_say(
			    v,
			    "the run's disks had taken all but %s of the %s it wrote (the "
			    "claims' bytes)",
			    ex_bytes((double)(log->data_bytes - log->data_taken), b1, sizeof(b1)),
			    ex_bytes((double)log->data_bytes, b2, sizeof(b2)));
		ex_say(v, " %.1f s after the run.", d->drain_s);
		ex_dom0_say_after_data(v, ex, " ");
		ex_say(v, " ");
		return;
	}
	ex_say(v,
	       "it went on writing to the disks until %.1f s after the run, then was quiet for "
	       "%.0f s (vm.dirty_expire_centisecs + vm.dirty_writeback_centisecs: by then the "
	       "flusher has written what was dirty)",
	       d->drain_s, ex_dom0_quiet_limit_s(&ex->host));
	if (log && log->data_bytes)
		ex_say(v,
		       "; its disks took %s, not the %s the claims say it wrote, so they do not "
		       "show when its data was on disk. ",
		       ex_bytes((double)log->data_on_disk, b1, sizeof(b1)),
		       ex_bytes((double)log->data_bytes, b2, sizeof(b2)));
	else
		ex_say(v, "; no claim gives the run's bytes, so that counts its file system's "
		          "metadata written after its data too. ");
}
