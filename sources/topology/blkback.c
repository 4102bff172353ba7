/* blkback.c - recognise xen-blkback kthread names, which tell which domain a bio is
 * submitted for.
 *
 * Current kernels name ring threads "<domid>.<dev>-<ring>" ("5.xvda-0"), older ones
 * "blkback.<domid>.<dev>". Task names are cut at 15 characters, so the ring, the '-'
 * or the end of <dev> may be missing: the domid, at the front, always survives.
 * <dev> comes from the backend's "dev" node ("xvda", "hda", "sdb1").
 */
#include "sources/topology/topology.h"

#include <string.h>

#define MAX_DOMID 0x7fff

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Decimal domid as the kernel prints it (%d: no sign, no leading zero), then '.'. */
static const char *parse_domid_dot(const char *s, uint32_t *domid)
{
	uint32_t v = 0;
	const char *p = s;
	while (is_digit(*p)) {
		if (p - s >= 5)
			return NULL;
		v = v * 10 + (uint32_t)(*p - '0');
		p++;
	}
	if (p == s || *p != '.' || v > MAX_DOMID || (s[0] == '0' && p - s > 1))
		return NULL;
	*domid = v;
	return p + 1;
}

/* A device name: a letter, then letters, digits, '_'. Returns its end. */
static const char *parse_dev(const char *s)
{
	if (!is_alpha(*s))
		return NULL;
	const char *p = s + 1;
	while (is_alpha(*p) || is_digit(*p) || *p == '_')
		p++;
	return p;
}

static void copy_dev(char *dev, size_t devlen, const char *s, size_t n)
{
	if (!dev || !devlen)
		return;
	if (n >= devlen)
		n = devlen - 1;
	memcpy(dev, s, n);
	dev[n] = '\0';
}

bool topo_parse_blkback_comm(const char *comm, uint32_t *domid, char *dev, size_t devlen)
{
	if (!comm)
		return false;
	bool old_style = strncmp(comm, "blkback.", 8) == 0;
	uint32_t id;
	const char *name = parse_domid_dot(old_style ? comm + 8 : comm, &id);
	if (!name)
		return false;
	const char *end = parse_dev(name);
	if (!end)
		return false;
	if (!old_style && *end == '-') {
		/* ring number, possibly cut away */
		const char *r = end + 1;
		while (is_digit(*r))
			r++;
		if (*r)
			return false;
	} else if (*end) {
		return false;
	}
	if (domid)
		*domid = id;
	copy_dev(dev, devlen, name, (size_t)(end - name));
	return true;
}
