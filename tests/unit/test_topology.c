/* test_topology.c - domains and backends from a xenstore dump, each backend's stack
 * resolved through a fake sysfs built in a temporary directory (loop over a real temp
 * file, partition of a loop, dm over md over two disks, LV-like dm on a partition,
 * zram, missing and odd backends), and the text/JSON output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sources/topology/topology.h"

/* Fake device numbers use majors 120-126 (reserved for local use) so they can never
 * be the real device of the temp directory, which the fake sysfs also describes. */
static char root[PATH_MAX];
static char sysfs[PATH_MAX], devfs[PATH_MAX], procfs[PATH_MAX];
static struct xt_roots roots;
static struct xt_topology topo;
static uint32_t host_fs_dev;        /* real st_dev of the temp dir, as a kernel dev_t */
static const char *cur_sys = sysfs; /* the fake sysfs add_dev() and friends write to */

/* snprintf that fails the test instead of cutting a path */
__attribute__((format(printf, 3, 4))) static void fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		fail_msg("path too long");
}

static const char *in_root(const char *rel)
{
	static char bufs[4][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 4];
	fmt(b, PATH_MAX, "%s/%s", root, rel);
	return b;
}

static void make_dirs(const char *path)
{
	char p[PATH_MAX];
	fmt(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", p, strerror(errno));
		*s = '/';
	}
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", p, strerror(errno));
}

static void write_text(const char *path, const char *text)
{
	char dir[PATH_MAX];
	fmt(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	make_dirs(dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		fail_msg("create %s: %s", path, strerror(errno));
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* A relative symlink at sysfs/<from_dir>/<name> to sysfs/<to>, as sysfs makes them. */
static void sys_link(const char *from_dir, const char *name, const char *to)
{
	char target[PATH_MAX] = "", link[PATH_MAX], dir[PATH_MAX];
	for (const char *s = from_dir; s; s = strchr(s + 1, '/'))
		strcat(target, "../");
	strcat(target, to);
	fmt(dir, sizeof(dir), "%s/%s", cur_sys, from_dir);
	make_dirs(dir);
	fmt(link, sizeof(link), "%s/%s", dir, name);
	if (symlink(target, link) != 0)
		fail_msg("symlink %s: %s", link, strerror(errno));
}

/* A block device at sysfs/<dir>, with its dev/block and class/block links. */
static void add_dev(const char *dir, unsigned maj, unsigned min, bool partition)
{
	char p[PATH_MAX], val[32], num[32];
	const char *name = strrchr(dir, '/') + 1;
	fmt(val, sizeof(val), "%u:%u\n", maj, min);
	fmt(p, sizeof(p), "%s/%s/dev", cur_sys, dir);
	write_text(p, val);
	if (partition) {
		fmt(p, sizeof(p), "%s/%s/partition", cur_sys, dir);
		write_text(p, "1\n");
	}
	fmt(num, sizeof(num), "%u:%u", maj, min);
	sys_link("dev/block", num, dir);
	sys_link("class/block", name, dir);
}

static void add_slave(const char *upper, const char *lower)
{
	char from[PATH_MAX];
	fmt(from, sizeof(from), "%s/slaves", upper);
	sys_link(from, strrchr(lower, '/') + 1, lower);
}

static void add_backing(const char *loop_dir, const char *backing)
{
	char p[PATH_MAX], val[PATH_MAX + 2];
	fmt(p, sizeof(p), "%s/%s/loop/backing_file", cur_sys, loop_dir);
	fmt(val, sizeof(val), "%s\n", backing);
	write_text(p, val);
}

/* loop/dio: "1" when the loop device does direct I/O on its file (kernel 4.10 and later) */
static void add_dio(const char *loop_dir, const char *value)
{
	char p[PATH_MAX];
	fmt(p, sizeof(p), "%s/%s/loop/dio", cur_sys, loop_dir);
	write_text(p, value);
}

#define VIRT "devices/virtual/block/"
#define SCSI "devices/platform/host0/target0:0:0/0:0:0:0/block/"

static void build_sysfs(void)
{
	/* the temp dir's filesystem: partition 1 of a disk "hostfs" */
	struct stat st;
	assert_int_equal(stat(root, &st), 0);
	host_fs_dev = XT_KDEV(major(st.st_dev), minor(st.st_dev));
	assert_true(major(st.st_dev) < 120 || major(st.st_dev) > 126);
	add_dev(VIRT "hostfs", 125, 0, false);
	add_dev(VIRT "hostfs/hostfs1", major(st.st_dev), minor(st.st_dev), true);

	add_dev(VIRT "loop0", 120, 0, false);
	add_backing(VIRT "loop0", in_root("img/guest2.img"));
	add_dev(VIRT "loop1", 120, 1, false);
	add_backing(VIRT "loop1", in_root("img/parted.img"));
	add_dio(VIRT "loop0", "0\n");
	add_dio(VIRT "loop1", "1\n"); /* loop2 has none: its mode is unknown */
	add_dev(VIRT "loop1/loop1p1", 126, 1, true);
	add_dev(VIRT "loop2", 120, 2, false);
	char deleted[PATH_MAX];
	fmt(deleted, sizeof(deleted), "%s (deleted)", in_root("img/gone.img"));
	add_backing(VIRT "loop2", deleted);
	add_dev(VIRT "loop7", 120, 7, false); /* unbound: no loop/ directory */

	add_dev(SCSI "sda", 121, 0, false);
	add_dev(SCSI "sda/sda1", 121, 1, true);
	add_dev(SCSI "sda/sda2", 121, 2, true);
	add_dev("devices/platform/host1/block/sdb", 121, 16, false);
	add_dev("devices/platform/host2/block/sdc", 121, 32, false);
	add_dev(VIRT "md0", 122, 0, false);
	add_slave(VIRT "md0", "devices/platform/host1/block/sdb");
	add_slave(VIRT "md0", "devices/platform/host2/block/sdc");
	/* a mirror: its members name it among their holders (dm-0 holds md0, no array) */
	char level[PATH_MAX];
	fmt(level, sizeof(level), "%s/%s/md/level", cur_sys, VIRT "md0");
	write_text(level, "raid1\n");
	sys_link("devices/platform/host1/block/sdb/holders", "md0", VIRT "md0");
	sys_link("devices/platform/host2/block/sdc/holders", "md0", VIRT "md0");
	sys_link(VIRT "md0/holders", "dm-0", VIRT "dm-0");
	add_dev(VIRT "dm-0", 123, 0, false);
	add_slave(VIRT "dm-0", VIRT "md0");
	add_dev(VIRT "dm-1", 123, 1, false);
	add_slave(VIRT "dm-1", SCSI "sda/sda2");
	add_dev(VIRT "zram0", 124, 0, false);
	add_dev(VIRT "dm-5", 123, 5, false); /* a broken sysfs: dm-5 and dm-6 below each other */
	add_dev(VIRT "dm-6", 123, 6, false);
	add_slave(VIRT "dm-5", VIRT "dm-6");
	add_slave(VIRT "dm-6", VIRT "dm-5");

	/* /dev as the fixture sees it: only the links a test needs */
	char p[PATH_MAX];
	fmt(p, sizeof(p), "%s/mapper", devfs);
	make_dirs(p);
	fmt(p, sizeof(p), "%s/mapper/vg-lv1", devfs);
	assert_int_equal(symlink("../dm-1", p), 0);
	make_dirs(procfs);

	write_text(in_root("img/guest2.img"), "guest2 disk\n");
	write_text(in_root("img/parted.img"), "partitioned disk\n");
	write_text(in_root("img/hvm3.img"), "hvm disk\n");
}

/* The store: domains 0-11 (see each test), plus ids that must be ignored. */
static const char dump_fmt[] =
    "/local/domain/0/name = \"Domain-0\"\n"
    "/local/domain/1/name = \"guest1\"\n"
    "/local/domain/0/backend/vbd/1/51712/physical-device = \"7b:1\"\n"
    "/local/domain/0/backend/vbd/1/51712/params = \"/dev/vg0/lv1\"\n"
    "/local/domain/0/backend/vbd/1/51712/dev = \"xvda\"\n"
    "/local/domain/0/backend/vbd/1/51712/type = \"phy\"\n"
    "/local/domain/0/backend/vbd/1/51712/mode = \"w\"\n"
    "/local/domain/0/backend/vbd/1/51728/physical-device = \"7B:0\"\n"
    "/local/domain/0/backend/vbd/1/51728/dev = \"xvdb\"\n"
    "/local/domain/2/name = \"web\\x1b[31mred\"\n"
    "/local/domain/0/backend/vbd/2/51712/physical-device = \"78:0\"\n"
    "/local/domain/0/backend/vbd/2/51712/node = \"/dev/loop0\"\n"
    "/local/domain/0/backend/vbd/2/51712/params = \"%s/img/guest2.img\"\n"
    "/local/domain/0/backend/vbd/2/51712/dev = \"xvda\\x1b]0;pwned\\007\"\n"
    "/local/domain/3/name = \"hvm3\"\n"
    "/local/domain/3/image/device-model-pid = \"2345\"\n"
    "/local/domain/0/libxl/3/qdisk-backend-pid = \"4242\"\n"
    "/local/domain/0/backend/qdisk/3/768/params = \"aio:%s/img/hvm3.img\"\n"
    "/local/domain/0/backend/qdisk/3/768/dev = \"hda\"\n"
    "/local/domain/4/name = \"zram\"\n"
    "/local/domain/0/backend/vbd/4/51712/physical-device = \"7c:0\"\n"
    "/local/domain/5/name = \"parted\"\n"
    "/local/domain/0/backend/vbd/5/51712/physical-device = \"7e:1\"\n"
    "/local/domain/6/name = \"deleted\"\n"
    "/local/domain/0/backend/vbd/6/51712/physical-device = \"78:2\"\n"
    "/local/domain/7/name = \"broken\"\n"
    "/local/domain/0/backend/vbd/7/51712/physical-device = \"79:3f\"\n"
    "/local/domain/0/backend/vbd/7/51728/physical-device = \"7c:0\"\n"
    "/local/domain/0/backend/vbd/8/768/node = \"/dev/loop0\"\n"
    "/local/domain/9/name = \"cycle\"\n"
    "/local/domain/0/backend/vbd/9/51712/physical-device = \"7b:5\"\n"
    "/local/domain/10/name = \"odd\"\n"
    "/local/domain/10/image/device-model-pid = \"99999999999999\"\n"
    "/local/domain/0/backend/vbd/10/abc/physical-device = \"7c:0\"\n"
    "/local/domain/0/backend/vbd/10/51712/physical-device = \"zz:1\"\n"
    "/local/domain/0/backend/vbd/10/51728/dev = \"xvdc\"\n"
    "/local/domain/0/backend/vbd/10/51744/physical-device = \"fffffffff:1\"\n"
    "/local/domain/0/backend/vbd/10/51760/physical-device = \"78:7\"\n"
    "/local/domain/0/backend/qdisk/10/832/params = \"raw:/nonexistent/../x.img\"\n"
    "/local/domain/0/backend/qdisk/10/848/params = \"/dev/../etc/passwd\"\n"
    "/local/domain/11/name = \"mapper\"\n"
    "/local/domain/0/backend/vbd/11/51712/params = \"/dev/mapper/vg-lv1\"\n"
    "/local/domain/0/backend/vbd/11/51712/type = \"phy\"\n"
    "/local/domain/abc/name = \"not a domid\"\n"
    "/local/domain/99999999999/name = \"too big\"\n"
    "/local/domain/32768/name = \"reserved\"\n"
    "/local/domain/012/name = \"leading zero\"\n"
    "/local/domain/0/backend/vbd/xyz/51712/physical-device = \"7c:0\"\n"
    "/local/domain/0/backend/vbd/../51712/physical-device = \"7c:0\"\n";

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	fmt(root, sizeof(root), "%s/xiotop-topo-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		return -1;
	fmt(sysfs, sizeof(sysfs), "%s/sys", root);
	fmt(devfs, sizeof(devfs), "%s/dev", root);
	fmt(procfs, sizeof(procfs), "%s/proc", root);
	roots = (struct xt_roots){.sysfs = sysfs, .proc = procfs, .dev = devfs};
	build_sysfs();

	char *dump = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&dump, &len);
	fprintf(mem, dump_fmt, root, root);
	fclose(mem);
	FILE *in = fmemopen(dump, len, "r");
	struct xs_store store;
	struct xerr err = {0};
	int rc = xs_parse_stream(in, "topo-dump", &store, &err);
	fclose(in);
	free(dump);
	if (rc != 0) {
		fprintf(stderr, "dump: %s\n", err.msg);
		return -1;
	}
	rc = topo_from_xenstore(&store, &roots, &topo);
	xs_free(&store);
	return rc;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	topo_free(&topo);
	return nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* --- helpers to check a backend's stack --- */

struct want {
	int depth;
	enum xt_role role;
	const char *what; /* device name, or file path */
	bool leaf;
};

static const struct xt_backend *backend(uint32_t domid, uint32_t devid)
{
	const struct xt_domain *d = topo_find_domain(&topo, domid);
	if (!d)
		fail_msg("domain %u not listed", domid);
	for (size_t i = 0; i < d->n_backends; i++)
		if (d->backends[i].devid == devid)
			return &d->backends[i];
	fail_msg("domain %u has no backend %u", domid, devid);
	return NULL;
}

static void assert_stack(const struct xt_backend *b, const struct want *w, size_t n)
{
	if (b->n_layers != n)
		fail_msg("%zu layers, want %zu (error: %s)", b->n_layers, n,
		         b->error ? b->error : "none");
	for (size_t i = 0; i < n; i++) {
		const struct xt_layer *l = &b->layers[i];
		assert_int_equal(l->depth, w[i].depth);
		assert_string_equal(topo_role_name(l->role), topo_role_name(w[i].role));
		assert_string_equal(l->role == XT_ROLE_FILE ? l->path : l->name, w[i].what);
		assert_int_equal(l->is_leaf, w[i].leaf);
	}
}

#define ASSERT_STACK(b, ...)                                                                       \
	do {                                                                                       \
		const struct want w_[] = {__VA_ARGS__};                                            \
		assert_stack((b), w_, sizeof(w_) / sizeof(w_[0]));                                 \
	} while (0)

/* --- tests --- */

static void test_devinfo(void **state)
{
	(void)state;
	struct xt_devinfo info;
	assert_int_equal(topo_devinfo(&roots, XT_KDEV(121, 2), &info), 0);
	assert_string_equal(info.name, "sda2");
	assert_true(info.is_partition);
	assert_int_equal(info.parent, XT_KDEV(121, 0));
	assert_false(info.is_leaf);

	assert_int_equal(topo_devinfo(&roots, XT_KDEV(121, 0), &info), 0);
	assert_true(info.is_leaf);
	assert_int_equal(topo_devinfo(&roots, XT_KDEV(120, 7), &info), 0);
	assert_true(info.is_loop); /* unbound loop: known by its name */
	assert_false(info.is_leaf);
	assert_int_equal(topo_devinfo(&roots, XT_KDEV(122, 0), &info), 0);
	assert_false(info.is_leaf);  /* md0 has slaves */
	assert_true(info.is_array);  /* raid1 */
	assert_false(info.in_array); /* its holder dm-0 is no array */
	assert_int_equal(topo_devinfo(&roots, XT_KDEV(121, 16), &info), 0);
	assert_true(info.is_leaf && info.in_array && !info.is_array); /* sdb, a member */
	assert_int_equal(topo_devinfo(&roots, XT_KDEV(123, 0), &info), 0);
	assert_false(info.is_array || info.in_array); /* dm-0 on the mirror */
	assert_int_equal(topo_devinfo(&roots, XT_KDEV(124, 0), &info), 0);
	assert_true(info.is_leaf);
	assert_int_equal(topo_devinfo(&roots, XT_KDEV(121, 99), &info), -1);
	assert_false(info.exists);

	assert_int_equal(topo_dev_by_name(&roots, "loop1p1"), XT_KDEV(126, 1));
	assert_int_equal(topo_dev_by_name(&roots, "sdc"), XT_KDEV(121, 32));
	assert_int_equal(topo_dev_by_name(&roots, "nope"), 0);
	assert_int_equal(topo_dev_by_name(&roots, "../sys"), 0);
	assert_int_equal(topo_dev_by_name(&roots, ".."), 0);
	assert_int_equal(topo_dev_by_name(&roots, ""), 0);
	assert_int_equal(topo_dev_by_path(&roots, "/dev/zram0"), XT_KDEV(124, 0));
	assert_int_equal(topo_dev_by_path(&roots, "/dev/mapper/vg-lv1"), XT_KDEV(123, 1));
	assert_int_equal(topo_dev_by_path(&roots, "/srv/zram0"), 0);
	assert_int_equal(topo_dev_by_path(&roots, "/dev/../sys/zram0"), 0);

	assert_string_equal(topo_strip_format("aio:/srv/a.img"), "/srv/a.img");
	assert_string_equal(topo_strip_format("tap:qcow2:/srv/a.img"), "/srv/a.img");
	assert_string_equal(topo_strip_format("/srv/a:b.img"), "/srv/a:b.img");
	assert_string_equal(topo_strip_format("/srv/a.img"), "/srv/a.img");
}

static void test_domains_listed_in_order(void **state)
{
	(void)state;
	static const uint32_t ids[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
	assert_int_equal(topo.n_domains, sizeof(ids) / sizeof(ids[0]));
	for (size_t i = 0; i < topo.n_domains; i++)
		assert_int_equal(topo.domains[i].domid, ids[i]);
	assert_string_equal(topo.domains[0].name, "Domain-0");
	assert_int_equal(topo.domains[0].n_backends, 0);
	assert_string_equal(topo.source, "xenstore-dump topo-dump");
	/* the HVM device model wins over the qdisk backend pid */
	assert_int_equal(topo_find_domain(&topo, 3)->device_model_pid, 2345);
	/* known only as a backend: listed without a name */
	assert_null(topo_find_domain(&topo, 8)->name);
	assert_null(topo_find_domain(&topo, 12));
	assert_null(topo_find_domain(&topo, 32768));
}

/* Issue 15 (3): a domain known only by its `vm` node is dropped as a leftover, and its
 * uuid with it - at every rebuild of a live topology. The heap must not grow over many
 * rebuilds (LeakSanitizer also says so in the sanitizer build, where mallinfo2 is 0). */
static void test_vm_only_domain_is_freed(void **state)
{
	(void)state;
	struct xs_store s = {0};
	static const char vm[] = "/vm/4f6e5b1c-0e43-4a1b-9c2d-000000000004";
	assert_int_equal(xs_store_add(&s, "/local/domain/4/vm", vm, sizeof(vm) - 1), 0);
	assert_int_equal(xs_store_add(&s, "/local/domain/1/name", "g1", 2), 0);
	xs_store_sort(&s);
	struct xt_roots roots = {.sysfs = "/nonexistent", .proc = "/nonexistent"};
	struct xt_topology t;
	assert_int_equal(topo_from_xenstore(&s, &roots, &t), 0);
	assert_int_equal(t.n_domains, 1);
	assert_null(topo_find_domain(&t, 4));
	topo_free(&t);
	size_t before = mallinfo2().uordblks;
	for (int i = 0; i < 2000; i++) {
		assert_int_equal(topo_from_xenstore(&s, &roots, &t), 0);
		topo_free(&t);
	}
	size_t after = mallinfo2().uordblks;
	assert_true(after <= before + 4096); /* 2000 leaked uuids would be ~80 KB */
	xs_free(&s);
}

static void test_lv_on_partition(void **state)
{
	(void)state;
	const struct xt_backend *b = backend(1, 51712);
	assert_int_equal(b->kind, XT_BK_VBD);
	assert_string_equal(b->dev, "xvda");
	assert_string_equal(b->type, "phy");
	assert_string_equal(b->mode, "w");
	assert_string_equal(b->params, "/dev/vg0/lv1");
	assert_false(b->missing);
	assert_null(b->error);
	assert_int_equal(b->backend_dev, XT_KDEV(123, 1));
	ASSERT_STACK(b, {0, XT_ROLE_BACKEND, "dm-1", false}, {1, XT_ROLE_STACKED, "sda2", false},
	             {2, XT_ROLE_LEAF, "sda", true});
	assert_int_equal(b->layers[2].dev, XT_KDEV(121, 0));
}

static void test_dm_over_md_over_two_disks(void **state)
{
	(void)state;
	const struct xt_backend *b = backend(1, 51728);
	assert_null(b->error);
	ASSERT_STACK(b, {0, XT_ROLE_BACKEND, "dm-0", false}, {1, XT_ROLE_STACKED, "md0", false},
	             {2, XT_ROLE_LEAF, "sdb", true}, {2, XT_ROLE_LEAF, "sdc", true});
}

static void test_loop_over_file(void **state)
{
	(void)state;
	const struct xt_backend *b = backend(2, 51712);
	assert_false(b->missing);
	assert_null(b->error);
	ASSERT_STACK(b, {0, XT_ROLE_BACKEND, "loop0", false},
	             {1, XT_ROLE_FILE, in_root("img/guest2.img"), false},
	             {2, XT_ROLE_STACKED, "hostfs1", false}, {3, XT_ROLE_LEAF, "hostfs", true});
	struct stat st;
	assert_int_equal(stat(in_root("img/guest2.img"), &st), 0);
	assert_int_equal(b->layers[1].ino, st.st_ino);
	assert_int_equal(b->layers[1].fs_dev, host_fs_dev);
	assert_int_equal(b->layers[1].dev, 0);
	assert_null(b->layers[1].name);
	assert_int_equal(b->layers[2].dev, host_fs_dev);
	assert_int_equal(b->layers[0].loop_mode, XT_LOOP_BUFFERED); /* loop/dio says 0 */
}

static void test_qdisk_image_file(void **state)
{
	(void)state;
	const struct xt_backend *b = backend(3, 768);
	assert_int_equal(b->kind, XT_BK_QDISK);
	assert_false(b->missing);
	assert_int_equal(b->backend_dev, 0);
	ASSERT_STACK(b, {0, XT_ROLE_FILE, in_root("img/hvm3.img"), false},
	             {1, XT_ROLE_STACKED, "hostfs1", false}, {2, XT_ROLE_LEAF, "hostfs", true});
	assert_true(b->layers[0].ino != 0);
}

static void test_zram_backend_is_its_own_leaf(void **state)
{
	(void)state;
	const struct xt_backend *b = backend(4, 51712);
	ASSERT_STACK(b, {0, XT_ROLE_BACKEND, "zram0", true});
}

static void test_partition_of_a_loop(void **state)
{
	(void)state;
	const struct xt_backend *b = backend(5, 51712);
	assert_null(b->error);
	ASSERT_STACK(b, {0, XT_ROLE_BACKEND, "loop1p1", false},
	             {1, XT_ROLE_STACKED, "loop1", false},
	             {2, XT_ROLE_FILE, in_root("img/parted.img"), false},
	             {3, XT_ROLE_STACKED, "hostfs1", false}, {4, XT_ROLE_LEAF, "hostfs", true});
	assert_int_equal(b->layers[1].loop_mode, XT_LOOP_DIRECT_IO); /* loop1's loop/dio says 1 */
	assert_int_equal(b->layers[0].loop_mode, XT_NOT_LOOP); /* its partition is no loop device */
}

static void test_deleted_backing_file(void **state)
{
	(void)state;
	const struct xt_backend *b = backend(6, 51712);
	assert_false(b->missing); /* the loop still serves the guest */
	assert_non_null(b->error);
	assert_non_null(strstr(b->error, "deleted"));
	ASSERT_STACK(b, {0, XT_ROLE_BACKEND, "loop2", false},
	             {1, XT_ROLE_FILE, in_root("img/gone.img"), false});
	assert_int_equal(b->layers[1].ino, 0);
	/* no loop/dio to read: not guessed */
	assert_int_equal(b->layers[0].loop_mode, XT_LOOP_MODE_UNKNOWN);
}

static void test_missing_device_marks_only_its_backend(void **state)
{
	(void)state;
	const struct xt_backend *b = backend(7, 51712);
	assert_true(b->missing);
	assert_string_equal(b->error, "device 121:63 not found in sysfs");
	assert_int_equal(b->n_layers, 0);
	assert_int_equal(b->backend_dev, XT_KDEV(121, 63));
	b = backend(7, 51728);
	assert_false(b->missing);
	ASSERT_STACK(b, {0, XT_ROLE_BACKEND, "zram0", true});
}

static void test_backend_found_by_node_or_dev_path(void **state)
{
	(void)state;
	const struct xt_backend *b = backend(8, 768);
	assert_false(b->missing);
	assert_int_equal(b->backend_dev, XT_KDEV(120, 0));
	assert_string_equal(b->layers[0].name, "loop0");
	b = backend(11, 51712);
	assert_false(b->missing);
	ASSERT_STACK(b, {0, XT_ROLE_BACKEND, "dm-1", false}, {1, XT_ROLE_STACKED, "sda2", false},
	             {2, XT_ROLE_LEAF, "sda", true});
}

static void test_cycle_is_cut(void **state)
{
	(void)state;
	const struct xt_backend *b = backend(9, 51712);
	assert_false(b->missing);
	assert_non_null(b->error);
	assert_non_null(strstr(b->error, "below itself"));
	ASSERT_STACK(b, {0, XT_ROLE_BACKEND, "dm-5", false}, {1, XT_ROLE_STACKED, "dm-6", false});
}

static void test_odd_backends_are_marked(void **state)
{
	(void)state;
	const struct xt_domain *d = topo_find_domain(&topo, 10);
	assert_int_equal(d->device_model_pid, 0);
	assert_int_equal(d->n_backends, 7);
	/* sorted by devid; the one with a non-numeric devid has devid 0 */
	assert_int_equal(d->backends[0].devid, 0);
	assert_true(d->backends[0].missing);
	assert_string_equal(d->backends[0].error, "devid is not a 32-bit number");
	const struct xt_backend *b = backend(10, 51712);
	assert_true(b->missing);
	assert_string_equal(b->error, "malformed physical-device");
	b = backend(10, 51728);
	assert_true(b->missing);
	assert_string_equal(b->dev, "xvdc");
	assert_string_equal(b->error, "no physical-device, node or params");
	b = backend(10, 51744);
	assert_true(b->missing);
	b = backend(10, 51760); /* an unbound loop: listed, no backing file */
	assert_false(b->missing);
	assert_string_equal(b->error, "loop7 has no backing file");
	b = backend(10, 832);
	assert_true(b->missing);
	assert_string_equal(b->params, "raw:/nonexistent/../x.img");
	assert_non_null(strstr(b->error, "/nonexistent/../x.img"));
	b = backend(10, 848);
	assert_true(b->missing);
	/* a ".." never passes, not even below /dev */
	assert_string_equal(b->error, "params /dev/../etc/passwd refused: a \"..\" component "
	                              "(xiotop follows only /dev and files named without \"..\")");
}

static char *capture(void (*print)(FILE *, const struct xt_topology *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	print(out, &topo);
	fclose(out);
	return text;
}

static void test_text_output_escapes_guest_strings(void **state)
{
	(void)state;
	char *text = capture(topo_print_text);
	assert_null(strchr(text, '\x1b'));
	assert_null(strchr(text, '\a'));
	assert_non_null(strstr(text, "domain 2 web\\e[31mred\n"));
	assert_non_null(strstr(text, "  vbd 51712 xvda\\e]0;pwned\\x07  type="));
	assert_non_null(strstr(text, "domain 3 hvm3  device model pid 2345\n"));
	assert_non_null(strstr(text, "    dm-0 123:0  backend\n"
	                             "      md0 122:0  stacked\n"
	                             "        sdb 121:16  leaf\n"
	                             "        sdc 121:32  leaf\n"));
	assert_non_null(strstr(text, "    zram0 124:0  backend, leaf\n"));
	assert_non_null(strstr(text, "    loop0 120:0  backend, buffered\n")); /* loop/dio 0 */
	assert_non_null(strstr(text, "      loop1 120:1  stacked, direct I/O\n"));
	assert_non_null(strstr(text, "    loop2 120:2  backend, mode unknown (no loop/dio)\n"));
	assert_non_null(strstr(text, "MISSING: device 121:63 not found in sysfs\n"));
	free(text);
}

static void test_json_output(void **state)
{
	(void)state;
	char *json = capture(topo_print_json);
	assert_null(strchr(json, '\x1b'));
	static const char head[] = "{\"source\":\"xenstore-dump topo-dump\",\"domains\":[";
	assert_memory_equal(json, head, sizeof(head) - 1);
	assert_non_null(strstr(json, "{\"domid\":2,\"name\":\"web\\u001b[31mred\","
	                             "\"device_model_pid\":0,\"backends\":[{\"devid\":51712,"
	                             "\"dev\":\"xvda\\u001b]0;pwned\\u0007\",\"kind\":\"vbd\""));
	assert_non_null(strstr(json, "\"stack\":[{\"dev\":\"loop0\",\"maj_min\":\"120:0\","
	                             "\"direct_io\":false,\"role\":\"backend\",\"depth\":0,"
	                             "\"leaf\":false},"
	                             "{\"file\":\""));
	assert_non_null(strstr(json, "{\"domid\":8,\"name\":null,"));
	assert_non_null(
	    strstr(json, "{\"dev\":\"loop1\",\"maj_min\":\"120:1\",\"direct_io\":true,"));
	assert_null(strstr(json, "\"maj_min\":\"124:0\",\"direct_io\"")); /* zram0: no loop */
	assert_non_null(
	    strstr(json, "{\"dev\":\"loop2\",\"maj_min\":\"120:2\",\"direct_io\":null,"));
	assert_non_null(strstr(json, "\"missing\":true,\"error\":\"device 121:63 not found"));
	assert_string_equal(json + strlen(json) - 5, "]}]}\n");
	/* balanced outside strings */
	int depth = 0;
	bool in_str = false;
	for (const char *p = json; *p; p++) {
		if (in_str && *p == '\\')
			p++;
		else if (*p == '"')
			in_str = !in_str;
		else if (!in_str && (*p == '{' || *p == '['))
			depth++;
		else if (!in_str && (*p == '}' || *p == ']'))
			depth--;
		assert_true(depth >= 0);
	}
	assert_int_equal(depth, 0);
	free(json);
}

static void test_resolve_without_xenstore(void **state)
{
	(void)state;
	struct xt_backend b = {0};
	assert_int_equal(topo_resolve_file(&roots, in_root("img/hvm3.img"), &b), 0);
	assert_int_equal(b.n_layers, 3);
	assert_string_equal(b.layers[2].name, "hostfs");
	struct xt_topology t = {.domains = calloc(1, sizeof(struct xt_domain)), .n_domains = 1};
	t.domains[0].backends = malloc(sizeof(b));
	t.domains[0].backends[0] = b;
	t.domains[0].n_backends = 1;
	topo_free(&t); /* frees b's layers too */
	assert_int_equal(t.n_domains, 0);

	struct xt_backend m = {0};
	assert_int_equal(topo_resolve_file(&roots, in_root("img/none.img"), &m), -1);
	assert_true(m.missing);
	assert_int_equal(topo_resolve_dev(&roots, XT_KDEV(3, 3), &m), -1);
	free(m.error);
	assert_string_equal(topo_role_name(XT_ROLE_STACKED), "stacked");
	assert_string_equal(topo_kind_name(XT_BK_QDISK), "qdisk");
}

static void free_layers(struct xt_backend *b)
{
	for (size_t i = 0; i < b->n_layers; i++) {
		free(b->layers[i].name);
		free(b->layers[i].path);
	}
	free(b->layers);
	free(b->error);
}

/* btrfs and overlay give files an anonymous st_dev (0:NN) that sysfs does not know:
 * the mount source in mountinfo names the block device. */
static void test_file_on_anonymous_fs(void **state)
{
	(void)state;
	char sys2[PATH_MAX], proc2[PATH_MAX], p[PATH_MAX], line[256];
	fmt(sys2, sizeof(sys2), "%s/sys2", root);
	fmt(proc2, sizeof(proc2), "%s/proc2", root);
	cur_sys = sys2;
	add_dev(VIRT "vdq", 125, 8, false);
	cur_sys = sysfs;
	fmt(p, sizeof(p), "%s/self/mountinfo", proc2);
	fmt(line, sizeof(line),
	    "22 1 0:21 / /proc rw - proc proc rw\n"
	    "36 1 %u:%u /@home /home rw,relatime - btrfs /dev/vdq rw,subvol=/@home\n",
	    XT_KDEV_MAJOR(host_fs_dev), XT_KDEV_MINOR(host_fs_dev));
	write_text(p, line);

	struct xt_roots via_mounts = {.sysfs = sys2, .proc = proc2, .dev = devfs};
	struct xt_backend b = {0};
	assert_int_equal(topo_resolve_file(&via_mounts, in_root("img/hvm3.img"), &b), 0);
	ASSERT_STACK(&b, {0, XT_ROLE_FILE, in_root("img/hvm3.img"), false},
	             {1, XT_ROLE_LEAF, "vdq", true});
	assert_int_equal(b.layers[0].fs_dev, host_fs_dev);
	free_layers(&b);

	/* no mount names a device (tmpfs, nfs): the file ends the stack, with a note */
	struct xt_roots no_mounts = {.sysfs = sys2, .proc = procfs, .dev = devfs};
	struct xt_backend n = {0};
	assert_int_equal(topo_resolve_file(&no_mounts, in_root("img/hvm3.img"), &n), 0);
	assert_false(n.missing);
	assert_int_equal(n.n_layers, 1);
	assert_non_null(strstr(n.error, "which is not a block device"));
	free_layers(&n);
}

/* PROC/PID/cmdline from a NULL-terminated argv (NUL-separated, as the kernel gives it). */
static void write_cmdline(const char *proc, int pid, const char *const *argv)
{
	char path[PATH_MAX];
	fmt(path, sizeof(path), "%s/%d/cmdline", proc, pid);
	write_text(path, "");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (; *argv; argv++)
		fwrite(*argv, 1, strlen(*argv) + 1, f);
	fclose(f);
}

/* The device model's pid of domain 4 in a store holding image/device-model-pid
 * (`dm_pid`, 0: none) and libxl's qdisk-backend-pid (`qdisk_pid`, 0: none). */
static int dm_pid_of(const struct xt_roots *r, int dm_pid, int qdisk_pid)
{
	struct xs_store s = {0};
	char v[16];
	assert_int_equal(xs_store_add(&s, "/local/domain/4/name", "qdisk", 5), 0);
	if (dm_pid) {
		snprintf(v, sizeof(v), "%d", dm_pid);
		assert_int_equal(
		    xs_store_add(&s, "/local/domain/4/image/device-model-pid", v, strlen(v)), 0);
	}
	if (qdisk_pid) {
		snprintf(v, sizeof(v), "%d", qdisk_pid);
		assert_int_equal(
		    xs_store_add(&s, "/local/domain/0/libxl/4/qdisk-backend-pid", v, strlen(v)), 0);
	}
	xs_store_sort(&s);
	struct xt_topology t;
	assert_int_equal(topo_from_xenstore(&s, r, &t), 0);
	const struct xt_domain *d = topo_find_domain(&t, 4);
	assert_non_null(d);
	int pid = d->device_model_pid;
	topo_free(&t);
	xs_free(&s);
	return pid;
}

/* Xen 4.20's libxl spawns a QEMU command-line probe first (-machine none, no -xen-domid),
 * its pid in image/device-model-pid until the device model's replaces it; the device
 * model's pid is written there before its exec, while it is still a fork of xl. Neither
 * is the domain's device model: its CPU was charged to the domain's (115 % of its QEMU's
 * utime+stime on Debian 13). Xen 4.17 spawns no probe: a PV guest's qdisk QEMU is only
 * libxl's qdisk-backend-pid, an HVM guest's in image/device-model-pid. */
static void test_device_model_pid_names_its_domain(void **state)
{
	(void)state;
	char proc3[PATH_MAX];
	fmt(proc3, sizeof(proc3), "%s/proc3", root);
	struct xt_roots r = {.sysfs = sysfs, .proc = proc3, .dev = devfs};
	const char *probe[] = {"/usr/libexec/xen-qemu-system-i386",
	                       "-S",
	                       "-no-user-config",
	                       "-nodefaults",
	                       "-nographic",
	                       "-machine",
	                       "none,accel=xen",
	                       "-chardev",
	                       "socket,id=libxl-cmd,fd=5,server=on,wait=off",
	                       "-mon",
	                       "chardev=libxl-cmd,mode=control",
	                       NULL};
	const char *dm420[] = {"/usr/libexec/xen-qemu-system-i386",
	                       "-xen-domid",
	                       "4",
	                       "-no-shutdown",
	                       "-xen-attach",
	                       "-name",
	                       "qdisk",
	                       "-machine",
	                       "xenpv",
	                       "-m",
	                       "96",
	                       NULL};
	const char *xl_fork[] = {"xl", "create", "-p", "/root/qdisk.cfg", NULL};
	const char *dm417[] = {"/usr/bin/qemu-system-i386",
	                       "--xen-domid",
	                       "4",
	                       "-xen-attach",
	                       "-name",
	                       "qdisk",
	                       "-M",
	                       "xenpv",
	                       NULL};
	const char *other[] = {"/usr/bin/qemu-system-i386", "-xen-domid", "5", "-M", "xenpv", NULL};
	const char *qemu_dm[] = {"/usr/lib/xen/bin/qemu-dm", "-d", "4", "-M", "xenfv", NULL};
	write_cmdline(proc3, 501, probe);
	write_cmdline(proc3, 502, dm420);
	write_cmdline(proc3, 503, xl_fork);
	write_cmdline(proc3, 504, dm417);
	write_cmdline(proc3, 505, other);
	write_cmdline(proc3, 506, qemu_dm);
	write_text(in_root("proc3/507/cmdline"), ""); /* a zombie */

	/* Xen 4.20: the probe, then the device model before its exec: none yet */
	assert_int_equal(dm_pid_of(&r, 501, 0), 0);
	assert_int_equal(dm_pid_of(&r, 503, 0), 0);
	/* the probe with a qdisk-backend-pid beside: that one */
	assert_int_equal(dm_pid_of(&r, 501, 504), 504);
	/* the device model, named by its -xen-domid */
	assert_int_equal(dm_pid_of(&r, 502, 0), 502);
	/* Xen 4.17: a PV guest's qdisk QEMU (libxl's qdisk-backend-pid only), an HVM
	 * guest's device model, an old qemu-dm */
	assert_int_equal(dm_pid_of(&r, 0, 504), 504);
	assert_int_equal(dm_pid_of(&r, 504, 0), 504);
	assert_int_equal(dm_pid_of(&r, 506, 0), 506);
	/* another domain's QEMU (a reused pid) is not this one's */
	assert_int_equal(dm_pid_of(&r, 505, 0), 0);
	/* unreadable (gone, no /proc) or empty (a zombie): kept, as before; the tracer
	 * says when it is not running */
	assert_int_equal(dm_pid_of(&r, 999, 0), 999);
	assert_int_equal(dm_pid_of(&r, 507, 0), 507);

	/* the command line alone */
	char buf[512];
	size_t len = 0;
	for (const char *const *a = dm420; *a; a++) {
		memcpy(buf + len, *a, strlen(*a) + 1);
		len += strlen(*a) + 1;
	}
	assert_int_equal(topo_cmdline_names_domid(buf, len, 4), 1);
	assert_int_equal(topo_cmdline_names_domid(buf, len, 40), 0);
	assert_int_equal(topo_cmdline_names_domid(buf, 0, 4), -1);
	assert_int_equal(topo_pid_names_domid(&r, 501, 4), 0);
	assert_int_equal(topo_pid_names_domid(&r, 999, 4), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_devinfo),
	    cmocka_unit_test(test_domains_listed_in_order),
	    cmocka_unit_test(test_vm_only_domain_is_freed),
	    cmocka_unit_test(test_lv_on_partition),
	    cmocka_unit_test(test_dm_over_md_over_two_disks),
	    cmocka_unit_test(test_loop_over_file),
	    cmocka_unit_test(test_qdisk_image_file),
	    cmocka_unit_test(test_zram_backend_is_its_own_leaf),
	    cmocka_unit_test(test_partition_of_a_loop),
	    cmocka_unit_test(test_deleted_backing_file),
	    cmocka_unit_test(test_missing_device_marks_only_its_backend),
	    cmocka_unit_test(test_backend_found_by_node_or_dev_path),
	    cmocka_unit_test(test_cycle_is_cut),
	    cmocka_unit_test(test_odd_backends_are_marked),
	    cmocka_unit_test(test_text_output_escapes_guest_strings),
	    cmocka_unit_test(test_json_output),
	    cmocka_unit_test(test_resolve_without_xenstore),
	    cmocka_unit_test(test_file_on_anonymous_fs),
	    cmocka_unit_test(test_device_model_pid_names_its_domain),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
