/* test_qmp.c - one QMP question with a deadline (sources/xen/qmp.h) against a QEMU double
 * that answers, answers late and in pieces, between events, refuses, sends garbage,
 * closes, or stays silent; and a qdisk's counters matched from query-blockstats
 * (sources/xen/qdisk_stats.h), from QEMU's shape and from hostile ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "sources/xen/qdisk_stats.h"
#include "sources/xen/qmp.h"
#include "unit/qmp_double.h"
#include "unit/test_files.h"

TEST_SCRATCH_DIR("qmp")

/* query-blockstats of a PV domain's qdisk xvda (QEMU 7.2's shape, trimmed) */
#define XVDA_STATS                                                                                 \
	"[{\"device\": \"\", \"node-name\": \"xvda-raw\", \"qdev\": \"/machine/peripheral-anon/"   \
	"device[0]\", \"stats\": {\"rd_bytes\": 8400896, \"wr_bytes\": 33554432, "                 \
	"\"rd_operations\": 2051, \"wr_operations\": 8192, \"flush_operations\": 3}}]"

static int64_t ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_answer(void **state)
{
	(void)state;
	struct qmp_double q;
	assert_int_equal(qd_start(&q, dir, 4), 0);
	qd_set(&q, QD_ANSWER, XVDA_STATS);
	char *reply, why[256];
	assert_int_equal(qmp_ask(q.path, "query-blockstats", 2000, &reply, why, sizeof(why)), 0);
	assert_non_null(strstr(reply, "\"wr_bytes\":33554432"));
	free(reply);
	qd_stop(&q);
}

/* late (beyond libxenstat's 10 ms a line), one byte at a time, events first */
static void test_late_split_and_events(void **state)
{
	(void)state;
	struct qmp_double q;
	assert_int_equal(qd_start(&q, dir, 5), 0);
	qd_set(&q, QD_ANSWER, XVDA_STATS);
	q.delay_ms = 60;
	q.bytewise = true;
	q.events = true;
	char *reply, why[256];
	assert_int_equal(qmp_ask(q.path, "query-blockstats", 5000, &reply, why, sizeof(why)), 0);
	assert_non_null(strstr(reply, "xvda-raw"));
	free(reply);
	qd_stop(&q);
}

static void test_failures_say_why(void **state)
{
	(void)state;
	struct qmp_double q;
	char *reply, why[256];
	assert_int_equal(qmp_ask("no-such-dir/qmp-libxenstat-1", "query-blockstats", 100, &reply,
	                         why, sizeof(why)),
	                 -1);
	assert_null(reply);
	assert_non_null(strstr(why, "cannot connect"));

	assert_int_equal(qd_start(&q, dir, 6), 0);
	qd_set(&q, QD_ERROR, NULL);
	assert_int_equal(qmp_ask(q.path, "query-blockstats", 2000, &reply, why, sizeof(why)), -1);
	assert_string_equal(why, "QMP query-blockstats refused: no");
	qd_set(&q, QD_GARBAGE, NULL);
	assert_int_equal(qmp_ask(q.path, "query-blockstats", 2000, &reply, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a JSON object"));
	qd_set(&q, QD_CLOSE, NULL);
	assert_int_equal(qmp_ask(q.path, "query-blockstats", 2000, &reply, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "closed"));
	/* silent: no answer, and no wait past the deadline (generous bound: a busy machine) */
	qd_set(&q, QD_SILENT, NULL);
	int64_t t0 = ms_now();
	assert_int_equal(qmp_ask(q.path, "query-blockstats", 150, &reply, why, sizeof(why)), -1);
	assert_true(ms_now() - t0 < 2000);
	assert_string_equal(why, "QEMU did not answer the QMP greeting within 150 ms");
	assert_null(reply);
	qd_stop(&q);
}

/* --- matching the reply to the domain's qdisk vbds --- */

static struct xt_backend qdisk(uint32_t devid, char *dev)
{
	return (struct xt_backend){.kind = XT_BK_QDISK, .devid = devid, .dev = dev};
}

static void test_match_by_node_name(void **state)
{
	(void)state;
	struct xt_backend b[3] = {qdisk(51712, "xvda"),
	                          qdisk(51728, "xvdb"),
	                          {.kind = XT_BK_VBD, .devid = 51744, .dev = "xvdc"}};
	struct xt_domain d = {.domid = 4, .backends = b, .n_backends = 3};
	struct xio_sample s = {0};
	const char *problem;
	const char *two =
	    "[{\"node-name\": \"xvdb-qcow2\", \"stats\": {\"rd_bytes\": 1, \"wr_bytes\": 2,"
	    " \"rd_operations\": 3, \"wr_operations\": 4}},"
	    " {\"node-name\": \"xvda-raw\", \"stats\": {\"rd_bytes\": 10, \"wr_bytes\": 20,"
	    " \"rd_operations\": 30, \"wr_operations\": 40}}]";
	assert_int_equal(qdisk_stats_take(two, &d, &s, &problem), 0);
	assert_null(problem);
	assert_int_equal(s.n_vbd_stats, 2);
	const struct xio_vbd_stat *a = sample_vbd_stat(&s, 4, 51712);
	assert_int_equal(a->wr_bytes, 20);
	assert_int_equal(a->rd_req, 30);
	assert_int_equal(a->source, XIO_VBD_QMP);
	assert_int_equal(a->read, XIO_VBD_READ);
	assert_int_equal(sample_vbd_stat(&s, 4, 51728)->rd_bytes, 1);
	assert_null(sample_vbd_stat(&s, 4, 51744)); /* blkback's, not QEMU's */
	sample_free(&s);

	/* "xvda" must not take "xvdaa-raw" nor "xvda-" */
	const char *near = "[{\"node-name\": \"xvdaa-raw\", \"stats\": {\"rd_bytes\": 1,"
	                   " \"wr_bytes\": 2, \"rd_operations\": 3, \"wr_operations\": 4}},"
	                   " {\"node-name\": \"xvda-\", \"stats\": {\"rd_bytes\": 1,"
	                   " \"wr_bytes\": 2, \"rd_operations\": 3, \"wr_operations\": 4}}]";
	assert_int_equal(qdisk_stats_take(near, &d, &s, &problem), 0);
	assert_non_null(problem);
	assert_int_equal(s.n_vbd_stats, 0);
	sample_free(&s);
}

/* one qdisk and one drive: that drive, whatever its name (an older QEMU's) */
static void test_lone_drive(void **state)
{
	(void)state;
	struct xt_backend b = qdisk(768, "hda");
	struct xt_domain d = {.domid = 2, .backends = &b, .n_backends = 1};
	struct xio_sample s = {0};
	const char *problem;
	const char *lone = "[{\"device\": \"\", \"stats\": {\"rd_bytes\": 5, \"wr_bytes\": 6,"
	                   " \"rd_operations\": 7, \"wr_operations\": 8}}]";
	assert_int_equal(qdisk_stats_take(lone, &d, &s, &problem), 0);
	assert_null(problem);
	assert_int_equal(sample_vbd_stat(&s, 2, 768)->wr_bytes, 6);
	sample_free(&s);
}

/* what a broken or hostile QEMU may send: nothing is added, nothing is zero */
static void test_hostile_replies(void **state)
{
	(void)state;
	struct xt_backend b = qdisk(51712, "xvda");
	struct xt_domain d = {.domid = 4, .backends = &b, .n_backends = 1};
	static const char *const bad[] = {
	    "{}",
	    "",
	    "[1, \"x\", null]",
	    "[{\"node-name\": \"xvda-raw\"}]",
	    "[{\"node-name\": \"xvda-raw\", \"stats\": 7}]",
	    "[{\"node-name\": \"xvda-raw\", \"stats\": {\"rd_bytes\": -1, \"wr_bytes\": 2,"
	    " \"rd_operations\": 3, \"wr_operations\": 4}}]",
	    "[{\"node-name\": \"xvda-raw\", \"stats\": {\"rd_bytes\": \"1\", \"wr_bytes\": 2,"
	    " \"rd_operations\": 3, \"wr_operations\": 4}}]",
	    "[{\"node-name\": \"xvda-raw\", \"stats\": {\"rd_bytes\": 1.5, \"wr_bytes\": 2,"
	    " \"rd_operations\": 3, \"wr_operations\": 4}}]",
	    "[{\"node-name\": \"xvda-raw\", \"stats\": {\"wr_bytes\": 2,"
	    " \"rd_operations\": 3, \"wr_operations\": 4}}]",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct xio_sample s = {0};
		const char *problem;
		assert_int_equal(qdisk_stats_take(bad[i], &d, &s, &problem), 0);
		assert_non_null(problem);
		assert_int_equal(s.n_vbd_stats, 0);
		sample_free(&s);
	}
}

/* the whole sample: the domain's QEMU asked at its socket; a silent one costs at most
 * the sample's wait, leaves the vbd to vbd_gaps, and its question waits for its answer */
static void test_fill_asks_each_qdisk_domain(void **state)
{
	(void)state;
	struct xt_backend b = qdisk(51712, "xvda");
	struct xt_backend blk = {.kind = XT_BK_VBD, .devid = 51712, .dev = "xvda"};
	struct xt_domain doms[2] = {{.domid = 3, .backends = &blk, .n_backends = 1},
	                            {.domid = 4, .backends = &b, .n_backends = 1}};
	struct xt_topology t = {.domains = doms, .n_domains = 2};
	struct qmp_double q;
	assert_int_equal(qd_start(&q, dir, 4), 0);
	qd_set(&q, QD_ANSWER, XVDA_STATS);
	struct xio_sample s = {0};
	struct xio_domain d3 = {.domid = 3}, d4 = {.domid = 4};
	assert_int_equal(sample_add_domain(&s, &d3), 0);
	assert_int_equal(sample_add_domain(&s, &d4), 0);
	char why[320] = "";
	struct qdisk_asks *asks = qdisk_asks_new(QDISK_GIVE_UP_MS);
	assert_non_null(asks);
	assert_int_equal(qdisk_stats_fill(asks, dir, &t, &s, why, sizeof(why)), 0);
	assert_true(s.has_vbd_stats);
	assert_int_equal(s.n_vbd_stats, 1);
	assert_int_equal(sample_vbd_stat(&s, 4, 51712)->wr_bytes, 33554432);
	assert_string_equal(why, "");
	sample_free(&s);

	qd_set(&q, QD_SILENT, NULL);
	assert_int_equal(sample_add_domain(&s, &d4), 0);
	int64_t t0 = ms_now();
	assert_int_equal(qdisk_stats_fill(asks, dir, &t, &s, why, sizeof(why)), 0);
	assert_true(ms_now() - t0 < 5 * QDISK_ASK_MS); /* generous: a busy machine */
	assert_true(s.has_vbd_stats);
	assert_int_equal(s.n_vbd_stats, 0);
	assert_non_null(
	    strstr(why, "qdisk counters of domain 4: QEMU has not answered the QMP greeting yet"));
	struct qdisk_tally tally = qdisk_asks_tally(asks, 4);
	assert_int_equal(tally.samples, 2);
	assert_int_equal(tally.answered, 1);
	assert_int_equal(tally.waiting, 1);
	assert_int_equal(qdisk_asks_tally(asks, 3).samples, 0); /* blkback's, never asked */
	sample_free(&s);
	qdisk_asks_free(asks); /* closes the silent question: the double's thread ends it */
	qd_stop(&q);
}

/* A QEMU slower than a sample's wait (greeting, negotiation and reply 300 ms each): the
 * question is not abandoned; a later sample takes its answer, on the same connection. */
static void test_late_answer_taken_later(void **state)
{
	(void)state;
	struct xt_backend b = qdisk(51712, "xvda");
	struct xt_domain d = {.domid = 7, .backends = &b, .n_backends = 1};
	struct xt_topology t = {.domains = &d, .n_domains = 1};
	struct qmp_double q;
	assert_int_equal(qd_start(&q, dir, 7), 0);
	qd_set(&q, QD_ANSWER, XVDA_STATS);
	q.delay_ms = 300;
	struct qdisk_asks *asks = qdisk_asks_new(QDISK_GIVE_UP_MS);
	char why[320] = "";
	int fills = 0;
	size_t got = 0;
	while (!got && fills < 20) {
		struct xio_sample s = {0};
		struct xio_domain d7 = {.domid = 7};
		assert_int_equal(sample_add_domain(&s, &d7), 0);
		assert_int_equal(qdisk_stats_fill(asks, dir, &t, &s, why, sizeof(why)), 0);
		fills++;
		got = s.n_vbd_stats;
		if (got)
			assert_int_equal(sample_vbd_stat(&s, 7, 51712)->wr_bytes, 33554432);
		sample_free(&s);
	}
	assert_int_equal(got, 1);
	assert_true(fills >= 2); /* 900 ms of answer > one sample's 500 ms wait */
	struct qdisk_tally tally = qdisk_asks_tally(asks, 7);
	assert_int_equal(tally.answered, 1);
	assert_int_equal(tally.late, 1);
	assert_int_equal(tally.waiting, fills - 1);
	assert_int_equal(tally.given_up, 0);
	assert_int_equal(q.served, 1); /* one connection, never abandoned */
	qdisk_asks_free(asks);
	qd_stop(&q);
}

/* A domain that leaves the topology has its question closed; one that goes unanswered
 * past give_up_ms is closed and asked again. */
static void test_question_closed_when_gone_or_too_old(void **state)
{
	(void)state;
	struct xt_backend b = qdisk(51712, "xvda");
	struct xt_domain d = {.domid = 8, .backends = &b, .n_backends = 1};
	struct xt_topology t = {.domains = &d, .n_domains = 1}, none = {0};
	struct qmp_double q;
	assert_int_equal(qd_start(&q, dir, 8), 0);
	qd_set(&q, QD_SILENT, NULL);
	struct qdisk_asks *asks = qdisk_asks_new(100);
	char why[320] = "";
	struct xio_sample s = {0};
	struct xio_domain d8 = {.domid = 8};
	assert_int_equal(sample_add_domain(&s, &d8), 0);
	assert_int_equal(qdisk_stats_fill(asks, dir, &t, &s, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "did not answer the QMP greeting in"));
	assert_int_equal(qdisk_asks_tally(asks, 8).given_up, 1);
	qd_set(&q, QD_ANSWER, XVDA_STATS);
	assert_int_equal(qdisk_stats_fill(asks, dir, &t, &s, why, sizeof(why)), 0);
	assert_int_equal(s.n_vbd_stats, 1); /* a new question, answered */
	assert_int_equal(q.served, 2);
	sample_free(&s);

	qdisk_asks_free(asks);

	/* in flight when the domain goes: closed, or the double would still serve it and
	 * the next question would wait behind it */
	asks = qdisk_asks_new(QDISK_GIVE_UP_MS);
	qd_set(&q, QD_SILENT, NULL);
	assert_int_equal(sample_add_domain(&s, &d8), 0);
	assert_int_equal(qdisk_stats_fill(asks, dir, &t, &s, why, sizeof(why)), 0);
	assert_int_equal(qdisk_asks_tally(asks, 8).waiting, 1);
	assert_int_equal(qdisk_stats_fill(asks, dir, &none, &s, why, sizeof(why)), 0);
	assert_int_equal(qdisk_asks_tally(asks, 8).samples, 0); /* gone: dropped */
	qd_set(&q, QD_ANSWER, XVDA_STATS);
	assert_int_equal(qdisk_stats_fill(asks, dir, &t, &s, why, sizeof(why)), 0);
	assert_int_equal(s.n_vbd_stats, 1);
	assert_int_equal(q.served, 4);
	sample_free(&s);
	qdisk_asks_free(asks);
	qd_stop(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_answer),
	    cmocka_unit_test(test_late_split_and_events),
	    cmocka_unit_test(test_failures_say_why),
	    cmocka_unit_test(test_match_by_node_name),
	    cmocka_unit_test(test_lone_drive),
	    cmocka_unit_test(test_hostile_replies),
	    cmocka_unit_test(test_fill_asks_each_qdisk_domain),
	    cmocka_unit_test(test_late_answer_taken_later),
	    cmocka_unit_test(test_question_closed_when_gone_or_too_old),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
