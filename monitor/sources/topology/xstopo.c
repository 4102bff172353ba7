/* xstopo.c - turn a xenstore store into domains, their disk backends and device-model
 * pids, then resolve each backend's stack through sysfs.
 *
 * Read from the store (dom0 as the backend domain):
 *   /local/domain/<domid>/name                          domain name
 *   /local/domain/<domid>/image/device-model-pid        qemu of an HVM guest (Xen 4.20:
 *                                                       of a PV one too; its probe first)
 *   /local/domain/0/libxl/<domid>/qdisk-backend-pid     qemu serving PV qdisk disks
 *   /local/domain/0/backend/vbd/<domid>/<devid>/...     blkback: physical-device
 *                                                       (hex maj:min), node, params
 *   /local/domain/0/backend/qdisk/<domid>/<devid>/...   qemu: params ("aio:/img")
 * Everything here is partly guest- or admin-written text: anything odd marks the one
 * backend it belongs to and the rest goes on.
 */
#include "sources/topology/topology.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DOMID 0x7fff  /* domids are 15 bits; 0x7ff0 and up are reserved ids */
#define MAX_PID   4194304 /* PID_MAX_LIMIT */
#define MAX_PARTS 8

struct part {
	const char *s;
	size_t len;
};

/* Split an absolute path into components; returns how many there are, filling in
 * the first MAX_PARTS. */
static size_t split_path(const char *path, struct part *parts)
{
	size_t n = 0;
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (n < MAX_PARTS)
			parts[n] = (struct part){.s = p, .len = len};
		n++;
		p += len;
	}
	return n;
}

static bool part_is(const struct part *p, const char *s)
{
	return p->len == strlen(s) && memcmp(p->s, s, p->len) == 0;
}

/* Plain decimal as the toolstack writes it: no sign, no spaces, no leading zero. */
static bool parse_decimal(const char *s, size_t len, unsigned long max, unsigned long *out)
{
	if (!len || len > 10 || (len > 1 && s[0] == '0'))
		return false;
	unsigned long v = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		unsigned long digit = (unsigned long)(s[i] - '0');
		if (v > (max - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

static bool parse_domid(const struct part *p, uint32_t *domid)
{
	unsigned long v;
	if (!parse_decimal(p->s, p->len, MAX_DOMID, &v))
		return false;
	*domid = (uint32_t)v;
	return true;
}

/* The uuid at the end of a vm path ("/vm/3f6e5b1c-0e43-..."; xend added "-N" on
 * restarts): hex digits and dashes only, else NULL (the value is not trusted). */
static char *parse_vm_uuid(const char *value)
{
	const char *slash = strrchr(value, '/');
	const char *u = slash ? slash + 1 : value;
	size_t len = strspn(u, "0123456789abcdefABCDEF-");
	if (!len || len > 39 || u[len])
		return NULL;
	return strdup(u);
}

static int parse_pid(const char *value)
{
	unsigned long v;
	if (!value || !parse_decimal(value, strlen(value), MAX_PID, &v))
		return 0;
	return (int)v;
}

/* physical-device: hex "maj:min" ("fe:3", "7:0"); old toolstacks wrote one hex
 * number in the 16-bit encoding ("803" = 8:3). 0 if malformed. */
static uint32_t parse_physical_device(const char *s)
{
	unsigned long maj = 0, min = 0;
	size_t digits = 0;
	const char *p = s;
	for (; isxdigit((unsigned char)*p) && digits < 8; p++, digits++)
		maj = maj * 16 + (unsigned long)(isdigit((unsigned char)*p)
		                                     ? *p - '0'
		                                     : (tolower(*p) - 'a' + 10));
	if (!digits)
		return 0;
	if (!*p) {
		if (maj > 0xffff || !maj)
			return 0;
		return XT_KDEV(maj >> 8, maj & 0xff);
	}
	if (*p++ != ':')
		return 0;
	digits = 0;
	for (; isxdigit((unsigned char)*p) && digits < 8; p++, digits++)
		min = min * 16 + (unsigned long)(isdigit((unsigned char)*p)
		                                     ? *p - '0'
		                                     : (tolower(*p) - 'a' + 10));
	if (!digits || *p || maj > 0xfff || min > 0xfffff || (!maj && !min))
		return 0;
	return XT_KDEV(maj, min);
}

const char *topo_strip_format(const char *params)
{
	const char *p = params;
	if (!p)
		return NULL;
	/* "tap:aio:/x", "qcow2:/x": drop lower-case word prefixes ending in ':' while no
	 * '/' came first (a '/' means a path, which may itself hold ':') */
	for (;;) {
		const char *c = p;
		while ((*c >= 'a' && *c <= 'z') || isdigit((unsigned char)*c) || *c == '_')
			c++;
		if (c == p || *c != ':')
			return p;
		p = c + 1;
	}
}

/* --- collecting domains and backends --- */

struct pending_backend {
	uint32_t domid;
	enum xt_backend_kind kind;
	const char *base; /* path of the backend node, up to and without the devid's end */
	size_t base_len;
	struct part devid;
};

struct builder {
	struct xt_topology *t;
	struct pending_backend *pend;
	size_t n_pend;
	/* libxl's qdisk-backend-pid per domain, a fallback for the device model's pid */
	struct qdisk_pid {
		uint32_t domid;
		int pid;
	} * qdisk;
	size_t n_qdisk;
};

static int add_qdisk_pid(struct builder *bld, uint32_t domid, int pid)
{
	struct qdisk_pid *q = realloc(bld->qdisk, (bld->n_qdisk + 1) * sizeof(*q));
	if (!q)
		return -1;
	bld->qdisk = q;
	q[bld->n_qdisk++] = (struct qdisk_pid){domid, pid};
	return 0;
}

/* The domain's qdisk-backend-pid, the store's last for it; 0 none. */
static int qdisk_pid_of(const struct builder *bld, uint32_t domid)
{
	for (size_t i = bld->n_qdisk; i-- > 0;)
		if (bld->qdisk[i].domid == domid)
			return bld->qdisk[i].pid;
	return 0;
}

static int add_pending(struct builder *bld, uint32_t domid, enum xt_backend_kind kind,
                       const char *path, const struct part *devid)
{
	size_t base_len = (size_t)(devid->s + devid->len - path);
	for (size_t i = bld->n_pend; i-- > 0;) {
		const struct pending_backend *pb = &bld->pend[i];
		if (pb->base_len == base_len && memcmp(pb->base, path, base_len) == 0)
			return 0;
	}
	struct pending_backend *np = realloc(bld->pend, (bld->n_pend + 1) * sizeof(*np));
	if (!np)
		return -1;
	bld->pend = np;
	bld->pend[bld->n_pend++] = (struct pending_backend){
	    .domid = domid, .kind = kind, .base = path, .base_len = base_len, .devid = *devid};
	return topo_domain_slot(bld->t, domid) ? 0 : -1;
}

/* Look at one store entry; remember what it tells about domains and backends. */
static int scan_entry(struct builder *bld, const struct xs_entry *e)
{
	struct part c[MAX_PARTS];
	size_t n = split_path(e->path, c);
	uint32_t domid;
	if (n < 4 || !part_is(&c[0], "local") || !part_is(&c[1], "domain"))
		return 0;
	if (n == 4 && part_is(&c[3], "name") && parse_domid(&c[2], &domid)) {
		struct xt_domain *d = topo_domain_slot(bld->t, domid);
		if (!d)
			return -1;
		free(d->name);
		return (d->name = strdup(e->value)) ? 0 : -1;
	}
	if (n == 4 && part_is(&c[3], "vm") && parse_domid(&c[2], &domid)) {
		struct xt_domain *d = topo_domain_slot(bld->t, domid);
		if (!d)
			return -1;
		free(d->uuid);
		d->uuid = parse_vm_uuid(e->value);
		return 0;
	}
	if (n == 5 && part_is(&c[3], "image") && part_is(&c[4], "device-model-pid") &&
	    parse_domid(&c[2], &domid)) {
		struct xt_domain *d = topo_domain_slot(bld->t, domid);
		if (!d)
			return -1;
		d->device_model_pid = parse_pid(e->value);
		return 0;
	}
	if (!part_is(&c[2], "0"))
		return 0;
	if (n == 6 && part_is(&c[3], "libxl") && part_is(&c[5], "qdisk-backend-pid") &&
	    parse_domid(&c[4], &domid)) {
		if (!topo_domain_slot(bld->t, domid))
			return -1;
		return add_qdisk_pid(bld, domid, parse_pid(e->value));
	}
	if (n >= 7 && part_is(&c[3], "backend") && parse_domid(&c[5], &domid)) {
		if (part_is(&c[4], "vbd"))
			return add_pending(bld, domid, XT_BK_VBD, e->path, &c[6]);
		if (part_is(&c[4], "qdisk"))
			return add_pending(bld, domid, XT_BK_QDISK, e->path, &c[6]);
	}
	return 0;
}

/* --- filling and resolving one backend --- */

static const struct xs_entry *backend_key(const struct xs_store *s,
                                          const struct pending_backend *pb, const char *key)
{
	size_t len = pb->base_len + 1 + strlen(key) + 1;
	char *path = malloc(len);
	if (!path)
		return NULL;
	snprintf(path, len, "%.*s/%s", (int)pb->base_len, pb->base, key);
	const struct xs_entry *e = xs_find(s, path);
	free(path);
	return e;
}

/* A copy of a backend value; one cut by xenstore-ls keeps a visible "..." */
static char *dup_key(const struct xs_store *s, const struct pending_backend *pb, const char *key)
{
	const struct xs_entry *e = backend_key(s, pb, key);
	if (!e)
		return NULL;
	if (!e->truncated)
		return strdup(e->value);
	size_t len = strlen(e->value) + 4;
	char *v = malloc(len);
	if (v)
		snprintf(v, len, "%s...", e->value);
	return v;
}

static void mark(struct xt_backend *b, const char *why)
{
	b->missing = true;
	if (!b->error)
		b->error = strdup(why);
}

/* A value the resolution depends on must be whole. */
static bool usable(const struct xs_entry *e, struct xt_backend *b, const char *key)
{
	if (!e || !e->value[0])
		return false;
	if (e->truncated) {
		char why[128];
		snprintf(why, sizeof(why),
		         "%s was cut short (by xenstore-ls: dump with -f; or over 64 KiB live)",
		         key);
		mark(b, why);
		return false;
	}
	if (strlen(e->value) != e->value_len) {
		/* a C string would silently stop at the NUL: "/dev/loop0\0../x" */
		char why[128];
		snprintf(why, sizeof(why), "%s holds a NUL byte", key);
		mark(b, why);
		return false;
	}
	return true;
}

/* A path from xenstore, checked against the --image-dir policy before it is followed. */
static bool followable(const struct xt_roots *roots, const struct xs_entry *e, struct xt_backend *b,
                       const char *key, const char *path)
{
	if (!usable(e, b, key))
		return false;
	char why[512];
	if (topo_path_allowed(roots, key, path, why, sizeof(why)))
		return true;
	mark(b, why);
	return false;
}

static void resolve_vbd(const struct xs_store *s, const struct xt_roots *roots,
                        const struct pending_backend *pb, struct xt_backend *b)
{
	const struct xs_entry *pd = backend_key(s, pb, "physical-device");
	if (pd && pd->value[0]) {
		uint32_t dev = parse_physical_device(pd->value);
		if (!dev) {
			mark(b, "malformed physical-device");
			return;
		}
		topo_resolve_dev(roots, dev, b);
		return;
	}
	/* not connected yet, or an old toolstack: the loop node the hotplug script set up,
	 * else what params names */
	static const char *const node_keys[] = {"node", "physical-device-path"};
	for (size_t i = 0; i < sizeof(node_keys) / sizeof(node_keys[0]); i++) {
		const struct xs_entry *node = backend_key(s, pb, node_keys[i]);
		if (node && node->value[0] == '/') {
			if (followable(roots, node, b, node_keys[i], node->value))
				topo_resolve_file(roots, node->value, b);
			return;
		}
	}
	const struct xs_entry *params = backend_key(s, pb, "params");
	if (params && params->value[0]) {
		if (followable(roots, params, b, "params", topo_strip_format(params->value)))
			topo_resolve_file(roots, topo_strip_format(params->value), b);
		return;
	}
	mark(b, "no physical-device, node or params");
}

static void resolve_qdisk(const struct xs_store *s, const struct xt_roots *roots,
                          const struct pending_backend *pb, struct xt_backend *b)
{
	const struct xs_entry *params = backend_key(s, pb, "params");
	if (!params || !params->value[0])
		mark(b, "no params");
	else if (followable(roots, params, b, "params", topo_strip_format(params->value)))
		topo_resolve_file(roots, topo_strip_format(params->value), b);
}

static int build_backend(const struct xs_store *s, const struct xt_roots *roots,
                         const struct pending_backend *pb, struct xt_domain *d)
{
	struct xt_backend *b = topo_backend_add(d, pb->kind, 0);
	if (!b)
		return -1;
	b->dev = dup_key(s, pb, "dev");
	b->type = dup_key(s, pb, "type");
	b->mode = dup_key(s, pb, "mode");
	b->params = dup_key(s, pb, "params");

	unsigned long devid;
	if (!parse_decimal(pb->devid.s, pb->devid.len, UINT32_MAX, &devid)) {
		mark(b, "devid is not a 32-bit number");
		return 0;
	}
	b->devid = (uint32_t)devid;
	if (pb->kind == XT_BK_VBD)
		resolve_vbd(s, roots, pb, b);
	else
		resolve_qdisk(s, roots, pb, b);
	return 0;
}

static int cmp_domain(const void *a, const void *b)
{
	uint32_t x = ((const struct xt_domain *)a)->domid, y = ((const struct xt_domain *)b)->domid;
	return x < y ? -1 : x > y;
}

static int cmp_backend(const void *a, const void *b)
{
	const struct xt_backend *x = a, *y = b;
	if (x->devid != y->devid)
		return x->devid < y->devid ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

int topo_from_xenstore(const struct xs_store *s, const struct xt_roots *roots,
                       struct xt_topology *out)
{
	struct builder bld = {.t = out};
	memset(out, 0, sizeof(*out));
	int rc = 0;
	for (size_t i = 0; s && i < s->n && !rc; i++)
		rc = scan_entry(&bld, &s->entries[i]);
	for (size_t i = 0; i < out->n_domains && !rc; i++) {
		struct xt_domain *d = &out->domains[i];
		/* libxl (4.20) first spawns a QEMU that only answers which options it has
		 * (-machine none, no -xen-domid: "qemu command-line probe"), its pid in the
		 * domain's image/device-model-pid until the device model's replaces it; before
		 * exec the device model's own pid is a fork of xl. Neither serves the domain:
		 * a pid whose command line does not name it is no device model (yet). */
		if (d->device_model_pid &&
		    !topo_pid_names_domid(roots, d->device_model_pid, d->domid))
			d->device_model_pid = 0;
		if (!d->device_model_pid)
			d->device_model_pid = qdisk_pid_of(&bld, d->domid);
	}
	/* a domain known only by a libxl pid or an image node, without name or disk,
	 * is a leftover of a dead domain: drop it */
	size_t kept = 0;
	for (size_t i = 0; i < out->n_domains; i++) {
		bool has_backend = false;
		for (size_t j = 0; j < bld.n_pend && !has_backend; j++)
			has_backend = bld.pend[j].domid == out->domains[i].domid;
		if (out->domains[i].name || has_backend)
			out->domains[kept++] = out->domains[i];
		else
			free(out->domains[i].uuid); /* a `vm` node was all it had */
	}
	out->n_domains = kept;
	for (size_t j = 0; j < bld.n_pend && !rc; j++) {
		struct xt_domain *d = NULL;
		for (size_t i = 0; i < out->n_domains && !d; i++)
			if (out->domains[i].domid == bld.pend[j].domid)
				d = &out->domains[i];
		rc = d ? build_backend(s, roots, &bld.pend[j], d) : -1;
	}
	free(bld.pend);
	free(bld.qdisk);
	const char *name = s && s->name ? s->name : "";
	size_t len = strlen(name) + sizeof("xenstore-dump ");
	if (!rc && (out->source = malloc(len)))
		snprintf(out->source, len, "xenstore%s%s", *name ? "-dump " : "", name);
	if (rc || !out->source) {
		topo_free(out);
		return -1;
	}
	if (out->n_domains > 1)
		qsort(out->domains, out->n_domains, sizeof(*out->domains), cmp_domain);
	for (size_t i = 0; i < out->n_domains; i++)
		if (out->domains[i].n_backends > 1)
			qsort(out->domains[i].backends, out->domains[i].n_backends,
			      sizeof(*out->domains[i].backends), cmp_backend);
	return 0;
}
