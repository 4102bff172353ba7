/* topo_source.c - pick the topology source and rebuild topologies from it; see
 * topo_source.h. */
#include "sources/topo_source.h"

#include <stdlib.h>
#include <string.h>

static int open_xen(struct topo_source *src, const char *dump, const struct xen_api *api, char *why,
                    size_t whylen)
{
	if (xenlive_open(&src->xen, api, why, whylen))
		return -1;
	if (xenlive_read_store(src->xen, &src->store, why, whylen)) {
		xenlive_close(src->xen);
		src->xen = NULL;
		return -1;
	}
	src->kind = TOPO_SRC_XEN;
	xnote("topology from live xenstore and libxenstat (Xen %s answers%s%s)",
	      xenlive_xen_version(src->xen), dump ? "; --xenstore-dump ignored" : "",
	      xenlive_watching(src->xen) ? "" : "; no watch: xenstore is read every interval");
	return 0;
}

int topo_source_open(struct topo_source *src, const char *dump, const struct xt_roots *roots,
                     const struct xen_api *api, struct xerr *err)
{
	memset(src, 0, sizeof(*src));
	src->roots = *roots;
	char why[512];
	if (open_xen(src, dump, api, why, sizeof(why)) == 0)
		return 0;
	if (dump) {
		if (xs_parse_file(dump, &src->store, err))
			return -1;
		src->kind = TOPO_SRC_DUMP;
		xnote("topology from xenstore dump %s (Xen not available: %s)", dump, why);
		return 0;
	}
	src->kind = TOPO_SRC_PROC;
	xnote("topology from qemu processes in /proc only (Xen not available: %s; no "
	      "--xenstore-dump given)",
	      why);
	return 0;
}

/* Xen: read xenstore again if the watch fired (or the last read failed). On failure the
 * last good nodes stay in use. */
static void refresh_xen(struct topo_source *src)
{
	/* asked every time: the check also takes the guests' marks from the watch events */
	bool changed = xenlive_changed(src->xen);
	if (!src->reread_failed && !changed)
		return;
	struct xs_store fresh;
	char why[512];
	if (xenlive_read_store(src->xen, &fresh, why, sizeof(why)) == 0) {
		xs_free(&src->store);
		src->store = fresh;
		if (src->reread_failed)
			xnote("xenstore answers again");
		src->reread_failed = false;
		return;
	}
	if (!src->reread_failed)
		xnote("%s; keeping the last topology", why);
	src->reread_failed = true;
}

static int set_source(struct xt_topology *t, const char *name)
{
	free(t->source);
	t->source = strdup(name);
	return t->source ? 0 : -1;
}

int topo_source_build(struct topo_source *src, struct xt_topology *out)
{
	memset(out, 0, sizeof(*out));
	int rc;
	switch (src->kind) {
	case TOPO_SRC_XEN:
		refresh_xen(src);
		rc = topo_from_xenstore(&src->store, &src->roots, out);
		if (!rc)
			rc = set_source(out, "xen live");
		break;
	case TOPO_SRC_DUMP:
		rc = topo_from_xenstore(&src->store, &src->roots, out);
		break;
	default:
		rc = set_source(out, "proc");
		break;
	}
	/* device models running now join their domains (or are KVM guests of their own) */
	if (!rc)
		topo_add_qemu_processes(&src->roots, out);
	if (!rc)
		rc = topo_generations_apply(&src->generations, out);
	if (rc)
		topo_free(out);
	return rc;
}

size_t topo_source_take_marks(struct topo_source *src, struct xenlive_mark *out, size_t max,
                              unsigned long *refused)
{
	*refused = src->kind == TOPO_SRC_XEN ? xenlive_marks_refused(src->xen) : 0;
	return src->kind == TOPO_SRC_XEN ? xenlive_take_marks(src->xen, out, max) : 0;
}

void topo_source_close(struct topo_source *src)
{
	xenlive_close(src->xen);
	xs_free(&src->store);
	topo_generations_free(&src->generations);
	memset(src, 0, sizeof(*src));
}
