/* rec_registry.h - how `xiotop mark` without -o finds the running recorder.
 *
 * Contract: a recorder publishes "PID ABSOLUTE-PATH" in RUNDIR/recorder (RUNDIR is
 * $XIOTOP_RUNTIME_DIR, else /run/xiotop), replaced atomically, and withdraws it on exit
 * only if it is still its own (the newest recorder wins). A recorder killed with -9
 * leaves it behind: rec_registry_find() then says the recorder is gone. Publishing is
 * best effort: a recorder that cannot publish still records (mark -o FILE works).
 */
#ifndef XIOTOP_REC_REGISTRY_H
#define XIOTOP_REC_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

/* RUNDIR (the recorder gives it to the user it drops to: it publishes there again at
 * every new file). */
const char *rec_registry_dir(void);
/* 0, or -1 with a reason in why (the recording goes on). */
int rec_registry_publish(const char *recording, char *why, size_t whylen);
void rec_registry_withdraw(void);
/* The running recorder's file into path. 0, or -1 with err (REC_ERR_IO). */
int rec_registry_find(char *path, size_t len, struct xerr *err);
/* A mark into the running recorder's file (the lookup `xiotop mark` makes without -o), for
 * the console's m key. 1 stored (path names the file); 0 no recorder is running (err says
 * why); -1 the file refused it (path names it, err says why). */
int rec_registry_mark(const char *label, int64_t realtime_ns, const char *origin, char *path,
                      size_t len, struct xerr *err);

#endif
