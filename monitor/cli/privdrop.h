/* privdrop.h - `record` and `serve` --user NAME: once the tracer is loaded and attached,
 * run on as an ordinary user with no capability.
 *
 * Contract: priv_lookup() resolves the user before anything is loaded (an unknown user
 * is one line, exit 2, without root). priv_drop(), called after the BPF programs are
 * attached, first gives the paths it is handed (the recording directory or file, the
 * runtime directory) to that user, then sets the user's groups, gid and uid (real,
 * effective and saved: no way back), which clears every capability, sets no_new_privs,
 * checks that no capability is left and that uid 0 cannot be regained, and says so in
 * one line on stderr. From then on the tracer's maps are read through the descriptors it
 * holds and /proc and /sys through their world-readable files. A path that is a symlink
 * is not given away (it could point anywhere).
 */
#ifndef XIOTOP_PRIVDROP_H
#define XIOTOP_PRIVDROP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct priv_user {
	const char *name; /* NULL: no drop asked */
	uid_t uid;
	gid_t gid;
};

/* name (NULL: none) into u. 0, or 2 after one line naming the user ("xiotop CMD: ..."). */
int priv_lookup(const char *cmd, const char *name, struct priv_user *u);
/* The drop, with the n paths given to the user first. 0 done (or nothing asked), 1 after
 * one line saying what failed (the caller stops: it would run with more than asked). */
int priv_drop(const char *cmd, const struct priv_user *u, const char *const *paths, size_t n);
/* The capability sets of this thread are all empty. */
bool priv_no_capabilities(void);

#endif
