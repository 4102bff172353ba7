/* xen_double.h - a test double of struct xen_api: xenstore is a canned tree (a parsed
 * `xenstore-ls -f` text, so tests read like dumps), libxenstat a small table of domains.
 * Each failure the real libraries can have is a switch in `xd`. Included by the tests
 * that need it (one translation unit each); the library handle types are defined here,
 * which is allowed because the real libraries are never linked into the tests. */
#ifndef XIOTOP_TEST_XEN_DOUBLE_H
#define XIOTOP_TEST_XEN_DOUBLE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/topology/topology.h"
#include "sources/xen/xen_api.h"

#define XD_MAX_DOMS 8

struct xs_handle {
	int unused;
};
struct xenstat_handle {
	int unused;
};
struct xenstat_node {
	int unused;
};
struct xenstat_domain {
	unsigned int domid;
	unsigned long long cpu_ns, mem;
};

static struct xen_double {
	struct xs_store tree; /* the xenstore the double serves */
	/* failures, each where the real library can fail */
	bool fail_stat_init;
	const char *stat_init_err; /* what libxenctrl "printed" */
	bool fail_get_node;
	bool fail_xs_open;
	bool fail_list_root; /* xs_directory("/local/domain") */
	bool fail_reads;     /* every xs_read and xs_directory (xenstored went away) */
	bool fail_watch;
	const char *version;
	/* watch events */
	int watch_fd;       /* what xs_fileno gives (-1: none) */
	int pending_events; /* xs_check_watch hands out this many */
	int check_errno;    /* errno once they are drained (0: EAGAIN) */
	/* events on these paths come first (then pending_events on /local/domain) */
	const char *event_paths[16];
	int n_event_paths;
	/* xs_get_permissions: each node's owner; a node not listed is owned by the domain of
	 * its /local/domain/<domid>/ path (what xenstored does when the domain creates it) */
	struct {
		const char *path;
		unsigned int owner;
	} owners[8];
	int n_owners;
	bool fail_owner;
	/* libxenstat */
	struct xenstat_domain doms[XD_MAX_DOMS];
	unsigned int n_doms;
	unsigned int last_flags; /* of the last xenstat_get_node */
	/* bookkeeping */
	int xs_handles, stat_handles, nodes; /* open now: all 0 after close */
	int reads, check_calls;
	struct xs_handle xs;
	struct xenstat_handle stat;
	struct xenstat_node node;
} xd;

/* Replace the tree with a parsed dump text. */
static void xd_set_tree(const char *dump)
{
	xs_free(&xd.tree);
	FILE *in = fmemopen((void *)dump, strlen(dump), "r");
	struct xerr err = {0};
	if (!in || xs_parse_stream(in, NULL, &xd.tree, &err) != 0) {
		fprintf(stderr, "xen_double: bad dump: %s\n", err.msg);
		abort();
	}
	fclose(in);
}

static void xd_reset(void)
{
	xs_free(&xd.tree);
	memset(&xd, 0, sizeof(xd));
	xd.watch_fd = -1;
	xd.version = "4.17.3";
}

static struct xs_handle *xd_xs_open(void)
{
	if (xd.fail_xs_open) {
		errno = ENOENT;
		return NULL;
	}
	xd.xs_handles++;
	return &xd.xs;
}

static void xd_xs_close(struct xs_handle *h)
{
	if (h == &xd.xs)
		xd.xs_handles--;
}

/* The distinct next components below `path`, in one malloc'd block as libxenstore does. */
static char **xd_xs_directory(struct xs_handle *h, const char *path, unsigned int *num)
{
	(void)h;
	size_t plen = strlen(path);
	if (xd.fail_reads || (xd.fail_list_root && !strcmp(path, "/local/domain"))) {
		errno = xd.fail_reads ? EPIPE : EACCES;
		return NULL;
	}
	const char *names[256];
	size_t lens[256], n = 0, bytes = 0;
	for (size_t i = 0; i < xd.tree.n && n < 256; i++) {
		const char *p = xd.tree.entries[i].path;
		if (strncmp(p, path, plen) != 0 || p[plen] != '/')
			continue;
		const char *c = p + plen + 1;
		size_t len = strcspn(c, "/");
		bool repeat = false;
		for (size_t k = 0; k < n && !repeat; k++)
			repeat = lens[k] == len && !strncmp(names[k], c, len);
		if (repeat)
			continue;
		names[n] = c;
		lens[n++] = len;
		bytes += len + 1;
	}
	if (!n && !xs_find(&xd.tree, path)) {
		errno = ENOENT;
		return NULL;
	}
	char **out = malloc(n * sizeof(char *) + bytes + 1);
	char *s = (char *)(out + n);
	for (size_t i = 0; i < n; i++) {
		memcpy(s, names[i], lens[i]);
		s[lens[i]] = '\0';
		out[i] = s;
		s += lens[i] + 1;
	}
	*num = (unsigned int)n;
	return out;
}

static void *xd_xs_read(struct xs_handle *h, const char *path, unsigned int *len)
{
	(void)h;
	xd.reads++;
	const struct xs_entry *e = xd.fail_reads ? NULL : xs_find(&xd.tree, path);
	if (!e) {
		errno = xd.fail_reads ? EPIPE : ENOENT;
		return NULL;
	}
	char *v = malloc(e->value_len + 1);
	memcpy(v, e->value, e->value_len + 1);
	*len = (unsigned int)e->value_len;
	return v;
}

static bool xd_xs_watch(struct xs_handle *h, const char *path, const char *token)
{
	(void)h;
	(void)path;
	(void)token;
	if (xd.fail_watch) {
		errno = ENOSPC;
		return false;
	}
	return true;
}

static int xd_xs_fileno(struct xs_handle *h)
{
	(void)h;
	return xd.watch_fd;
}

/* An event as libxenstore hands it: path and token in one malloc'd block. */
static char **xd_event(const char *path)
{
	size_t plen = strlen(path) + 1;
	char **ev = malloc(2 * sizeof(char *) + plen + sizeof("xiotop"));
	ev[0] = (char *)(ev + 2);
	memcpy(ev[0], path, plen);
	ev[1] = ev[0] + plen;
	memcpy(ev[1], "xiotop", sizeof("xiotop"));
	return ev;
}

static bool xd_xs_owner(struct xs_handle *h, const char *path, unsigned int *owner)
{
	(void)h;
	if (xd.fail_owner || !xs_find(&xd.tree, path)) {
		errno = xd.fail_owner ? EPIPE : ENOENT;
		return false;
	}
	for (int i = 0; i < xd.n_owners; i++)
		if (!strcmp(xd.owners[i].path, path)) {
			*owner = xd.owners[i].owner;
			return true;
		}
	*owner = (unsigned int)strtoul(path + strlen("/local/domain/"), NULL, 10);
	return true;
}

static char **xd_xs_check_watch(struct xs_handle *h)
{
	(void)h;
	xd.check_calls++;
	if (xd.n_event_paths > 0) {
		char **ev = xd_event(xd.event_paths[0]);
		memmove(xd.event_paths, xd.event_paths + 1,
		        (size_t)(--xd.n_event_paths) * sizeof(xd.event_paths[0]));
		return ev;
	}
	if (xd.pending_events <= 0) {
		errno = xd.check_errno ? xd.check_errno : EAGAIN;
		return NULL;
	}
	xd.pending_events--;
	char **ev = malloc(2 * sizeof(char *) + sizeof("/local/domain\0xiotop"));
	memcpy(ev + 2, "/local/domain\0xiotop", sizeof("/local/domain\0xiotop"));
	ev[0] = (char *)(ev + 2);
	ev[1] = ev[0] + sizeof("/local/domain");
	return ev;
}

static struct xenstat_handle *xd_stat_init(struct xerr *err)
{
	if (xd.fail_stat_init) {
		xerr_set(err, XERR_PREREQ, "%s", xd.stat_init_err ? xd.stat_init_err : "");
		errno = ENOENT;
		return NULL;
	}
	xd.stat_handles++;
	return &xd.stat;
}

static void xd_stat_uninit(struct xenstat_handle *h)
{
	if (h == &xd.stat)
		xd.stat_handles--;
}

static struct xenstat_node *xd_get_node(struct xenstat_handle *h, unsigned int flags)
{
	(void)h;
	xd.last_flags = flags;
	if (xd.fail_get_node) {
		errno = EPERM;
		return NULL;
	}
	xd.nodes++;
	return &xd.node;
}

static void xd_free_node(struct xenstat_node *n)
{
	if (n == &xd.node)
		xd.nodes--;
}

static const char *xd_version(struct xenstat_node *n)
{
	(void)n;
	return xd.version;
}

static unsigned int xd_num_domains(struct xenstat_node *n)
{
	(void)n;
	return xd.n_doms;
}

static struct xenstat_domain *xd_domain_by_index(struct xenstat_node *n, unsigned int i)
{
	(void)n;
	return i < xd.n_doms ? &xd.doms[i] : NULL;
}

static unsigned int xd_domain_id(struct xenstat_domain *d)
{
	return d->domid;
}

static unsigned long long xd_domain_cpu_ns(struct xenstat_domain *d)
{
	return d->cpu_ns;
}

static unsigned long long xd_domain_cur_mem(struct xenstat_domain *d)
{
	return d->mem;
}

static const struct xen_api xd_api = {
    .xs_open = xd_xs_open,
    .xs_close = xd_xs_close,
    .xs_directory = xd_xs_directory,
    .xs_read = xd_xs_read,
    .xs_watch = xd_xs_watch,
    .xs_fileno = xd_xs_fileno,
    .xs_check_watch = xd_xs_check_watch,
    .xs_owner = xd_xs_owner,
    .xenstat_init = xd_stat_init,
    .xenstat_uninit = xd_stat_uninit,
    .xenstat_get_node = xd_get_node,
    .xenstat_free_node = xd_free_node,
    .xenstat_node_xen_version = xd_version,
    .xenstat_node_num_domains = xd_num_domains,
    .xenstat_node_domain_by_index = xd_domain_by_index,
    .xenstat_domain_id = xd_domain_id,
    .xenstat_domain_cpu_ns = xd_domain_cpu_ns,
    .xenstat_domain_cur_mem = xd_domain_cur_mem,
};

#endif
