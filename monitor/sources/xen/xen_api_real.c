/* xen_api_real.c - the xen_api table over the real libxenstore and libxenstat; see
 * xen_api.h. Each wrapper is the library call and nothing else, except xenstat_init,
 * whose stderr chatter (from libxencall/libxenctrl) is caught and returned as text. */
#include "sources/xen/xen_api.h"

#ifdef XIOTOP_HAVE_XEN

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xenstat.h>
#include <xenstore.h>

_Static_assert(XEN_API_STAT_XEN_VERSION == XENSTAT_XEN_VERSION, "xenstat.h flag values changed");

static struct xs_handle *real_xs_open(void)
{
	return xs_open(XS_OPEN_READONLY);
}

static char **real_xs_directory(struct xs_handle *h, const char *path, unsigned int *num)
{
	return xs_directory(h, XBT_NULL, path, num);
}

static void *real_xs_read(struct xs_handle *h, const char *path, unsigned int *len)
{
	return xs_read(h, XBT_NULL, path, len);
}

static bool real_xs_owner(struct xs_handle *h, const char *path, unsigned int *owner)
{
	unsigned int n = 0;
	struct xs_permissions *perms = xs_get_permissions(h, XBT_NULL, path, &n);
	if (!perms)
		return false;
	bool known = n > 0;
	if (known)
		*owner = perms[0].id;
	else
		errno = ENOENT;
	free(perms);
	return known;
}

/* The first line libxenctrl printed while failing, else errno's text. */
static void caught_reason(FILE *caught, int err_no, struct xerr *err)
{
	char line[256] = "";
	if (caught) {
		rewind(caught);
		if (!fgets(line, sizeof(line), caught))
			line[0] = '\0';
		line[strcspn(line, "\r\n")] = '\0';
	}
	if (line[0])
		xerr_set(err, XERR_PREREQ, "%s", line);
	else
		xerr_set(err, XERR_PREREQ, "%s", err_no ? strerror(err_no) : "no reason given");
}

static struct xenstat_handle *real_xenstat_init(struct xerr *err)
{
	FILE *caught = tmpfile();
	int saved = -1;
	fflush(stderr);
	if (caught && (saved = dup(STDERR_FILENO)) >= 0)
		dup2(fileno(caught), STDERR_FILENO);
	errno = 0;
	struct xenstat_handle *h = xenstat_init();
	int err_no = errno;
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	if (!h)
		caught_reason(caught, err_no, err);
	if (caught)
		fclose(caught);
	errno = err_no;
	return h;
}

static const char *real_node_xen_version(struct xenstat_node *n)
{
	return xenstat_node_xen_version(n);
}

static const struct xen_api real_api = {
    .xs_open = real_xs_open,
    .xs_close = xs_close,
    .xs_directory = real_xs_directory,
    .xs_read = real_xs_read,
    .xs_watch = xs_watch,
    .xs_fileno = xs_fileno,
    .xs_check_watch = xs_check_watch,
    .xs_owner = real_xs_owner,
    .xenstat_init = real_xenstat_init,
    .xenstat_uninit = xenstat_uninit,
    .xenstat_get_node = xenstat_get_node,
    .xenstat_free_node = xenstat_free_node,
    .xenstat_node_xen_version = real_node_xen_version,
    .xenstat_node_num_domains = xenstat_node_num_domains,
    .xenstat_node_domain_by_index = xenstat_node_domain_by_index,
    .xenstat_domain_id = xenstat_domain_id,
    .xenstat_domain_cpu_ns = xenstat_domain_cpu_ns,
    .xenstat_domain_cur_mem = xenstat_domain_cur_mem,
};

const struct xen_api *xen_api_real(void)
{
	return &real_api;
}

#else /* built without libxenstore/libxenstat */

const struct xen_api *xen_api_real(void)
{
	return NULL;
}

#endif
