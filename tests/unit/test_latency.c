/* test_latency.c - log2 latency histograms (core/latency.h): the buckets the BPF side
 * counts in, quantiles from them (Prometheus' histogram_quantile rule), interval deltas
 * through the model, the io_latency object of the JSON output, and a whole copy of a
 * histogram a writer adds to meanwhile, as the programs do (latency_copy_whole). */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "core/figures.h"
#include "core/latency.h"
#include "core/model.h"
#include "ui/batch.h"

static void test_buckets(void **state)
{
	(void)state;
	assert_int_equal(latency_bucket_of(0), 0);
	assert_int_equal(latency_bucket_of(1), 0);
	assert_int_equal(latency_bucket_of(2), 1);
	assert_int_equal(latency_bucket_of(3), 1);
	assert_int_equal(latency_bucket_of(4096), 12);
	assert_int_equal(latency_bucket_of(8191), 12);
	assert_int_equal(latency_bucket_of(8192), 13);
	assert_int_equal(latency_bucket_of(UINT64_MAX), XIOTOP_LAT_BUCKETS - 1);
	for (int i = 1; i < XIOTOP_LAT_BUCKETS - 1; i++) {
		assert_int_equal(latency_bucket_low_ns(i), 1ull << i);
		assert_int_equal(latency_bucket_high_ns(i), 2ull << i);
		assert_int_equal(latency_bucket_of(latency_bucket_low_ns(i)), i);
		assert_int_equal(latency_bucket_of(latency_bucket_high_ns(i) - 1), i);
	}
	assert_int_equal(latency_bucket_low_ns(0), 0);
	assert_int_equal(latency_bucket_high_ns(XIOTOP_LAT_BUCKETS - 1), UINT64_MAX);
}

static void test_quantiles(void **state)
{
	(void)state;
	struct xiotop_lat h;
	memset(&h, 0, sizeof(h));
	assert_true(latency_quantile_ns(&h, 0.5) < 0); /* empty: unknown */
	/* one bucket: interpolated linearly inside [4096, 8192) */
	h.buckets[12] = 100;
	assert_true(latency_quantile_ns(&h, 0.5) == 4096 + 2048);
	assert_true(latency_quantile_ns(&h, 1) == 8192);
	assert_true(latency_quantile_ns(&h, 0.01) == 4096 + 40.96);
	/* the median is in the bucket holding the middle I/O, even with a long tail */
	h.buckets[12] = 60;
	h.buckets[20] = 40;
	double p50 = latency_quantile_ns(&h, 0.5);
	assert_int_equal(latency_bucket_of((uint64_t)p50), 12);
	assert_true(p50 == 4096 + 4096 * (50.0 / 60));
	double p99 = latency_quantile_ns(&h, 0.99);
	assert_int_equal(latency_bucket_of((uint64_t)p99), 20);
	/* the open-ended last bucket gives its lower bound */
	memset(&h, 0, sizeof(h));
	h.buckets[XIOTOP_LAT_BUCKETS - 1] = 3;
	assert_true(latency_quantile_ns(&h, 0.5) ==
	            (double)latency_bucket_low_ns(XIOTOP_LAT_BUCKETS - 1));
	/* q out of range is clamped */
	h.buckets[0] = 1;
	assert_true(latency_quantile_ns(&h, -1) == 0);
	assert_true(latency_quantile_ns(&h, 7) ==
	            (double)latency_bucket_low_ns(XIOTOP_LAT_BUCKETS - 1));
}

static void test_delta_and_merge(void **state)
{
	(void)state;
	struct xiotop_lat prev, cur, d;
	memset(&prev, 0, sizeof(prev));
	prev.buckets[10] = 5, prev.count = 5, prev.sum_ns = 5000;
	cur = prev;
	cur.buckets[10] = 8, cur.buckets[11] = 2, cur.count = 10, cur.sum_ns = 12000;
	latency_delta(&cur, &prev, &d);
	assert_int_equal(d.buckets[10], 3);
	assert_int_equal(d.buckets[11], 2);
	assert_int_equal(d.count, 5);
	assert_int_equal(d.sum_ns, 7000);
	latency_delta(&cur, NULL, &d);
	assert_memory_equal(&d, &cur, sizeof(d));
	/* a histogram that shrank (a new tracer, a reused domid) counts from zero */
	latency_delta(&prev, &cur, &d);
	assert_memory_equal(&d, &prev, sizeof(d));
	latency_merge(&d, &cur);
	assert_int_equal(d.buckets[10], 13);
	assert_int_equal(d.count, 15);
	assert_int_equal(d.sum_ns, 17000);
}

/* Two empty samples with latency timed, one second apart. */
static void latency_samples(struct xio_sample *a, struct xio_sample *b)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	a->has_latency = b->has_latency = true;
	b->monotonic_ns = 1000000000;
}

/* Two samples -> the interval's histogram per domain and op; has_latency follows cur. */
static void test_model_interval(void **state)
{
	(void)state;
	struct xio_sample a, b;
	latency_samples(&a, &b);
	struct xio_latency l = {.domid = 4, .op = XIOTOP_LAT_WRITE};
	l.hist.buckets[14] = 10, l.hist.count = 10, l.hist.sum_ns = 200000;
	assert_int_equal(sample_add_latency(&a, &l), 0);
	l.hist.buckets[14] = 25, l.hist.count = 25, l.hist.sum_ns = 500000;
	assert_int_equal(sample_add_latency(&b, &l), 0);
	struct xio_latency none = {.domid = XIOTOP_DOM_NONE, .op = XIOTOP_LAT_READ};
	none.hist.count = 99;
	assert_int_equal(sample_add_latency(&b, &none), 0);
	struct model_interval m;
	assert_int_equal(model_compute(&a, &b, &m), 0);
	assert_true(m.has_latency);
	assert_int_equal(m.n_domains, 1); /* a domain only seen in latency is listed */
	assert_int_equal(m.domains[0].domid, 4);
	assert_int_equal(m.domains[0].lat[XIOTOP_LAT_WRITE].buckets[14], 15);
	assert_int_equal(m.domains[0].lat[XIOTOP_LAT_WRITE].sum_ns, 300000);
	assert_int_equal(m.domains[0].lat[XIOTOP_LAT_READ].count, 0);
	model_free(&m);
	b.has_latency = false;
	assert_int_equal(model_compute(&a, &b, &m), 0);
	assert_false(m.has_latency);
	model_free(&m);
	sample_free(&a);
	sample_free(&b);
}

/* A domain not timed (a kind of its backends timed by a hook not attached) beside one
 * timed: the model carries its untimed bits per op, also when only one sample of the
 * interval had them, and the figure table makes its latency figures unknown. */
static void test_model_untimed(void **state)
{
	(void)state;
	struct xio_sample a, b;
	latency_samples(&a, &b);
	for (uint32_t op = 0; op < XIOTOP_LAT_OPS; op++) {
		struct xio_latency timed = {.domid = 4, .op = op};
		timed.hist.buckets[14] = 10 + op, timed.hist.count = 10 + op;
		assert_int_equal(sample_add_latency(&a, &timed), 0);
		timed.hist.buckets[14] = 20, timed.hist.count = 20;
		assert_int_equal(sample_add_latency(&b, &timed), 0);
		/* domain 6: its zram backend timed, its loop backend not (block_rq_complete) */
		struct xio_latency untimed = {.domid = 6, .op = op, .untimed = XIO_UNTIMED_RQ};
		untimed.hist.buckets[12] = 2, untimed.hist.count = 2;
		assert_int_equal(sample_add_latency(&a, &untimed), 0);
		untimed.hist.buckets[12] = 7, untimed.hist.count = 7;
		assert_int_equal(sample_add_latency(&b, &untimed), 0);
		/* domain 8: not timed at the interval's start only (a backend it no longer has) */
		struct xio_latency was = {.domid = 8, .op = op, .untimed = XIO_UNTIMED_BIO};
		assert_int_equal(sample_add_latency(&a, &was), 0);
		was.untimed = 0;
		assert_int_equal(sample_add_latency(&b, &was), 0);
	}
	struct model_interval m;
	assert_int_equal(model_compute(&a, &b, &m), 0);
	assert_int_equal(m.n_domains, 3);
	const struct model_domain *d4 = &m.domains[0], *d6 = &m.domains[1], *d8 = &m.domains[2];
	assert_int_equal(d4->domid, 4);
	assert_int_equal(d6->domid, 6);
	for (int op = 0; op < XIOTOP_LAT_OPS; op++) {
		assert_int_equal(d4->lat_untimed[op], 0);
		assert_int_equal(d6->lat_untimed[op], XIO_UNTIMED_RQ);
		assert_int_equal(d8->lat_untimed[op], XIO_UNTIMED_BIO);
	}
	assert_int_equal(d4->lat[XIOTOP_LAT_WRITE].count, 9);
	assert_true(figure_known(FIG_IO_LATENCY, &m, d4));
	assert_true(figure_known(FIG_LATENCY_P50, &m, d4));
	for (const struct model_domain *d = d6; d <= d8; d++) {
		assert_false(figure_known(FIG_IO_LATENCY, &m, d));
		assert_false(figure_known(FIG_LATENCY_P50, &m, d));
		assert_false(figure_known(FIG_LATENCY_P99, &m, d));
	}
	/* the key is there for all (latency was timed), unknown for some */
	assert_true(figure_present(FIG_IO_LATENCY, &m));
	assert_string_equal(xio_untimed_hook(d6->lat_untimed[0]), "block_rq_complete");
	assert_string_equal(xio_untimed_hook(d8->lat_untimed[0]), "block_bio_complete");
	assert_string_equal(xio_untimed_hook(XIO_UNTIMED_SYSCALL), "sys_enter/sys_exit");
	assert_string_equal(xio_untimed_hook(0), "");
	model_free(&m);
	sample_free(&a);
	sample_free(&b);
}

/* What batch_print writes for m in `format`. */
static char *batch_of(const struct model_interval *m, enum batch_format format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct batch_opts o = {.format = format};
	batch_print(out, m, &o, 0);
	fclose(out);
	return buf;
}

static char *json_of(const struct model_interval *m)
{
	return batch_of(m, BATCH_JSON);
}

/* io_latency: per op ios, sum, p50/p99 (null when idle) and the non-empty buckets; only
 * when latency was timed, so output with --no-latency is as before it was timed. */
static void test_json(void **state)
{
	(void)state;
	struct model_domain d;
	memset(&d, 0, sizeof(d));
	d.domid = 5;
	d.guest_cpu_ns = -1;
	d.lat[XIOTOP_LAT_WRITE].buckets[12] = 100;
	d.lat[XIOTOP_LAT_WRITE].count = 100;
	d.lat[XIOTOP_LAT_WRITE].sum_ns = 600000;
	struct model_interval m = {.interval_s = 1, .domains = &d, .n_domains = 1};
	char *j = json_of(&m);
	assert_null(strstr(j, "io_latency"));
	free(j);
	m.has_latency = true;
	j = json_of(&m);
	assert_non_null(strstr(j,
	                       ",\"io_latency\":{\"read\":{\"ios\":0,\"sum_ns\":0,\"p50_ns\":null,"
	                       "\"p99_ns\":null,\"buckets\":[]},\"write\":{\"ios\":100,"
	                       "\"sum_ns\":600000,\"p50_ns\":6144,\"p99_ns\":8151,"
	                       "\"buckets\":[[4096,100]]}}"));
	free(j);
}

static char *csv_of(const struct model_interval *m)
{
	return batch_of(m, BATCH_CSV);
}

/* io_latency of a domain not timed beside one timed: null per op, never 0 requests; the
 * timed one's as before; in CSV too (its buckets are JSON's only). */
static void test_json_untimed(void **state)
{
	(void)state;
	struct model_domain d[2];
	memset(d, 0, sizeof(d));
	for (int i = 0; i < 2; i++) {
		d[i].domid = 5 + (uint32_t)i;
		d[i].guest_cpu_ns = -1;
		d[i].lat[XIOTOP_LAT_WRITE].buckets[12] = 100;
		d[i].lat[XIOTOP_LAT_WRITE].count = 100;
		d[i].lat[XIOTOP_LAT_WRITE].sum_ns = 600000;
	}
	d[1].lat_untimed[XIOTOP_LAT_READ] = d[1].lat_untimed[XIOTOP_LAT_WRITE] = XIO_UNTIMED_RQ;
	struct model_interval m = {.interval_s = 1, .domains = d, .n_domains = 2};
	m.has_latency = true;
	char *j = json_of(&m);
	size_t six = 0; /* where domain 6's object starts */
	while (j[six] && strncmp(j + six, "{\"domid\":6,", 11))
		six++;
	assert_true(j[six]);
	j[six] = '\0'; /* domain 5's, as without domain 6 */
	assert_non_null(strstr(j, ",\"io_latency\":{\"read\":{\"ios\":0,\"sum_ns\":0,"
	                          "\"p50_ns\":null,\"p99_ns\":null,\"buckets\":[]},\"write\":"
	                          "{\"ios\":100,\"sum_ns\":600000,\"p50_ns\":6144,"
	                          "\"p99_ns\":8151,\"buckets\":[[4096,100]]}}"));
	assert_non_null(strstr(j + six + 1, ",\"io_latency\":{\"read\":null,\"write\":null}"));
	free(j);
	char *c = csv_of(&m);
	assert_non_null(strstr(c, ",io_latency.read.ios,io_latency.read.sum_ns,"
	                          "io_latency.read.p50_ns,io_latency.read.p99_ns,"
	                          "io_latency.write.ios,io_latency.write.sum_ns,"
	                          "io_latency.write.p50_ns,io_latency.write.p99_ns,"));
	assert_null(strstr(c, "bucket"));
	/* domain 5: no reads (0 requests, no quantile), 100 writes; domain 6: not timed */
	assert_non_null(strstr(c, ",0,0,null,null,100,600000,6144,8151,"));
	assert_non_null(strstr(c, ",null,null,null,null,null,null,null,null,"));
	free(c);
}

/* A writer as lat_record (bpf/latency.bpf.h): seq odd, the sum and a bucket, seq even;
 * every I/O 1000 ns, so a whole copy has sum == 1000 x its buckets' sum. */
struct torn_writer {
	struct xiotop_lat h;
	int stop;
};

static void *write_ios(void *arg)
{
	struct torn_writer *w = arg;
	int b = latency_bucket_of(1000);
	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&w->h.seq, 1, __ATOMIC_SEQ_CST);
		w->h.sum_ns += 1000;
		/* a writer slow between its stores (its vCPU preempted), so that a copy without
		 * seq's test is torn within the test's copies (checked: it fails then) */
		for (volatile int spin = 0; spin < 200; spin++)
			;
		w->h.buckets[b]++;
		__atomic_fetch_add(&w->h.seq, 1, __ATOMIC_SEQ_CST);
		for (volatile int spin = 0; spin < 2000; spin++) /* the time between I/Os */
			;
	}
	return NULL;
}

/* The I/Os the writer has finished (seq is twice that between two). */
static unsigned long long ios_written(struct torn_writer *w)
{
	return __atomic_load_n(&w->h.seq, __ATOMIC_SEQ_CST) / 2;
}

/* Until the writer has finished `ios` I/Os; false after 60 s (a thread never run). */
static bool wait_ios(struct torn_writer *w, unsigned long long ios)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ios_written(w) < ios) {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 60)
			return false;
	}
	return true;
}

static void test_copy_whole_beside_a_writer(void **state)
{
	(void)state;
	struct torn_writer w = {0};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, write_ios, &w), 0);
	/* the copies are taken beside a writer at work: on a loaded machine its thread may
	 * not have run yet when the copies start, or may not run during 200,000 of them (a
	 * fresh clone's CI once finished them before its first I/O) */
	assert_true(wait_ios(&w, 10));
	unsigned long long before = ios_written(&w);
	int whole = 0;
	for (int i = 0; i < 200000 || ios_written(&w) < before + 1000; i++) {
		struct xiotop_lat c;
		if (!latency_copy_whole(&w.h, &c))
			continue; /* a writer inside through every try: possible, rare */
		whole++;
		assert_true(c.sum_ns == 1000 * c.count);
		assert_int_equal(c.count, c.buckets[latency_bucket_of(1000)]);
	}
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	assert_true(whole > 0); /* how many is timing: a loaded machine makes fewer */
	struct xiotop_lat last;
	assert_true(latency_copy_whole(&w.h, &last)); /* no writer: whole at once */
	assert_true(last.count > 0 && last.sum_ns == 1000 * last.count);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buckets),
	    cmocka_unit_test(test_quantiles),
	    cmocka_unit_test(test_delta_and_merge),
	    cmocka_unit_test(test_model_interval),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_model_untimed),
	    cmocka_unit_test(test_json_untimed),
	    cmocka_unit_test(test_copy_whole_beside_a_writer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
