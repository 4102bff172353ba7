/* test_explain_day.c - the HTML report's day chart (explain/day.h, report_day.c): a two
 * hour recording of a guest busy in its first half hour and another in its last, read at
 * its buckets' edges only: one-minute buckets, each domain's bytes where it moved them and
 * nowhere else, adding up to what it wrote, the busiest first; the chart a strip each,
 * the hostile name escaped, the times said with their zone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <unistd.h>

#include "test_files.h"
#include "core/clock.h"
#include "explain/day.h"
#include "explain/report/report.h"
#include "explain_scenario.h"

TEST_SCRATCH_DIR("explain-day")

static void two_hours(const char *path)
{
	struct scenario sc;
	sc_open(&sc, path, 4 * 1024 * 1024);
	struct sc_dom *early = sc_add_dom(&sc, 1, "early", SC_PHY, NULL, GiB);
	struct sc_dom *late = sc_add_dom(&sc, 2, "late\x1b[31m", SC_PHY, NULL, GiB);
	for (unsigned i = 0; i <= 7200; i++) {
		if (i >= 1 && i <= 1800)
			sc_step(&sc, early, &(struct sc_step){.guest_wr = MiB, .phys_wr = MiB});
		if (i > 5400)
			sc_step(&sc, late,
			        &(struct sc_step){.guest_wr = 2 * MiB, .phys_wr = 2 * MiB});
		sc_append(&sc);
	}
	sc_mark(&sc, "start: run", 3600, "wrap", -1);
	sc_mark(&sc, "end: run (exit 0)", 3700, "wrap", 0);
	sc_close(&sc);
}

static double bucket_bytes(const struct ex_day *day, const struct ex_day_domain *d, size_t b)
{
	return d->guest_bps[b] * (double)day->bucket_ns / 1e9;
}

static void test_day(void **state)
{
	(void)state;
	const char *path = path_of("day.xiotop");
	two_hours(path);
	static struct explain ex;
	struct rec_reader *r;
	struct xerr err;
	assert_int_equal(sc_explain(path, NULL, NULL, &ex, &r, &err), 0);
	static struct ex_day day;
	assert_int_equal(explain_day_collect(r, &day, &err), 0);
	assert_int_equal(day.bucket_ns, 60 * NS_PER_S);
	assert_true(day.n_buckets >= 120 && day.n_buckets <= EX_DAY_BUCKETS);
	assert_int_equal(day.n_doms, 2);
	const struct ex_day_domain *late = &day.doms[0], *early = &day.doms[1];
	assert_int_equal(late->domid, 2); /* the busiest first */
	assert_int_equal(early->domid, 1);
	assert_int_equal(late->guest_bytes, 3600 * MiB);
	assert_int_equal(early->guest_bytes, 1800 * MiB);
	double sum_early = 0, sum_late = 0;
	for (size_t b = 0; b < day.n_buckets; b++) {
		int64_t start = day.t0_ns + (int64_t)b * day.bucket_ns;
		double t = (double)(start - T0) / 1e9; /* seconds into the recording */
		if (t >= 1800 + 60)
			assert_true(bucket_bytes(&day, early, b) == 0);
		if (t + 60 <= 5400)
			assert_true(bucket_bytes(&day, late, b) == 0);
		if (t >= 60 && t + 60 <= 1800) /* a whole busy minute: 60 MiB */
			assert_true(bucket_bytes(&day, early, b) > 59.9 * MiB &&
			            bucket_bytes(&day, early, b) < 60.1 * MiB);
		sum_early += early->guest_bps[b] * (double)day.bucket_ns / 1e9;
		sum_late += late->guest_bps[b] * (double)day.bucket_ns / 1e9;
	}
	/* every byte in some bucket (the first and last partial: their own span) */
	assert_true(sum_early > 1790.0 * MiB && sum_early < 1810.0 * MiB);
	assert_true(sum_late > 3590.0 * MiB && sum_late < 3610.0 * MiB);

	ex.day = &day;
	char *html = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&html, &len);
	assert_non_null(out);
	html_day(out, &ex);
	fclose(out);
	assert_non_null(strstr(html, "The whole recording, per domain"));
	assert_non_null(strstr(html, "buckets of 1 min"));
	size_t strips = 0;
	for (const char *p = html; (p = strstr(p, "peak ")); p++)
		strips++;
	assert_int_equal(strips, 2);
	assert_null(strchr(html, '\x1b'));
	assert_non_null(strstr(html, "late\\e[31m (2)"));
	assert_non_null(strstr(html, "2024-05-01 10:40:00 UTC to 2024-05-01 12:41:00 UTC"));
	free(html);
	/* the report without the day read: no chart */
	ex.day = NULL;
	out = open_memstream(&html, &len);
	html_day(out, &ex);
	fclose(out);
	assert_int_equal(len, 0);
	free(html);
	explain_free(&ex);
	rec_reader_close(r);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_day),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
