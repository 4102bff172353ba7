/* test_tracer_parts.c - the tracer's jobs that need no BPF: the kallsyms parser, the
 * /proc/PID/stat start time (a command name with spaces and parentheses), and the
 * count of refused map updates that goes into lost_events (a full map is never
 * silent: each refusal counts once, per map, whatever its errno), the lost events'
 * kinds in words, said when a command ends, and the device models kept mapped after they
 * left the topology (their threads' last runtime comes when their tasks are freed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/dm_keep.h"
#include "sources/kallsyms.h"
#include "sources/lat_untimed.h"
#include "sources/map_updates.h"
#include "sources/proc_stat.h"
#include "sources/lost_kinds.h"
#include "core/sample.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void kallsyms_finds_the_symbol(void **state)
{
	(void)state;
	char path[] = "/tmp/xiotop-kallsymsXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_file(path, "ffffffff81000000 T _stext\n"
	                 "ffffffffc0a01230 t loop_workfn\t[loop]\n"
	                 "ffffffff81234560 T wb_workfn\n"
	                 "ffffffff81234560 T wb_workfn_other\n");
	assert_true(kallsyms_addr(path, "wb_workfn") == 0xffffffff81234560ull);
	assert_true(kallsyms_addr(path, "loop_workfn") == 0xffffffffc0a01230ull);
	assert_true(kallsyms_addr(path, "loop_rootcg_workfn") == 0); /* absent */
	assert_true(kallsyms_addr(path, "wb_work") == 0);            /* no prefix match */
	unlink(path);
	assert_true(kallsyms_addr(path, "wb_workfn") == 0); /* unreadable */
}

static void start_ticks_after_the_last_paren(void **state)
{
	(void)state;
	char root[] = "/tmp/xiotop-procXXXXXX";
	assert_non_null(mkdtemp(root));
	char dir[300], path[320];
	snprintf(dir, sizeof(dir), "%s/4242", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/stat", dir);
	/* a qemu named "qemu (dm) x" by its -name: fields 3.. follow the last ')' */
	write_file(path, "4242 (qemu (dm) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 "
	                 "3 0 987654 123456789 500\n");
	unsigned long long ticks = 0;
	assert_int_equal(proc_start_ticks(root, 4242, &ticks), 0);
	assert_true(ticks == 987654ull);
	assert_int_equal(proc_start_ticks(root, 4243, &ticks), -1); /* gone */
	write_file(path, "4242 no parenthesis\n");
	assert_int_equal(proc_start_ticks(root, 4242, &ticks), -1);
	unlink(path);
	rmdir(dir);
	rmdir(root);
}

/* A domain's backend with its top layer: a block device, else an image file. */
static struct xt_backend backend_on(struct xt_layer *top, uint32_t dev)
{
	*top = (struct xt_layer){.role = dev ? XT_ROLE_BACKEND : XT_ROLE_FILE, .dev = dev};
	return (struct xt_backend){.layers = top, .n_layers = 1};
}

/* Which hook times which backend (sources/lat_untimed.h): a loop device and a partition
 * of one (blk-mq, sysfs mq/) at block_rq_complete, zram at block_bio_complete, an image
 * file by the syscall hooks; a domain is timed when each of its backends' kinds is. */
static void each_backend_kind_by_its_hook(void **state)
{
	(void)state;
	char root[] = "/tmp/xiotop-sysfsXXXXXX", p[400];
	assert_non_null(mkdtemp(root));
	const char *dirs[] = {
	    "devices",       "devices/loop0", "devices/loop0/mq", "devices/loop0/loop0p1",
	    "devices/zram0", "dev",           "dev/block"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	snprintf(p, sizeof(p), "%s/devices/loop0/loop0p1/partition", root);
	write_file(p, "1\n");
	const char *links[][2] = {{"../../devices/loop0", "7:0"},
	                          {"../../devices/loop0/loop0p1", "7:1"},
	                          {"../../devices/zram0", "252:0"}};
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/dev/block/%s", root, links[i][1]);
		assert_int_equal(symlink(links[i][0], p), 0);
	}
	uint32_t loop0 = 7u << 20, loop0p1 = 7u << 20 | 1, zram0 = 252u << 20;
	assert_true(lat_dev_is_blk_mq(root, loop0));
	assert_true(lat_dev_is_blk_mq(root, loop0p1));
	assert_false(lat_dev_is_blk_mq(root, zram0));
	struct xt_layer tops[4];
	struct xt_backend b[4] = {backend_on(&tops[0], loop0), backend_on(&tops[1], loop0p1),
	                          backend_on(&tops[2], zram0), backend_on(&tops[3], 0)};
	const struct lat_hooks all = {true, true, true}, no_rq = {false, true, true},
	                       no_bio = {true, false, true}, no_sys = {true, true, false};
	for (int i = 0; i < 4; i++)
		assert_int_equal(lat_untimed_backend(&b[i], &all, root), 0);
	assert_int_equal(lat_untimed_backend(&b[0], &no_rq, root), XIO_UNTIMED_RQ);
	assert_int_equal(lat_untimed_backend(&b[1], &no_rq, root), XIO_UNTIMED_RQ);
	assert_int_equal(lat_untimed_backend(&b[2], &no_rq, root), 0);
	assert_int_equal(lat_untimed_backend(&b[0], &no_bio, root), 0);
	assert_int_equal(lat_untimed_backend(&b[2], &no_bio, root), XIO_UNTIMED_BIO);
	assert_int_equal(lat_untimed_backend(&b[3], &no_sys, root), XIO_UNTIMED_SYSCALL);
	assert_int_equal(lat_untimed_backend(&b[0], &no_sys, root), 0);
	b[0].missing = true; /* not traced: no kind */
	assert_int_equal(lat_untimed_backend(&b[0], &no_rq, root), 0);
	b[0].missing = false;
	/* a domain with a loop and a zram backend: not timed without either hook */
	struct xt_domain d = {.domid = 3, .backends = &b[1], .n_backends = 2};
	assert_int_equal(lat_untimed_domain(&d, &all, root), 0);
	assert_int_equal(lat_untimed_domain(&d, &no_rq, root), XIO_UNTIMED_RQ);
	assert_int_equal(lat_untimed_domain(&d, &no_bio, root), XIO_UNTIMED_BIO);
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/dev/block/%s", root, links[i][1]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/devices/loop0/loop0p1/partition", root);
	unlink(p);
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
		rmdir(p);
	}
	assert_int_equal(rmdir(root), 0);
}

static void refused_updates_are_counted_per_map(void **state)
{
	(void)state;
	struct map_updates u;
	memset(&u, 0, sizeof(u));
	char line[200];
	map_updates_describe(&u, line, sizeof(line));
	assert_string_equal(line, "");
	assert_int_equal(map_update_counted(&u, TOPO_MAP_DEV_DOM, 0), 0); /* stored */
	assert_int_equal(map_update_counted(&u, TOPO_MAP_DEV_DOM, -E2BIG), -E2BIG);
	map_update_counted(&u, TOPO_MAP_DEV_DOM, -E2BIG);
	map_update_counted(&u, TOPO_MAP_INODE_DOM, -ENOMEM);
	map_update_counted(&u, TOPO_MAP_TGID_DOM, -EINVAL);
	assert_true(u.full[TOPO_MAP_DEV_DOM] == 2);
	assert_true(u.full[TOPO_MAP_INODE_DOM] == 1);
	assert_true(u.failed[TOPO_MAP_TGID_DOM] == 1);
	assert_true(u.full[TOPO_MAP_TGID_BITS] == 0);
	assert_true(map_updates_lost(&u) == 4); /* what lost_events gains */
	map_updates_describe(&u, line, sizeof(line));
	assert_string_equal(line, "dev_dom full 2, inode_dom full 1, tgid_dom failed 1");
}

/* only the kinds that lost something, in the table's order; nothing when none; a short
 * buffer cut, never overrun */
static void lost_kinds_in_words(void **state)
{
	(void)state;
	char out[256];
	struct tracer_lost none = {0};
	tracer_lost_words(&none, out, sizeof(out));
	assert_string_equal(out, "");
	struct tracer_lost some = {.cpu_map = 1, .latency_unseen = 12};
	tracer_lost_words(&some, out, sizeof(out));
	assert_string_equal(out, "cpu state busy or map full 1, completions no program saw 12");
	char small[8];
	tracer_lost_words(&some, small, sizeof(small));
	assert_string_equal(small, "cpu sta");
}

#define SEC 1000000000LL

static bool kept(const struct dm_keep *k, uint32_t tgid, unsigned int domid)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].tgid == tgid)
			return k->v[i].owner.domid == domid;
	return false;
}

/* a model that left stays DM_KEEP_GONE_NS from the first topology without it (not from
 * the last with it), then is dropped with its bit; one that comes back is in again */
static void gone_device_models_stay_a_while(void **state)
{
	(void)state;
	static struct dm_keep k;
	struct xiotop_dm_owner qemu7 = {.domid = 7, .start_ticks = 100};
	struct xiotop_dm_owner qemu9 = {.domid = 9, .start_ticks = 200};
	dm_keep_begin(&k);
	assert_true(dm_keep_see(&k, 4000, &qemu7));
	assert_true(dm_keep_see(&k, 4001, &qemu9));
	dm_keep_end(&k, 10 * SEC);
	assert_true(k.n == 2 && k.n_dropped == 0);
	assert_true(dm_keep_word(&k, 4000 >> 6) == (1ull << (4000 & 63) | 1ull << (4001 & 63)));

	/* 4000 exits: kept through the next topologies, one of them 100 s later */
	dm_keep_begin(&k);
	dm_keep_see(&k, 4001, &qemu9);
	dm_keep_end(&k, 110 * SEC);
	assert_true(kept(&k, 4000, 7) && k.n_dropped == 0);
	dm_keep_begin(&k);
	dm_keep_see(&k, 4001, &qemu9);
	dm_keep_end(&k, 110 * SEC + DM_KEEP_GONE_NS - 1);
	assert_true(kept(&k, 4000, 7) && k.n_dropped == 0);
	dm_keep_begin(&k);
	dm_keep_see(&k, 4001, &qemu9);
	dm_keep_end(&k, 110 * SEC + DM_KEEP_GONE_NS);
	assert_false(kept(&k, 4000, 7));
	assert_true(k.n == 1 && k.n_dropped == 1 && k.dropped[0] == 4000);
	assert_true(dm_keep_word(&k, 4000 >> 6) == 1ull << (4001 & 63));

	/* 4001 leaves and its pid comes back as another process: the new one replaces it */
	dm_keep_begin(&k);
	dm_keep_end(&k, 200 * SEC);
	assert_true(kept(&k, 4001, 9));
	struct xiotop_dm_owner reused = {.domid = 12, .start_ticks = 900};
	dm_keep_begin(&k);
	dm_keep_see(&k, 4001, &reused);
	dm_keep_end(&k, 300 * SEC);
	assert_true(k.n == 1 && kept(&k, 4001, 12) && k.v[0].owner.start_ticks == 900);
	assert_true(k.v[0].gone_since_ns == 0 && k.n_dropped == 0);
}

/* no more than tgid_dom holds */
static void device_models_past_the_map_are_refused(void **state)
{
	(void)state;
	static struct dm_keep k;
	struct xiotop_dm_owner o = {.domid = 1, .start_ticks = 1};
	dm_keep_begin(&k);
	for (uint32_t tgid = 1; tgid <= XIOTOP_MAX_TGIDS; tgid++)
		assert_true(dm_keep_see(&k, tgid, &o));
	assert_false(dm_keep_see(&k, XIOTOP_MAX_TGIDS + 1, &o));
	assert_true(dm_keep_see(&k, 5, &o)); /* one kept already is refreshed */
	dm_keep_end(&k, SEC);
	assert_true(k.n == XIOTOP_MAX_TGIDS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(kallsyms_finds_the_symbol),
	    cmocka_unit_test(start_ticks_after_the_last_paren),
	    cmocka_unit_test(refused_updates_are_counted_per_map),
	    cmocka_unit_test(lost_kinds_in_words),
	    cmocka_unit_test(gone_device_models_stay_a_while),
	    cmocka_unit_test(device_models_past_the_map_are_refused),
	    cmocka_unit_test(each_backend_kind_by_its_hook),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
