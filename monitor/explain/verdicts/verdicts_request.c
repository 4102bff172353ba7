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
#include <string.h>

#include "explain/verdicts/verdicts.h"

/* The disks' requests at least twice the guest's: merged on the way, not jitter (a
 * request split at a boundary, a metadata write) */
#define EX_REQ_MERGE_RATIO 2.0
/* Under 64 KiB a request's fixed cost (a command, a seek) outweighs its transfer on a
 * disk: requests this small taken as issued are what a merging path wins against */
#define EX_REQ_SMALL_BYTES (64.0 * 1024)

static void say_merged(struct ex_verdict *v, const struct explain *ex, const struct ex_domain *d)
{
	if (ex->host.absent) {
		ex_say(v,
		       "Something on the way merged them: dom0's page cache, where the disk is a "
		       "file without direct I/O (these logs do not show this domain's path), or "
		       "the block layer's plugging. ");
		return;
	}
	const char *kind = ex_path_name(ex_path_of(d));
	if (d->dirtied > 0)
		ex_say(v,
		       "dom0's page cache merged them: the guest's writes were dirtied in dom0 "
		       "and written back in large runs (%s). ",
		       kind);
	else
		ex_say(v,
		       "The block layer merged them on the way (%s: plugging, the I/O "
		       "scheduler). ",
		       kind);
}

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
		char who[160];
		ex_verdict_not_given(ex, EXV_REQUEST_SIZE, "%s: %s",
		                     ex_dom_label(d, who, sizeof(who)), why);
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
	ex_fig(v, "guest_bytes", g_bytes);
	ex_fig(v, "guest_requests", g_ios);
	ex_fig(v, "guest_avg_request_bytes", g_avg);
	ex_fig(v, "disk_bytes", k_bytes);
	ex_fig(v, "disk_requests", k_ios);
	ex_fig(v, "disk_avg_request_bytes", k_avg);
	ex_fig(v, "merge_ratio", ratio);
	ex_fig_str(v, "direction", wr ? "write" : "read");
	ex_evidence(v, host ? "xentop VBD_RD/VBD_WR" : "guest layer requests");
	ex_evidence(v, host ? "iostat r/s w/s, leaf devices"
	                    : "leaf devices' diskstats requests, window and drain");
	char who[160], b1[32], b2[32];
	ex_say(v, "%s issued its %s as %s requests on average (%.0f of them), and ",
	       ex_dom_label(d, who, sizeof(who)), wr ? "writes" : "reads",
	       ex_bytes(g_avg, b1, sizeof(b1)), g_ios);
	if (host)
		ex_say(v,
		       "the disks took %s per request (%.0f; iostat, every domain's and dom0's "
		       "together). ",
		       ex_bytes(k_avg, b2, sizeof(b2)), k_ios);
	else
		ex_say(v,
		       "its disk took %s per request (%.0f, the drain's included; the disk's own "
		       "count, after the block layer merged them). ",
		       ex_bytes(k_avg, b2, sizeof(b2)), k_ios);
	if (merged) {
		ex_say(v, "%.1fx fewer, larger requests than the guest issued. ", ratio);
		say_merged(v, ex, d);
		ex_say(v, "A disk pays a command, and a spinning one a seek, per request: merged "
		          "small requests go much faster than the same requests taken as issued. ");
	} else {
		ex_say(v, "The disks took them about as issued, small: each costs a command, and "
		          "on a spinning disk a seek. ");
	}
	ex_say(v, "With a small block size (dd bs=4k) a path through dom0's page cache (a file: "
	          "disk without direct I/O) merges what phy: (an LV) takes as issued: the first "
	          "suspect when a file beats an LV; time both until the data is on disk.");
}
