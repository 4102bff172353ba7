/* dm_keep.c - device models kept in the lookup maps past their topology. See dm_keep.h. */
#include "sources/dm_keep.h"

void dm_keep_begin(struct dm_keep *k)
{
	for (size_t i = 0; i < k->n; i++)
		k->v[i].seen = false;
}

bool dm_keep_see(struct dm_keep *k, uint32_t tgid, const struct xiotop_dm_owner *owner)
{
	size_t i = 0;
	while (i < k->n && k->v[i].tgid != tgid)
		i++;
	if (i == k->n) {
		if (k->n == XIOTOP_MAX_TGIDS)
			return false;
		k->n++;
	}
	/* a reused pid replaces the gone process: the map has one entry per tgid */
	k->v[i] = (struct dm_kept){.tgid = tgid, .owner = *owner, .seen = true};
	return true;
}

void dm_keep_end(struct dm_keep *k, int64_t now_ns)
{
	size_t kept = 0;
	k->n_dropped = 0;
	for (size_t i = 0; i < k->n; i++) {
		struct dm_kept *d = &k->v[i];
		if (!d->seen && !d->gone_since_ns)
			d->gone_since_ns = now_ns > 0 ? now_ns : 1;
		if (!d->seen && now_ns - d->gone_since_ns >= DM_KEEP_GONE_NS)
			k->dropped[k->n_dropped++] = d->tgid;
		else
			k->v[kept++] = *d;
	}
	k->n = kept;
}

uint64_t dm_keep_word(const struct dm_keep *k, uint32_t word)
{
	uint64_t bits = 0;
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].tgid >> 6 == word)
			bits |= 1ull << (k->v[i].tgid & 63);
	return bits;
}
