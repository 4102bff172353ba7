/* prose_dom0.c - the words of dom0's own run's drain (explain/dom0_subject.h): which rule
 * ended it, and what its disks took after its data. */
#include "explain/dom0_subject.h"
#include "explain/report/prose.h"

void prose_dom0_after_data(struct prose *p, const struct explain *ex, const char *before)
{
	const struct ex_dom0_drain *log = ex->dom0_drain;
	char b1[32], b2[32];
	if (!log || !log->data_drained || log->after_data_wr < DOM0_ACTIVE_WR_BYTES)
		return;
	say(p, "%sThen dom0 wrote %s more to those disks, the last %.1f s after the run: ", before,
	    ex_bytes((double)log->after_data_wr, b1, sizeof(b1)), log->after_data_last_s);
	if (log->data_taken < log->data_bytes)
		say(p,
		    "up to %s of it the run's last pages, left in dom0's cache for the "
		    "flusher's timer (at most 1/%d of the run, waiting for a timer, not a disk), "
		    "the rest its file system's metadata and journal or other programs' "
		    "writes; not counted as the drain.",
		    ex_bytes((double)(log->data_bytes - log->data_taken), b2, sizeof(b2)),
		    EX_DOM0_DATA_SLACK_DEN);
	else
		say(p, "its file system's metadata and journal or other programs' writes, not "
		       "the run's data; not counted as the drain.");
}

void prose_dom0_drain(struct prose *p, const struct explain *ex, const struct ex_domain *d)
{
	const struct ex_dom0_drain *log = ex->dom0_drain;
	char b1[32], b2[32];
	say(p, "dom0's own dirty pages are not counted per file; ");
	if (log && log->data_drained) {
		if (log->data_taken >= log->data_bytes)
			say(p, "the run's disks had taken the %s it wrote (the claims' bytes)",
			    ex_bytes((double)log->data_bytes, b1, sizeof(b1)));
		else
			say(p,
			    "the run's disks had taken all but %s of the %s it wrote (the "
			    "claims' bytes)",
			    ex_bytes((double)(log->data_bytes - log->data_taken), b1, sizeof(b1)),
			    ex_bytes((double)log->data_bytes, b2, sizeof(b2)));
		say(p, " %.1f s after the run.", d->drain_s);
		prose_dom0_after_data(p, ex, " ");
		say(p, " ");
		return;
	}
	say(p,
	    "it went on writing to the disks until %.1f s after the run, then was quiet for "
	    "%.0f s (vm.dirty_expire_centisecs + vm.dirty_writeback_centisecs: by then the "
	    "flusher has written what was dirty)",
	    d->drain_s, ex_dom0_quiet_limit_s(&ex->host));
	if (log && log->data_bytes)
		say(p,
		    "; its disks took %s, not the %s the claims say it wrote, so they do not "
		    "show when its data was on disk. ",
		    ex_bytes((double)log->data_on_disk, b1, sizeof(b1)),
		    ex_bytes((double)log->data_bytes, b2, sizeof(b2)));
	else
		say(p, "; no claim gives the run's bytes, so that counts its file system's "
		       "metadata written after its data too. ");
}
