/* tool_claims.c - a benchmark's own figures set against what dom0 saw: the claims[] rows
 * (explain_add_claim) and their `claim` verdicts. See tool_claims.h. */
#include "explain/tool_claims.h"

#include <stdio.h>
#include <string.h>

#include "core/sanitize.h"
#include "explain/verdicts.h"

static void add_row(struct explain *ex, const struct claim_figures *c, const struct ex_domain *d,
                    bool write)
{
	struct ex_claim *row = &ex->claims[ex->n_claims++];
	memset(row, 0, sizeof(*row));
	row->fig = *c;
	row->domid = d->domid;
	row->write = write;
	row->bytes = write ? c->wr_bytes : c->rd_bytes;
	row->seconds = write ? c->wr_seconds : c->rd_seconds;
	row->rate_bps = write ? c->wr_rate_bps : c->rd_rate_bps;
	if (row->rate_bps <= 0 && row->seconds > 0)
		row->rate_bps = (double)row->bytes / row->seconds;
	if (write) {
		row->observed_guest = d->guest_wr;
		row->observed_phys = d->phys_wr + d->after_phys_wr;
		row->observed_phys_rate_bps = ex_end_to_end_wr_rate(ex, d);
		/* the rate at which the disk took what the guest wrote: writes reached it by the
		 * drain's end */
		if (d->guest_wr && row->observed_phys < d->guest_wr)
			row->observed_phys_rate_bps *=
			    (double)row->observed_phys / (double)d->guest_wr;
	} else {
		row->observed_guest = d->guest_rd;
		row->observed_phys = d->phys_rd;
		row->observed_phys_rate_bps = (double)d->phys_rd / ex->win.seconds;
	}
	row->inflation = row->observed_phys_rate_bps > 0 && row->rate_bps > 0
	                     ? row->rate_bps / row->observed_phys_rate_bps
	                     : -1;
}

int explain_add_claim(struct explain *ex, const struct claim_figures *c, char *err, size_t errlen)
{
	const struct ex_domain *d =
	    c->domain[0] ? explain_find_domain(ex, c->domain) : explain_busiest(ex);
	if (!d) {
		if (c->domain[0])
			snprintf(err, errlen, "%s: no domain '%s' in the window", c->file,
			         c->domain);
		else
			snprintf(err, errlen, "%s: no domain moved any bytes in the window",
			         c->file);
		return -1;
	}
	bool wr = c->wr_bytes > 0, rd = c->rd_bytes > 0;
	if (!wr && !rd) {
		snprintf(err, errlen, "%s: the %s output holds no byte count", c->file,
		         c->tool[0] ? c->tool : "benchmark");
		return -1;
	}
	if (ex->n_claims + (size_t)wr + (size_t)rd > EX_MAX_CLAIMS) {
		snprintf(err, errlen, "%s: too many claims (%d directions at most)", c->file,
		         EX_MAX_CLAIMS);
		return -1;
	}
	if (wr)
		add_row(ex, c, d, true);
	if (rd)
		add_row(ex, c, d, false);
	return 0;
}

void verdict_claim(struct explain *ex, const struct ex_claim *c)
{
	struct ex_verdict *v = ex_verdict_new(ex, "claim", c->domid);
	if (!v)
		return;
	const struct ex_domain *d = NULL;
	for (size_t i = 0; i < ex->n_doms && !d; i++)
		if (ex->doms[i].domid == c->domid)
			d = &ex->doms[i];
	v->share = c->inflation > 1 ? 1 - 1 / c->inflation : 0;
	ex_fig_str(v, "tool", c->fig.tool);
	ex_fig_str(v, "direction", c->write ? "write" : "read");
	ex_fig(v, "claimed_bytes", (double)c->bytes);
	ex_fig(v, "claimed_seconds", c->seconds);
	ex_fig(v, "claimed_rate_bytes_per_s", c->rate_bps);
	ex_fig(v, "observed_guest_bytes", (double)c->observed_guest);
	ex_fig(v, "observed_phys_bytes", (double)c->observed_phys);
	ex_fig(v, "observed_phys_rate_bytes_per_s", c->observed_phys_rate_bps);
	if (c->inflation >= 0)
		ex_fig(v, "inflation", c->inflation);
	else
		ex_fig_null(v, "inflation");
	ex_evidence(v, "the tool's output");
	ex_evidence(v, c->write ? "guest_wr_bytes" : "guest_rd_bytes");
	ex_evidence(v, c->write ? "phys_wr_bytes" : "phys_rd_bytes");
	char file[1024], tool[64], who[160], b1[32], b2[32], b3[32], r1[32], r2[32];
	sanitize_text(c->fig.file, file, sizeof(file));
	sanitize_text(c->fig.tool, tool, sizeof(tool));
	ex_say(v, "%s (%s) says it %s %s", tool, file, c->write ? "wrote" : "read",
	       ex_bytes((double)c->bytes, b1, sizeof(b1)));
	if (c->seconds > 0)
		ex_say(v, " in %.2f s", c->seconds);
	if (c->rate_bps > 0)
		ex_say(v, ", %s", ex_rate(c->rate_bps, r1, sizeof(r1)));
	ex_say(v, ". dom0 saw %s %s %s through its disk and %s on a physical disk",
	       d ? ex_dom_label(d, who, sizeof(who)) : "the domain", c->write ? "write" : "read",
	       ex_bytes((double)c->observed_guest, b2, sizeof(b2)),
	       ex_bytes((double)c->observed_phys, b3, sizeof(b3)));
	if (c->observed_phys_rate_bps > 0)
		ex_say(v, " (%s, %s)", ex_rate(c->observed_phys_rate_bps, r2, sizeof(r2)),
		       c->write ? "counted until it was on disk" : "over the window");
	if (c->inflation > 1.2)
		ex_say(v, ": the tool's rate is %.1fx what the disks did.", c->inflation);
	else if (c->inflation > 0)
		ex_say(v, ": the tool's rate matches what the disks did (%.2fx).", c->inflation);
	else
		ex_say(v, ".");
	if (c->observed_guest && c->bytes > c->observed_guest * 11 / 10)
		ex_say(v, " The tool claims more bytes than reached the guest's disk: part of the "
		          "run is outside the window, or the guest's own cache kept it.");
}
