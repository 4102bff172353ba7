/* xenlive.c - read the live Xen topology and figures through struct xen_api; see
 * xenlive.h. Everything here is a read: xiotop never writes to xenstore or the
 * hypervisor. */
#include "sources/xen/xenlive.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/sanitize.h"
#include "sources/xen/qdisk_stats.h"

#define WATCH_PATH  "/local/domain"
#define WATCH_TOKEN "xiotop"
#define EVENTS_MAX  4096 /* watch events drained per check: a storm is one change */
#define NAME_MAX_   64   /* longest directory entry taken (domids, devids, keys) */

struct xenlive {
	const struct xen_api *api;
	struct xs_handle *xs;
	struct xenstat_handle *stat;
	bool watching;
	char version[32];
	char qmp_dir[256];             /* where libxl puts QEMU's qmp-libxenstat-<domid> sockets */
	char qdisk_why[320];           /* the last reason a qdisk's counters were not read, or "" */
	struct qdisk_asks *qdisk_asks; /* questions to the qdisks' QEMUs in flight */
	struct xenlive_mark marks[XENLIVE_MARKS_MAX]; /* guest marks not yet taken */
	unsigned check_of[XENLIVE_MARKS_MAX];         /* the check each was read in */
	size_t n_marks;
	unsigned checks; /* xenlive_changed() calls that read events */
	unsigned long marks_refused;
};

/* Per domain, and per backend device: what topo_from_xenstore() reads (xstopo.c). */
static const char *const domain_keys[] = {"name", "vm", "image/device-model-pid"};
static const char *const backend_keys[] = {
    "physical-device", "physical-device-path", "node", "params", "dev", "type", "mode"};
static const char *const backend_kinds[] = {"vbd", "qdisk"};

struct reader {
	struct xenlive *x;
	struct xs_store *store;
};

/* A name xenstored would accept as one path component; anything else is not followed. */
static bool plain_name(const char *s)
{
	size_t len = strlen(s);
	return len > 0 && len <= NAME_MAX_ &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-@") ==
	           len;
}

/* Copy one node into the store. An absent node is normal (not connected yet, a dead
 * domain's leftovers): the resolver marks what it lacks. -1 only when out of memory. */
static int add_value(struct reader *r, const char *path)
{
	unsigned int len = 0;
	char *v = r->x->api->xs_read(r->x->xs, path, &len);
	if (!v)
		return 0;
	bool cut = len > XENLIVE_VALUE_MAX;
	int rc = xs_store_add(r->store, path, v, cut ? XENLIVE_VALUE_MAX : len);
	free(v);
	if (rc)
		return -1;
	r->store->entries[r->store->n - 1].truncated = cut;
	return 0;
}

/* xs_directory, capped; NULL (with *n = 0) if the directory is absent. */
static char **list(struct reader *r, const char *path, unsigned int *n)
{
	*n = 0;
	char **names = r->x->api->xs_directory(r->x->xs, path, n);
	if (!names)
		*n = 0;
	else if (*n > XENLIVE_DIR_MAX)
		*n = XENLIVE_DIR_MAX;
	return names;
}

static int read_domain(struct reader *r, const char *domid)
{
	char path[256];
	for (size_t k = 0; k < sizeof(domain_keys) / sizeof(domain_keys[0]); k++) {
		snprintf(path, sizeof(path), "/local/domain/%s/%s", domid, domain_keys[k]);
		if (add_value(r, path))
			return -1;
	}
	return 0;
}

/* /local/domain/0/backend/<kind>/<domid>/<devid>/<key> for every domid and devid. */
static int read_backends(struct reader *r, const char *kind)
{
	char base[128], dir[256], path[384];
	unsigned int n_doms, n_devs;
	snprintf(base, sizeof(base), "/local/domain/0/backend/%s", kind);
	char **doms = list(r, base, &n_doms);
	int rc = 0;
	for (unsigned int i = 0; i < n_doms && !rc; i++) {
		if (!plain_name(doms[i]))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, doms[i]);
		char **devs = list(r, dir, &n_devs);
		for (unsigned int j = 0; j < n_devs && !rc; j++) {
			if (!plain_name(devs[j]))
				continue;
			for (size_t k = 0;
			     k < sizeof(backend_keys) / sizeof(backend_keys[0]) && !rc; k++) {
				snprintf(path, sizeof(path), "%s/%s/%s", dir, devs[j],
				         backend_keys[k]);
				rc = add_value(r, path);
			}
		}
		free(devs);
	}
	free(doms);
	return rc;
}

static int read_libxl_pids(struct reader *r)
{
	char path[256];
	unsigned int n;
	char **doms = list(r, "/local/domain/0/libxl", &n);
	int rc = 0;
	for (unsigned int i = 0; i < n && !rc; i++) {
		if (!plain_name(doms[i]))
			continue;
		snprintf(path, sizeof(path), "/local/domain/0/libxl/%s/qdisk-backend-pid", doms[i]);
		rc = add_value(r, path);
	}
	free(doms);
	return rc;
}

int xenlive_read_store(struct xenlive *x, struct xs_store *out, char *why, size_t whylen)
{
	struct reader r = {.x = x, .store = out};
	unsigned int n;
	memset(out, 0, sizeof(*out));
	errno = 0;
	char **doms = list(&r, "/local/domain", &n);
	if (!doms) {
		snprintf(why, whylen, "xenstore: cannot list /local/domain: %s",
		         errno ? strerror(errno) : "no reason given");
		return -1;
	}
	int rc = 0;
	for (unsigned int i = 0; i < n && !rc; i++)
		if (plain_name(doms[i]))
			rc = read_domain(&r, doms[i]);
	free(doms);
	for (size_t k = 0; k < sizeof(backend_kinds) / sizeof(backend_kinds[0]) && !rc; k++)
		rc = read_backends(&r, backend_kinds[k]);
	if (!rc)
		rc = read_libxl_pids(&r);
	if (rc) {
		snprintf(why, whylen, "xenstore: out of memory");
		xs_free(out);
		return -1;
	}
	xs_store_sort(out);
	return 0;
}

/* "/local/domain/<domid>/data/xiotop/mark" (domid in plain decimal) -> true, *domid. */
static bool mark_path(const char *path, uint32_t *domid)
{
	static const char prefix[] = "/local/domain/";
	if (strncmp(path, prefix, sizeof(prefix) - 1))
		return false;
	const char *p = path + sizeof(prefix) - 1;
	size_t digits = strspn(p, "0123456789");
	if (!digits || digits > 5 || (digits > 1 && p[0] == '0') || p[digits] != '/' ||
	    strcmp(p + digits + 1, XENLIVE_MARK_NODE))
		return false;
	*domid = (uint32_t)strtoul(p, NULL, 10);
	return true;
}

static bool marked_in_this_check(const struct xenlive *x, uint32_t domid)
{
	for (size_t i = 0; i < x->n_marks; i++)
		if (x->marks[i].domid == domid && x->check_of[i] == x->checks)
			return true;
	return false;
}

/* One watch event on a domain's mark node: a mark when the domain owns the node. */
static void take_mark_event(struct xenlive *x, const char *path, uint32_t domid)
{
	if (marked_in_this_check(x, domid))
		return; /* the node holds one value: the same label again */
	unsigned int owner = 0, len = 0;
	char *v = x->api->xs_read(x->xs, path, &len);
	if (!v || !len || !v[0]) { /* removed or emptied: no label, no mark */
		free(v);
		return;
	}
	if (!x->api->xs_owner(x->xs, path, &owner) || owner != domid ||
	    x->n_marks == XENLIVE_MARKS_MAX) {
		x->marks_refused++;
		free(v);
		return;
	}
	struct xenlive_mark *m = &x->marks[x->n_marks];
	m->domid = domid;
	m->realtime_ns = clock_real_ns();
	/* libxenstore ends the value with a NUL; a label is the text up to the first one */
	sanitize_text(v, m->label, sizeof(m->label));
	free(v);
	x->check_of[x->n_marks++] = x->checks;
}

size_t xenlive_take_marks(struct xenlive *x, struct xenlive_mark *out, size_t max)
{
	size_t n = x->n_marks < max ? x->n_marks : max;
	memcpy(out, x->marks, n * sizeof(*out));
	memmove(x->marks, x->marks + n, (x->n_marks - n) * sizeof(*out));
	memmove(x->check_of, x->check_of + n, (x->n_marks - n) * sizeof(x->check_of[0]));
	x->n_marks -= n;
	return n;
}

unsigned long xenlive_marks_refused(const struct xenlive *x)
{
	return x ? x->marks_refused : 0;
}

bool xenlive_changed(struct xenlive *x)
{
	if (!x->watching)
		return true;
	int fd = x->api->xs_fileno(x->xs);
	if (fd >= 0) {
		/* libxenstore's watch pipe: readable when an event waits */
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int ready = poll(&p, 1, 0);
		if (ready == 0)
			return false;
		if (ready > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)))
			return true;
	}
	bool changed = false;
	x->checks++;
	for (int i = 0; i < EVENTS_MAX; i++) {
		errno = 0;
		char **ev = x->api->xs_check_watch(x->xs);
		if (!ev)
			/* EAGAIN: drained. Anything else: the connection is in trouble; say
			 * "changed" so the caller reads again and learns why. */
			return changed || (errno && errno != EAGAIN);
		uint32_t domid;
		if (ev[0] && mark_path(ev[0], &domid))
			take_mark_event(x, ev[0], domid); /* a label, not a topology change */
		else
			changed = true;
		free(ev);
	}
	return true;
}

static int set_guest_cpu(struct xio_sample *s, uint32_t domid, unsigned long long ns)
{
	int64_t v = ns > (unsigned long long)INT64_MAX ? INT64_MAX : (int64_t)ns;
	for (size_t i = 0; i < s->n_counters; i++) {
		if (s->counters[i].domid == domid) {
			s->counters[i].guest_cpu_ns = v;
			return 0;
		}
	}
	struct xio_dom_counters c = {.domid = domid, .guest_cpu_ns = v};
	return sample_add_counters(s, &c);
}

/* Not XEN_API_STAT_VBD: blkback's counters come from sysfs (blkback_stats.h) and a qdisk's
 * from its QEMU (qdisk_stats.h); libxenstat's own QMP questions would take the socket. */
#define STAT_DOMAINS_ONLY 0

int xenlive_fill_sample(struct xenlive *x, const struct xt_topology *topo, struct xio_sample *s)
{
	const struct xen_api *api = x->api;
	if (qdisk_stats_fill(x->qdisk_asks, x->qmp_dir, topo, s, x->qdisk_why,
	                     sizeof(x->qdisk_why)))
		return -1;
	struct xenstat_node *node = api->xenstat_get_node(x->stat, STAT_DOMAINS_ONLY);
	if (!node)
		return 0;
	unsigned int n = api->xenstat_node_num_domains(node);
	int rc = 0;
	for (unsigned int i = 0; i < n && !rc; i++) {
		struct xenstat_domain *d = api->xenstat_node_domain_by_index(node, i);
		if (!d)
			continue;
		uint32_t domid = api->xenstat_domain_id(d);
		struct xio_domain *sd = NULL;
		for (size_t k = 0; k < s->n_domains && !sd; k++)
			if (s->domains[k].domid == domid)
				sd = &s->domains[k];
		if (!sd)
			continue; /* not (or no longer) in xenstore: being built or dying */
		sd->mem_bytes = api->xenstat_domain_cur_mem(d);
		rc = set_guest_cpu(s, domid, api->xenstat_domain_cpu_ns(d));
	}
	api->xenstat_free_node(node);
	s->domains_live = true;
	return rc;
}

/* The version string as the hypervisor gives it, printable characters only. */
static void keep_version(struct xenlive *x, const char *v)
{
	size_t o = 0;
	for (; v && *v && o + 1 < sizeof(x->version); v++)
		if (strchr("0123456789.-+_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
		           *v))
			x->version[o++] = *v;
	x->version[o] = '\0';
}

int xenlive_open(struct xenlive **out, const struct xen_api *api, char *why, size_t whylen)
{
	*out = NULL;
	if (!api) {
		snprintf(why, whylen, "xiotop was built without libxenstat and libxenstore");
		return -1;
	}
	struct xenlive *x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	x->api = api;
	snprintf(x->qmp_dir, sizeof(x->qmp_dir), "%s", XENLIVE_QMP_DIR);
	x->qdisk_asks = qdisk_asks_new(QDISK_GIVE_UP_MS);
	if (!x->qdisk_asks) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	struct xerr err = {0};
	x->stat = api->xenstat_init(&err);
	if (!x->stat) {
		snprintf(why, whylen, "xenstat_init failed: %.300s",
		         err.msg[0] ? err.msg : "no reason given");
		goto fail;
	}
	errno = 0;
	struct xenstat_node *node = api->xenstat_get_node(x->stat, XEN_API_STAT_XEN_VERSION);
	if (!node) {
		snprintf(why, whylen, "xenstat_get_node failed: %s",
		         errno ? strerror(errno) : "no reason given");
		goto fail;
	}
	keep_version(x, api->xenstat_node_xen_version(node));
	api->xenstat_free_node(node);
	errno = 0;
	x->xs = api->xs_open();
	if (!x->xs) {
		snprintf(why, whylen, "xs_open failed: %s",
		         errno ? strerror(errno) : "no reason given");
		goto fail;
	}
	unsigned int n = 0;
	errno = 0;
	char **doms = api->xs_directory(x->xs, "/local/domain", &n);
	if (!doms) {
		snprintf(why, whylen, "xenstore does not list /local/domain: %s",
		         errno ? strerror(errno) : "no reason given");
		goto fail;
	}
	free(doms);
	/* without the watch, changes are still seen: the store is read every interval */
	x->watching = api->xs_watch(x->xs, WATCH_PATH, WATCH_TOKEN);
	*out = x;
	return 0;
fail:
	xenlive_close(x);
	return -1;
}

const char *xenlive_xen_version(const struct xenlive *x)
{
	return x ? x->version : "";
}

void xenlive_set_qmp_dir(struct xenlive *x, const char *dir)
{
	snprintf(x->qmp_dir, sizeof(x->qmp_dir), "%s", dir);
}

const char *xenlive_qdisk_problem(struct xenlive *x)
{
	return x ? x->qdisk_why : "";
}

bool xenlive_watching(const struct xenlive *x)
{
	return x && x->watching;
}

void xenlive_close(struct xenlive *x)
{
	if (!x)
		return;
	if (x->xs)
		x->api->xs_close(x->xs);
	if (x->stat)
		x->api->xenstat_uninit(x->stat);
	qdisk_asks_free(x->qdisk_asks);
	free(x);
}
