/* resolve.c - walk sysfs from a backend device (or image file) down to the physical
 * devices it ends on, recording each step as a layer.
 *
 * sysfs facts used: /sys/dev/block/MAJ:MIN links to the device's directory; a
 * partition's directory holds a `partition` file and sits inside its whole disk's
 * directory; a bound loop device has loop/backing_file; dm and md devices link their
 * lower devices in slaves/. A file's own device comes from stat(); filesystems on an
 * anonymous device (btrfs, overlay) are mapped to their source through mountinfo.
 */
#include "sources/attr.h"
#include "sources/topology/topology.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAX_DEPTH  16  /* deepest layer; real stacks are < 8, deeper means a loop */
#define MAX_LAYERS 256 /* a stack fanning out wider than this is not a real one */

struct walk {
	const struct xt_roots *roots;
	struct xt_backend *b;
	uint32_t chain[MAX_DEPTH + 2]; /* devices from the backend to here: cycle check */
	int chain_len;
};

static const char *sysfs_root(const struct xt_roots *r)
{
	return r && r->sysfs ? r->sysfs : "/sys";
}

static const char *proc_root(const struct xt_roots *r)
{
	return r && r->proc ? r->proc : "/proc";
}

static const char *dev_root(const struct xt_roots *r)
{
	return r && r->dev ? r->dev : "/dev";
}

static uint32_t kdev_from_stat(dev_t d)
{
	if (major(d) > 0xfff || minor(d) > 0xfffff)
		return 0;
	return XT_KDEV(major(d), minor(d));
}

/* First problem wins: it is usually the cause of the ones after it. */
static void note(struct xt_backend *b, const char *fmt, ...)
{
	if (b->error)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	b->error = strdup(buf);
}

/* "MAJ:MIN" in decimal, as sysfs `dev` files and mountinfo write it. */
static uint32_t parse_dec_majmin(const char *s)
{
	char *end;
	errno = 0;
	unsigned long maj = strtoul(s, &end, 10);
	if (end == s || *end != ':' || !isdigit((unsigned char)*s))
		return 0;
	const char *m = end + 1;
	unsigned long min = strtoul(m, &end, 10);
	if (end == m || *end || !isdigit((unsigned char)*m) || errno || maj > 0xfff ||
	    min > 0xfffff)
		return 0;
	return XT_KDEV(maj, min);
}

/* The canonical sysfs directory of a device, or false if sysfs does not know it. */
static bool dev_dir(const struct xt_roots *roots, uint32_t dev, char *dir)
{
	char link[PATH_MAX];
	if (!dev)
		return false;
	if (snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs_root(roots),
	             XT_KDEV_MAJOR(dev), XT_KDEV_MINOR(dev)) >= (int)sizeof(link))
		return false;
	return realpath(link, dir) != NULL;
}

static bool path_exists(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;
	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return false;
	return stat(p, &st) == 0;
}

static bool name_is_loop(const char *name)
{
	if (strncmp(name, "loop", 4) != 0 || !name[4])
		return false;
	for (const char *c = name + 4; *c; c++)
		if (!isdigit((unsigned char)*c))
			return false;
	return true;
}

/* Opens the directory named by fmt into p (PATH_MAX bytes): NULL when the name does not
 * fit or it does not open. */
static DIR *open_dirf(char *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static DIR *open_dirf(char *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(p, PATH_MAX, fmt, ap);
	va_end(ap);
	return n >= 0 && n < PATH_MAX ? opendir(p) : NULL;
}

static size_t count_slaves(const char *dir)
{
	char p[PATH_MAX];
	DIR *d = open_dirf(p, "%s/slaves", dir);
	if (!d)
		return 0;
	size_t n = 0;
	const struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* An md array whose level writes each block to more than one member (mirrors, parity). */
static bool md_redundant(const char *dir)
{
	static const char *const levels[] = {"raid1", "raid4", "raid5", "raid6", "raid10"};
	char p[PATH_MAX], level[16];
	if (snprintf(p, sizeof(p), "%s/md/level", dir) >= (int)sizeof(p) ||
	    !attr_read_line(p, level, sizeof(level)))
		return false;
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (!strcmp(level, levels[i]))
			return true;
	return false;
}

/* Is the device a member of a redundant md array (one of its holders/)? */
static bool held_by_array(const char *dir)
{
	char p[PATH_MAX], holder[PATH_MAX];
	DIR *d = open_dirf(p, "%s/holders", dir);
	if (!d)
		return false;
	bool found = false;
	const struct dirent *e;
	while (!found && (e = readdir(d)))
		found =
		    e->d_name[0] != '.' &&
		    snprintf(holder, sizeof(holder), "%s/%s", p, e->d_name) < (int)sizeof(holder) &&
		    md_redundant(holder);
	closedir(d);
	return found;
}

static void fill_devinfo(const char *dir, struct xt_devinfo *out)
{
	const char *slash = strrchr(dir, '/');
	snprintf(out->name, sizeof(out->name), "%s", slash ? slash + 1 : dir);
	out->exists = true;
	out->is_partition = path_exists(dir, "partition");
	if (out->is_partition && slash) {
		char p[PATH_MAX], val[64];
		if (snprintf(p, sizeof(p), "%.*s/dev", (int)(slash - dir), dir) < (int)sizeof(p) &&
		    attr_read_line(p, val, sizeof(val)))
			out->parent = parse_dec_majmin(val);
	}
	out->is_loop = !out->is_partition && (path_exists(dir, "loop") || name_is_loop(out->name));
	out->is_leaf = !out->is_partition && !out->is_loop && count_slaves(dir) == 0;
	out->is_array = !out->is_leaf && md_redundant(dir);
	out->in_array = held_by_array(dir);
}

int topo_devinfo(const struct xt_roots *roots, uint32_t dev, struct xt_devinfo *out)
{
	char dir[PATH_MAX];
	memset(out, 0, sizeof(*out));
	if (!dev_dir(roots, dev, dir))
		return -1;
	fill_devinfo(dir, out);
	return 0;
}

/* A block device name is one sysfs directory entry: never a path. */
static bool valid_dev_name(const char *name)
{
	return name && *name && strlen(name) < 32 && !strchr(name, '/') && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
}

uint32_t topo_dev_by_name(const struct xt_roots *roots, const char *name)
{
	char p[PATH_MAX], val[64];
	if (!valid_dev_name(name))
		return 0;
	const char *sys = sysfs_root(roots);
	if (snprintf(p, sizeof(p), "%s/class/block/%s/dev", sys, name) < (int)sizeof(p) &&
	    attr_read_line(p, val, sizeof(val))) {
		uint32_t dev = parse_dec_majmin(val);
		if (dev)
			return dev;
	}
	/* no class/block (old or partial sysfs): find the dev/block link named so */
	DIR *d = open_dirf(p, "%s/dev/block", sys);
	if (!d)
		return 0;
	uint32_t found = 0;
	const struct dirent *e;
	while (!found && (e = readdir(d))) {
		char link[PATH_MAX], target[PATH_MAX];
		if (e->d_name[0] == '.' ||
		    snprintf(link, sizeof(link), "%s/%s", p, e->d_name) >= (int)sizeof(link))
			continue;
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		const char *base = strrchr(target, '/');
		if (strcmp(base ? base + 1 : target, name) == 0)
			found = parse_dec_majmin(e->d_name);
	}
	closedir(d);
	return found;
}

uint32_t topo_dev_by_path(const struct xt_roots *roots, const char *path)
{
	if (!path || strncmp(path, "/dev/", 5) != 0)
		return 0;
	const char *rest = path + 5;
	char p[PATH_MAX];
	struct stat st;
	if (snprintf(p, sizeof(p), "%s/%s", dev_root(roots), rest) >= (int)sizeof(p))
		return 0;
	if (stat(p, &st) == 0 && S_ISBLK(st.st_mode))
		return kdev_from_stat(st.st_rdev);
	if (!strchr(rest, '/'))
		return topo_dev_by_name(roots, rest);
	/* /dev/mapper/vg-lv, /dev/vg/lv, /dev/disk/by-id/...: links to ../dm-N, ../../sda */
	char target[PATH_MAX];
	ssize_t n = readlink(p, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	return topo_dev_by_name(roots, base ? base + 1 : target);
}

/* The block device behind an anonymous filesystem device (btrfs subvolumes, 0:NN),
 * from the mount source in mountinfo; 0 if none is a block device. */
static uint32_t dev_from_mountinfo(const struct xt_roots *roots, uint32_t fs_dev)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof(p), "%s/self/mountinfo", proc_root(roots)) >= (int)sizeof(p))
		return 0;
	FILE *f = fopen(p, "r");
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0;
	uint32_t found = 0;
	while (!found && getline(&line, &cap, f) > 0) {
		char majmin[32];
		if (sscanf(line, "%*s %*s %31s", majmin) != 1 || parse_dec_majmin(majmin) != fs_dev)
			continue;
		const char *dash = strstr(line, " - ");
		char fstype[64], source[PATH_MAX];
		if (!dash || sscanf(dash + 3, "%63s %4095s", fstype, source) != 2)
			continue;
		found = topo_dev_by_path(roots, source);
	}
	free(line);
	fclose(f);
	return found;
}

static struct xt_layer *add_layer(struct xt_backend *b, enum xt_role role, int depth)
{
	if (b->n_layers >= MAX_LAYERS) {
		note(b, "stack has more than %d layers; cut", MAX_LAYERS);
		return NULL;
	}
	struct xt_layer *nl = realloc(b->layers, (b->n_layers + 1) * sizeof(*nl));
	if (!nl) {
		note(b, "out of memory");
		return NULL;
	}
	b->layers = nl;
	struct xt_layer *l = &b->layers[b->n_layers++];
	memset(l, 0, sizeof(*l));
	l->role = role;
	l->depth = depth;
	return l;
}

static void walk_dev(struct walk *w, uint32_t dev, int depth);

/* Below a file: the device of the filesystem holding it. */
static void walk_fs(struct walk *w, const char *file, uint32_t fs_dev, int depth)
{
	char dir[PATH_MAX];
	uint32_t dev = fs_dev;
	if (!dev_dir(w->roots, dev, dir))
		dev = dev_from_mountinfo(w->roots, fs_dev);
	if (!dev) {
		note(w->b, "%s is on %u:%u, which is not a block device", file,
		     XT_KDEV_MAJOR(fs_dev), XT_KDEV_MINOR(fs_dev));
		return;
	}
	walk_dev(w, dev, depth);
}

/* The inode a loop device holds, asked of the device itself (root only): it still
 * knows a backing file whose name was deleted. 0 on success. */
static int loop_held_inode(const struct xt_roots *roots, const char *loop_name, uint64_t *ino,
                           uint32_t *fs_dev)
{
	char node[PATH_MAX];
	if (!loop_name ||
	    snprintf(node, sizeof(node), "%s/%s", dev_root(roots), loop_name) >= (int)sizeof(node))
		return -1;
	int fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct loop_info64 info;
	int rc = ioctl(fd, LOOP_GET_STATUS64, &info);
	close(fd);
	if (rc || !info.lo_inode)
		return -1;
	*ino = info.lo_inode;
	*fs_dev = kdev_from_stat((dev_t)info.lo_device);
	return 0;
}

/* A file layer at `depth` and what holds it; `loop_name` is the loop device it backs
 * (NULL for an image file). */
static void walk_file(struct walk *w, const char *path, bool deleted, const char *loop_name,
                      int depth)
{
	struct xt_layer *l = add_layer(w->b, XT_ROLE_FILE, depth);
	if (!l)
		return;
	l->path = strdup(path);
	if (deleted) {
		/* the loop still holds the inode, but its name now leads nowhere (or to
		 * a different file): do not stat it; the loop device can say which it is */
		note(w->b, "backing file %s was deleted", path);
		if (loop_held_inode(w->roots, loop_name, &l->ino, &l->fs_dev) == 0)
			walk_fs(w, path, l->fs_dev, depth + 1);
		return;
	}
	struct stat st;
	if (stat(path, &st) != 0) {
		note(w->b, "%s: %s", path, strerror(errno));
		return;
	}
	if (S_ISBLK(st.st_mode)) {
		/* loop over a device node: the node's inode is on devtmpfs, I/O goes to it */
		walk_dev(w, kdev_from_stat(st.st_rdev), depth + 1);
		return;
	}
	l->ino = (uint64_t)st.st_ino;
	l->fs_dev = kdev_from_stat(st.st_dev);
	walk_fs(w, path, l->fs_dev, depth + 1);
}

/* loop/dio: "1" while the loop device does direct I/O on its file, "0" while it buffers */
static enum xt_loop_mode loop_mode(const char *dir)
{
	char p[PATH_MAX], dio[8];
	if (snprintf(p, sizeof(p), "%s/loop/dio", dir) >= (int)sizeof(p) ||
	    !attr_read_line(p, dio, sizeof(dio)))
		return XT_LOOP_MODE_UNKNOWN;
	return strcmp(dio, "1") == 0   ? XT_LOOP_DIRECT_IO
	       : strcmp(dio, "0") == 0 ? XT_LOOP_BUFFERED
	                               : XT_LOOP_MODE_UNKNOWN;
}

static void walk_loop(struct walk *w, const char *dir, const char *name, int depth)
{
	char p[PATH_MAX], backing[PATH_MAX];
	if (snprintf(p, sizeof(p), "%s/loop/backing_file", dir) >= (int)sizeof(p) ||
	    !attr_read_line(p, backing, sizeof(backing)) || !backing[0]) {
		note(w->b, "%s has no backing file", name);
		return;
	}
	static const char deleted_tag[] = " (deleted)";
	size_t n = strlen(backing), tag = sizeof(deleted_tag) - 1;
	bool deleted = n > tag && strcmp(backing + n - tag, deleted_tag) == 0;
	if (deleted)
		backing[n - tag] = '\0';
	walk_file(w, backing, deleted, name, depth + 1);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dm and md: each lower device in slaves/, in name order so output is stable. */
static void walk_slaves(struct walk *w, const char *dir, const char *name, int depth)
{
	char p[PATH_MAX];
	DIR *d = open_dirf(p, "%s/slaves", dir);
	if (!d)
		return;
	char **names = NULL;
	size_t n = 0;
	const struct dirent *e;
	while ((e = readdir(d)) && n < MAX_LAYERS) {
		if (e->d_name[0] == '.')
			continue;
		char **nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn)
			break;
		names = nn;
		if ((names[n] = strdup(e->d_name)))
			n++;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char attr[PATH_MAX], val[64];
		uint32_t dev = 0;
		if (snprintf(attr, sizeof(attr), "%s/%s/dev", p, names[i]) < (int)sizeof(attr) &&
		    attr_read_line(attr, val, sizeof(val)))
			dev = parse_dec_majmin(val);
		if (!dev)
			dev = topo_dev_by_name(w->roots, names[i]);
		if (dev)
			walk_dev(w, dev, depth + 1);
		else
			note(w->b, "%s: lower device %s not found", name, names[i]);
		free(names[i]);
	}
	free(names);
}

static void walk_dev(struct walk *w, uint32_t dev, int depth)
{
	char dir[PATH_MAX];
	struct xt_devinfo info;
	if (depth > MAX_DEPTH) {
		note(w->b, "stack deeper than %d layers; cut", MAX_DEPTH);
		return;
	}
	for (int i = 0; i < w->chain_len; i++) {
		if (w->chain[i] == dev) {
			note(w->b, "device %u:%u is below itself; cut", XT_KDEV_MAJOR(dev),
			     XT_KDEV_MINOR(dev));
			return;
		}
	}
	memset(&info, 0, sizeof(info));
	if (!dev_dir(w->roots, dev, dir)) {
		note(w->b, "device %u:%u not found in sysfs", XT_KDEV_MAJOR(dev),
		     XT_KDEV_MINOR(dev));
		return;
	}
	fill_devinfo(dir, &info);
	enum xt_role role = depth == 0     ? XT_ROLE_BACKEND
	                    : info.is_leaf ? XT_ROLE_LEAF
	                                   : XT_ROLE_STACKED;
	struct xt_layer *l = add_layer(w->b, role, depth);
	if (!l)
		return;
	l->dev = dev;
	l->name = strdup(info.name);
	l->is_leaf = info.is_leaf;

	w->chain[w->chain_len++] = dev;
	if (info.is_partition) {
		if (info.parent)
			walk_dev(w, info.parent, depth + 1);
		else
			note(w->b, "partition %s: whole disk not found", info.name);
	} else if (info.is_loop) {
		l->loop_mode = loop_mode(dir); /* before walk_loop: its layers may move l */
		walk_loop(w, dir, info.name, depth);
	} else if (!info.is_leaf) {
		walk_slaves(w, dir, info.name, depth);
	}
	w->chain_len--;
}

int topo_resolve_dev(const struct xt_roots *roots, uint32_t dev, struct xt_backend *b)
{
	char dir[PATH_MAX];
	b->backend_dev = dev;
	if (!dev_dir(roots, dev, dir)) {
		b->missing = true;
		note(b, "device %u:%u not found in sysfs", XT_KDEV_MAJOR(dev), XT_KDEV_MINOR(dev));
		return -1;
	}
	struct walk w = {.roots = roots, .b = b};
	walk_dev(&w, dev, 0);
	return 0;
}

int topo_resolve_file(const struct xt_roots *roots, const char *path, struct xt_backend *b)
{
	if (!path || !*path) {
		b->missing = true;
		note(b, "no path");
		return -1;
	}
	if (strncmp(path, "/dev/", 5) == 0) {
		uint32_t dev = topo_dev_by_path(roots, path);
		if (dev)
			return topo_resolve_dev(roots, dev, b);
		b->missing = true;
		note(b, "block device %s not found", path);
		return -1;
	}
	struct stat st;
	if (stat(path, &st) != 0) {
		b->missing = true;
		note(b, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISBLK(st.st_mode))
		return topo_resolve_dev(roots, kdev_from_stat(st.st_rdev), b);
	struct walk w = {.roots = roots, .b = b};
	walk_file(&w, path, false, NULL, 0);
	return 0;
}
