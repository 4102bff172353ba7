/* sample.c - ownership and lookup for struct xio_sample; see sample.h. */
#include "core/sample.h"

#include "core/arrays.h"
#include "core/free_all.h"

#include <stdlib.h>
#include <string.h>

void sample_free(struct xio_sample *s)
{
	FREE_ALL(s->layers, s->devs, s->disks, s->domains, s->counters, s->vbd_stats, s->latency);
	memset(s, 0, sizeof(*s));
}

const struct xio_dom_counters *sample_counters(const struct xio_sample *s, uint32_t domid)
{
	for (size_t i = 0; i < s->n_counters; i++)
		if (s->counters[i].domid == domid)
			return &s->counters[i];
	return NULL;
}

const struct xio_dev *sample_dev(const struct xio_sample *s, uint32_t dev)
{
	for (size_t i = 0; i < s->n_devs; i++)
		if (s->devs[i].dev == dev)
			return &s->devs[i];
	return NULL;
}

const struct xio_domain *sample_domain(const struct xio_sample *s, uint32_t domid)
{
	for (size_t i = 0; i < s->n_domains; i++)
		if (s->domains[i].domid == domid)
			return &s->domains[i];
	return NULL;
}

int xio_layer_key_order(uint32_t a_domid, uint32_t a_dev, uint32_t a_via, uint32_t b_domid,
                        uint32_t b_dev, uint32_t b_via)
{
	if (a_domid != b_domid)
		return a_domid < b_domid ? -1 : 1;
	if (a_dev != b_dev)
		return a_dev < b_dev ? -1 : 1;
	if (a_via != b_via)
		return a_via < b_via ? -1 : 1;
	return 0;
}

int xio_layer_key_cmp(const void *a, const void *b)
{
	const struct xio_layer *x = a, *y = b;
	return xio_layer_key_order(x->domid, x->dev, x->via, y->domid, y->dev, y->via);
}

/* Each sample_add_*() appends one item to its array (sample.h). */
#define SAMPLE_ADD(fn, item_type, array)                                                           \
	int fn(struct xio_sample *s, const item_type *item)                                        \
	{                                                                                          \
		return arrays_append((void **)&s->array, &s->n_##array, item, sizeof(*item));      \
	}

SAMPLE_ADD(sample_add_layer, struct xio_layer, layers)
SAMPLE_ADD(sample_add_dev, struct xio_dev, devs)
SAMPLE_ADD(sample_add_disk, struct xio_disk, disks)
SAMPLE_ADD(sample_add_domain, struct xio_domain, domains)
SAMPLE_ADD(sample_add_counters, struct xio_dom_counters, counters)
SAMPLE_ADD(sample_add_vbd_stat, struct xio_vbd_stat, vbd_stats)
SAMPLE_ADD(sample_add_latency, struct xio_latency, latency)

const struct xio_vbd_stat *sample_vbd_stat(const struct xio_sample *s, uint32_t domid,
                                           uint32_t devid)
{
	for (size_t i = 0; i < s->n_vbd_stats; i++)
		if (s->vbd_stats[i].domid == domid && s->vbd_stats[i].devid == devid)
			return &s->vbd_stats[i];
	return NULL;
}

const struct xio_latency *sample_latency(const struct xio_sample *s, uint32_t domid, uint32_t op)
{
	for (size_t i = 0; i < s->n_latency; i++)
		if (s->latency[i].domid == domid && s->latency[i].op == op)
			return &s->latency[i];
	return NULL;
}

/* The hook each kind of backend is timed by (bpf/latency.bpf.h), in bit order. */
static const struct {
	uint32_t bit;
	const char *hook;
} untimed_hooks[] = {
    {XIO_UNTIMED_RQ, "block_rq_complete"},
    {XIO_UNTIMED_BIO, "block_bio_complete"},
    {XIO_UNTIMED_SYSCALL, "sys_enter/sys_exit"},
};

const char *xio_untimed_hook(uint32_t untimed)
{
	for (size_t i = 0; i < sizeof(untimed_hooks) / sizeof(untimed_hooks[0]); i++)
		if (untimed & untimed_hooks[i].bit)
			return untimed_hooks[i].hook;
	return "";
}
