/* lat_untimed.c - whether a domain's latency is timed; see lat_untimed.h. */
#include "sources/lat_untimed.h"

#include <stdio.h>
#include <unistd.h>

#include "core/sample.h"

bool lat_dev_is_blk_mq(const char *sysfs, uint32_t dev)
{
	char p[512];
	unsigned int major = XT_KDEV_MAJOR(dev), minor = XT_KDEV_MINOR(dev);
	snprintf(p, sizeof(p), "%s/dev/block/%u:%u/mq", sysfs, major, minor);
	if (!access(p, F_OK))
		return true;
	snprintf(p, sizeof(p), "%s/dev/block/%u:%u/partition", sysfs, major, minor);
	if (access(p, F_OK))
		return false;
	snprintf(p, sizeof(p), "%s/dev/block/%u:%u/../mq", sysfs, major, minor);
	return !access(p, F_OK);
}

uint32_t lat_untimed_backend(const struct xt_backend *b, const struct lat_hooks *h,
                             const char *sysfs)
{
	for (size_t i = 0; !b->missing && i < b->n_layers; i++) {
		const struct xt_layer *l = &b->layers[i];
		if (l->depth != 0)
			continue;
		if (l->role == XT_ROLE_FILE)
			return h->syscalls ? 0 : XIO_UNTIMED_SYSCALL;
		if (!l->dev)
			return 0;
		if (lat_dev_is_blk_mq(sysfs, l->dev))
			return h->rq ? 0 : XIO_UNTIMED_RQ;
		return h->bio ? 0 : XIO_UNTIMED_BIO;
	}
	return 0;
}

uint32_t lat_untimed_domain(const struct xt_domain *d, const struct lat_hooks *h, const char *sysfs)
{
	uint32_t untimed = 0;
	for (size_t j = 0; j < d->n_backends; j++)
		untimed |= lat_untimed_backend(&d->backends[j], h, sysfs);
	return untimed;
}
