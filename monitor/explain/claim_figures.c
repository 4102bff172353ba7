/* claim_figures.c - see claim_figures.h. */
#include "explain/claim_figures.h"

#include <stdio.h>

static double known(double v)
{
	return v > 0 ? v : 0;
}

static void from_fio(const struct claim_fio *f, struct claim_figures *out)
{
	uint64_t wr_ms = 0, rd_ms = 0;
	double wr_bw = 0, rd_bw = 0;
	for (unsigned i = 0; i < f->njobs; i++) {
		const struct claim_fio_job *j = &f->jobs[i];
		if (j->write.present) {
			out->wr_bytes += j->write.io_bytes;
			wr_bw += (double)j->write.bw_bytes;
			wr_ms = j->write.runtime_ms > wr_ms ? j->write.runtime_ms : wr_ms;
		}
		if (j->read.present) {
			out->rd_bytes += j->read.io_bytes;
			rd_bw += (double)j->read.bw_bytes;
			rd_ms = j->read.runtime_ms > rd_ms ? j->read.runtime_ms : rd_ms;
		}
	}
	out->wr_seconds = (double)wr_ms / 1e3;
	out->rd_seconds = (double)rd_ms / 1e3;
	out->wr_rate_bps = wr_bw;
	out->rd_rate_bps = rd_bw;
}

void claim_to_figures(const struct claim *c, struct claim_figures *out)
{
	snprintf(out->tool, sizeof(out->tool), "%s", claim_tool_name(c->tool));
	out->wr_bytes = out->rd_bytes = 0;
	out->wr_seconds = out->rd_seconds = out->wr_rate_bps = out->rd_rate_bps = 0;
	switch (c->tool) {
	case CLAIM_TOOL_FIO:
		from_fio(&c->u.fio, out);
		return;
	case CLAIM_TOOL_DD:
	case CLAIM_TOOL_DD_BUSYBOX:
	case CLAIM_TOOL_DD_BSD:
		out->wr_bytes = c->bytes;
		out->wr_seconds = known(c->seconds);
		out->wr_rate_bps = known(c->rate_bytes_per_s);
		return;
	default: /* bonnie++, bonnie, iozone: the headline's direction carries its rate */
		break;
	}
	bool headline_write = (c->directions & CLAIM_DIR_WRITE) != 0;
	out->wr_bytes = c->written_bytes;
	out->rd_bytes = c->read_bytes;
	if (headline_write) {
		out->wr_seconds = known(c->seconds);
		out->wr_rate_bps = known(c->rate_bytes_per_s);
	} else {
		out->rd_seconds = known(c->seconds);
		out->rd_rate_bps = known(c->rate_bytes_per_s);
	}
}
