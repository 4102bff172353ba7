/* pathpolicy.c - which paths named in xenstore xiotop may follow (stat, readlink).
 *
 * xenstore values are written by toolstacks and hotplug scripts, and a compromised or
 * careless one can name any file: xiotop, running as root, must not be steered into
 * probing the host. Allowed: absolute paths with no ".." component, under /dev, or
 * under a --image-dir (also after resolving symlinks, so a link inside an image
 * directory cannot point out of it). Without --image-dir any such path is allowed:
 * images live anywhere, and ".." is the one trick that is never needed.
 */
#include "sources/topology/topology.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static bool has_dotdot_component(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2) {
		bool starts = p == path || p[-1] == '/';
		bool ends = p[2] == '\0' || p[2] == '/';
		if (starts && ends)
			return true;
	}
	return false;
}

/* Is `path` the directory `dir` or below it? Compared as text, trailing '/' ignored. */
static bool is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(path, dir, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/');
}

/* `resolved`: path is a realpath, so compare with each directory's realpath as well (an
 * image directory may itself be a symlink, /srv/xen -> /data/xen). */
static bool under_image_dir(const struct xt_roots *roots, const char *path, bool resolved)
{
	for (size_t i = 0; i < roots->n_image_dirs; i++) {
		const char *dir = roots->image_dirs[i];
		char real_dir[PATH_MAX];
		if (!dir)
			continue;
		if (is_under(path, dir) ||
		    (resolved && realpath(dir, real_dir) && is_under(path, real_dir)))
			return true;
	}
	return false;
}

static void list_dirs(const struct xt_roots *roots, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < roots->n_image_dirs && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
		                 roots->image_dirs[i] ? roots->image_dirs[i] : "");
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

bool topo_path_allowed(const struct xt_roots *roots, const char *key, const char *path, char *why,
                       size_t whylen)
{
	if (!path || path[0] != '/') {
		snprintf(why, whylen, "%s %s refused: not an absolute path", key, path ? path : "");
		return false;
	}
	if (has_dotdot_component(path)) {
		snprintf(why, whylen,
		         "%s %s refused: a \"..\" component (xiotop follows only /dev and files "
		         "named without \"..\")",
		         key, path);
		return false;
	}
	if (is_under(path, "/dev") || !roots || !roots->n_image_dirs)
		return true;
	char dirs[256];
	list_dirs(roots, dirs, sizeof(dirs));
	if (!under_image_dir(roots, path, false)) {
		snprintf(why, whylen, "%s %s refused: outside /dev and --image-dir %s", key, path,
		         dirs);
		return false;
	}
	/* a file that does not exist is reported missing by the resolver, not refused */
	char real[PATH_MAX];
	if (realpath(path, real) && !under_image_dir(roots, real, true) &&
	    !is_under(real, "/dev")) {
		snprintf(why, whylen, "%s %s refused: it leads to %s, outside --image-dir %s", key,
		         path, real, dirs);
		return false;
	}
	return true;
}
