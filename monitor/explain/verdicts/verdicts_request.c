/* verdicts_request.c - request_size: the average request as the guest issued it (its
 * layer: blkback's or the device model's requests, xentop's VBD_RD/WR on an import)
 * against what its leaf disks took: on a recording, the bios dom0 submitted to the
 * domain's leaf devices over the window and its drain (the writeback comes after the
 * window); on an import, iostat's leaf devices' r/s and w/s in the window, host-wide.
 * A disk pays a command (and on a spinning disk a seek) per request: small requests
 * merged on the way (dom0's page cache writing back a file in large runs, the block
 * layer's plugging) go much faster than the same requests taken as issued, which is the
 * first suspect when a file-backed guest beats one on an LV with bs=4k. See verdicts.h. */
#include "explain/verdicts/verdicts.h"

/* The disks' requests at least twice the guest's: merged on the way, not jitter (a
 * request split at a boundary, a metadata write) */
#define EX_REQ_MERGE_RATIO 2.0
/* Under 64 KiB a request's fixed cost (a command, a seek) outweighs its transfer on a
 * disk: requests this small taken as issued are what a merging path wins against */
#define EX_REQ_SMALL_BYTES (64.0 * 1024)

void ex_leaf_requests(const struct ex_domain *d, bool wr, double *bytes, double *ios)
{
	*bytes = *ios = 0;
	for (size_t i = 0; i < d->n_layers; i++) {
		const struct ex_layer *l = &d->layers[i];
		if (!l->is_leaf || l->is_file)
			continue;
		*bytes += (double)(wr ? l->wr_bytes : l->rd_bytes);
		*ios += (double)(wr ? l->wr_ios : l->rd_ios);
	}
}

void verdict_request_size(struct explain *ex, const struct ex_domain *d)
{
	bool wr = d->io.guest_wr_bytes >= d->io.guest_rd_bytes, host = ex->host.absent != 0;
	double g_bytes = (double)(wr ? d->io.guest_wr_bytes : d->io.guest_rd_bytes);
	double g_ios = (double)(wr ? d->io.guest_wr_ios : d->io.guest_rd_ios);
	double k_bytes = (double)(wr ? ex->disk_wr : ex->disk_rd);
	double k_ios = (double)(wr ? ex->disk_wr_ios : ex->disk_rd_ios);
	if (!host)
		ex_leaf_requests(d, wr, &k_bytes, &k_ios);
	if (g_bytes < EX_ACTIVE_BYTES || g_ios <= 0 || k_bytes <= 0 || k_ios <= 0)
		return; /* a count missing is no figure: nothing to set against */
	double g_avg = g_bytes / g_ios, k_avg = k_bytes / k_ios, ratio = k_avg / g_avg;
	bool merged = ratio >= EX_REQ_MERGE_RATIO;
	if (!merged && g_avg >= EX_REQ_SMALL_BYTES)
		return;
	struct ex_verdict *v = ex_verdict_new(ex, EXV_REQUEST_SIZE, d->domid);
	if (!v)
		return;
	/* a mechanism, not a discrepancy between two counts: like path, it is weighed in a
	 * comparison (explain A B), not ranked against the window's discrepancies */
	v->share = 0;
	if (merged)
		v->reasons |= EXR_REQ_MERGED;
	ex_fig(v, EXK_GUEST_BYTES, g_bytes);
	ex_fig(v, EXK_GUEST_REQUESTS, g_ios);
	ex_fig(v, EXK_GUEST_AVG_REQUEST, g_avg);
	ex_fig(v, EXK_DISK_BYTES, k_bytes);
	ex_fig(v, EXK_DISK_REQUESTS, k_ios);
	ex_fig(v, EXK_DISK_AVG_REQUEST, k_avg);
	ex_fig(v, EXK_MERGE_RATIO, ratio);
	ex_fig_str(v, EXK_DIRECTION, wr ? "write" : "read");
	ex_evidence(v, host ? "xentop VBD_RD/VBD_WR" : "guest layer requests");
	ex_evidence(v, host ? "iostat r/s w/s, leaf devices" : "leaf layer bios, window and drain");
}
