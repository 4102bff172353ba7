/* prose_io.c - the words of the verdicts about bytes: page-cache inflation, double
 * counting, reads from dom0's cache (verdicts/verdicts_io.c). */
#include "core/sanitize.h"
#include "explain/report/prose.h"

static void say_drain(struct prose *p, const struct explain *ex, const struct ex_domain *d)
{
	char b[32];
	if (d->dom0_subject && d->drained) {
		prose_dom0_drain(p, ex, d);
		return;
	}
	if (!ex->host.has_dirty) {
		say(p, "The recording has no dirty-page counters, so the backlog is unknown. ");
		return;
	}
	say(p, "When the run ended %s of it were still dirty in dom0's page cache",
	    ex_bytes((double)d->backlog_end, b, sizeof(b)));
	if (d->drained && d->drain_s > 0)
		say(p, "; they reached the disk %.1f s later. ", d->drain_s);
	else if (d->drained)
		say(p, ". ");
	else
		say(p, ", and not drained when the recording ended %.1f s later. ",
		    ex->win.recorded_after_s);
}

void prose_page_cache_inflation(struct prose *p, const struct explain *ex,
                                const struct ex_verdict *v, const struct ex_domain *d)
{
	if (ex->host.absent) { /* an import: against the host's disks */
		prose_import_cache(p, ex, v, d);
		return;
	}
	char who[160], b1[32], b2[32], r1[32], r2[32], r3[32];
	ex_dom_label(d, who, sizeof(who));
	say(p,
	    "%s wrote %s in %.2f s, %s as the %s saw it, but only %s of it (%s) reached a "
	    "physical disk in that time: the rest went into dom0's page cache. ",
	    who, ex_bytes(fig(v, EXK_GUEST_WR_BYTES), b1, sizeof(b1)), fig(v, EXK_WINDOW_SECONDS),
	    ex_rate(fig(v, EXK_GUEST_WR_RATE), r1, sizeof(r1)),
	    d->dom0_subject ? "program in dom0" : "guest",
	    ex_bytes(fig(v, EXK_PHYS_WR_BYTES), b2, sizeof(b2)),
	    ex_rate(fig(v, EXK_PHYS_WR_RATE), r2, sizeof(r2)));
	say_drain(p, ex, d);
	say(p,
	    "Counted until the data was on disk the %s writes went at %s: the "
	    "benchmark's figure is inflated %.1fx by dom0's cache. ",
	    d->dom0_subject ? "program's" : "guest's",
	    ex_rate(fig(v, EXK_END_TO_END_RATE), r3, sizeof(r3)), fig(v, EXK_INFLATION_FACTOR));
	if (d->dom0_subject)
		say(p, "A program in dom0 writes into dom0's page cache: time it until the data "
		       "is on disk (dd conv=fdatasync, or sync inside the timing).");
	else if (ex_path_of(d) == EXP_QEMU)
		say(p, "qemu writes the image with cache=writeback: use cache=none (O_DIRECT).");
	else
		say(p, "A file: disk on loop without direct I/O buffers in dom0; time the run "
		       "until dom0 has written it (sync in dom0), or use phy: / loop direct-io.");
}

/* The per-layer counts of d (window and drain), sanitized ("loop1 1.00 GiB (backend),
 * sda 1.00 GiB (leaf)"). */
static void say_layers(struct prose *p, const struct ex_domain *d)
{
	bool first = true;
	char b[32], name[128];
	for (size_t i = 0; i < d->n_layers; i++) {
		const struct ex_layer *l = &d->layers[i];
		if (l->is_file || !l->name[0] || !l->wr_bytes)
			continue;
		sanitize_text(l->name, name, sizeof(name));
		say(p, "%s%s %s (%s)", first ? "" : ", ", name,
		    ex_bytes((double)l->wr_bytes, b, sizeof(b)), model_role_name(l->role));
		first = false;
	}
}

static void say_why(struct prose *p, const struct ex_verdict *v)
{
	if (fig(v, EXK_VIA_LOOP_BYTES) > 0)
		say(p, "Why: the disk is a file on a loop device. The guest's write is submitted "
		       "to the loop device (counted once), then the page cache or loop's direct "
		       "I/O submits it again to the disk under the file (counted again). ");
	if (fig(v, EXK_VIA_PARTITION_BYTES) > 0)
		say(p, "A partition's bytes show in iostat on the partition and again on its "
		       "whole disk (vmstat counts that bio once). ");
	if (fig(v, EXK_VIA_DM_BYTES) > 0)
		say(p, "device-mapper: iostat shows the dm device and the disk below it; vmstat "
		       "counts the bio once. ");
	say(p, "Read the leaf device (the physical disk) in iostat, not the sum of vmstat bo.");
}

void prose_double_counting(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                           const struct ex_domain *d)
{
	if (!d) { /* an import: host-wide */
		prose_import_double_counting(p, ex, v, d);
		return;
	}
	char who[160], b1[32], b2[32], b3[32], b4[32];
	double times = fig(v, EXK_VMSTAT_TIMES);
	say(p,
	    "vmstat bo counted %s for %s's %s of %s writes (%.2fx; each byte %.1f times), "
	    "of which %s were counted twice; the disks wrote %s. Per layer, as iostat "
	    "shows them (with the drain): ",
	    ex_bytes(fig(v, EXK_VMSTAT_WR_BYTES), b1, sizeof(b1)),
	    ex_dom_label(d, who, sizeof(who)), ex_bytes(fig(v, EXK_GUEST_WR_BYTES), b2, sizeof(b2)),
	    d->dom0_subject ? "its own" : "guest", times, times,
	    ex_bytes(fig(v, EXK_DOUBLE_COUNTED_BYTES), b3, sizeof(b3)),
	    ex_bytes(fig(v, EXK_PHYS_WR_BYTES), b4, sizeof(b4)));
	say_layers(p, d);
	say(p, ". ");
	say_why(p, v);
}

void prose_read_cache(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                      const struct ex_domain *d)
{
	if (ex->host.absent) { /* an import: against the host's disks */
		prose_import_cache(p, ex, v, d);
		return;
	}
	char who[160], b1[32], b2[32], r1[32];
	say(p,
	    "%s read %s (%s) but the disks delivered only %s: %.0f %% of its reads came "
	    "from dom0's page cache (the image file or device was cached in dom0), not "
	    "from a disk. A read test smaller than dom0's free memory, or run right after "
	    "the write test, measures RAM; drop dom0's caches "
	    "(echo 3 > /proc/sys/vm/drop_caches) or use a test larger than dom0's memory.",
	    ex_dom_label(d, who, sizeof(who)), ex_bytes(fig(v, EXK_GUEST_RD_BYTES), b1, sizeof(b1)),
	    ex_rate(fig(v, EXK_GUEST_RD_RATE), r1, sizeof(r1)),
	    ex_bytes(fig(v, EXK_PHYS_RD_BYTES), b2, sizeof(b2)), v->share * 100);
}
