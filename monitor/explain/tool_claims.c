/* tool_claims.c - a benchmark's own figures set against what dom0 saw: the claims[] rows
 * (explain_add_claim); their `claim` verdicts are verdicts/verdict_claim.c. See tool_claims.h. */
#include "explain/tool_claims.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/sanitize.h"
#include "explain/dom0_subject.h"

/* "start bonnie" for bonnie++: the label after `prefix` names the tool (a prefix of its
 * name, at least 2 characters, case aside). */
static bool names_tool(const char *label, const char *prefix, const char *tool)
{
	size_t p = strlen(prefix), n = strlen(label);
	return n >= p + 2 && !strncmp(label, prefix, p) && n - p <= strlen(tool) &&
	       !strncasecmp(label + p, tool, n - p);
}

/* The guest's own marks around its tool's run ("start fio" ... "end fio", written into
 * its xenstore node): the series indices [*from, *end) of the intervals between them,
 * so that another tool's run of the same size is not taken for this one. Unchanged
 * when the domain left no such pair. */
static void tool_marks(const struct explain *ex, const struct ex_domain *d, const char *tool,
                       size_t *from, size_t *end)
{
	char origin[16];
	snprintf(origin, sizeof(origin), "domain %u", (unsigned)d->domid);
	double start = -1, stop = -1;
	for (size_t i = 0; i < ex->n_marks; i++) {
		const struct ex_mark *m = &ex->marks[i];
		if (strcmp(m->origin, origin))
			continue;
		if (start < 0 && names_tool(m->label, "start ", tool))
			start = m->t;
		else if (start >= 0 && stop < 0 && names_tool(m->label, "end ", tool))
			stop = m->t;
	}
	if (start < 0 || stop < start)
		return;
	size_t a = 0, b = 0;
	while (a < d->n_series && d->series[a].t <= start) /* the interval holding the mark */
		a++;
	for (b = a; b < d->n_series && d->series[b].t < stop; b++)
		;
	*from = a > *from ? a : *from;
	*end = b < d->n_series ? b + 1 : d->n_series;
}

/* The row's run in the domain's timeline, after the same file's previous run that way
 * (the rows before it in ex->claims; a row not in it comes after them all), within the
 * guest's marks around the tool when it left them. */
static void locate_row(const struct explain *ex, const struct ex_domain *d, struct ex_claim *row)
{
	size_t from = 0, end = d->n_series;
	tool_marks(ex, d, row->fig.tool, &from, &end);
	while (d->dom0_subject && row->write && end > from &&
	       !ex_dom0_in_data(ex, d->series[end - 1].t))
		end--; /* dom0's own run: its data's drain ends it (dom0_subject.h) */
	for (size_t i = 0; i < ex->n_claims && &ex->claims[i] != row; i++) {
		const struct ex_claim *p = &ex->claims[i];
		if (p->domid == row->domid && p->write == row->write && p->located.found &&
		    !strcmp(p->fig.file, row->fig.file) && p->located.last + 1 > from)
			from = p->located.last + 1;
	}
	ex_locate_claim(d->series, end, from, row->bytes, row->seconds, row->write, &row->located);
}

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
	locate_row(ex, d, row);
	struct ex_located *at = &row->located;
	if (at->found && write)
		on_disk_tail(ex, d, at);
	double span = (at->on_disk_s > 0 ? at->on_disk_s : at->to_s) - at->from_s;
	if (at->found && span > 0) {
		/* judged over its own sub-window, not the whole recording's */
		row->observed_guest = at->guest_bytes;
		row->observed_phys = at->phys_bytes;
		row->observed_phys_rate_bps = (double)at->phys_bytes / span;
	} else if (write) {
		row->observed_guest = d->io.guest_wr_bytes;
		/* the arrays' bytes, not the sum of a mirror's copies */
		row->observed_phys = model_io_stored_wr(&d->io) + d->after_stored_wr;
		row->observed_phys_rate_bps = ex_end_to_end_wr_rate(ex, d);
		/* the rate at which the disk took what the guest wrote: writes reached it by the
		 * drain's end */
		if (d->io.guest_wr_bytes && row->observed_phys < d->io.guest_wr_bytes)
			row->observed_phys_rate_bps *=
			    (double)row->observed_phys / (double)d->io.guest_wr_bytes;
	} else {
		row->observed_guest = d->io.guest_rd_bytes;
		row->observed_phys = model_io_stored_rd(&d->io);
		row->observed_phys_rate_bps = (double)row->observed_phys / ex->win.seconds;
	}
	row->drain_cut = !at->found && write && ex_drain_cut(ex, d);
	row->inflation = row->observed_phys_rate_bps > 0 && row->rate_bps > 0 && !row->drain_cut
	                     ? row->rate_bps / row->observed_phys_rate_bps
	                     : -1;
	if (at->found && row->inflation > EX_CLAIM_INFLATION_MIN) {
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
 * against it (dom0_subject.h); its write rows are judged again, in order, against that
 * drain (each located among the intervals before the drain's end). */
static void dom0_claimed(struct explain *ex, const struct ex_domain *d)
{
	uint64_t data = 0;
	for (size_t i = 0; i < ex->n_claims; i++)
		if (ex->claims[i].domid == d->domid && ex->claims[i].write)
			data += ex->claims[i].bytes;
	ex_dom0_data_drain(ex, &ex->doms[d - ex->doms], data);
	for (size_t i = 0; i < ex->n_claims; i++) {
		struct ex_claim *row = &ex->claims[i];
		if (row->domid != d->domid || !row->write)
			continue;
		struct claim_figures fig = row->fig;
		enum ex_direction_from from = row->direction_from;
		uint32_t also_active = row->also_active_domid;
		fill_row(ex, &fig, d, true, row); /* located after the rows before it, as added */
		row->direction_from = from;
		row->also_active_domid = also_active;
	}
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
	return 0;
}
