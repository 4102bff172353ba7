/* dev_table.h - the device table the BPF programs look devices up in (bpf/xiotop.h
 * lays it out): built here in user memory, then published whole by the tracer.
 *
 * Contract: a device is placed in the first empty slot within XIOTOP_DEV_PROBES of its
 * home slot, or reported as overflow (the caller puts it in the dev_dom hash, which the
 * programs ask after a full probe run). Adding a device that is present ORs the flags;
 * a real domain replaces XIOTOP_DOM_NONE (a device that so far only held image files).
 * No allocation; the table is XIOTOP_DEV_SLOTS slots the caller owns.
 */
#ifndef XIOTOP_SOURCES_DEV_TABLE_H
#define XIOTOP_SOURCES_DEV_TABLE_H

#include "bpf/xiotop.h"

enum dev_table_result {
	DEV_TABLE_ADDED,    /* placed, or merged into its own entry */
	DEV_TABLE_CLAIMED,  /* merged, but the entry already named another domain (kept) */
	DEV_TABLE_OVERFLOW, /* no slot within the probes: the caller must keep it elsewhere */
};

void dev_table_clear(struct xiotop_dev_slot *table);

/* Adds or merges dev; *prev_domid gets the domain it named before (XIOTOP_DOM_NONE
 * if new). */
enum dev_table_result dev_table_add(struct xiotop_dev_slot *table, unsigned int dev,
                                    unsigned int domid, unsigned int flags,
                                    unsigned int *prev_domid);

/* The entry for dev, or NULL: the same probe run as the BPF programs'. */
const struct xiotop_dev_owner *dev_table_find(const struct xiotop_dev_slot *table,
                                              unsigned int dev);

#endif
