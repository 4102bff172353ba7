/* dev_table.c - the device table, built in user memory (see dev_table.h). */
#include "sources/dev_table.h"

#include <string.h>

void dev_table_clear(struct xiotop_dev_slot *table)
{
	memset(table, 0, XIOTOP_DEV_SLOTS * sizeof(*table));
}

static struct xiotop_dev_slot *probe(struct xiotop_dev_slot *table, unsigned int dev)
{
	unsigned int home = xiotop_dev_home(dev);
	for (unsigned int k = 0; k < XIOTOP_DEV_PROBES; k++) {
		struct xiotop_dev_slot *s = &table[(home + k) & (XIOTOP_DEV_SLOTS - 1)];
		if (s->dev == dev || !s->dev)
			return s;
	}
	return NULL;
}

enum dev_table_result dev_table_add(struct xiotop_dev_slot *table, unsigned int dev,
                                    unsigned int domid, unsigned int flags,
                                    unsigned int *prev_domid)
{
	*prev_domid = XIOTOP_DOM_NONE;
	struct xiotop_dev_slot *s = dev ? probe(table, dev) : NULL;
	if (!s)
		return DEV_TABLE_OVERFLOW;
	if (!s->dev) {
		s->dev = dev;
		s->owner.domid = domid;
		s->owner.flags = flags;
		return DEV_TABLE_ADDED;
	}
	*prev_domid = s->owner.domid;
	s->owner.flags |= flags;
	if (s->owner.domid == XIOTOP_DOM_NONE)
		s->owner.domid = domid;
	else if (domid != XIOTOP_DOM_NONE && domid != s->owner.domid)
		return DEV_TABLE_CLAIMED;
	return DEV_TABLE_ADDED;
}

const struct xiotop_dev_owner *dev_table_find(const struct xiotop_dev_slot *table, unsigned int dev)
{
	struct xiotop_dev_slot *s = dev ? probe((struct xiotop_dev_slot *)table, dev) : NULL;
	return s && s->dev == dev ? &s->owner : NULL;
}
