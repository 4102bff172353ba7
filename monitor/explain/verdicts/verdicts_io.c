/* verdicts_io.c - the verdicts about bytes: page-cache inflation of writes, bytes counted
 * twice by vmstat/iostat, reads served from dom0's cache. See verdicts.h for shares. */
#include "explain/dom0_subject.h"
#include "explain/verdicts/verdicts.h"

/* Why a figure built on d's drain is not given: the recording ended first. */
static void say_drain_cut(struct explain *ex, const struct ex_domain *d, enum ex_verdict_id id)
{
	ex_verdict_not_given(ex, id,
	                     "domain %u: the recording ended %.1f s after the run, before dom0 "
	                     "had written back the %.1f MiB its page cache held of it (the drain "
	                     "was cut short): record until the drain ends (xiotop record -- CMD "
	                     "keeps on until dom0 has written it back)",
	                     d->domid, ex->win.recorded_after_s, (double)d->backlog_end / EX_MIB);
}

void verdict_page_cache_inflation(struct explain *ex, const struct ex_domain *d)
{
	if (d->io.guest_wr_bytes < EX_ACTIVE_BYTES)
		return;
	if (ex_drain_cut(ex, d)) { /* the end to end rate would be half the drain's */
		say_drain_cut(ex, d, EXV_PAGE_CACHE_INFLATION);
		return;
	}
	double rate = ex_guest_wr_rate(ex, d), e2e = ex_end_to_end_wr_rate(ex, d);
	/* what the disks took once: a mirror's second copy is no faster disk */
	uint64_t stored = model_io_stored_wr(&d->io);
	double phys_rate = (double)stored / ex->win.seconds;
	double factor = e2e > 0 ? rate / e2e : 0;
	/* dom0's own writes: its bios after the run are the drain, when it was seen to end */
	bool cached = d->dom0_subject ? d->drained && factor >= EX_INFLATION_MIN
	              : ex->host.has_dirty
	                  ? factor >= EX_INFLATION_MIN
	                  : stored * EX_CACHED_PART_DEN < d->io.guest_wr_bytes * EX_CACHED_PART_NUM;
	if (!cached)
		return;
	struct ex_verdict *v = ex_verdict_new(ex, EXV_PAGE_CACHE_INFLATION, d->domid);
	if (!v)
		return;
	v->share = rate > 0 ? 1 - e2e / rate : 0;
	ex_fig(v, EXK_GUEST_WR_BYTES, (double)d->io.guest_wr_bytes);
	ex_fig(v, EXK_PHYS_WR_BYTES, (double)stored); /* once: a mirror's copies apart */
	ex_fig(v, EXK_WINDOW_SECONDS, ex->win.seconds);
	ex_fig(v, EXK_GUEST_WR_RATE, rate);
	ex_fig(v, EXK_PHYS_WR_RATE, phys_rate);
	ex_fig(v, EXK_END_TO_END_RATE, e2e);
	ex_fig(v, EXK_INFLATION_FACTOR, factor);
	if (d->dom0_subject) { /* no dirty counter follows dom0's own files */
		ex_fig_null(v, EXK_DIRTY_BACKLOG_END);
		ex_fig_null(v, EXK_DIRTY_BACKLOG_PEAK);
	} else {
		ex_fig(v, EXK_DIRTY_BACKLOG_END, (double)d->backlog_end);
		ex_fig(v, EXK_DIRTY_BACKLOG_PEAK, (double)d->backlog_peak);
	}
	if (d->drained)
		ex_fig(v, EXK_DRAIN_SECONDS, d->drain_s);
	else
		ex_fig_null(v, EXK_DRAIN_SECONDS);
	ex_fig(v, EXK_DRAINED, d->drained);
	if (d->dom0_subject)
		ex_dom0_drain_figures(v, ex, d);
	ex_evidence(v, "guest_wr_bytes");
	ex_evidence(v, "phys_wr_bytes");
	ex_evidence(v, "dirtied_bytes");
	ex_evidence(v, "written_back_bytes");
	ex_evidence(v, "dirty_backlog_bytes");
}

/* What iostat's lines for d add up to: each layer's writes (window and drain) but the
 * file layer's. */
static double iostat_bytes(const struct ex_domain *d)
{
	double iostat = 0;
	for (size_t i = 0; i < d->n_layers; i++) {
		const struct ex_layer *l = &d->layers[i];
		if (!l->is_file && l->name[0])
			iostat += (double)l->wr_bytes;
	}
	return iostat;
}

void verdict_double_counting(struct explain *ex, const struct ex_domain *d)
{
	uint64_t dc = d->io.double_counted_bytes + d->after_double_counted;
	uint64_t vm = d->io.vmstat_wr_bytes + d->after_vmstat_wr;
	uint64_t phys = d->io.phys_wr_bytes + d->after_phys_wr;
	if (ex_drain_cut(ex, d) && d->io.guest_wr_bytes >= EX_ACTIVE_BYTES) {
		/* the writeback's second count only partly seen */
		say_drain_cut(ex, d, EXV_DOUBLE_COUNTING);
		return;
	}
	if (dc < EX_ACTIVE_BYTES || dc * EX_DOUBLE_MIN_DEN < d->io.guest_wr_bytes)
		return;
	struct ex_verdict *v = ex_verdict_new(ex, EXV_DOUBLE_COUNTING, d->domid);
	if (!v)
		return;
	double guest = d->io.guest_wr_bytes ? (double)d->io.guest_wr_bytes : 1;
	v->share = vm ? (double)dc / (double)vm : 0;
	ex_fig(v, EXK_GUEST_WR_BYTES, (double)d->io.guest_wr_bytes);
	ex_fig(v, EXK_VMSTAT_WR_BYTES, (double)vm);
	ex_fig(v, EXK_PHYS_WR_BYTES, (double)phys);
	ex_fig(v, EXK_DOUBLE_COUNTED_BYTES, (double)dc);
	ex_fig(v, EXK_DOUBLE_COUNTED_IN_WINDOW, (double)d->io.double_counted_bytes);
	ex_fig(v, EXK_VMSTAT_TIMES, (double)vm / guest);
	ex_fig(v, EXK_IOSTAT_TIMES, iostat_bytes(d) / guest);
	ex_fig(v, EXK_VIA_LOOP_BYTES,
	       (double)(d->via_wr[XIOTOP_VIA_INODE] + d->via_wr[XIOTOP_VIA_LOOPWORK]));
	ex_fig(v, EXK_VIA_PARTITION_BYTES, (double)d->via_wr[XIOTOP_VIA_PART]);
	ex_fig(v, EXK_VIA_DM_BYTES, (double)d->via_wr[XIOTOP_VIA_REMAP]);
	ex_fig_str(v, EXK_PATH, ex_path_name(ex_path_of(d)));
	ex_evidence(v, "double_counted_bytes");
	ex_evidence(v, "vmstat_pgpgout_bytes");
	ex_evidence(v, "phys_wr_bytes");
	ex_evidence(v, "layers");
}

void verdict_read_cache(struct explain *ex, const struct ex_domain *d)
{
	if (d->io.guest_rd_bytes < EX_ACTIVE_BYTES ||
	    d->io.phys_rd_bytes * EX_CACHED_PART_DEN >= d->io.guest_rd_bytes * EX_CACHED_PART_NUM)
		return;
	struct ex_verdict *v = ex_verdict_new(ex, EXV_READ_CACHE, d->domid);
	if (!v)
		return;
	uint64_t cached = d->io.guest_rd_bytes - d->io.phys_rd_bytes;
	v->share = (double)cached / (double)d->io.guest_rd_bytes;
	ex_fig(v, EXK_GUEST_RD_BYTES, (double)d->io.guest_rd_bytes);
	ex_fig(v, EXK_PHYS_RD_BYTES, (double)d->io.phys_rd_bytes);
	ex_fig(v, EXK_CACHED_RD_BYTES, (double)cached);
	ex_fig(v, EXK_GUEST_RD_RATE, (double)d->io.guest_rd_bytes / ex->win.seconds);
	ex_fig(v, EXK_PHYS_RD_RATE, (double)d->io.phys_rd_bytes / ex->win.seconds);
	ex_evidence(v, "guest_rd_bytes");
	ex_evidence(v, "phys_rd_bytes");
}
