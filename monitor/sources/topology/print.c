/* print.c - show a topology as text (per domain, then each backend's stack as an
 * indented tree) or as one JSON object; plus lookup and freeing helpers.
 *
 * Names, paths and errors may hold guest-written bytes: every string goes out through
 * core/sanitize.h, never raw.
 */
#include "sources/topology/topology.h"

#include "core/free_all.h"
#include "core/model.h"
#include "core/sanitize.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A layer's role in its stack is one idea in the topology and in the model, named once
 * (model_role_name): the two enums keep one order. */
_Static_assert(XT_ROLE_BACKEND == (int)ROLE_BACKEND && XT_ROLE_STACKED == (int)ROLE_STACKED &&
                   XT_ROLE_FILE == (int)ROLE_FILE && XT_ROLE_LEAF == (int)ROLE_LEAF,
               "enum xt_role and enum model_role in one order");

const char *topo_role_name(enum xt_role r)
{
	return model_role_name((enum model_role)r);
}

static const char *const kind_names[] = {[XT_BK_VBD] = "vbd", [XT_BK_QDISK] = "qdisk"};

const char *topo_kind_name(enum xt_backend_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

/* Sanitized text; an escape takes at most 4 bytes per input byte. */
static void put_text(FILE *out, const char *s)
{
	if (!s) {
		fputs("-", out);
		return;
	}
	size_t len = strlen(s) * 4 + 1;
	char small[256];
	char *buf = len <= sizeof(small) ? small : malloc(len);
	if (!buf) {
		fputs("?", out);
		return;
	}
	sanitize_text(s, buf, len);
	fputs(buf, out);
	if (buf != small)
		free(buf);
}

/* label as given, then s sanitized */
static void put_labelled(FILE *out, const char *label, const char *s)
{
	fputs(label, out);
	put_text(out, s);
}

static void print_layer_text(FILE *out, const struct xt_layer *l)
{
	fprintf(out, "%*s", 4 + 2 * l->depth, "");
	if (l->path) {
		put_text(out, l->path);
		fprintf(out, "  %s", topo_role_name(l->role));
		if (l->ino)
			fprintf(out, " ino %" PRIu64 " on %u:%u", l->ino, XT_KDEV_MAJOR(l->fs_dev),
			        XT_KDEV_MINOR(l->fs_dev));
	} else {
		put_text(out, l->name);
		fprintf(out, " %u:%u  %s", XT_KDEV_MAJOR(l->dev), XT_KDEV_MINOR(l->dev),
		        topo_role_name(l->role));
		if (l->is_leaf && l->role != XT_ROLE_LEAF)
			fputs(", leaf", out);
		/* buffered: the guest's writes sit in dom0's page cache first */
		static const char *const mode[] = {[XT_LOOP_BUFFERED] = ", buffered",
		                                   [XT_LOOP_DIRECT_IO] = ", direct I/O",
		                                   [XT_LOOP_MODE_UNKNOWN] =
		                                       ", mode unknown (no loop/dio)"};
		if (l->loop_mode != XT_NOT_LOOP)
			fputs(mode[l->loop_mode], out);
	}
	fputc('\n', out);
}

static void print_backend_text(FILE *out, const struct xt_backend *b)
{
	fprintf(out, "  %s %u ", topo_kind_name(b->kind), b->devid);
	put_text(out, b->dev);
	put_labelled(out, "  type=", b->type);
	put_labelled(out, " mode=", b->mode);
	put_labelled(out, " params=", b->params);
	if (b->missing)
		fputs("  MISSING", out);
	if (b->error)
		put_labelled(out, b->missing ? ": " : "  note: ", b->error);
	fputc('\n', out);
	for (size_t i = 0; i < b->n_layers; i++)
		print_layer_text(out, &b->layers[i]);
}

static void print_domain_text(FILE *out, const struct xt_domain *d)
{
	fprintf(out, "domain %u ", d->domid);
	put_text(out, d->name);
	if (d->device_model_pid)
		fprintf(out, "  device model pid %d", d->device_model_pid);
	fputc('\n', out);
	for (size_t j = 0; j < d->n_backends; j++)
		print_backend_text(out, &d->backends[j]);
}

void topo_print_text(FILE *out, const struct xt_topology *t)
{
	put_labelled(out, "source: ", t->source);
	fputc('\n', out);
	for (size_t i = 0; i < t->n_domains; i++)
		print_domain_text(out, &t->domains[i]);
}

/* items[0, n) of size bytes each as a JSON array, each written by put */
static void print_json_array(FILE *out, const void *items, size_t n, size_t size,
                             void (*put)(FILE *out, const void *item))
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		put(out, (const char *)items + i * size);
	}
	fputc(']', out);
}

static void print_layer_json(FILE *out, const void *item)
{
	const struct xt_layer *l = item;
	if (l->path) {
		json_put_member(out, "{\"file\":", l->path);
		fprintf(out, ",\"ino\":%" PRIu64 ",\"fs_maj_min\":\"%u:%u\"", l->ino,
		        XT_KDEV_MAJOR(l->fs_dev), XT_KDEV_MINOR(l->fs_dev));
	} else {
		json_put_member(out, "{\"dev\":", l->name);
		fprintf(out, ",\"maj_min\":\"%u:%u\"", XT_KDEV_MAJOR(l->dev),
		        XT_KDEV_MINOR(l->dev));
		static const char *const direct_io[] = {[XT_LOOP_BUFFERED] = "false",
		                                        [XT_LOOP_DIRECT_IO] = "true",
		                                        [XT_LOOP_MODE_UNKNOWN] = "null"};
		if (l->loop_mode != XT_NOT_LOOP)
			fprintf(out, ",\"direct_io\":%s", direct_io[l->loop_mode]);
	}
	fprintf(out, ",\"role\":\"%s\",\"depth\":%d,\"leaf\":%s}", topo_role_name(l->role),
	        l->depth, l->is_leaf ? "true" : "false");
}

static void print_backend_json(FILE *out, const void *item)
{
	const struct xt_backend *b = item;
	fprintf(out, "{\"devid\":%u", b->devid);
	json_put_member(out, ",\"dev\":", b->dev);
	fprintf(out, ",\"kind\":\"%s\"", topo_kind_name(b->kind));
	json_put_member(out, ",\"type\":", b->type);
	json_put_member(out, ",\"mode\":", b->mode);
	json_put_member(out, ",\"params\":", b->params);
	fprintf(out, ",\"missing\":%s", b->missing ? "true" : "false");
	json_put_member(out, ",\"error\":", b->error);
	fputs(",\"stack\":", out);
	print_json_array(out, b->layers, b->n_layers, sizeof(*b->layers), print_layer_json);
	fputc('}', out);
}

static void print_domain_json(FILE *out, const void *item)
{
	const struct xt_domain *d = item;
	fprintf(out, "{\"domid\":%u", d->domid);
	json_put_member(out, ",\"name\":", d->name);
	fprintf(out, ",\"device_model_pid\":%d,\"backends\":", d->device_model_pid);
	print_json_array(out, d->backends, d->n_backends, sizeof(*d->backends), print_backend_json);
	fputc('}', out);
}

void topo_print_json(FILE *out, const struct xt_topology *t)
{
	json_put_member(out, "{\"source\":", t->source);
	fputs(",\"domains\":", out);
	print_json_array(out, t->domains, t->n_domains, sizeof(*t->domains), print_domain_json);
	fputs("}\n", out);
}

static int cmp_domid(const void *key, const void *elem)
{
	uint32_t k = *(const uint32_t *)key, d = ((const struct xt_domain *)elem)->domid;
	return k < d ? -1 : k > d;
}

const struct xt_domain *topo_find_domain(const struct xt_topology *t, uint32_t domid)
{
	if (!t || !t->n_domains)
		return NULL;
	return bsearch(&domid, t->domains, t->n_domains, sizeof(*t->domains), cmp_domid);
}

void topo_backend_free(struct xt_backend *b)
{
	for (size_t i = 0; i < b->n_layers; i++) {
		free(b->layers[i].name);
		free(b->layers[i].path);
	}
	FREE_ALL(b->layers, b->dev, b->type, b->mode, b->params, b->error);
}

void topo_free(struct xt_topology *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_domains; i++) {
		for (size_t j = 0; j < t->domains[i].n_backends; j++)
			topo_backend_free(&t->domains[i].backends[j]);
		free(t->domains[i].backends);
		free(t->domains[i].name);
		free(t->domains[i].uuid);
	}
	free(t->domains);
	free(t->source);
	memset(t, 0, sizeof(*t));
}
