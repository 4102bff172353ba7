/* qdisk_stats.c - qdisk vbd counters from query-blockstats; see qdisk_stats.h. */
#include "sources/xen/qdisk_stats.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "sources/xen/qmp.h"

static size_t qdisk_backends(const struct xt_domain *d)
{
	size_t n = 0;
	for (size_t j = 0; j < d->n_backends; j++)
		n += d->backends[j].kind == XT_BK_QDISK;
	return n;
}

/* "xvda-raw" names the drive of dev "xvda": the dev, a dash, then the format driver. */
static bool names_dev(json_object *entry, const char *dev)
{
	json_object *v;
	if (!dev || !*dev || !json_object_object_get_ex(entry, "node-name", &v) ||
	    !json_object_is_type(v, json_type_string))
		return false;
	const char *name = json_object_get_string(v);
	size_t len = strlen(dev);
	return strncmp(name, dev, len) == 0 && name[len] == '-' && name[len + 1] != '\0';
}

static bool counter(json_object *stats, const char *key, uint64_t *out)
{
	json_object *v;
	if (!json_object_object_get_ex(stats, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	int64_t x = json_object_get_int64(v);
	if (x < 0)
		return false;
	*out = (uint64_t)x;
	return true;
}

static int add_entry(json_object *entry, uint32_t domid, const struct xt_backend *b,
                     struct xio_sample *s)
{
	json_object *stats;
	struct xio_vbd_stat v = {.domid = domid, .devid = b->devid, .source = XIO_VBD_QMP};
	if (!json_object_object_get_ex(entry, "stats", &stats) ||
	    !counter(stats, "rd_bytes", &v.rd_bytes) || !counter(stats, "wr_bytes", &v.wr_bytes) ||
	    !counter(stats, "rd_operations", &v.rd_req) ||
	    !counter(stats, "wr_operations", &v.wr_req))
		return 0;
	if (sample_vbd_stat(s, domid, b->devid))
		return 0; /* two entries name one vbd: the first stands */
	return sample_add_vbd_stat(s, &v) ? -1 : 1;
}

int qdisk_stats_take(const char *blockstats, const struct xt_domain *d, struct xio_sample *s,
                     const char **problem)
{
	*problem = NULL;
	json_object *all = json_tokener_parse(blockstats);
	if (!all || !json_object_is_type(all, json_type_array)) {
		json_object_put(all);
		*problem = "QEMU's query-blockstats reply is not a list of drives";
		return 0;
	}
	size_t n = json_object_array_length(all);
	bool lone = qdisk_backends(d) == 1 && n == 1;
	int matched = 0;
	for (size_t j = 0; j < d->n_backends && matched >= 0; j++) {
		const struct xt_backend *b = &d->backends[j];
		if (b->kind != XT_BK_QDISK)
			continue;
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(all, i);
			if (!json_object_is_type(e, json_type_object) ||
			    !(lone || names_dev(e, b->dev)))
				continue;
			int rc = add_entry(e, d->domid, b, s);
			matched = rc < 0 ? -1 : matched + rc;
			break;
		}
	}
	json_object_put(all);
	if (matched >= 0 && (size_t)matched < qdisk_backends(d))
		*problem = "QEMU lists no drive named for some of its qdisk vbds";
	return matched < 0 ? -1 : 0;
}

int qdisk_stats_fill(const char *qmp_dir, const struct xt_topology *topo, struct xio_sample *s,
                     char *why, size_t whylen)
{
	int64_t end = (clock_mono_ns() / NS_PER_MS) + QDISK_BUDGET_MS;
	for (size_t i = 0; topo && i < topo->n_domains; i++) {
		const struct xt_domain *d = &topo->domains[i];
		if (!qdisk_backends(d) || !sample_domain(s, d->domid))
			continue;
		s->has_vbd_stats = true;
		int64_t left = end - (clock_mono_ns() / NS_PER_MS);
		if (left <= 0) {
			snprintf(why, whylen,
			         "qdisk counters: no time left this interval for domain %u",
			         d->domid);
			continue;
		}
		char path[512], err[256];
		snprintf(path, sizeof(path), "%s/qmp-libxenstat-%u", qmp_dir, d->domid);
		char *reply = NULL;
		if (qmp_ask(path, "query-blockstats",
		            left < QDISK_ASK_MS ? (int)left : QDISK_ASK_MS, &reply, err,
		            sizeof(err))) {
			snprintf(why, whylen, "qdisk counters of domain %u: %s", d->domid, err);
			continue;
		}
		const char *problem;
		int rc = qdisk_stats_take(reply, d, s, &problem);
		free(reply);
		if (rc)
			return -1;
		if (problem)
			snprintf(why, whylen, "qdisk counters of domain %u: %s", d->domid, problem);
	}
	return 0;
}
