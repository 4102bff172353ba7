/* test_replay_feed.c - a recording as the console's seekable feed: each move lands where
 * the replay cursor says, hands back the samples of that interval (or nothing when it
 * did not move), names the nearest mark, plays with the time it is given, and keeps to a
 * --from/--to window. The recording is written here, under the current directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "record/record.h"
#include "record/replay_feed.h"
#include "sources/synthetic.h"

#define SEC 1000000000ll
#define T0  (1714560000 * SEC)

static char dir[64], path[128];

/* Nine samples one second apart; marks "warm" in the interval ending at sample 3,
 * "bench" exactly at sample 6, and a wrapped command's end in the one ending at 8. */
static int make_recording(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "xiotop-test-replay-feed-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/run.xiotop", dir);
	struct xerr err;
	struct rec_writer *w = rec_create(path, NULL, &err);
	struct synthetic *syn = synthetic_open(3, false);
	if (!w || !syn)
		return -1;
	for (int i = 0; i < 9; i++) {
		struct xio_sample s;
		if (synthetic_sample_at(syn, (uint64_t)i * SEC, T0 + i * SEC, &s) ||
		    rec_append(w, &s, &err))
			return -1;
		sample_free(&s);
	}
	synthetic_close(syn);
	if (rec_add_mark_from(w, "warm", T0 + 2 * SEC + SEC / 2, "api", -1, &err) ||
	    rec_add_mark_from(w, "bench", T0 + 6 * SEC, "console", -1, &err) ||
	    rec_add_mark_from(w, "end: dd", T0 + 7 * SEC + SEC / 5, "wrap", 0, &err))
		return -1;
	return rec_close(w, &err);
}

static int remove_recording(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* One move at now_ns; checks the return, and that samples come exactly when it moved. */
static struct seek_view go(struct replay_feed *f, enum seek_move nav, int64_t now_ns, int want_rc)
{
	struct xio_sample prev, cur;
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	struct seek_view v;
	int rc = replay_feed_navigate(f, nav, now_ns, &prev, &cur, &v);
	if (rc != want_rc)
		fail_msg("move %d: returned %d, want %d (%s)", nav, rc, want_rc,
		         replay_feed_error(f));
	if (rc == 1) {
		/* the interval the cursor stands on, and nothing else */
		int64_t end = v.origin->realtime_ns + (int64_t)v.pos.sample * SEC;
		assert_int_equal(cur.realtime_ns, end);
		assert_int_equal(prev.realtime_ns, end - SEC);
		assert_int_equal(v.pos.recorded_ns, end);
		assert_int_equal(cur.n_domains, 4); /* Domain-0 and three */
	} else {
		assert_null(cur.domains); /* untouched */
		assert_null(prev.domains);
	}
	sample_free(&prev);
	sample_free(&cur);
	return v;
}

static void expect_at(const struct seek_view *v, size_t sample, const char *mark, long offset)
{
	assert_int_equal(v->pos.sample, sample);
	assert_string_equal(v->pos.mark, mark);
	assert_int_equal(v->pos.mark_offset, offset);
}

static void test_moves(void **state)
{
	(void)state;
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	struct replay_feed *f = replay_feed_open(r, 0, rec_count(r) - 1, 0, &err);
	assert_non_null(f);

	struct seek_view v = go(f, NAV_HERE, 0, 1);
	assert_int_equal(v.origin->realtime_ns, T0);
	assert_int_equal(v.pos.last, 8);
	assert_int_equal(v.pos.n_marks, 3);
	assert_false(v.pos.playing);
	assert_true(v.pos.speed == 1.0);
	assert_int_equal(v.wait_ns, -1);
	expect_at(&v, 1, "warm", 2);
	go(f, NAV_STEP_BACK, 0, 0); /* already at the start: nothing to read */
	expect_at(&v, 1, "warm", 2);
	v = go(f, NAV_STEP_AHEAD, 0, 1);
	expect_at(&v, 2, "warm", 1);
	v = go(f, NAV_NEXT_MARK, 0, 1);
	expect_at(&v, 3, "warm", 0);
	v = go(f, NAV_STEP_AHEAD, 0, 1);
	expect_at(&v, 4, "warm", -1); /* as near as bench ahead: the one behind */
	v = go(f, NAV_NEXT_MARK, 0, 1);
	expect_at(&v, 6, "bench", 0);
	v = go(f, NAV_NEXT_MARK, 0, 1);
	expect_at(&v, 8, "end: dd (exit 0)", 0);
	v = go(f, NAV_NEXT_MARK, 0, 0);
	expect_at(&v, 8, "end: dd (exit 0)", 0);
	v = go(f, NAV_PREV_MARK, 0, 1);
	expect_at(&v, 6, "bench", 0);
	v = go(f, NAV_START, 0, 1);
	assert_int_equal(v.pos.sample, 1);
	v = go(f, NAV_END, 0, 1);
	assert_int_equal(v.pos.sample, 8);
	go(f, NAV_END, 0, 0);

	/* play at the end starts again from the start; twice as fast: a sample each 0.5 s */
	v = go(f, NAV_PLAY_PAUSE, 0, 1);
	assert_int_equal(v.pos.sample, 1);
	assert_true(v.pos.playing);
	assert_int_equal(v.wait_ns, SEC);
	v = go(f, NAV_FASTER, 0, 0);
	assert_true(v.pos.speed == 2.0);
	assert_int_equal(v.wait_ns, SEC / 2);
	v = go(f, NAV_TICK, SEC / 2, 1);
	assert_int_equal(v.pos.sample, 2);
	go(f, NAV_TICK, SEC / 2 + SEC / 10, 0);
	v = go(f, NAV_TICK, 2 * SEC, 1); /* late: straight to where time has reached */
	assert_int_equal(v.pos.sample, 5);
	v = go(f, NAV_PLAY_PAUSE, 2 * SEC, 0);
	assert_false(v.pos.playing);
	assert_int_equal(v.wait_ns, -1);
	go(f, NAV_TICK, 9 * SEC, 0); /* paused: time passing moves nothing */
	v = go(f, NAV_SLOWER, 9 * SEC, 0);
	v = go(f, NAV_SLOWER, 9 * SEC, 0);
	assert_true(v.pos.speed == 0.5);
	replay_feed_close(f);
	rec_reader_close(r);
}

static void test_window(void **state)
{
	(void)state;
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	size_t first, last;
	assert_int_equal(rec_resolve_window(r, "warm", "bench", &first, &last, &err), 0);
	assert_int_equal(first, 2);
	assert_int_equal(last, 6);
	struct replay_feed *f = replay_feed_open(r, first, last, 4, &err);
	assert_non_null(f);
	/* positions count within the window; CPU_s from its first sample */
	struct seek_view v = go(f, NAV_HERE, 0, 1);
	assert_int_equal(v.origin->realtime_ns, T0 + 2 * SEC);
	assert_int_equal(v.pos.last, 4);
	assert_true(v.pos.speed == 4.0);
	assert_int_equal(v.pos.n_marks, 2); /* the wrapped command ended after the window */
	expect_at(&v, 1, "warm", 0);
	v = go(f, NAV_END, 0, 1);
	expect_at(&v, 4, "bench", 0);
	go(f, NAV_NEXT_MARK, 0, 0);
	go(f, NAV_STEP_AHEAD, 0, 0);
	replay_feed_close(f);

	/* a window without an interval */
	assert_null(replay_feed_open(r, 5, 5, 0, &err));
	assert_int_equal(err.code, REC_ERR_RANGE);
	assert_null(replay_feed_open(r, 0, 9, 0, &err));
	rec_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_moves),
	    cmocka_unit_test(test_window),
	};
	return cmocka_run_group_tests(tests, make_recording, remove_recording);
}
