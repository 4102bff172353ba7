/* test_baseline.c - counters count from the tracer's attach (issue 30): the live source's
 * first sample is the one taken at attach (sources/live_rules.h, live_baseline), so bytes
 * written after attach and before a command's first paced sample are in its first
 * interval; and serve's exporter says it has no figures until that sample was seen.
 * A fake tracer stands in for BPF: its counters start at 0 at "attach", the host's
 * vmstat counter already holds what was written before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/loop.h"
#include "export/exporter.h"
#include "sources/live_rules.h"

#define MiB     (1024ull * 1024)
#define DOMID   7
#define BACKEND XT_KDEV(7, 3)

/* What the kernel holds: bytes the domain wrote since the tracer attached, and the
 * host's pgpgout, which counted bytes before the attach too. */
struct fake_host {
	uint64_t written_since_attach;
	uint64_t pgpgout_kb;
	uint64_t monotonic_ns;
};

static void write_bytes(struct fake_host *h, uint64_t bytes)
{
	h->written_since_attach += bytes;
	h->pgpgout_kb += bytes / 1024;
}

/* One sample as the collector makes it: the tracer's counters and the host's. */
static int read_fake(struct fake_host *h, struct xio_sample *s)
{
	memset(s, 0, sizeof(*s));
	h->monotonic_ns += 1000000000ull;
	s->monotonic_ns = h->monotonic_ns;
	s->vmstat_pgpgout_kb = h->pgpgout_kb;
	if (!h->written_since_attach)
		return 0; /* nothing counted yet: the tracer's hash has no entry */
	struct xio_layer l = {.domid = DOMID, .dev = BACKEND, .via = XIOTOP_VIA_DEV};
	l.io.wr_bytes = h->written_since_attach;
	l.io.wr_ios = h->written_since_attach / (64 * 1024);
	return sample_add_layer(s, &l);
}

/* The live source's order: the baseline first (when one was kept), then fresh reads. */
struct fake_source {
	struct fake_host *host;
	struct live_baseline baseline;
	uint64_t write_each_pace; /* the writer keeps going between samples */
};

static int fake_next(void *ctx, struct xio_sample *out)
{
	struct fake_source *f = ctx;
	if (live_baseline_hand(&f->baseline, out))
		return 0;
	return read_fake(f->host, out) ? SOURCE_FAILED : 0;
}

static enum pace fake_wait(void *ctx)
{
	struct fake_source *f = ctx;
	write_bytes(f->host, f->write_each_pace);
	return PACE_DUE;
}

struct totals {
	uint64_t guest_wr, pgpgout;
	unsigned long intervals;
};

static int add_interval(void *ctx, struct model_interval *m, unsigned long index)
{
	(void)index;
	struct totals *t = ctx;
	t->intervals++;
	t->pgpgout += m->pgpgout_bytes;
	for (size_t i = 0; i < m->n_domains; i++)
		if (m->domains[i].domid == DOMID)
			t->guest_wr += m->domains[i].io.guest_wr_bytes;
	return LOOP_GO_ON;
}

/* Attach (baseline kept or not), write before_loop bytes, then run n intervals. */
static struct totals run(bool keep_baseline, uint64_t before_loop, uint64_t each, long n)
{
	struct fake_host host = {.pgpgout_kb = 5000}; /* bytes written before the attach */
	struct fake_source f = {.host = &host, .write_each_pace = each};
	if (keep_baseline) {
		struct xio_sample at_attach;
		assert_int_equal(read_fake(&host, &at_attach), 0);
		live_baseline_keep(&f.baseline, &at_attach);
	}
	write_bytes(&host, before_loop); /* between attach and the loop's first sample */
	struct totals t = {0};
	struct sample_source src = {.ctx = &f, .next = fake_next, .fail_status = 1};
	struct interval_sink sink = {.ctx = &t, .interval = add_interval};
	struct loop l = {.src = &src,
	                 .sinks = &sink,
	                 .n_sinks = 1,
	                 .pacer = {.ctx = &f, .wait = fake_wait},
	                 .max_intervals = n};
	assert_int_equal(interval_loop(&l), 0);
	assert_false(f.baseline.held);
	live_baseline_free(&f.baseline);
	return t;
}

/* 64 MiB written at once after the attach, before the first paced sample: all of it is in
 * the intervals, at the guest layer and in vmstat's figure alike. Without the baseline
 * the first sample taken by the loop would have swallowed it (the loss issue 30 saw). */
static void test_first_interval_runs_from_attach(void **state)
{
	(void)state;
	struct totals t = run(true, 64 * MiB, 0, 3);
	assert_int_equal(t.intervals, 3);
	assert_int_equal(t.guest_wr, 64 * MiB);
	assert_int_equal(t.pgpgout, 64 * MiB);

	t = run(true, 64 * MiB, 4 * MiB, 3);
	assert_int_equal(t.guest_wr, 64 * MiB + 3 * 4 * MiB);
	assert_int_equal(t.pgpgout, 64 * MiB + 3 * 4 * MiB);

	/* the rule's reason: without it the writes before the first sample are lost */
	t = run(false, 64 * MiB, 4 * MiB, 3);
	assert_int_equal(t.guest_wr, 3 * 4 * MiB);
}

static void test_baseline_handed_once(void **state)
{
	(void)state;
	struct live_baseline b = {0};
	struct xio_sample s = {0}, out;
	assert_false(live_baseline_hand(&b, &out));
	struct xio_layer l = {.domid = 1, .dev = BACKEND, .via = XIOTOP_VIA_DEV};
	assert_int_equal(sample_add_layer(&s, &l), 0);
	s.host_busy_ns = 123;
	live_baseline_keep(&b, &s);
	assert_null(s.layers); /* taken over */
	assert_true(live_baseline_hand(&b, &out));
	assert_int_equal(out.host_busy_ns, 123);
	assert_int_equal(out.n_layers, 1);
	assert_false(live_baseline_hand(&b, &s));
	sample_free(&out);
	/* one kept and never handed out is freed (LeakSanitizer in the sanitized build) */
	assert_int_equal(sample_add_layer(&s, &l), 0);
	live_baseline_keep(&b, &s);
	live_baseline_free(&b);
	assert_false(b.held);
}

/* serve answers "not ready" until the first sample: zeros before it would be figures the
 * tracer never measured. */
static void test_exporter_started_at_first_sample(void **state)
{
	(void)state;
	struct exporter *ex = exporter_open("test");
	assert_non_null(ex);
	assert_false(exporter_started(ex));
	struct interval_sink sink = exporter_sink(ex);
	struct xio_sample s = {0};
	snprintf(s.hooks, sizeof(s.hooks), "tp_btf block_bio_queue");
	assert_int_equal(sink.sample(sink.ctx, &s, true), LOOP_GO_ON);
	assert_true(exporter_started(ex));
	assert_int_equal(exporter_intervals(ex), 0);
	exporter_close(ex);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_interval_runs_from_attach),
	    cmocka_unit_test(test_baseline_handed_once),
	    cmocka_unit_test(test_exporter_started_at_first_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
