/* verdicts_io.c - the verdicts about bytes: page-cache inflation of writes, bytes counted
 * twice by vmstat/iostat, reads served from dom0's cache. See verdicts.h for shares. */
#include <stdio.h>
#include <string.h>

#include "core/sanitize.h"
#include "explain/dom0_subject.h"
#include "explain/verdicts/verdicts.h"

static void say_drain(struct ex_verdict *v, const struct explain *ex, const struct ex_domain *d)
{
	char b[32];
	if (d->dom0_subject && d->drained) {
		ex_dom0_say_drain(v, ex, d);
		return;
	}
	if (!ex->host.has_dirty) {
		ex_say(v, "The recording has no dirty-page counters, so the backlog is unknown. ");
		return;
	}
	ex_say(v, "When the run ended %s of it were still dirty in dom0's page cache",
	       ex_bytes((double)d->backlog_end, b, sizeof(b)));
	if (d->drained && d->drain_s > 0)
		ex_say(v, "; they reached the disk %.1f s later. ", d->drain_s);
	else if (d->drained)
		ex_say(v, ". ");
	else
		ex_say(v, ", and not drained when the recording ended %.1f s later. ",
		       ex->win.recorded_after_s);
}

/* Why a figure built on d's drain is not given: the recording ended first. */
static void say_drain_cut(struct explain *ex, const struct ex_domain *d, enum ex_verdict_id id)
{
	char who[160], b[32];
	ex_verdict_not_given(ex, id,
	                     "%s: the recording ended %.1f s after the run, before dom0 had written "
	                     "back the %s its page cache held of it (the drain was cut short): "
	                     "record until the drain ends (xiotop record -- CMD keeps on until "
	                     "dom0 has written it back)",
	                     ex_dom_label(d, who, sizeof(who)), ex->win.recorded_after_s,
	                     ex_bytes((double)d->backlog_end, b, sizeof(b)));
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
	ex_fig(v, "guest_wr_bytes", (double)d->io.guest_wr_bytes);
	ex_fig(v, "phys_wr_bytes", (double)d->io.phys_wr_bytes);
	ex_fig(v, "window_seconds", ex->win.seconds);
	ex_fig(v, "guest_wr_rate_bytes_per_s", rate);
	ex_fig(v, "phys_wr_rate_bytes_per_s", phys_rate);
	ex_fig(v, "end_to_end_rate_bytes_per_s", e2e);
	ex_fig(v, "inflation_factor", factor);
	if (d->dom0_subject) { /* no dirty counter follows dom0's own files */
		ex_fig_null(v, "dirty_backlog_end_bytes");
		ex_fig_null(v, "dirty_backlog_peak_bytes");
	} else {
		ex_fig(v, "dirty_backlog_end_bytes", (double)d->backlog_end);
		ex_fig(v, "dirty_backlog_peak_bytes", (double)d->backlog_peak);
	}
	if (d->drained)
		ex_fig(v, "drain_seconds", d->drain_s);
	else
		ex_fig_null(v, "drain_seconds");
	ex_fig(v, "drained", d->drained);
	if (d->dom0_subject)
		ex_dom0_drain_figures(v, ex, d);
	ex_evidence(v, "guest_wr_bytes");
	ex_evidence(v, "phys_wr_bytes");
	ex_evidence(v, "dirtied_bytes");
	ex_evidence(v, "written_back_bytes");
	ex_evidence(v, "dirty_backlog_bytes");
	char who[160], b1[32], b2[32], r1[32], r2[32], r3[32];
	ex_dom_label(d, who, sizeof(who));
	ex_say(v,
	       "%s wrote %s in %.2f s, %s as the %s saw it, but only %s of it (%s) reached a "
	       "physical disk in that time: the rest went into dom0's page cache. ",
	       who, ex_bytes((double)d->io.guest_wr_bytes, b1, sizeof(b1)), ex->win.seconds,
	       ex_rate(rate, r1, sizeof(r1)), d->dom0_subject ? "program in dom0" : "guest",
	       ex_bytes((double)stored, b2, sizeof(b2)), ex_rate(phys_rate, r2, sizeof(r2)));
	say_drain(v, ex, d);
	ex_say(v,
	       "Counted until the data was on disk the %s writes went at %s: the "
	       "benchmark's figure is inflated %.1fx by dom0's cache. ",
	       d->dom0_subject ? "program's" : "guest's", ex_rate(e2e, r3, sizeof(r3)), factor);
	if (d->dom0_subject)
		ex_say(v, "A program in dom0 writes into dom0's page cache: time it until the data "
		          "is on disk (dd conv=fdatasync, or sync inside the timing).");
	else if (ex_path_of(d) == EXP_QEMU)
		ex_say(v, "qemu writes the image with cache=writeback: use cache=none (O_DIRECT).");
	else
		ex_say(v,
		       "A file: disk on loop without direct I/O buffers in dom0; time the run "
		       "until dom0 has written it (sync in dom0), or use phy: / loop direct-io.");
}

/* The per-layer counts of d (window and drain), sanitized, into the text ("loop1 1.00 GiB
 * (backend), sda 1.00 GiB (leaf)"); returns what iostat's lines add up to. */
static double say_layers(struct ex_verdict *v, const struct ex_domain *d)
{
	double iostat = 0;
	char b[32], name[128];
	for (size_t i = 0; i < d->n_layers; i++) {
		const struct ex_layer *l = &d->layers[i];
		if (l->is_file || !l->name[0] || !l->wr_bytes)
			continue;
		sanitize_text(l->name, name, sizeof(name));
		ex_say(v, "%s%s %s (%s)", iostat > 0 ? ", " : "", name,
		       ex_bytes((double)l->wr_bytes, b, sizeof(b)), model_role_name(l->role));
		iostat += (double)l->wr_bytes;
	}
	return iostat;
}

static void say_why(struct ex_verdict *v, const struct ex_domain *d)
{
	if (d->via_wr[XIOTOP_VIA_INODE] + d->via_wr[XIOTOP_VIA_LOOPWORK])
		ex_say(v,
		       "Why: the disk is a file on a loop device. The guest's write is submitted "
		       "to the loop device (counted once), then the page cache or loop's direct "
		       "I/O submits it again to the disk under the file (counted again). ");
	if (d->via_wr[XIOTOP_VIA_PART])
		ex_say(v, "A partition's bytes show in iostat on the partition and again on its "
		          "whole disk (vmstat counts that bio once). ");
	if (d->via_wr[XIOTOP_VIA_REMAP])
		ex_say(v, "device-mapper: iostat shows the dm device and the disk below it; vmstat "
		          "counts the bio once. ");
	ex_say(v, "Read the leaf device (the physical disk) in iostat, not the sum of vmstat bo.");
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
	char who[160], b1[32], b2[32], b3[32], b4[32];
	ex_dom_label(d, who, sizeof(who));
	ex_say(v,
	       "vmstat bo counted %s for %s's %s of %s writes (%.2fx; each byte %.1f times), "
	       "of which %s were counted twice; the disks wrote %s. Per layer, as iostat "
	       "shows them (with the drain): ",
	       ex_bytes((double)vm, b1, sizeof(b1)), who,
	       ex_bytes((double)d->io.guest_wr_bytes, b2, sizeof(b2)),
	       d->dom0_subject ? "its own" : "guest", (double)vm / guest, (double)vm / guest,
	       ex_bytes((double)dc, b3, sizeof(b3)), ex_bytes((double)phys, b4, sizeof(b4)));
	double iostat = say_layers(v, d);
	ex_say(v, ". ");
	say_why(v, d);
	ex_fig(v, "guest_wr_bytes", (double)d->io.guest_wr_bytes);
	ex_fig(v, "vmstat_wr_bytes", (double)vm);
	ex_fig(v, "phys_wr_bytes", (double)phys);
	ex_fig(v, "double_counted_bytes", (double)dc);
	ex_fig(v, "double_counted_in_window_bytes", (double)d->io.double_counted_bytes);
	ex_fig(v, "vmstat_times", (double)vm / guest);
	ex_fig(v, "iostat_times", iostat / guest);
	ex_fig(v, "via_loop_bytes",
	       (double)(d->via_wr[XIOTOP_VIA_INODE] + d->via_wr[XIOTOP_VIA_LOOPWORK]));
	ex_fig(v, "via_partition_bytes", (double)d->via_wr[XIOTOP_VIA_PART]);
	ex_fig(v, "via_dm_bytes", (double)d->via_wr[XIOTOP_VIA_REMAP]);
	ex_fig_str(v, "path", ex_path_name(ex_path_of(d)));
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
	ex_fig(v, "guest_rd_bytes", (double)d->io.guest_rd_bytes);
	ex_fig(v, "phys_rd_bytes", (double)d->io.phys_rd_bytes);
	ex_fig(v, "cached_rd_bytes", (double)cached);
	ex_fig(v, "guest_rd_rate_bytes_per_s", (double)d->io.guest_rd_bytes / ex->win.seconds);
	ex_fig(v, "phys_rd_rate_bytes_per_s", (double)d->io.phys_rd_bytes / ex->win.seconds);
	ex_evidence(v, "guest_rd_bytes");
	ex_evidence(v, "phys_rd_bytes");
	char who[160], b1[32], b2[32], r1[32];
	ex_dom_label(d, who, sizeof(who));
	ex_say(v,
	       "%s read %s (%s) but the disks delivered only %s: %.0f %% of its reads came "
	       "from dom0's page cache (the image file or device was cached in dom0), not "
	       "from a disk. A read test smaller than dom0's free memory, or run right after "
	       "the write test, measures RAM; drop dom0's caches "
	       "(echo 3 > /proc/sys/vm/drop_caches) or use a test larger than dom0's memory.",
	       who, ex_bytes((double)d->io.guest_rd_bytes, b1, sizeof(b1)),
	       ex_rate((double)d->io.guest_rd_bytes / ex->win.seconds, r1, sizeof(r1)),
	       ex_bytes((double)d->io.phys_rd_bytes, b2, sizeof(b2)), v->share * 100);
}
