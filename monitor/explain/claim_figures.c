/* claim_figures.c - see claim_figures.h. */
#include "explain/claim_figures.h"

#include "explain/claims/claim_lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static void clear(const struct claim *c, struct claim_figures *out)
{
	snprintf(out->tool, sizeof(out->tool), "%s", claim_tool_name(c->tool));
	out->wr_bytes = out->rd_bytes = 0;
	out->wr_seconds = out->rd_seconds = out->wr_rate_bps = out->rd_rate_bps = 0;
	out->run[0] = '\0';
	out->direction_unknown = out->seconds_from_rate = false;
	out->file_bytes = 0;
}

void claim_run_to_figures(const struct claim *c, unsigned run, struct claim_figures *out)
{
	clear(c, out);
	if (run >= c->nruns)
		return;
	const struct claim_run *r = &c->runs[run];
	snprintf(out->run, sizeof(out->run), "%s", r->label);
	out->seconds_from_rate = r->seconds_from_rate;
	out->file_bytes = r->file_bytes;
	unsigned dir = r->direction;
	if (dir != CLAIM_DIR_READ && dir != CLAIM_DIR_WRITE) {
		out->direction_unknown = true;
		dir = CLAIM_DIR_READ | CLAIM_DIR_WRITE;
	}
	if (dir & CLAIM_DIR_WRITE) {
		out->wr_bytes = r->bytes;
		out->wr_seconds = known(r->seconds);
		out->wr_rate_bps = known(r->rate_bytes_per_s);
	}
	if (dir & CLAIM_DIR_READ) {
		out->rd_bytes = r->bytes;
		out->rd_seconds = known(r->seconds);
		out->rd_rate_bps = known(r->rate_bytes_per_s);
	}
}

void claim_to_figures(const struct claim *c, struct claim_figures *out)
{
	clear(c, out);
	switch (c->tool) {
	case CLAIM_TOOL_FIO:
		from_fio(&c->u.fio, out);
		out->file_bytes = c->nruns ? c->runs[0].file_bytes : 0; /* the same for each */
		return;
	case CLAIM_TOOL_DD:
	case CLAIM_TOOL_DD_BUSYBOX:
	case CLAIM_TOOL_DD_BSD:
		claim_run_to_figures(c, 0, out); /* its first run, direction as the tool says */
		out->run[0] = '\0';
		return;
	default: /* bonnie++, bonnie, iozone: the headline's direction carries its rate */
		break;
	}
	for (unsigned i = 0; i < c->nruns; i++) /* iozone -a: its largest file */
		out->file_bytes = c->runs[i].file_bytes > out->file_bytes ? c->runs[i].file_bytes
		                                                          : out->file_bytes;
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

/* FILE@DOMAIN[:ROW] -> file, domain and row ("" none). */
static void split_arg(const char *arg, char *file, size_t flen, char *dom, size_t dlen, char *row,
                      size_t rlen)
{
	struct stat st;
	const char *at = strrchr(arg, '@');
	dom[0] = row[0] = '\0';
	if (!at || !stat(arg, &st) || strchr(at, '/')) {
		snprintf(file, flen, "%s", arg);
		return;
	}
	snprintf(file, flen, "%.*s", (int)(at - arg), arg);
	const char *colon = strchr(at + 1, ':');
	if (!colon) {
		snprintf(dom, dlen, "%s", at + 1);
		return;
	}
	snprintf(dom, dlen, "%.*s", (int)(colon - at - 1), at + 1);
	snprintf(row, rlen, "%s", colon + 1);
}

int claim_arg_figures(const char *arg, struct claim_figures *out, size_t max, size_t *n,
                      struct xerr *err)
{
	struct claim_figures base = {0};
	char row[CLAIM_NAME_MAX];
	*n = 0;
	split_arg(arg, base.file, sizeof(base.file), base.domain, sizeof(base.domain), row,
	          sizeof(row));
	struct claim *c = malloc(sizeof(*c));
	if (!c) {
		xerr_set(err, XERR_NOMEM, "%s: out of memory", base.file);
		return -1;
	}
	/* the claim parsers (claims/) still say their line in a buffer */
	char why[sizeof(err->msg)] = "";
	struct claim_src src = {.name = base.file, .err = why, .errlen = sizeof(why)};
	int rc = claim_parse_file(base.file, c, why, sizeof(why));
	if (rc == 0 && !row[0] && base.domain[0] && claim_has_row(c, base.domain)) {
		snprintf(row, sizeof(row), "%s", base.domain); /* FILE@ROW */
		base.domain[0] = '\0';
	}
	if (rc == 0)
		rc = claim_pick_row(c, base.file, row, why, sizeof(why));
	if (rc == 0 && (c->nruns > max || c->runs_dropped)) {
		rc = claim_fail(&src, 0, "%u runs; at most %zu are set against a recording",
		                c->nruns + c->runs_dropped, max);
	}
	for (unsigned i = 0; rc == 0 && i < c->nruns; i++) {
		out[i] = base;
		claim_run_to_figures(c, i, &out[i]);
		(*n)++;
	}
	free(c);
	if (rc)
		xerr_set(err, XERR_INPUT, "%s", why);
	return rc;
}
