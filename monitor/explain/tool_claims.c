/* tool_claims.c - a benchmark's own figures set against what dom0 saw: the claims[] rows
 * (explain_add_claim); their `claim` verdicts are verdicts/verdict_claim.c. See tool_claims.h. */
#include "explain/tool_claims.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/figures.h"
#include "core/sanitize.h"
#include "explain/dom0_subject.h"
#include "explain/placement.h"

/* A write run's quiet tail: the intervals after it in which the guest wrote less than
 * EX_ACTIVE_BYTES (its file system's journal commit after the fsync: 14 KiB in the Xen
 * test) and the disks took the rest of the run's bytes (a closing fsync or fdatasync
 * reaches the disk in the interval after the last write; dom0's cache under a
 * file-backed disk passes the flush on as its own writeback). Stops at the guest's next
 * run of writes, or once the disks took the run's guest bytes. */
static void on_disk_tail(const struct explain *ex, const struct ex_domain *d, struct ex_located *at)
{
	uint64_t phys = at->phys_bytes;
	for (size_t k = at->last + 1; k < d->n_series && phys < at->guest_bytes; k++) {
		const struct ex_point *p = &d->series[k];
		if (p->guest_wr_bytes >= EX_ACTIVE_BYTES ||
		    (d->dom0_subject && !ex_dom0_in_data(ex, p->t)))
			break;
		if (!p->phys_wr_bytes)
			continue;
		phys += p->phys_wr_bytes;
		at->on_disk_s = p->t;
	}
	if (at->on_disk_s > 0)
		at->phys_bytes = phys < at->guest_bytes ? phys : at->guest_bytes;
}

/* The row's run placed (placement.h) and set against what reached the disks over its
 * stretch: observed figures and inflation only for a placed run. */
static void judge_row(const struct explain *ex, const struct ex_domain *d, struct ex_claim *row)
{
	row->observed_guest = row->observed_phys = 0;
	row->observed_phys_rate_bps = 0;
	row->inflation = -1;
	row->below_resolution = false;
	bool host = ex->host.absent != 0;
	if (host) {
		/* an import: no domain's own bytes per interval beyond xentop's, none below it;
		 * its disks' (iostat's leaf devices) are the timeline the run is placed on */
		if (!figure_held(FIG_DISKS_WR_BYTES, ex->host.absent) || !ex->host.leaf_devices[0])
			return;
		static struct ex_domain disks; /* large: off the stack */
		disks = *d;
		disks.series = ex->host_series;
		disks.n_series = ex->n_host_series;
		disks.dom0_subject = false;
		ex_place_claim(ex, &disks, row);
		d = &disks;
	} else {
		ex_place_claim(ex, d, row);
	}
	struct ex_located *at = &row->located;
	if (!at->found)
		return; /* not placed: no rate is set against it */
	if (row->write && !host)
		on_disk_tail(ex, d, at);
	double span = (at->on_disk_s > 0 ? at->on_disk_s : at->to_s) - at->from_s;
	if (span <= 0)
		return;
	/* judged over its own stretch, not the whole recording's */
	row->observed_guest = host ? 0 : at->guest_bytes; /* an import: the disks' bytes */
	row->observed_phys = at->phys_bytes;
	row->observed_phys_rate_bps = (double)at->phys_bytes / span;
	row->inflation = row->observed_phys_rate_bps > 0 && row->rate_bps > 0
	                     ? row->rate_bps / row->observed_phys_rate_bps
	                     : -1;
	if (row->inflation > EX_CLAIM_INFLATION_MIN) {
		/* whole intervals: the run's own time may be two intervals shorter than its
		 * stretch; if the disks' bytes over that shortest time reach the tool's rate,
		 * the samples cannot tell an inflated rate from a true one */
		double shortest = span - 2 * d->series[at->first].interval_s;
		if (shortest <= 0 || (double)at->phys_bytes / shortest >= row->rate_bps) {
			row->inflation = -1;
			row->below_resolution = true;
		}
	}
}

static void fill_row(const struct explain *ex, const struct claim_figures *c,
                     const struct ex_domain *d, bool write, struct ex_claim *row)
{
	memset(row, 0, sizeof(*row));
	row->fig = *c;
	row->domid = d->domid;
	row->write = write;
	row->direction_from = EXD_TOOL;
	row->also_active_domid = EX_NO_DOMAIN;
	row->bytes = write ? c->wr_bytes : c->rd_bytes;
	row->seconds = write ? c->wr_seconds : c->rd_seconds;
	row->rate_bps = write ? c->wr_rate_bps : c->rd_rate_bps;
	if (row->rate_bps <= 0 && row->seconds > 0)
		row->rate_bps = (double)row->bytes / row->seconds;
	if (row->seconds <= 0 && row->rate_bps > 0) /* its duration from its rate and size */
		row->seconds = (double)row->bytes / row->rate_bps;
	judge_row(ex, d, row);
}

/* A run whose tool does not say which way: the direction whose timeline holds its bytes
 * (both: the earlier, then the nearer in bytes), else the direction the domain moved more
 * bytes in (said so). */
static void add_undirected(struct explain *ex, const struct claim_figures *c,
                           const struct ex_domain *d)
{
	struct ex_claim wr, rd;
	fill_row(ex, c, d, true, &wr);
	fill_row(ex, c, d, false, &rd);
	struct ex_claim *pick;
	if (wr.located.found && rd.located.found) {
		/* a file's runs are in the order they ran: the earlier, then (both starting in
		 * one interval: runs shorter than the sampling) the one that ended first, then
		 * the nearer in bytes */
		double ew = fabs((double)wr.located.guest_bytes - (double)wr.bytes);
		double er = fabs((double)rd.located.guest_bytes - (double)rd.bytes);
		if (wr.located.from_s != rd.located.from_s)
			pick = rd.located.from_s < wr.located.from_s ? &rd : &wr;
		else if (wr.located.to_s != rd.located.to_s)
			pick = rd.located.to_s < wr.located.to_s ? &rd : &wr;
		else
			pick = er < ew ? &rd : &wr;
		pick->direction_from = EXD_TIMELINE;
	} else if (wr.located.found || rd.located.found) {
		pick = wr.located.found ? &wr : &rd;
		pick->direction_from = EXD_TIMELINE;
	} else {
		pick = d->io.guest_rd_bytes > d->io.guest_wr_bytes ? &rd : &wr;
		pick->direction_from = EXD_LARGER;
	}
	ex->claims[ex->n_claims++] = *pick;
}

/* dom0's own run: its drain ends where its disks took the bytes of the write claims set
 * against it (dom0_subject.h). */
static void dom0_claimed(struct explain *ex, const struct ex_domain *d)
{
	uint64_t data = 0;
	for (size_t i = 0; i < ex->n_claims; i++)
		if (ex->claims[i].domid == d->domid && ex->claims[i].write)
			data += ex->claims[i].bytes;
	ex_dom0_data_drain(ex, &ex->doms[d - ex->doms], data);
}

/* The domain's rows judged again, in the order they were added: each placed after the
 * ones before it, knowing the runs after it (a file's next run, dom0's data drain). */
static void judge_again(struct explain *ex, const struct ex_domain *d)
{
	for (size_t i = 0; i < ex->n_claims; i++)
		if (ex->claims[i].domid == d->domid)
			judge_row(ex, d, &ex->claims[i]);
}

int explain_add_claim(struct explain *ex, const struct claim_figures *c, struct xerr *err)
{
	const struct ex_domain *d =
	    c->domain[0] ? explain_find_domain(ex, c->domain) : explain_busiest(ex, NULL);
	char file[300];
	sanitize_text(c->file, file, sizeof(file));
	if (!d) {
		char dom[200];
		sanitize_text(c->domain, dom, sizeof(dom));
		if (c->domain[0])
			xerr_set(err, XERR_INPUT, "%s: no domain '%s' in the window", file, dom);
		else
			xerr_set(err, XERR_INPUT, "%s: no domain moved any bytes in the window",
			         file);
		return -1;
	}
	bool wr = c->wr_bytes > 0, rd = c->rd_bytes > 0;
	if (!wr && !rd) {
		xerr_set(err, XERR_INPUT, "%s: the %s output holds no byte count", file,
		         c->tool[0] ? c->tool : "benchmark");
		return -1;
	}
	if (c->direction_unknown)
		wr = !(rd = true); /* one row, its direction decided below */
	if (ex->n_claims + (size_t)wr + (size_t)rd > EX_MAX_CLAIMS) {
		xerr_set(err, XERR_INPUT, "%s: too many claims (%d directions at most)", file,
		         EX_MAX_CLAIMS);
		return -1;
	}
	size_t first_row = ex->n_claims;
	if (c->direction_unknown) {
		add_undirected(ex, c, d);
	} else {
		if (wr)
			fill_row(ex, c, d, true, &ex->claims[ex->n_claims++]);
		if (rd)
			fill_row(ex, c, d, false, &ex->claims[ex->n_claims++]);
	}
	/* taken as the busiest: say so when another domain was active (a busy dom0, a
	 * second guest), so the reader can name the one meant */
	const struct ex_domain *other = c->domain[0] ? NULL : explain_also_active(ex, d);
	for (size_t i = first_row; i < ex->n_claims; i++)
		ex->claims[i].also_active_domid = other ? other->domid : EX_NO_DOMAIN;
	if (d->dom0_subject)
		dom0_claimed(ex, d);
	judge_again(ex, d);
	return 0;
}
