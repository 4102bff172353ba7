/* test_xen_churn.c - domains that come and go: a sequence of xenstore dumps (created,
 * destroyed, domid reused, backend replaced) through the one resolver, the same sequence
 * live through the xen_api double (each topology build is one interval), and the model
 * never merging the counters of two domains that shared a domid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "sources/topo_source.h"
#include "unit/xen_double.h"

#define MiB   (1024ull * 1024)
#define UUID1 "11111111-1111-1111-1111-111111111111"
#define UUID2 "22222222-2222-2222-2222-222222222222"
#define UUID3 "33333333-3333-3333-3333-333333333333"
#define UUID4 "44444444-4444-4444-4444-444444444444"
#define UUID5 "55555555-5555-5555-5555-555555555555"

static const struct xt_roots roots = {
    .sysfs = "/nonexistent/sys", .proc = "/nonexistent/proc", .dev = "/nonexistent/dev"};

/* The sequence, one xenstore per step. */
static const char *const steps[] = {
    /* 0: two guests */
    "/local/domain/0/name = \"Domain-0\"\n"
    "/local/domain/1/name = \"db\"\n"
    "/local/domain/1/vm = \"/vm/" UUID1 "\"\n"
    "/local/domain/0/backend/vbd/1/51712/params = \"/dev/vg/db\"\n"
    "/local/domain/0/backend/vbd/1/51712/dev = \"xvda\"\n"
    "/local/domain/2/name = \"web\"\n"
    "/local/domain/2/vm = \"/vm/" UUID2 "\"\n"
    "/local/domain/5/name = \"no-uuid\"\n",
    /* 1: domain 3 created; domain 5's vm node written late (no split) */
    "/local/domain/0/name = \"Domain-0\"\n"
    "/local/domain/1/name = \"db\"\n"
    "/local/domain/1/vm = \"/vm/" UUID1 "\"\n"
    "/local/domain/0/backend/vbd/1/51712/params = \"/dev/vg/db\"\n"
    "/local/domain/0/backend/vbd/1/51712/dev = \"xvda\"\n"
    "/local/domain/2/name = \"web\"\n"
    "/local/domain/2/vm = \"/vm/" UUID2 "\"\n"
    "/local/domain/3/name = \"new\"\n"
    "/local/domain/3/vm = \"/vm/" UUID3 "\"\n"
    "/local/domain/5/name = \"no-uuid\"\n"
    "/local/domain/5/vm = \"/vm/" UUID4 "\"\n",
    /* 2: domain 2 destroyed */
    "/local/domain/0/name = \"Domain-0\"\n"
    "/local/domain/1/name = \"db\"\n"
    "/local/domain/1/vm = \"/vm/" UUID1 "\"\n"
    "/local/domain/0/backend/vbd/1/51712/params = \"/dev/vg/db\"\n"
    "/local/domain/0/backend/vbd/1/51712/dev = \"xvda\"\n"
    "/local/domain/3/name = \"new\"\n"
    "/local/domain/3/vm = \"/vm/" UUID3 "\"\n"
    "/local/domain/5/name = \"no-uuid\"\n"
    "/local/domain/5/vm = \"/vm/" UUID4 "\"\n",
    /* 3: domid 2 reused by another domain; domain 3 destroyed and made again between
     * two looks (same id, another uuid); domain 1's disk replaced by another */
    "/local/domain/0/name = \"Domain-0\"\n"
    "/local/domain/1/name = \"db\"\n"
    "/local/domain/1/vm = \"/vm/" UUID1 "\"\n"
    "/local/domain/0/backend/vbd/1/51712/params = \"/dev/vg/db-restored\"\n"
    "/local/domain/0/backend/vbd/1/51712/dev = \"xvda\"\n"
    "/local/domain/0/backend/vbd/1/51728/params = \"/dev/vg/db-log\"\n"
    "/local/domain/2/name = \"web\"\n"
    "/local/domain/2/vm = \"/vm/" UUID5 "\"\n"
    "/local/domain/3/name = \"new\"\n"
    "/local/domain/3/vm = \"/vm/" UUID2 "\"\n"
    "/local/domain/5/name = \"no-uuid\"\n"
    "/local/domain/5/vm = \"/vm/" UUID4 "\"\n",
};

struct want {
	uint32_t domid;
	uint32_t generation; /* 0: not listed */
};

static void check_step(const struct xt_topology *t, const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct xt_domain *d = topo_find_domain(t, w[i].domid);
		if (!w[i].generation) {
			if (d)
				fail_msg("domain %u still listed", w[i].domid);
			continue;
		}
		if (!d)
			fail_msg("domain %u not listed", w[i].domid);
		if (d->generation != w[i].generation)
			fail_msg("domain %u: generation %u, want %u", w[i].domid, d->generation,
			         w[i].generation);
	}
}

static const struct want want_after[][5] = {
    {{1, 1}, {2, 1}, {3, 0}, {5, 1}, {0, 1}},
    {{1, 1}, {2, 1}, {3, 1}, {5, 1}, {0, 1}},
    {{1, 1}, {2, 0}, {3, 1}, {5, 1}, {0, 1}},
    {{1, 1}, {2, 2}, {3, 2}, {5, 1}, {0, 1}},
};

static void check_backends_step3(const struct xt_topology *t)
{
	const struct xt_domain *d = topo_find_domain(t, 1);
	assert_int_equal(d->n_backends, 2);
	assert_string_equal(d->backends[0].params, "/dev/vg/db-restored");
	assert_string_equal(d->backends[1].params, "/dev/vg/db-log");
	assert_string_equal(topo_find_domain(t, 2)->uuid, UUID5);
}

static void test_dump_sequence(void **state)
{
	(void)state;
	struct topo_generations g = {0};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		FILE *in = fmemopen((void *)steps[i], strlen(steps[i]), "r");
		struct xs_store st;
		struct xerr err;
		assert_int_equal(xs_parse_stream(in, "step", &st, &err), 0);
		fclose(in);
		struct xt_topology t;
		assert_int_equal(topo_from_xenstore(&st, &roots, &t), 0);
		xs_free(&st);
		assert_int_equal(topo_generations_apply(&g, &t), 0);
		check_step(&t, want_after[i], 5);
		if (i == 3)
			check_backends_step3(&t);
		topo_free(&t);
	}
	/* a domain absent from one look and back in the next is another domain, uuid or not */
	struct xt_topology empty = {0}, back = {0};
	assert_int_equal(topo_generations_apply(&g, &empty), 0);
	back.domains = calloc(1, sizeof(*back.domains));
	back.domains[0].domid = 5;
	back.n_domains = 1;
	assert_int_equal(topo_generations_apply(&g, &back), 0);
	assert_int_equal(back.domains[0].generation, 2);
	topo_free(&back);
	topo_generations_free(&g);
}

/* The same sequence live: each change fires the watch, each build is one interval. */
static void test_live_sequence(void **state)
{
	(void)state;
	xd_reset();
	xd_set_tree(steps[0]);
	struct topo_source src;
	struct xerr err = {0};
	assert_int_equal(topo_source_open(&src, NULL, &roots, &xd_api, &err), 0);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (i) {
			xd_set_tree(steps[i]);
			xd.pending_events = 2;
		}
		struct xt_topology t;
		assert_int_equal(topo_source_build(&src, &t), 0);
		check_step(&t, want_after[i], 5);
		if (i == 3)
			check_backends_step3(&t);
		topo_free(&t);
	}
	/* no event, no read: the store is not read again */
	int reads = xd.reads;
	struct xt_topology t;
	assert_int_equal(topo_source_build(&src, &t), 0);
	assert_int_equal(xd.reads, reads);
	topo_free(&t);
	topo_source_close(&src);
	xd_reset();
}

/* --- the model across generations --- */

static void add_domain(struct xio_sample *s, uint32_t domid, uint32_t generation, const char *uuid)
{
	struct xio_domain d = {.domid = domid, .generation = generation};
	snprintf(d.uuid, sizeof(d.uuid), "%s", uuid);
	assert_int_equal(sample_add_domain(s, &d), 0);
}

static void add_guest_cpu(struct xio_sample *s, uint32_t domid, int64_t ns)
{
	struct xio_dom_counters c = {.domid = domid, .guest_cpu_ns = ns};
	assert_int_equal(sample_add_counters(s, &c), 0);
}

static void add_vbd(struct xio_sample *s, uint32_t domid, uint64_t wr)
{
	struct xio_vbd_stat v = {.domid = domid, .devid = 51712, .instance = 9, .wr_bytes = wr};
	assert_int_equal(sample_add_vbd_stat(s, &v), 0);
	s->has_vbd_stats = true;
}

static void add_layer(struct xio_sample *s, uint32_t domid, uint64_t wr)
{
	struct xio_layer l = {.domid = domid, .dev = XT_KDEV(7, 0), .via = XIOTOP_VIA_TASK};
	l.io.wr_bytes = wr;
	assert_int_equal(sample_add_layer(s, &l), 0);
}

static const struct model_domain *find(const struct model_interval *m, uint32_t domid)
{
	for (size_t i = 0; i < m->n_domains; i++)
		if (m->domains[i].domid == domid)
			return &m->domains[i];
	return NULL;
}

static void test_model_never_merges_generations(void **state)
{
	(void)state;
	struct xio_sample prev = {0}, cur = {0};
	prev.monotonic_ns = 1000000000;
	cur.monotonic_ns = 2000000000;
	/* domain 2: the old one ran 50 s, the new one 1 s; same vbd instance stamp even */
	add_domain(&prev, 2, 1, UUID2);
	add_guest_cpu(&prev, 2, 50000000000);
	add_vbd(&prev, 2, 100 * MiB);
	add_domain(&cur, 2, 2, UUID4);
	add_guest_cpu(&cur, 2, 1000000000);
	add_vbd(&cur, 2, 120 * MiB);
	/* domain 1: the same domain both times */
	add_domain(&prev, 1, 1, UUID1);
	add_guest_cpu(&prev, 1, 3000000000);
	add_vbd(&prev, 1, 100 * MiB);
	add_domain(&cur, 1, 1, UUID1);
	add_guest_cpu(&cur, 1, 4000000000);
	add_vbd(&cur, 1, 120 * MiB);
	/* recordings without generations: the uuid tells */
	add_domain(&prev, 4, 0, UUID3);
	add_guest_cpu(&prev, 4, 9000000000);
	add_domain(&cur, 4, 0, UUID1);
	add_guest_cpu(&cur, 4, 2000000000);
	/* domain 5 made since prev (made paused, vCPU time 0 then): its boot is all since */
	add_domain(&cur, 5, 1, UUID3);
	add_guest_cpu(&cur, 5, 700000000);

	struct model_interval m;
	assert_int_equal(model_compute(&prev, &cur, &m), 0);
	assert_int_equal(find(&m, 5)->guest_cpu_ns, 700000000);
	assert_int_equal(find(&m, 2)->guest_cpu_ns, 1000000000);
	assert_int_equal(find(&m, 2)->vbds[0].wr_bytes, 120 * MiB);
	assert_int_equal(find(&m, 1)->guest_cpu_ns, 1000000000);
	assert_int_equal(find(&m, 1)->vbds[0].wr_bytes, 20 * MiB);
	assert_int_equal(find(&m, 4)->guest_cpu_ns, 2000000000);
	model_free(&m);
	sample_free(&prev);
	sample_free(&cur);
}

/* Live Xen: a domain not in the hypervisor's list that did nothing has left; one whose
 * last bytes still drain (writeback after destroy) stays until they are counted. */
static void test_departed_domains_leave(void **state)
{
	(void)state;
	struct xio_sample prev = {0}, cur = {0};
	add_domain(&prev, 1, 1, UUID1);
	add_domain(&prev, 2, 1, UUID2);
	add_domain(&prev, 3, 1, UUID3);
	add_layer(&prev, 2, 10 * MiB);
	add_layer(&prev, 3, 10 * MiB);
	add_domain(&cur, 1, 1, UUID1);
	add_layer(&cur, 2, 10 * MiB); /* 2: destroyed, idle */
	add_layer(&cur, 3, 12 * MiB); /* 3: destroyed, 2 MiB still written back for it */
	cur.domains_live = true;
	struct model_interval m;
	assert_int_equal(model_compute(&prev, &cur, &m), 0);
	assert_non_null(find(&m, 1));
	assert_null(find(&m, 2));
	assert_non_null(find(&m, 3));
	assert_null(find(&m, 3)->info);
	assert_int_equal(find(&m, 3)->io.guest_wr_bytes, 2 * MiB);
	model_free(&m);

	/* not the hypervisor's list (a dump, no Xen): every domain the tracer saw stays */
	cur.domains_live = false;
	assert_int_equal(model_compute(&prev, &cur, &m), 0);
	assert_non_null(find(&m, 2));
	model_free(&m);
	sample_free(&prev);
	sample_free(&cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dump_sequence),
	    cmocka_unit_test(test_live_sequence),
	    cmocka_unit_test(test_model_never_merges_generations),
	    cmocka_unit_test(test_departed_domains_leave),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
