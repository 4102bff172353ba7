/* test_xenlive.c - the live Xen source through a double of libxenstore and libxenstat
 * (xen_double.h): every way opening can fail and the one line it leads to, the nodes
 * read into the store and the ones left out, hostile values (escapes, NUL bytes, "..",
 * huge), the watch, libxenstat's figures in a sample, and the source order of
 * topo_source (Xen live, else a dump, else /proc). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/model.h"
#include "sources/collector.h"
#include "sources/topo_source.h"
#include "unit/qmp_double.h"
#include "unit/xen_double.h"
#include "sources/xen/xenlive.h"

static char root[256], sysfs[512], procfs[512], devfs[512];
static struct xt_roots roots;

static void put_file(const char *rel, const char *text)
{
	char p[PATH_MAX], dir[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", p);
	for (char *s = dir + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(dir, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void put_link(const char *rel, const char *target)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(symlink(target, p), 0);
}

/* A sysfs with one zram device (124:0, a leaf) and a blkback vbd of domain 1 on it. */
static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(root, sizeof(root), "%s/xiotop-xenlive-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		return -1;
	snprintf(sysfs, sizeof(sysfs), "%s/sys", root);
	snprintf(procfs, sizeof(procfs), "%s/proc", root);
	snprintf(devfs, sizeof(devfs), "%s/dev", root);
	put_file("sys/devices/virtual/block/zram0/dev", "124:0\n");
	put_file("sys/dev/block/.keep", "");
	put_link("sys/dev/block/124:0", "../../devices/virtual/block/zram0");
	put_file("sys/bus/xen-backend/devices/vbd-1-51712/physical_device", "7c:0\n");
	static const char *const stats[][2] = {
	    {"rd_sect", "2048\n"}, {"wr_sect", "4096\n"}, {"rd_req", "4\n"}, {"wr_req", "8\n"},
	    {"oo_req", "0\n"},     {"f_req", "1\n"},      {"ds_req", "0\n"}};
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		char rel[128];
		snprintf(rel, sizeof(rel), "sys/bus/xen-backend/devices/vbd-1-51712/statistics/%s",
		         stats[i][0]);
		put_file(rel, stats[i][1]);
	}
	put_file("proc/.keep", "");
	put_file("dev/.keep", "");
	roots = (struct xt_roots){.sysfs = sysfs, .proc = procfs, .dev = devfs};
	return 0;
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
	xd_reset();
	return nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int reset_double(void **state)
{
	(void)state;
	xd_reset();
	return 0;
}

/* Everything below was opened, nothing leaked. */
static void assert_all_closed(void)
{
	assert_int_equal(xd.xs_handles, 0);
	assert_int_equal(xd.stat_handles, 0);
	assert_int_equal(xd.nodes, 0);
}

static const char tree[] =
    "/local/domain/0/name = \"Domain-0\"\n"
    "/local/domain/0/vm = \"/vm/00000000-0000-0000-0000-000000000000\"\n"
    "/local/domain/1/name = \"guest1\"\n"
    "/local/domain/1/vm = \"/vm/3f6e5b1c-0e43-4a4e-9b55-4b0d2c1f7a10\"\n"
    "/local/domain/1/data/noise = \"guests write here\"\n"
    "/local/domain/1/device/vbd/51712/state = \"4\"\n"
    "/local/domain/0/backend/vbd/1/51712/physical-device = \"7c:0\"\n"
    "/local/domain/0/backend/vbd/1/51712/params = \"/dev/zram0\"\n"
    "/local/domain/0/backend/vbd/1/51712/dev = \"xvda\"\n"
    "/local/domain/0/backend/vbd/1/51712/type = \"phy\"\n"
    "/local/domain/0/backend/vbd/1/51712/mode = \"w\"\n"
    "/local/domain/0/backend/vbd/1/51712/frontend = \"/local/domain/1/device/vbd/51712\"\n"
    "/local/domain/2/name = \"web\\x1b[31mred\\x1b]0;pwned\\x07\"\n"
    "/local/domain/2/vm = \"/vm/$(reboot)\"\n"
    "/local/domain/2/image/device-model-pid = \"4242\"\n"
    "/local/domain/0/libxl/2/qdisk-backend-pid = \"999\"\n"
    "/local/domain/0/backend/qdisk/2/768/params = \"aio:/srv/xen/../../etc/shadow\"\n"
    "/local/domain/0/backend/qdisk/2/768/dev = \"hda\"\n"
    "/local/domain/3/name = \"nul\"\n"
    "/local/domain/0/backend/vbd/3/51712/params = \"/dev/zram0\\x00/../../etc/shadow\"\n"
    "/local/domain/0/backend/vbd/3/51728/physical-device = \"12345678901234567890\"\n"
    "/local/domain/3/image/device-model-pid = \"-1\"\n"
    "/local/domain/0/backend/vbd/bad.name/1/params = \"/dev/zram0\"\n"
    "/local/domain/0/backend/vbd/6/..bad/params = \"/dev/zram0\"\n"
    "/local/domain/0/backend/vbd/5/51712/physical-device = \"7c:0\"\n";

static struct xenlive *open_ok(void)
{
	struct xenlive *x = NULL;
	char why[256] = "";
	xd_set_tree(tree);
	assert_int_equal(xenlive_open(&x, &xd_api, why, sizeof(why)), 0);
	assert_non_null(x);
	return x;
}

/* --- opening --- */

static void test_open_failures_say_which_call(void **state)
{
	(void)state;
	struct xenlive *x = (struct xenlive *)1;
	char why[256];
	assert_int_equal(xenlive_open(&x, NULL, why, sizeof(why)), -1);
	assert_null(x);
	assert_string_equal(why, "xiotop was built without libxenstat and libxenstore");

	xd.fail_stat_init = true;
	xd.stat_init_err = "xencall: error: Could not obtain handle on privileged command "
	                   "interface: No such file or directory";
	assert_int_equal(xenlive_open(&x, &xd_api, why, sizeof(why)), -1);
	assert_string_equal(why, "xenstat_init failed: xencall: error: Could not obtain handle on "
	                         "privileged command interface: No such file or directory");
	xd.stat_init_err = NULL;
	assert_int_equal(xenlive_open(&x, &xd_api, why, sizeof(why)), -1);
	assert_string_equal(why, "xenstat_init failed: no reason given");
	assert_all_closed();

	xd.fail_stat_init = false;
	xd.fail_get_node = true;
	assert_int_equal(xenlive_open(&x, &xd_api, why, sizeof(why)), -1);
	assert_string_equal(why, "xenstat_get_node failed: Operation not permitted");
	assert_all_closed();

	xd.fail_get_node = false;
	xd.fail_xs_open = true;
	assert_int_equal(xenlive_open(&x, &xd_api, why, sizeof(why)), -1);
	assert_string_equal(why, "xs_open failed: No such file or directory");
	assert_all_closed();

	xd.fail_xs_open = false;
	xd.fail_list_root = true;
	assert_int_equal(xenlive_open(&x, &xd_api, why, sizeof(why)), -1);
	assert_string_equal(why, "xenstore does not list /local/domain: Permission denied");
	assert_null(x);
	assert_all_closed();
}

static void test_open_reads_version_and_sets_watch(void **state)
{
	(void)state;
	xd.version = "4.17.3\x1b[2J";
	struct xenlive *x = open_ok();
	assert_string_equal(xenlive_xen_version(x), "4.17.32J"); /* no escape reaches a line */
	assert_true(xenlive_watching(x));
	xenlive_close(x);
	assert_all_closed();

	xd.fail_watch = true;
	x = open_ok();
	assert_false(xenlive_watching(x));
	assert_true(xenlive_changed(x)); /* no watch: read every interval */
	assert_true(xenlive_changed(x));
	xenlive_close(x);
	assert_string_equal(xenlive_xen_version(NULL), "");
	xenlive_close(NULL);
}

/* --- reading the store --- */

static void test_store_holds_what_the_resolver_reads(void **state)
{
	(void)state;
	struct xenlive *x = open_ok();
	struct xs_store st;
	char why[256] = "";
	assert_int_equal(xenlive_read_store(x, &st, why, sizeof(why)), 0);
	assert_string_equal(xs_get(&st, "/local/domain/1/name"), "guest1");
	assert_string_equal(xs_get(&st, "/local/domain/2/image/device-model-pid"), "4242");
	assert_string_equal(xs_get(&st, "/local/domain/0/libxl/2/qdisk-backend-pid"), "999");
	assert_string_equal(xs_get(&st, "/local/domain/0/backend/vbd/1/51712/physical-device"),
	                    "7c:0");
	assert_string_equal(xs_get(&st, "/local/domain/0/backend/qdisk/2/768/dev"), "hda");
	/* guest-written nodes and keys nobody uses are not read */
	assert_null(xs_get(&st, "/local/domain/1/data/noise"));
	assert_null(xs_get(&st, "/local/domain/0/backend/vbd/1/51712/frontend"));
	/* names xenstored would never hand out are not followed */
	assert_null(xs_get(&st, "/local/domain/0/backend/vbd/bad.name/1/params"));
	assert_null(xs_get(&st, "/local/domain/0/backend/vbd/6/..bad/params"));
	/* a NUL inside a value is kept as such, for the resolver to see */
	const struct xs_entry *e = xs_find(&st, "/local/domain/0/backend/vbd/3/51712/params");
	assert_non_null(e);
	assert_int_equal(e->value_len, strlen("/dev/zram0") + 1 + strlen("/../../etc/shadow"));
	for (size_t i = 1; i < st.n; i++)
		assert_true(strcmp(st.entries[i - 1].path, st.entries[i].path) < 0);
	xs_free(&st);

	xd.fail_reads = true;
	assert_int_equal(xenlive_read_store(x, &st, why, sizeof(why)), -1);
	assert_string_equal(why, "xenstore: cannot list /local/domain: Broken pipe");
	assert_int_equal(st.n, 0);
	xenlive_close(x);
	assert_all_closed();
}

static const struct xt_backend *backend_of(const struct xt_topology *t, uint32_t domid,
                                           uint32_t devid)
{
	const struct xt_domain *d = topo_find_domain(t, domid);
	assert_non_null(d);
	for (size_t i = 0; i < d->n_backends; i++)
		if (d->backends[i].devid == devid)
			return &d->backends[i];
	fail_msg("domain %u has no backend %u", domid, devid);
	return NULL;
}

/* The live store goes through the same resolver as a dump: marks, not crashes. */
static void test_hostile_values_are_marked(void **state)
{
	(void)state;
	struct xenlive *x = open_ok();
	struct xs_store st;
	char why[256];
	assert_int_equal(xenlive_read_store(x, &st, why, sizeof(why)), 0);
	struct xt_topology t;
	assert_int_equal(topo_from_xenstore(&st, &roots, &t), 0);
	xs_free(&st);

	const struct xt_domain *d1 = topo_find_domain(&t, 1);
	assert_string_equal(d1->uuid, "3f6e5b1c-0e43-4a4e-9b55-4b0d2c1f7a10");
	const struct xt_backend *b = backend_of(&t, 1, 51712);
	assert_false(b->missing);
	assert_int_equal(b->backend_dev, XT_KDEV(124, 0));
	assert_int_equal(b->n_layers, 1);
	assert_string_equal(b->layers[0].name, "zram0");

	const struct xt_domain *d2 = topo_find_domain(&t, 2);
	assert_null(d2->uuid); /* "/vm/$(reboot)" is no uuid */
	assert_int_equal(d2->device_model_pid, 4242);
	assert_string_equal(d2->name, "web\x1b[31mred\x1b]0;pwned\x07"); /* raw until output */
	b = backend_of(&t, 2, 768);
	assert_true(b->missing);
	assert_string_equal(b->error,
	                    "params /srv/xen/../../etc/shadow refused: a \"..\" component "
	                    "(xiotop follows only /dev and files named without \"..\")");

	b = backend_of(&t, 3, 51712);
	assert_true(b->missing);
	assert_string_equal(b->error, "params holds a NUL byte");
	b = backend_of(&t, 3, 51728);
	assert_true(b->missing);
	assert_string_equal(b->error, "malformed physical-device");
	assert_int_equal(topo_find_domain(&t, 3)->device_model_pid, 0);
	assert_null(topo_find_domain(&t, 5)->name); /* a backend without a name node */
	assert_null(topo_find_domain(&t, 6));

	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	topo_print_text(out, &t);
	fclose(out);
	assert_null(strchr(text, '\x1b'));
	assert_null(strchr(text, '\a'));
	free(text);
	topo_free(&t);
	xenlive_close(x);
}

static void test_huge_value_is_cut_and_marked(void **state)
{
	(void)state;
	xd_set_tree("/local/domain/7/name = \"big\"\n");
	size_t huge = XENLIVE_VALUE_MAX + 100;
	char *v = malloc(huge);
	memset(v, 'a', huge);
	v[0] = '/';
	assert_int_equal(
	    xs_store_add(&xd.tree, "/local/domain/0/backend/qdisk/7/768/params", v, huge), 0);
	char *name = malloc(huge);
	memset(name, 'n', huge);
	assert_int_equal(xs_store_add(&xd.tree, "/local/domain/7/name", name, huge), 0);
	xs_store_sort(&xd.tree);
	free(v);
	free(name);

	struct xenlive *x = NULL;
	char why[256];
	assert_int_equal(xenlive_open(&x, &xd_api, why, sizeof(why)), 0);
	struct xs_store st;
	assert_int_equal(xenlive_read_store(x, &st, why, sizeof(why)), 0);
	const struct xs_entry *e = xs_find(&st, "/local/domain/0/backend/qdisk/7/768/params");
	assert_int_equal(e->value_len, XENLIVE_VALUE_MAX);
	assert_true(e->truncated);
	struct xt_topology t;
	assert_int_equal(topo_from_xenstore(&st, &roots, &t), 0);
	const struct xt_backend *b = backend_of(&t, 7, 768);
	assert_true(b->missing);
	assert_string_equal(
	    b->error, "params was cut short (by xenstore-ls: dump with -f; or over 64 KiB live)");
	assert_int_equal(strlen(topo_find_domain(&t, 7)->name), XENLIVE_VALUE_MAX);
	topo_free(&t);
	xs_free(&st);
	xenlive_close(x);
}

/* --- the watch --- */

static void test_watch_without_fd(void **state)
{
	(void)state;
	struct xenlive *x = open_ok();
	assert_false(xenlive_changed(x)); /* nothing pending: EAGAIN */
	xd.pending_events = 3;
	assert_true(xenlive_changed(x));
	assert_int_equal(xd.pending_events, 0); /* drained: three events are one change */
	assert_false(xenlive_changed(x));
	xd.check_errno = EPIPE; /* the connection broke: read again to learn why */
	assert_true(xenlive_changed(x));
	xd.check_errno = 0;
	xd.pending_events = 100000; /* a storm: bounded work, still a change */
	assert_true(xenlive_changed(x));
	assert_true(xd.pending_events > 0);
	xenlive_close(x);
}

static void test_watch_with_fd(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	xd.watch_fd = p[0];
	struct xenlive *x = open_ok();
	xd.pending_events = 1;
	int calls = xd.check_calls;
	assert_false(xenlive_changed(x)); /* the fd is quiet: no library call at all */
	assert_int_equal(xd.check_calls, calls);
	assert_int_equal(write(p[1], "!", 1), 1);
	assert_true(xenlive_changed(x));
	assert_int_equal(xd.pending_events, 0);
	close(p[1]);
	assert_true(xenlive_changed(x)); /* POLLHUP: the library's pipe is gone */
	xenlive_close(x);
	close(p[0]);
}

/* --- libxenstat figures in a sample --- */

static void add_sample_domain(struct xio_sample *s, uint32_t domid)
{
	struct xio_domain d = {.domid = domid};
	assert_int_equal(sample_add_domain(s, &d), 0);
}

/* The topology the double's tree gives (domain 2 has a qdisk, dev "hda", devid 768). */
static void tree_topology(struct xenlive *x, struct xt_topology *t, struct topo_generations *g)
{
	struct xs_store st;
	char why[256];
	assert_int_equal(xenlive_read_store(x, &st, why, sizeof(why)), 0);
	assert_int_equal(topo_from_xenstore(&st, &roots, t), 0);
	xs_free(&st);
	*g = (struct topo_generations){0};
	assert_int_equal(topo_generations_apply(g, t), 0);
}

static void stats_of(char *out, size_t len, uint64_t wr_bytes)
{
	snprintf(out, len,
	         "[{\"device\": \"\", \"node-name\": \"hda-raw\", \"stats\": {\"rd_bytes\": 5120,"
	         " \"wr_bytes\": %llu, \"rd_operations\": 1, \"wr_operations\": 2}}]",
	         (unsigned long long)wr_bytes);
}

static void test_fill_sample(void **state)
{
	(void)state;
	struct xenlive *x = open_ok();
	xenlive_set_qmp_dir(x, root);
	struct qmp_double q;
	assert_int_equal(qd_start(&q, root, 2), 0);
	char stats[512];
	stats_of(stats, sizeof(stats), 10240);
	qd_set(&q, QD_ANSWER, stats);
	struct xt_topology t;
	struct topo_generations g;
	tree_topology(x, &t, &g);
	xd.n_doms = 3;
	xd.doms[0] = (struct xenstat_domain){.domid = 1, .cpu_ns = 5000000000ull, .mem = 1 << 30};
	xd.doms[1] = (struct xenstat_domain){.domid = 2, .cpu_ns = ~0ull, .mem = 512 << 20};
	xd.doms[2] = (struct xenstat_domain){.domid = 9, .cpu_ns = 1}; /* not in xenstore */

	struct xio_sample s = {0};
	add_sample_domain(&s, 1);
	add_sample_domain(&s, 2);
	struct xio_dom_counters c = {.domid = 1, .cpu_ns = {7}, .guest_cpu_ns = -1};
	assert_int_equal(sample_add_counters(&s, &c), 0);
	struct xio_vbd_stat blk = {
	    .domid = 1, .devid = 51712, .source = XIO_VBD_BLKBACK, .rd_bytes = 7};
	assert_int_equal(sample_add_vbd_stat(&s, &blk), 0);

	assert_int_equal(xenlive_fill_sample(x, &t, &s), 0);
	assert_int_equal(xd.last_flags, 0); /* domains only: no XENSTAT_VBD, whose QMP would race */
	assert_true(s.domains_live);
	assert_true(s.has_vbd_stats);
	assert_int_equal(sample_counters(&s, 1)->guest_cpu_ns, 5000000000ll);
	assert_int_equal(sample_counters(&s, 1)->cpu_ns[0], 7); /* the tracer's, untouched */
	assert_int_equal(sample_counters(&s, 2)->guest_cpu_ns, INT64_MAX);
	assert_null(sample_counters(&s, 9));
	assert_null(sample_domain(&s, 9));
	assert_int_equal(sample_domain(&s, 1)->mem_bytes, 1 << 30);
	/* blkback's sysfs for domain 1, the qdisk's QEMU for domain 2 */
	assert_int_equal(s.n_vbd_stats, 2);
	assert_int_equal(sample_vbd_stat(&s, 1, 51712)->rd_bytes, 7);
	const struct xio_vbd_stat *v = sample_vbd_stat(&s, 2, 768);
	assert_int_equal(v->source, XIO_VBD_QMP);
	assert_int_equal(v->rd_bytes, 5120);
	assert_int_equal(v->wr_bytes, 10240);
	assert_int_equal(v->wr_req, 2);
	assert_int_equal(v->backend_dev, 0);
	assert_string_equal(xenlive_qdisk_problem(x), "");
	sample_free(&s);

	xd.fail_get_node = true;    /* libxenstat stopped answering: the sample stays as it is */
	qd_set(&q, QD_CLOSE, NULL); /* and QEMU went away */
	add_sample_domain(&s, 1);
	add_sample_domain(&s, 2);
	assert_int_equal(xenlive_fill_sample(x, &t, &s), 0);
	assert_false(s.domains_live);
	assert_int_equal(s.n_counters, 0);
	assert_int_equal(s.n_vbd_stats, 0);
	assert_non_null(
	    strstr(xenlive_qdisk_problem(x), "qdisk counters of domain 2: QEMU closed"));
	sample_free(&s);
	qd_stop(&q);
	topo_generations_free(&g);
	topo_free(&t);
	xenlive_close(x);
	assert_all_closed();
}

/* The collector puts blkback's sysfs counters and libxenstat's figures in each sample. */
static void test_collector_adds_xen_figures(void **state)
{
	(void)state;
	struct xenlive *x = open_ok();
	xenlive_set_qmp_dir(x, root); /* no QEMU there: domain 2's qdisk is not read */
	xd.n_doms = 1;
	xd.doms[0] = (struct xenstat_domain){.domid = 1, .cpu_ns = 42};
	struct xs_store st;
	char why[256];
	assert_int_equal(xenlive_read_store(x, &st, why, sizeof(why)), 0);
	struct xt_topology t;
	assert_int_equal(topo_from_xenstore(&st, &roots, &t), 0);
	xs_free(&st);
	struct topo_generations g = {0};
	assert_int_equal(topo_generations_apply(&g, &t), 0);

	struct collector col;
	collector_init(&col, NULL, NULL, &roots);
	collector_set_topology(&col, &t);
	collector_set_xen(&col, x);
	struct xio_sample s;
	assert_int_equal(collector_sample(&col, &s), 0);
	assert_true(s.has_vbd_stats);
	assert_true(s.domains_live);
	const struct xio_vbd_stat *v = sample_vbd_stat(&s, 1, 51712);
	assert_non_null(v);
	assert_int_equal(v->backend_dev, XT_KDEV(124, 0));
	assert_int_equal(v->wr_bytes, 4096 * 512);
	assert_int_equal(sample_counters(&s, 1)->guest_cpu_ns, 42);
	const struct xio_domain *d = sample_domain(&s, 1);
	assert_string_equal(d->uuid, "3f6e5b1c-0e43-4a4e-9b55-4b0d2c1f7a10");
	assert_int_equal(d->generation, 1);
	sample_free(&s);

	/* without Xen: no libxenstat figures, blkback's still read if the bus exists */
	collector_set_xen(&col, NULL);
	assert_int_equal(collector_sample(&col, &s), 0);
	assert_false(s.domains_live);
	assert_true(s.has_vbd_stats);
	assert_null(sample_counters(&s, 1));
	sample_free(&s);
	collector_free(&col);
	topo_generations_free(&g);
	topo_free(&t);
	xenlive_close(x);
}

/* The qdisk vbd double count (issue 30): QEMU does not answer for a qdisk vbd once (its
 * QMP socket busy); the next answer is cumulative since the vbd was made. Summed over the
 * intervals, the vbd's counts must be what was written after the first sample, not that
 * again from zero. And a vbd never answered for at the first sample, of a domain that
 * was already there, has no counts until read twice. */
static uint64_t vbd_wr_over(struct collector *col, struct qmp_double *q, const uint64_t *mib,
                            const bool *answers, size_t n, size_t *present)
{
	struct xio_sample prev, cur;
	uint64_t sum = 0;
	*present = 0;
	for (size_t i = 0; i < n; i++) {
		char stats[512];
		stats_of(stats, sizeof(stats), mib[i] * 1024 * 1024);
		qd_set(q, answers[i] ? QD_ANSWER : QD_CLOSE, stats);
		assert_int_equal(collector_sample(col, i ? &cur : &prev), 0);
		if (!i)
			continue;
		struct model_interval m;
		assert_int_equal(model_compute(&prev, &cur, &m), 0);
		for (size_t d = 0; d < m.n_domains; d++)
			for (size_t v = 0; m.domains[d].domid == 2 && v < m.domains[d].n_vbds;
			     v++) {
				sum += m.domains[d].vbds[v].wr_bytes;
				++*present;
			}
		model_free(&m);
		sample_free(&prev);
		prev = cur;
	}
	sample_free(&prev);
	return sum;
}

static void test_qdisk_vbd_gap_is_not_a_new_vbd(void **state)
{
	(void)state;
	struct xenlive *x = open_ok();
	xenlive_set_qmp_dir(x, root);
	struct qmp_double q;
	assert_int_equal(qd_start(&q, root, 2), 0);
	xd.n_doms = 2;
	xd.doms[0] = (struct xenstat_domain){.domid = 1, .cpu_ns = 1};
	xd.doms[1] = (struct xenstat_domain){.domid = 2, .cpu_ns = 1};
	struct xt_topology t;
	struct topo_generations g;
	tree_topology(x, &t, &g);
	const uint64_t MiB = 1024 * 1024;

	struct collector col;
	collector_init(&col, NULL, NULL, &roots);
	collector_set_topology(&col, &t);
	collector_set_xen(&col, x);
	/* 4 MiB before the first sample, 32 MiB after it; no answer at the second sample */
	static const uint64_t written[] = {4, 20, 36, 36};
	static const bool answered[] = {true, false, true, true};
	size_t present;
	assert_int_equal(vbd_wr_over(&col, &q, written, answered, 4, &present), 32 * MiB);
	assert_int_equal(present, 2); /* not in the interval that ends without an answer */
	collector_free(&col);

	/* never answered at the first sample: unknown, then counted from its first answer */
	collector_init(&col, NULL, NULL, &roots);
	collector_set_topology(&col, &t);
	collector_set_xen(&col, x);
	static const bool late[] = {false, true, true, true};
	static const uint64_t later[] = {4, 20, 36, 40};
	assert_int_equal(vbd_wr_over(&col, &q, later, late, 4, &present), 20 * MiB);
	assert_int_equal(present, 2);
	collector_free(&col);

	qd_stop(&q);
	topo_generations_free(&g);
	topo_free(&t);
	xenlive_close(x);
}

/* --- the source order and its one line --- */

struct said {
	char *text;
	size_t len;
	FILE *f;
};

static void said_open(struct said *s)
{
	s->text = NULL;
	s->len = 0;
	s->f = open_memstream(&s->text, &s->len);
}

static int said_lines(struct said *s)
{
	fflush(s->f);
	int n = 0;
	for (size_t i = 0; i < s->len; i++)
		n += s->text[i] == '\n';
	return n;
}

static const char *said_text(struct said *s)
{
	fflush(s->f);
	return s->text;
}

static void said_close(struct said *s)
{
	fclose(s->f);
	free(s->text);
}

static void test_source_xen_live_first(void **state)
{
	(void)state;
	struct said say;
	said_open(&say);
	xd_set_tree(tree);
	struct topo_source src;
	assert_int_equal(topo_source_open(&src, "ignored.txt", &roots, &xd_api, say.f), 0);
	assert_int_equal(said_lines(&say), 1);
	assert_string_equal(said_text(&say),
	                    "xiotop: topology from live xenstore and libxenstat (Xen "
	                    "4.17.3 answers; --xenstore-dump ignored)\n");
	assert_int_equal(src.kind, TOPO_SRC_XEN);
	struct xt_topology t;
	assert_int_equal(topo_source_build(&src, &t), 0);
	assert_string_equal(t.source, "xen live");
	assert_string_equal(topo_find_domain(&t, 1)->name, "guest1");
	assert_int_equal(topo_find_domain(&t, 1)->generation, 1);
	topo_free(&t);
	topo_source_close(&src);
	assert_all_closed();
	said_close(&say);

	xd.fail_watch = true;
	said_open(&say);
	assert_int_equal(topo_source_open(&src, NULL, &roots, &xd_api, say.f), 0);
	assert_string_equal(said_text(&say),
	                    "xiotop: topology from live xenstore and libxenstat (Xen "
	                    "4.17.3 answers; no watch: xenstore is read every "
	                    "interval)\n");
	topo_source_close(&src);
	said_close(&say);
}

static void test_source_falls_back_to_dump_then_proc(void **state)
{
	(void)state;
	char dump[PATH_MAX];
	snprintf(dump, sizeof(dump), "%s/dump.txt", root);
	put_file("dump.txt", "/local/domain/4/name = \"from-dump\"\n"
	                     "/local/domain/4/vm = \"/vm/0f0f0f0f-0000-0000-0000-000000000004\"\n");
	xd.fail_stat_init = true;
	xd.stat_init_err = "xc_interface_open: No such file or directory";
	struct said say;
	said_open(&say);
	struct topo_source src;
	assert_int_equal(topo_source_open(&src, dump, &roots, &xd_api, say.f), 0);
	assert_int_equal(said_lines(&say), 1);
	char want[PATH_MAX + 200];
	snprintf(want, sizeof(want),
	         "xiotop: topology from xenstore dump %s (Xen not available: xenstat_init "
	         "failed: xc_interface_open: No such file or directory)\n",
	         dump);
	assert_string_equal(said_text(&say), want);
	assert_int_equal(src.kind, TOPO_SRC_DUMP);
	struct xt_topology t;
	assert_int_equal(topo_source_build(&src, &t), 0);
	assert_string_equal(topo_find_domain(&t, 4)->name, "from-dump");
	assert_string_equal(topo_find_domain(&t, 4)->uuid, "0f0f0f0f-0000-0000-0000-000000000004");
	topo_free(&t);
	topo_source_close(&src);
	said_close(&say);

	/* xenstore answers but libxenstat does not: still not Xen live */
	xd.fail_stat_init = false;
	xd.fail_xs_open = true;
	said_open(&say);
	assert_int_equal(topo_source_open(&src, NULL, &roots, &xd_api, say.f), 0);
	assert_int_equal(src.kind, TOPO_SRC_PROC);
	assert_string_equal(said_text(&say),
	                    "xiotop: topology from qemu processes in /proc only (Xen not "
	                    "available: xs_open failed: No such file or directory; no "
	                    "--xenstore-dump given)\n");
	assert_int_equal(topo_source_build(&src, &t), 0);
	assert_string_equal(t.source, "proc");
	assert_int_equal(t.n_domains, 0);
	topo_free(&t);
	topo_source_close(&src);
	said_close(&say);
	assert_all_closed();

	/* built without the libraries */
	said_open(&say);
	assert_int_equal(topo_source_open(&src, NULL, &roots, NULL, say.f), 0);
	assert_non_null(strstr(said_text(&say), "(Xen not available: xiotop was built without "));
	topo_source_close(&src);
	said_close(&say);

	/* a dump that cannot be read: one line naming it, exit status 2 */
	said_open(&say);
	snprintf(dump, sizeof(dump), "%s/none.txt", root);
	assert_int_equal(topo_source_open(&src, dump, &roots, NULL, say.f), 2);
	assert_int_equal(said_lines(&say), 1);
	assert_non_null(strstr(said_text(&say), "none.txt"));
	topo_source_close(&src);
	said_close(&say);
}

/* xenstore goes away while running: the last topology stays, said once, then recovery. */
static void test_source_survives_xenstore_failure(void **state)
{
	(void)state;
	struct said say;
	said_open(&say);
	xd_set_tree(tree);
	struct topo_source src;
	assert_int_equal(topo_source_open(&src, NULL, &roots, &xd_api, say.f), 0);
	xd.fail_reads = true;
	xd.pending_events = 1;
	struct xt_topology t;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(topo_source_build(&src, &t), 0);
		assert_string_equal(topo_find_domain(&t, 1)->name, "guest1");
		topo_free(&t);
	}
	assert_int_equal(said_lines(&say), 2);
	assert_non_null(strstr(said_text(&say),
	                       "\nxiotop: xenstore: cannot list /local/domain: Broken "
	                       "pipe; keeping the last topology\n"));
	xd.fail_reads = false;
	xd_set_tree("/local/domain/1/name = \"renamed\"\n");
	assert_int_equal(topo_source_build(&src, &t), 0);
	assert_string_equal(topo_find_domain(&t, 1)->name, "renamed");
	assert_int_equal(said_lines(&say), 3);
	assert_non_null(strstr(said_text(&say), "xiotop: xenstore answers again\n"));
	topo_free(&t);
	topo_source_close(&src);
	said_close(&say);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_open_failures_say_which_call, reset_double),
	    cmocka_unit_test_setup(test_open_reads_version_and_sets_watch, reset_double),
	    cmocka_unit_test_setup(test_store_holds_what_the_resolver_reads, reset_double),
	    cmocka_unit_test_setup(test_hostile_values_are_marked, reset_double),
	    cmocka_unit_test_setup(test_huge_value_is_cut_and_marked, reset_double),
	    cmocka_unit_test_setup(test_watch_without_fd, reset_double),
	    cmocka_unit_test_setup(test_watch_with_fd, reset_double),
	    cmocka_unit_test_setup(test_fill_sample, reset_double),
	    cmocka_unit_test_setup(test_collector_adds_xen_figures, reset_double),
	    cmocka_unit_test_setup(test_qdisk_vbd_gap_is_not_a_new_vbd, reset_double),
	    cmocka_unit_test_setup(test_source_xen_live_first, reset_double),
	    cmocka_unit_test_setup(test_source_falls_back_to_dump_then_proc, reset_double),
	    cmocka_unit_test_setup(test_source_survives_xenstore_failure, reset_double),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
