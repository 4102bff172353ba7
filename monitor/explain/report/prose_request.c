/* prose_request.c - the words of request_size (verdicts/verdicts_request.c): the guest's
 * requests against what its disks took, merged on the way or taken as issued. */
#include <string.h>

#include "explain/report/prose.h"

static void say_merged(struct prose *p, const struct explain *ex, const struct ex_domain *d)
{
	if (ex->host.absent) {
		say(p, "Something on the way merged them: dom0's page cache, where the disk is a "
		       "file without direct I/O (these logs do not show this domain's path), or "
		       "the block layer's plugging. ");
		return;
	}
	const char *kind = ex_path_name(ex_path_of(d));
	if (d->dirtied > 0)
		say(p,
		    "dom0's page cache merged them: the guest's writes were dirtied in dom0 "
		    "and written back in large runs (%s). ",
		    kind);
	else
		say(p,
		    "The block layer merged them on the way (%s: plugging, the I/O "
		    "scheduler). ",
		    kind);
}

void prose_request_size(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                        const struct ex_domain *d)
{
	char who[160], b1[32], b2[32];
	bool wr = !strcmp(fig_str(v, EXK_DIRECTION), "write");
	say(p, "%s issued its %s as %s requests on average (%.0f of them), and ",
	    ex_dom_label(d, who, sizeof(who)), wr ? "writes" : "reads",
	    ex_bytes(fig(v, EXK_GUEST_AVG_REQUEST), b1, sizeof(b1)), fig(v, EXK_GUEST_REQUESTS));
	if (ex->host.absent)
		say(p,
		    "the disks took %s per request (%.0f; iostat, every domain's and dom0's "
		    "together). ",
		    ex_bytes(fig(v, EXK_DISK_AVG_REQUEST), b2, sizeof(b2)),
		    fig(v, EXK_DISK_REQUESTS));
	else
		say(p,
		    "its disk took %s per request (%.0f, the drain's included; the disk's own "
		    "count, after the block layer merged them). ",
		    ex_bytes(fig(v, EXK_DISK_AVG_REQUEST), b2, sizeof(b2)),
		    fig(v, EXK_DISK_REQUESTS));
	if (v->reasons & EXR_REQ_MERGED) {
		say(p, "%.1fx fewer, larger requests than the guest issued. ",
		    fig(v, EXK_MERGE_RATIO));
		say_merged(p, ex, d);
		say(p, "A disk pays a command, and a spinning one a seek, per request: merged "
		       "small requests go much faster than the same requests taken as issued. ");
	} else {
		say(p, "The disks took them about as issued, small: each costs a command, and "
		       "on a spinning disk a seek. ");
	}
	say(p, "With a small block size (dd bs=4k) a path through dom0's page cache (a file: "
	       "disk without direct I/O) merges what phy: (an LV) takes as issued: the first "
	       "suspect when a file beats an LV; time both until the data is on disk.");
}
