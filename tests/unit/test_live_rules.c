/* test_live_rules.c - the live source's topology rules (sources/live_rules.c) without
 * BPF: when the tracer maps need a refill (fingerprint), how long a device-model domain
 * that went away stays listed (keep_departed), and the devices learned from blkback
 * threads' bios (learn, add_learned), resolved through a fake sysfs in a temp dir; and
 * churn: a domain destroyed and made again on the same loop device (two xenstore dumps,
 * as tests/xen/ sees on a real dom0) or on a reused domid leaves each device and image
 * file one owner, the domain listed now. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/live_rules.h"

#define SEC   1000000000ull
#define LOOP5 XT_KDEV(120, 5) /* fake majors 120-126: never a real device here */
#define ZRAM0 XT_KDEV(124, 0)
#define SDA   XT_KDEV(121, 0)
#define T0    (1000 * SEC)

/* --- building topologies by hand --------------------------------------------------- */

static struct xt_domain *add_domain(struct xt_topology *t, uint32_t domid, const char *name,
                                    int pid)
{
	struct xt_domain *d = topo_domain_slot(t, domid);
	assert_non_null(d);
	d->name = strdup(name);
	d->device_model_pid = pid;
	return d;
}

/* A backend on dev; with ino, an image file below it (as a loop or qdisk stack has). */
static struct xt_backend *add_backend(struct xt_domain *d, uint32_t dev, uint64_t ino,
                                      const char *params)
{
	struct xt_backend *b = topo_backend_add(d, XT_BK_VBD, 51712 + (uint32_t)d->n_backends);
	assert_non_null(b);
	b->backend_dev = dev;
	b->params = params ? strdup(params) : NULL;
	b->mode = strdup("w");
	b->layers = calloc(2, sizeof(*b->layers));
	assert_non_null(b->layers);
	b->layers[0] = (struct xt_layer){.role = XT_ROLE_BACKEND, .dev = dev, .name = strdup("x")};
	b->n_layers = 1;
	if (ino) {
		b->layers[1] = (struct xt_layer){
		    .role = XT_ROLE_FILE, .depth = 1, .path = strdup("/img/a.img"), .ino = ino};
		b->n_layers = 2;
	}
	return b;
}

/* What a fingerprint test changes from the base topology. */
struct change {
	bool extra_domain;
	uint32_t generation;
	const char *name;
	int pid;
	uint32_t backend_dev;
	uint64_t ino;
	const char *params;
	enum xt_loop_mode loop_mode;
	/* not tracer-relevant: must not change the fingerprint */
	const char *uuid;
	const char *mode;
	const char *layer_name;
};

/* Base: web (1, image file, no device model), db (2, device model pid 4321). */
static void build(struct xt_topology *t, const struct change *c)
{
	memset(t, 0, sizeof(*t));
	struct xt_domain *web = add_domain(t, 1, c->name ? c->name : "web", 0);
	web->generation = c->generation ? c->generation : 1;
	web->uuid = strdup(c->uuid ? c->uuid : "00000000-0000-0000-0000-000000000001");
	struct xt_backend *b =
	    add_backend(web, c->backend_dev ? c->backend_dev : LOOP5, c->ino ? c->ino : 1234,
	                c->params ? c->params : "/img/web.img");
	if (c->mode) {
		free(b->mode);
		b->mode = strdup(c->mode);
	}
	b->layers[0].loop_mode = c->loop_mode;
	if (c->layer_name) {
		free(b->layers[0].name);
		b->layers[0].name = strdup(c->layer_name);
	}
	struct xt_domain *db = add_domain(t, 2, "db", c->pid ? c->pid : 4321);
	db->generation = 1;
	add_backend(db, SDA, 0, "/dev/sda");
	if (c->extra_domain)
		add_domain(t, 9, "new", 0);
}

static uint64_t fingerprint_of(const struct change *c)
{
	struct xt_topology t;
	build(&t, c);
	uint64_t h = live_rules_fingerprint(&t);
	topo_free(&t);
	return h;
}

static void test_fingerprint(void **state)
{
	(void)state;
	const struct change base = {0};
	uint64_t h = fingerprint_of(&base);
	assert_int_equal(fingerprint_of(&base), h); /* the same topology built again */

	const struct change refill[] = {
	    {.extra_domain = true},
	    {.generation = 2},
	    {.name = "web2"},
	    {.pid = 4322},
	    {.backend_dev = ZRAM0},
	    {.ino = 1235},
	    {.params = "/img/other.img"},
	    {.loop_mode = XT_LOOP_DIRECT_IO}, /* losetup --direct-io=on on web's loop device */
	};
	for (size_t i = 0; i < sizeof(refill) / sizeof(refill[0]); i++)
		if (fingerprint_of(&refill[i]) == h)
			fail_msg("change %zu does not change the fingerprint", i);
	const struct change same[] = {
	    {.uuid = "00000000-0000-0000-0000-000000000002"},
	    {.mode = "r"},
	    {.layer_name = "y"},
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (fingerprint_of(&same[i]) != h)
			fail_msg("change %zu (nothing the maps use) changes the fingerprint", i);

	struct xt_topology empty = {0};
	assert_true(live_rules_fingerprint(&empty) != h);
}

/* --- device-model domains that went away ------------------------------------------- */

/* old: 5 (device model, image file), 6 (device model, a phy disk only), 7 (image file
 * gone: inode 0). All three left; fresh has only 8. */
static void departing(struct xt_topology *old, struct xt_topology *fresh)
{
	memset(old, 0, sizeof(*old));
	memset(fresh, 0, sizeof(*fresh));
	add_backend(add_domain(old, 5, "hvm5", 777), LOOP5, 99, "/img/hvm5.img");
	add_backend(add_domain(old, 6, "phy6", 778), SDA, 0, "/dev/sda");
	struct xt_domain *gone = add_domain(old, 7, "gone7", 779);
	struct xt_backend *b = add_backend(gone, ZRAM0, 5, "/img/gone.img");
	b->layers[1].ino = 0;
	add_domain(old, 8, "stays", 780);
	add_domain(fresh, 8, "stays", 780);
}

/* Applies the rule at now to a copy of old's successor: returns whether 5 was kept. */
static bool kept_at(struct live_rules *l, struct xt_topology *prev, uint64_t now)
{
	struct xt_topology fresh = {0};
	add_domain(&fresh, 8, "stays", 780);
	live_rules_keep_departed(l, prev, &fresh, now);
	bool kept = topo_find_domain(&fresh, 5) != NULL;
	if (kept) {
		const struct xt_domain *d = topo_find_domain(&fresh, 5);
		assert_int_equal(d->device_model_pid, 0); /* the pid may be anyone's now */
		assert_string_equal(d->name, "hvm5");
		assert_int_equal(d->n_backends, 1);
		assert_int_equal(d->backends[0].layers[1].ino, 99);
	}
	assert_null(topo_find_domain(&fresh, 6)); /* no image file: nothing to write back */
	assert_null(topo_find_domain(&fresh, 7));
	/* the next topology is built from this one, as the live source does */
	topo_free(prev);
	*prev = fresh;
	return kept;
}

static void test_keep_departed(void **state)
{
	(void)state;
	struct live_rules l;
	memset(&l, 0, sizeof(l));
	struct xt_topology old, fresh;
	departing(&old, &fresh);
	live_rules_keep_departed(&l, &old, &fresh, T0);
	const struct xt_domain *d = topo_find_domain(&fresh, 5);
	assert_non_null(d);
	assert_int_equal(d->device_model_pid, 0);
	assert_null(topo_find_domain(&fresh, 6));
	assert_null(topo_find_domain(&fresh, 7));
	assert_non_null(topo_find_domain(&fresh, 8));
	assert_int_equal(fresh.n_domains, 2);
	assert_int_equal(l.n_departed, 1);
	topo_free(&old);

	assert_true(kept_at(&l, &fresh, T0 + 60 * SEC));
	assert_true(kept_at(&l, &fresh, T0 + 120 * SEC)); /* LINGER_NS: still kept */
	assert_false(kept_at(&l, &fresh, T0 + 120 * SEC + 1));
	assert_false(kept_at(&l, &fresh, T0 + 121 * SEC));
	assert_int_equal(l.n_departed, 0); /* expired and listed nowhere: forgotten */
	topo_free(&fresh);

	/* a domain still present is left as the fresh topology has it */
	memset(&l, 0, sizeof(l));
	departing(&old, &fresh);
	add_domain(&fresh, 5, "hvm5-now", 900);
	live_rules_keep_departed(&l, &old, &fresh, T0);
	assert_int_equal(topo_find_domain(&fresh, 5)->device_model_pid, 900);
	assert_int_equal(topo_find_domain(&fresh, 5)->n_backends, 0);
	assert_int_equal(l.n_departed, 0);
	topo_free(&old);
	topo_free(&fresh);
}

static void test_departed_cap(void **state)
{
	(void)state;
	struct live_rules l;
	memset(&l, 0, sizeof(l));
	struct xt_topology old = {0}, fresh = {0};
	for (uint32_t i = 0; i < LIVE_MAX_DEPARTED + 6; i++)
		add_backend(add_domain(&old, 100 + i, "hvm", 2000 + (int)i), LOOP5, 1 + i,
		            "/img/x");
	live_rules_keep_departed(&l, &old, &fresh, T0);
	assert_int_equal(l.n_departed, LIVE_MAX_DEPARTED);
	assert_int_equal(fresh.n_domains, LIVE_MAX_DEPARTED);
	assert_non_null(topo_find_domain(&fresh, 100));
	assert_null(topo_find_domain(&fresh, 100 + LIVE_MAX_DEPARTED));
	topo_free(&old);
	topo_free(&fresh);
}

/* --- devices learned from blkback threads -------------------------------------------- */

static char root[PATH_MAX];
static struct xt_roots roots;

static void write_file(const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		fail_msg("create %s: %s", path, strerror(errno));
		return;
	}
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *rel_link, const char *target)
{
	char path[PATH_MAX * 2];
	snprintf(path, sizeof(path), "%s/%s", root, rel_link);
	if (symlink(target, path))
		fail_msg("symlink %s: %s", path, strerror(errno));
}

/* sysfs as test_topology.c builds it, reduced to a loop device over an image file and a
 * zram disk: dev/block/MAJ:MIN links to the device's directory. */
static int setup_sysfs(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "%s/xiotop-live-rules-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return -1;
	char image[PATH_MAX + 32], backing[PATH_MAX + 40];
	snprintf(image, sizeof(image), "%s/img/guest3.img", root);
	write_file("img/guest3.img", "guest3 disk\n");
	write_file("sys/devices/virtual/block/loop5/dev", "120:5\n");
	snprintf(backing, sizeof(backing), "%s\n", image);
	write_file("sys/devices/virtual/block/loop5/loop/backing_file", backing);
	write_file("sys/devices/virtual/block/zram0/dev", "124:0\n");
	write_file("sys/dev/block/.keep", "");
	link_to("sys/dev/block/120:5", "../../devices/virtual/block/loop5");
	link_to("sys/dev/block/124:0", "../../devices/virtual/block/zram0");
	static char sys[PATH_MAX + 8], proc[PATH_MAX + 8], dev[PATH_MAX + 8];
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(dev, sizeof(dev), "%s/dev", root);
	roots = (struct xt_roots){.sysfs = sys, .proc = proc, .dev = dev};
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown_sysfs(void **state)
{
	(void)state;
	return nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void add_layer(struct xio_sample *s, uint32_t domid, uint32_t dev, uint32_t via)
{
	struct xio_layer x = {.domid = domid, .dev = dev, .via = via};
	x.io.wr_bytes = 4096;
	assert_int_equal(sample_add_layer(s, &x), 0);
}

static void test_learn(void **state)
{
	(void)state;
	struct live_rules l;
	memset(&l, 0, sizeof(l));
	struct xt_topology topo = {0};
	add_backend(add_domain(&topo, 3, "guest3", 0), SDA, 0, "/dev/sda");
	struct xio_sample s;
	memset(&s, 0, sizeof(s));
	add_layer(&s, 3, LOOP5, XIOTOP_VIA_TASK);               /* learned */
	add_layer(&s, 3, LOOP5, XIOTOP_VIA_TASK);               /* once */
	add_layer(&s, 3, SDA, XIOTOP_VIA_TASK);                 /* already its backend */
	add_layer(&s, 3, ZRAM0, XIOTOP_VIA_DEV);                /* not a blkback thread's bio */
	add_layer(&s, 3, ZRAM0, XIOTOP_VIA_LOOPWORK);           /* nor this */
	add_layer(&s, XIOTOP_DOM_NONE, ZRAM0, XIOTOP_VIA_TASK); /* no domain */
	add_layer(&s, 4, ZRAM0, XIOTOP_VIA_TASK);               /* a domain no source lists */
	live_rules_learn(&l, &topo, &s);
	live_rules_learn(&l, &topo, &s); /* the next interval: nothing new */
	assert_int_equal(l.n_learned, 2);
	assert_int_equal(l.learned[0].domid, 3);
	assert_int_equal(l.learned[0].dev, LOOP5);
	assert_int_equal(l.learned[1].domid, 4);
	assert_int_equal(l.learned[1].dev, ZRAM0);
	sample_free(&s);

	/* into a fresh topology: "seen" backends resolved through sysfs */
	struct xt_topology fresh = {0};
	add_backend(add_domain(&fresh, 3, "guest3", 0), SDA, 0, "/dev/sda");
	live_rules_add_learned(&l, &roots, &fresh);
	live_rules_add_learned(&l, &roots, &fresh); /* never twice */
	const struct xt_domain *d = topo_find_domain(&fresh, 3);
	assert_int_equal(d->n_backends, 2);
	const struct xt_backend *b = &d->backends[1];
	assert_string_equal(b->type, "seen");
	assert_int_equal(b->backend_dev, LOOP5);
	assert_true(b->n_layers >= 2);
	assert_string_equal(b->layers[0].name, "loop5");
	assert_int_equal(b->layers[1].role, XT_ROLE_FILE);
	assert_non_null(strstr(b->layers[1].path, "/img/guest3.img"));
	assert_true(b->layers[1].ino != 0);
	d = topo_find_domain(&fresh, 4); /* a learned device brings its domain */
	assert_non_null(d);
	assert_int_equal(d->n_backends, 1);
	assert_string_equal(d->backends[0].type, "seen");
	assert_int_equal(d->backends[0].backend_dev, ZRAM0);
	assert_string_equal(d->backends[0].layers[0].name, "zram0");
	assert_true(d->backends[0].layers[0].is_leaf);
	topo_free(&fresh);
	topo_free(&topo);
}

static void test_learned_cap(void **state)
{
	(void)state;
	struct live_rules l;
	memset(&l, 0, sizeof(l));
	struct xt_topology topo = {0};
	struct xio_sample s;
	memset(&s, 0, sizeof(s));
	for (uint32_t i = 0; i < LIVE_MAX_LEARNED + 10; i++)
		add_layer(&s, 3, XT_KDEV(126, i), XIOTOP_VIA_TASK);
	live_rules_learn(&l, &topo, &s);
	assert_int_equal(l.n_learned, LIVE_MAX_LEARNED);
	assert_int_equal(l.learned[LIVE_MAX_LEARNED - 1].dev, XT_KDEV(126, LIVE_MAX_LEARNED - 1));
	sample_free(&s);
	topo_free(&topo);
}

/* --- churn: destroyed and made again on the same device, a reused domid ------------- */

/* How many domains claim dev above their image file, or the image file ino, as the
 * tracer's maps would give them one owner; *owner is the last one found. */
static size_t claimants(const struct xt_topology *t, uint32_t dev, uint64_t ino, uint32_t *owner)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n_domains; i++) {
		bool claims = false;
		for (size_t j = 0; j < t->domains[i].n_backends; j++) {
			const struct xt_backend *b = &t->domains[i].backends[j];
			bool above = true;
			for (size_t k = 0; k < b->n_layers; k++) {
				above &= b->layers[k].role != XT_ROLE_FILE;
				claims |= dev && above && b->layers[k].dev == dev;
				claims |= ino && b->layers[k].role == XT_ROLE_FILE &&
				          b->layers[k].ino == ino;
			}
		}
		if (claims) {
			n++;
			*owner = t->domains[i].domid;
		}
	}
	return n;
}

static void load_dump(const char *name, struct topo_generations *g, struct xt_topology *t)
{
	char path[PATH_MAX];
	struct xerr err;
	const char *dir = getenv("XIOTOP_FIXTURES");
	snprintf(path, sizeof(path), "%s/xenstore/%s", dir ? dir : "tests/fixtures", name);
	struct xs_store st;
	if (xs_parse_file(path, &st, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(topo_from_xenstore(&st, &roots, t), 0);
	assert_int_equal(topo_generations_apply(g, t), 0);
	xs_free(&st);
}

/* The warning a real dom0 printed ("device 7:2 is claimed by domains 5 and 6"): the
 * destroyed domain, kept for its image's writeback, still claimed the loop device and
 * image its successor now uses. The successor owns them; nothing of 5 is kept. */
static void test_churn_same_loop(void **state)
{
	(void)state;
	struct live_rules l;
	memset(&l, 0, sizeof(l));
	struct topo_generations g = {0};
	struct xt_topology before, after;
	load_dump("churn-before.txt", &g, &before);
	load_dump("churn-after.txt", &g, &after);
	const struct xt_domain *d5 = topo_find_domain(&before, 5);
	assert_non_null(d5);
	assert_int_equal(d5->n_backends, 1);
	assert_int_equal(d5->backends[0].backend_dev, LOOP5);
	assert_true(d5->backends[0].n_layers >= 2);
	uint64_t ino = d5->backends[0].layers[1].ino;
	assert_true(ino != 0);

	struct xio_sample s; /* 5's blkback thread submitted to zram0: learned for 5 */
	memset(&s, 0, sizeof(s));
	add_layer(&s, 5, ZRAM0, XIOTOP_VIA_TASK);
	live_rules_learn(&l, &before, &s);
	assert_int_equal(l.n_learned, 1);
	sample_free(&s);

	live_rules_add_learned(&l, &roots, &after);
	live_rules_keep_departed(&l, &before, &after, T0);
	assert_null(topo_find_domain(&after, 5)); /* neither kept nor brought back */
	assert_int_equal(l.n_learned, 0);
	assert_int_equal(l.n_departed, 0);
	uint32_t owner = 0;
	assert_int_equal(claimants(&after, LOOP5, 0, &owner), 1);
	assert_int_equal(owner, 6);
	assert_int_equal(claimants(&after, 0, ino, &owner), 1);
	assert_int_equal(owner, 6);
	topo_free(&before);
	topo_free(&after);
	topo_generations_free(&g);
}

static void add_leaf(struct xt_backend *b, uint32_t dev)
{
	struct xt_layer *p = realloc(b->layers, (b->n_layers + 1) * sizeof(*p));
	assert_non_null(p);
	b->layers = p;
	p[b->n_layers++] = (struct xt_layer){
	    .role = XT_ROLE_LEAF, .depth = 2, .dev = dev, .name = strdup("sda"), .is_leaf = true};
}

/* 5 left with two images on loop devices over one filesystem (sda); 6 takes one of
 * them (the same loop device, or the same image through another loop device): 5 keeps
 * only the other. A shared filesystem device is no claim. */
static void test_departed_shares(void **state)
{
	(void)state;
	const uint32_t loop6 = XT_KDEV(120, 6), loop7 = XT_KDEV(120, 7);
	const struct {
		uint32_t dev;
		uint64_t ino;
		size_t kept_backends;
	} cases[] = {{LOOP5, 77, 1}, {loop7, 77, 1}, {loop7, 79, 2}};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct live_rules l;
		memset(&l, 0, sizeof(l));
		struct xt_topology old = {0}, fresh = {0};
		struct xt_domain *d5 = add_domain(&old, 5, "churn", 0);
		add_leaf(add_backend(d5, LOOP5, 77, "/dev/loop5"), SDA);
		add_leaf(add_backend(d5, loop6, 78, "/dev/loop6"), SDA);
		add_leaf(add_backend(add_domain(&fresh, 6, "churn", 0), cases[c].dev, cases[c].ino,
		                     "/dev/loopN"),
		         SDA);
		live_rules_keep_departed(&l, &old, &fresh, T0);
		const struct xt_domain *kept = topo_find_domain(&fresh, 5);
		assert_non_null(kept);
		assert_int_equal(kept->n_backends, cases[c].kept_backends);
		assert_int_equal(kept->backends[kept->n_backends - 1].backend_dev, loop6);
		uint32_t owner = 0;
		assert_int_equal(claimants(&fresh, cases[c].dev, 0, &owner), 1);
		assert_int_equal(owner, 6);
		assert_int_equal(claimants(&fresh, 0, cases[c].ino, &owner), 1);
		assert_int_equal(owner, 6);
		assert_int_equal(claimants(&fresh, SDA, 0, &owner), 0); /* below the files */
		topo_free(&old);
		topo_free(&fresh);
	}
}

/* A domid that departed, came back (another domain) and departed again lingers anew. */
static void test_departed_reused_domid(void **state)
{
	(void)state;
	struct live_rules l;
	memset(&l, 0, sizeof(l));
	struct xt_topology first = {0}, gone = {0}, again = {0}, gone2 = {0};
	add_backend(add_domain(&first, 5, "a", 0), LOOP5, 99, "/dev/loop5");
	live_rules_keep_departed(&l, &first, &gone, T0);
	assert_non_null(topo_find_domain(&gone, 5));
	add_backend(add_domain(&again, 5, "b", 0), LOOP5, 99, "/dev/loop5");
	live_rules_keep_departed(&l, &gone, &again, T0 + 10 * SEC);
	assert_int_equal(l.n_departed, 0);
	assert_string_equal(topo_find_domain(&again, 5)->name, "b");
	live_rules_keep_departed(&l, &again, &gone2, T0 + 200 * SEC);
	assert_non_null(topo_find_domain(&gone2, 5));
	assert_string_equal(topo_find_domain(&gone2, 5)->name, "b");
	assert_int_equal(l.departed[0].since_ns, T0 + 200 * SEC);
	topo_free(&first);
	topo_free(&gone);
	topo_free(&again);
	topo_free(&gone2);
}

/* What was learned for one incarnation is not given to the next on the same domid, and
 * a device a listed domain has as its backend is not handed to another. */
static void test_learned_churn(void **state)
{
	(void)state;
	struct live_rules l;
	memset(&l, 0, sizeof(l));
	struct xt_topology topo = {0};
	add_domain(&topo, 5, "first", 0)->generation = 1;
	struct xio_sample s;
	memset(&s, 0, sizeof(s));
	add_layer(&s, 5, ZRAM0, XIOTOP_VIA_TASK);
	add_layer(&s, 4, LOOP5, XIOTOP_VIA_TASK); /* 4: no source lists it */
	live_rules_learn(&l, &topo, &s);
	sample_free(&s);
	assert_int_equal(l.n_learned, 2);
	assert_int_equal(l.learned[0].generation, 1);
	assert_int_equal(l.learned[1].generation, 0);

	struct xt_topology fresh = {0};
	add_domain(&fresh, 5, "second", 0)->generation = 2;
	add_backend(add_domain(&fresh, 6, "owner", 0), LOOP5, 0, "/dev/loop5")->type =
	    strdup("phy");
	live_rules_add_learned(&l, &roots, &fresh);
	assert_int_equal(topo_find_domain(&fresh, 5)->n_backends, 0);
	assert_null(topo_find_domain(&fresh, 4));
	assert_int_equal(l.n_learned, 1); /* 4's stays for when nobody else claims it */
	assert_int_equal(l.learned[0].domid, 4);
	topo_free(&fresh);
	topo_free(&topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fingerprint),
	    cmocka_unit_test(test_keep_departed),
	    cmocka_unit_test(test_departed_cap),
	    cmocka_unit_test_setup_teardown(test_learn, setup_sysfs, teardown_sysfs),
	    cmocka_unit_test(test_learned_cap),
	    cmocka_unit_test_setup_teardown(test_churn_same_loop, setup_sysfs, teardown_sysfs),
	    cmocka_unit_test(test_departed_shares),
	    cmocka_unit_test(test_departed_reused_domid),
	    cmocka_unit_test(test_learned_churn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
