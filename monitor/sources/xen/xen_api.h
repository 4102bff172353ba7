/* xen_api.h - the libxenstore and libxenstat calls xiotop makes, as a table of function
 * pointers, so that tests can put a double in place of the libraries.
 *
 * Contract: every entry is one library call with the library's meaning, read-only (no
 * xs_write, no xs_rm, no domain control). Strings and arrays returned by xs_directory,
 * xs_read and xs_check_watch are malloc'd and freed by the caller with free(), as with
 * libxenstore; a NULL return sets errno. xs_owner is xs_get_permissions reduced to what
 * xiotop asks of it: the node's owner (the first permission entry's domid; xenstored makes
 * an unprivileged domain the owner of each node it creates). Handles are the libraries' own opaque
 * types. The one addition is xenstat_init's err (XERR_PREREQ): libxenctrl writes its reasons for
 * failing to stderr, and xiotop promises one line about its source, so the real table catches that
 * text and hands it back instead. xen_api_real() is the real table (NULL when xiotop was built
 * without the libraries); it is linked into the executable only.
 */
#ifndef XIOTOP_XEN_API_H
#define XIOTOP_XEN_API_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

struct xs_handle;
struct xenstat_handle;
struct xenstat_node;
struct xenstat_domain;

/* xenstat_get_node() flags, as xenstat.h numbers them (checked in xen_api_real.c). Not
 * XENSTAT_VBD: its qdisk half asks QEMU with a 10 ms wait (sources/xen/qdisk_stats.h). */
#define XEN_API_STAT_XEN_VERSION 0x4

struct xen_api {
	/* libxenstore: a read-only connection (XS_OPEN_READONLY) */
	struct xs_handle *(*xs_open)(void);
	void (*xs_close)(struct xs_handle *h);
	char **(*xs_directory)(struct xs_handle *h, const char *path, unsigned int *num);
	void *(*xs_read)(struct xs_handle *h, const char *path, unsigned int *len);
	bool (*xs_watch)(struct xs_handle *h, const char *path, const char *token);
	int (*xs_fileno)(struct xs_handle *h);
	char **(*xs_check_watch)(struct xs_handle *h);
	/* xs_get_permissions: true with *owner set, false (errno) when the node is absent */
	bool (*xs_owner)(struct xs_handle *h, const char *path, unsigned int *owner);

	/* libxenstat */
	struct xenstat_handle *(*xenstat_init)(struct xerr *err);
	void (*xenstat_uninit)(struct xenstat_handle *h);
	struct xenstat_node *(*xenstat_get_node)(struct xenstat_handle *h, unsigned int flags);
	void (*xenstat_free_node)(struct xenstat_node *n);
	const char *(*xenstat_node_xen_version)(struct xenstat_node *n);
	unsigned int (*xenstat_node_num_domains)(struct xenstat_node *n);
	struct xenstat_domain *(*xenstat_node_domain_by_index)(struct xenstat_node *n,
	                                                       unsigned int index);
	unsigned int (*xenstat_domain_id)(struct xenstat_domain *d);
	unsigned long long (*xenstat_domain_cpu_ns)(struct xenstat_domain *d);
	unsigned long long (*xenstat_domain_cur_mem)(struct xenstat_domain *d); /* bytes */
};

/* The libraries themselves; NULL if built without them. */
const struct xen_api *xen_api_real(void);

#endif
