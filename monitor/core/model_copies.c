/* model_copies.c - a domain's mirror and parity copies per interval, with the array bytes
 * their members have not yet taken carried to the next interval; see model_compute_after()
 * in model.h.
 *
 * The tracer counts a write at the array before its members: the array's bio at its
 * block_bio_queue (block/blk-core.c: submit_bio_noacct_nocheck; submit_bio_noacct before
 * 6.3), then md's clones for the members, which raid1_write_request() (drivers/md/raid1.c)
 * puts on its plug or hands to raid1d, submitted when the plug is flushed, after the
 * write-intent bitmap is written: a write's copies may be counted in the interval after
 * its array bytes. A clamp per interval (members less arrays, at least 0) dropped the
 * first interval's negative and counted all of the next one's member bytes as copies:
 * 175.3 MiB of copies for md0's own 170.0 MiB over a guest's runs in a Xen dom0 (file
 * image on ext4 on md RAID1). Carried, the copies of a run of intervals are its members'
 * bytes less its arrays' (and less what was owed before it), each interval's >= 0: the
 * running difference's high-water mark.
 *
 * The other order (members counted in an interval before their array) comes only from
 * the tracer's counters being read one after the other (sources/tracer.c), not at one
 * instant: those copies are counted early, the array's bytes then owed and matched by the
 * next copies, never counted twice.
 */
#include <stdlib.h>

#include "core/model.h"

/* This interval's copies of members bytes at the members and arrays bytes at the arrays,
 * *owed the arrays' earlier bytes the members had not yet taken; *owed is then what they
 * still have not. */
static uint64_t copies_after(uint64_t *owed, uint64_t members, uint64_t arrays)
{
	uint64_t took = arrays + *owed;
	if (members >= took) {
		*owed = 0;
		return members - took;
	}
	*owed = took - members;
	return 0;
}

static int by_domid(const void *a, const void *b)
{
	uint32_t x = ((const struct model_owed *)a)->domid;
	uint32_t y = ((const struct model_owed *)b)->domid;
	return x < y ? -1 : x > y;
}

static struct model_owed owed_before(const struct model_carry *carry, uint32_t domid)
{
	struct model_owed key = {.domid = domid};
	const struct model_owed *o =
	    carry && carry->n ? bsearch(&key, carry->owed, carry->n, sizeof(key), by_domid) : NULL;
	return o ? *o : key;
}

int model_copies(struct model_interval *m, struct model_carry *carry)
{
	struct model_owed *after = NULL;
	size_t n_after = 0;
	if (carry && m->n_domains && !(after = malloc(m->n_domains * sizeof(*after))))
		return -1;
	for (size_t i = 0; i < m->n_domains; i++) {
		struct model_io_sums *io = &m->domains[i].io;
		struct model_owed o = owed_before(carry, m->domains[i].domid);
		io->copy_rd_bytes =
		    copies_after(&o.rd_bytes, io->member_rd_bytes, io->array_rd_bytes);
		io->copy_wr_bytes =
		    copies_after(&o.wr_bytes, io->member_wr_bytes, io->array_wr_bytes);
		if (after && (o.rd_bytes || o.wr_bytes))
			after[n_after++] = o;
	}
	if (!carry)
		return 0;
	if (!n_after) { /* nothing owed: no list kept */
		free(after);
		after = NULL;
	}
	if (n_after > 1)
		qsort(after, n_after, sizeof(*after), by_domid);
	free(carry->owed);
	carry->owed = after;
	carry->n = n_after;
	return 0;
}

void model_carry_free(struct model_carry *carry)
{
	free(carry->owed);
	carry->owed = NULL;
	carry->n = 0;
}
