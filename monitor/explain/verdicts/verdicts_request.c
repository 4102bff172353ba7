/* verdicts_request.c - request_size: the average request as the guest issued it (its
 * layer: blkback's or the device model's requests, xentop's VBD_RD/WR on an import)
 * against what its leaf disks took: on a recording, the requests each leaf device itself
 * completed over the window and its drain (its /proc/diskstats: after the block layer
 * merged the bios), where the leaf served this domain alone (diskstats count per device,
 * not per domain: a leaf shared with other domains or dom0 gives no figure); on an import,
 * iostat's leaf devices' r/s and w/s in the window, host-wide. A disk pays a command (and
 * on a spinning disk a seek) per request: small requests merged on the way (dom0's page
 * cache writing back a file in large runs, the block layer's plugging and I/O scheduler)
 * go much faster than the same requests taken as issued, which is the first suspect when a
 * file-backed guest beats one on an LV with bs=4k. See verdicts.h. */
#include <stdio.h>

#include "explain/verdicts/verdicts.h"

/* The disks' requests at least twice the guest's: merged on the way, not jitter (a
 * request split at a boundary, a metadata write) */
#define EX_REQ_MERGE_RATIO 2.0
/* Under 64 KiB a request's fixed cost (a command, a seek) outweighs its transfer on a
 * disk: requests this small taken as issued are what a merging path wins against */
#define EX_REQ_SMALL_BYTES (64.0 * 1024)

/* The domain's share of a leaf's own bytes for its requests to be the domain's: dom0's
 * file system journal and the like may add a little, another domain's run may not */
#define EX_LEAF_OWN_PART 0.9

bool ex_leaf_requests(const struct ex_domain *d, bool wr, double *bytes, double *ios, char *why,
                      size_t whylen)
{
	*bytes = *ios = 0;
	for (size_t i = 0; i < d->n_layers; i++) {
		const struct ex_layer *l = &d->layers[i];
		uint64_t own = wr ? l->wr_bytes : l->rd_bytes;
		if (!l->is_leaf || l->is_file || !own)
			continue;
		uint64_t dev = wr ? l->dev_wr_bytes : l->dev_rd_bytes;
		if (!l->has_devstats || (double)own < EX_LEAF_OWN_PART * (double)dev) {
			if (why && !l->has_devstats)
				snprintf(why, whylen, "%s keeps no diskstats of its requests",
				         l->name);
			else if (why)
				snprintf(
				    why, whylen,
				    "%s also served other domains or dom0 (%.1f MiB of its "
				    "%.1f MiB were this domain's): diskstats count requests per "
				    "device, not per domain",
				    l->name, (double)own / EX_MIB, (double)dev / EX_MIB);
			*bytes = *ios = 0;
			return false;
		}
		*bytes += (double)dev;
		*ios += (double)(wr ? l->dev_wr_ios : l->dev_rd_ios);
	}
	return *ios > 0;
}

void verdict_request_size(struct explain *ex, const struct ex_domain *d)
{
	bool wr = d->io.guest_wr_bytes >= d->io.guest_rd_bytes, host = ex->host.absent != 0;
	double g_bytes = (double)(wr ? d->io.guest_wr_bytes : d->io.guest_rd_bytes);
	double g_ios = (double)(wr ? d->io.guest_wr_ios : d->io.guest_rd_ios);
	double k_bytes = (double)(wr ? ex->disk_wr : ex->disk_rd);
	double k_ios = (double)(wr ? ex->disk_wr_ios : ex->disk_rd_ios);
	char why[200] = "";
	if (!host && g_bytes >= EX_ACTIVE_BYTES && g_ios > 0 &&
	    !ex_leaf_requests(d, wr, &k_bytes, &k_ios, why, sizeof(why)) && why[0]) {
		ex_verdict_not_given(ex, EXV_REQUEST_SIZE, "domain %u: %s", d->domid, why);
		return;
	}
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
	ex_evidence(v, host ? "iostat r/s w/s, leaf devices"
	                    : "leaf devices' diskstats requests, window and drain");
}
