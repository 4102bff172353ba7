/* blkback_stats.c - read blkback's per-vbd statistics from sysfs; see blkback_stats.h. */
#include "sources/xen/blkback_stats.h"
#include "sources/attr.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DOMID   0x7fff
#define SECTOR_SIZE 512u

/* Plain decimal, no sign, no leading zero, within max. */
static bool parse_dec(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	if (!len || len > 20 || (len > 1 && s[0] == '0'))
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		uint64_t digit = (uint64_t)(s[i] - '0');
		if (v > (max - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

bool blkback_parse_vbd_name(const char *name, uint32_t *domid, uint32_t *devid)
{
	if (strncmp(name, "vbd-", 4) != 0)
		return false;
	const char *d = name + 4, *dash = strchr(d, '-');
	uint64_t dom, dev;
	if (!dash || !parse_dec(d, (size_t)(dash - d), MAX_DOMID, &dom) ||
	    !parse_dec(dash + 1, strlen(dash + 1), UINT32_MAX, &dev))
		return false;
	*domid = (uint32_t)dom;
	*devid = (uint32_t)dev;
	return true;
}

/* One attribute: a line of text, newline optional. */
static bool read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return false;
	return attr_read_line(p, buf, len);
}

static bool read_u64(const char *dir, const char *name, uint64_t *out)
{
	char buf[32];
	return read_line(dir, name, buf, sizeof(buf)) &&
	       parse_dec(buf, strlen(buf), UINT64_MAX, out);
}

/* physical_device: "%x:%x" (blkback's be->major, be->minor); 0 if unreadable. */
static uint32_t read_physical_device(const char *dir)
{
	char buf[32], *end;
	if (!read_line(dir, "physical_device", buf, sizeof(buf)) ||
	    !isxdigit((unsigned char)buf[0]))
		return 0;
	unsigned long maj = strtoul(buf, &end, 16);
	if (*end != ':' || !isxdigit((unsigned char)end[1]))
		return 0;
	const char *m = end + 1;
	unsigned long min = strtoul(m, &end, 16);
	if (*end || maj > 0xfff || min > 0xfffff)
		return 0;
	return XT_KDEV(maj, min);
}

/* The counters of one vbd directory; false if any is missing or not a number. */
static bool read_vbd(const char *dir, struct xio_vbd_stat *v)
{
	char stats[PATH_MAX];
	struct stat st;
	uint64_t rd_sect, wr_sect;
	if (snprintf(stats, sizeof(stats), "%s/statistics", dir) >= (int)sizeof(stats) ||
	    stat(dir, &st) != 0)
		return false;
	if (!read_u64(stats, "rd_sect", &rd_sect) || !read_u64(stats, "wr_sect", &wr_sect) ||
	    !read_u64(stats, "rd_req", &v->rd_req) || !read_u64(stats, "wr_req", &v->wr_req) ||
	    !read_u64(stats, "oo_req", &v->oo_req) || !read_u64(stats, "f_req", &v->f_req) ||
	    !read_u64(stats, "ds_req", &v->ds_req))
		return false;
	if (rd_sect > UINT64_MAX / SECTOR_SIZE || wr_sect > UINT64_MAX / SECTOR_SIZE)
		return false;
	v->rd_bytes = rd_sect * SECTOR_SIZE;
	v->wr_bytes = wr_sect * SECTOR_SIZE;
	v->instance = (uint64_t)st.st_ino;
	v->backend_dev = read_physical_device(dir);
	v->source = XIO_VBD_BLKBACK;
	return true;
}

int blkback_read_stats(const struct xt_roots *roots, struct xio_sample *s)
{
	char bus[PATH_MAX];
	const char *sys = roots && roots->sysfs ? roots->sysfs : "/sys";
	if (snprintf(bus, sizeof(bus), "%s/bus/xen-backend/devices", sys) >= (int)sizeof(bus))
		return 0;
	DIR *d = opendir(bus);
	if (!d)
		return 0; /* not a Xen dom0 (or blkback not loaded): nothing to compare with */
	s->has_vbd_stats = true;
	int rc = 0;
	const struct dirent *e;
	while (!rc && (e = readdir(d))) {
		struct xio_vbd_stat v = {0};
		char dir[PATH_MAX];
		if (!blkback_parse_vbd_name(e->d_name, &v.domid, &v.devid) ||
		    snprintf(dir, sizeof(dir), "%s/%s", bus, e->d_name) >= (int)sizeof(dir) ||
		    !read_vbd(dir, &v))
			continue;
		rc = sample_add_vbd_stat(s, &v);
	}
	closedir(d);
	return rc;
}
