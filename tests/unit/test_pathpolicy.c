/* test_pathpolicy.c - which paths named in xenstore xiotop follows: ".." never, /dev
 * always, with --image-dir only files below one (also after symlinks), and what the
 * mark says when it refuses; then a dump whose backends name such paths. */
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

#include "sources/topology/topology.h"

static char root[256], images[512], other[512], link_dir[512];

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("disk\n", f);
	fclose(f);
}

/* root/images/{a.img, escape -> ../other/secret}, root/other/secret,
 * root/link -> images (an image directory that is itself a symlink) */
static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(root, sizeof(root), "%s/xiotop-paths-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		return -1;
	char p[PATH_MAX + 32];
	snprintf(images, sizeof(images), "%s/images", root);
	snprintf(other, sizeof(other), "%s/other", root);
	snprintf(link_dir, sizeof(link_dir), "%s/link", root);
	mkdir(images, 0755);
	mkdir(other, 0755);
	snprintf(p, sizeof(p), "%s/a.img", images);
	touch(p);
	snprintf(p, sizeof(p), "%s/secret", other);
	touch(p);
	snprintf(p, sizeof(p), "%s/escape", images);
	if (symlink("../other/secret", p) || symlink("images", link_dir))
		return -1;
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
	return nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static bool allowed(const struct xt_roots *r, const char *path, char *why)
{
	why[0] = '\0';
	return topo_path_allowed(r, "params", path, why, 512);
}

static void test_without_image_dirs(void **state)
{
	(void)state;
	char why[512];
	struct xt_roots r = {0};
	assert_true(allowed(&r, "/dev/vg/lv", why));
	assert_true(allowed(&r, "/srv/xen/a.img", why));
	assert_true(allowed(&r, "/srv/xen/a..b.img", why)); /* ".." inside a name is fine */
	assert_true(allowed(&r, "/srv/..hidden/a.img", why));
	assert_true(allowed(NULL, "/srv/a.img", why));
	static const char *const dotdot[] = {"/srv/../etc/shadow", "/dev/../etc/passwd", "/..",
	                                     "/srv/xen/..", "/srv/xen/../"};
	for (size_t i = 0; i < sizeof(dotdot) / sizeof(dotdot[0]); i++) {
		if (allowed(&r, dotdot[i], why))
			fail_msg("%s allowed", dotdot[i]);
		assert_non_null(strstr(why, "refused: a \"..\" component"));
		assert_non_null(strstr(why, dotdot[i]));
	}
	assert_false(allowed(&r, "srv/a.img", why));
	assert_string_equal(why, "params srv/a.img refused: not an absolute path");
	assert_false(allowed(&r, NULL, why));
}

static void test_with_image_dirs(void **state)
{
	(void)state;
	char why[512], p[PATH_MAX + 32];
	const char *const dirs[] = {"/srv/xen/", link_dir};
	struct xt_roots r = {.image_dirs = dirs, .n_image_dirs = 2};
	assert_true(allowed(&r, "/dev/mapper/vg-lv", why));
	assert_true(allowed(&r, "/srv/xen/sub/a.img", why)); /* not there: the resolver says so */
	assert_true(allowed(&r, "/srv/xen", why));
	assert_false(allowed(&r, "/srv/xenial/a.img", why)); /* a prefix is not a parent */
	assert_false(allowed(&r, "/etc/shadow", why));
	char want[1024];
	snprintf(want, sizeof(want),
	         "params /etc/shadow refused: outside /dev and --image-dir /srv/xen/, %s",
	         link_dir);
	assert_string_equal(why, want);
	/* through the symlinked image directory to a real file below it */
	snprintf(p, sizeof(p), "%s/a.img", link_dir);
	assert_true(allowed(&r, p, why));
	/* a link inside an image directory that points out of it */
	snprintf(p, sizeof(p), "%s/escape", link_dir);
	assert_false(allowed(&r, p, why));
	assert_non_null(strstr(why, "refused: it leads to "));
	assert_non_null(strstr(why, "/other/secret, outside --image-dir"));
}

/* The resolver applies it to every xenstore path it would follow, and marks. */
static void test_resolver_marks_refusals(void **state)
{
	(void)state;
	char dump[4096];
	snprintf(dump, sizeof(dump),
	         "/local/domain/1/name = \"a\"\n"
	         "/local/domain/0/backend/qdisk/1/768/params = \"aio:%s/a.img\"\n"
	         "/local/domain/0/backend/qdisk/1/832/params = \"aio:%s/secret\"\n"
	         "/local/domain/0/backend/vbd/1/51712/node = \"/dev/../%s/secret\"\n"
	         "/local/domain/0/backend/vbd/1/51728/params = \"%s/escape\"\n",
	         images, other, other, images);
	FILE *in = fmemopen(dump, strlen(dump), "r");
	struct xs_store st;
	struct xerr err;
	assert_int_equal(xs_parse_stream(in, "paths", &st, &err), 0);
	fclose(in);
	const char *const dirs[] = {images};
	struct xt_roots r = {.sysfs = "/nonexistent", .image_dirs = dirs, .n_image_dirs = 1};
	struct xt_topology t;
	assert_int_equal(topo_from_xenstore(&st, &r, &t), 0);
	xs_free(&st);
	const struct xt_domain *d = topo_find_domain(&t, 1);
	assert_int_equal(d->n_backends, 4);
	/* sorted by devid: 768, 832, 51712, 51728 */
	assert_false(d->backends[0].missing); /* an image below the directory: resolved */
	assert_int_equal(d->backends[0].layers[0].role, XT_ROLE_FILE);
	assert_true(d->backends[1].missing);
	assert_non_null(strstr(d->backends[1].error, "refused: outside /dev and --image-dir"));
	assert_true(d->backends[2].missing);
	assert_non_null(strstr(d->backends[2].error, "node /dev/../"));
	assert_non_null(strstr(d->backends[2].error, "refused: a \"..\" component"));
	assert_true(d->backends[3].missing);
	assert_non_null(strstr(d->backends[3].error, "refused: it leads to"));
	assert_int_equal(d->backends[3].n_layers, 0); /* never stat'ed, never listed */
	topo_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_without_image_dirs),
	    cmocka_unit_test(test_with_image_dirs),
	    cmocka_unit_test(test_resolver_marks_refusals),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
