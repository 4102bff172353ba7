/* test_record_replay.c - the replay cursor: steps, marks, start/end, play/pause, speed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/replay.h"

#define S 1000000000ll

/* 11 samples one second apart, except a 3 s gap between samples 5 and 6. */
static const int64_t times[] = {0,     1 * S, 2 * S,  3 * S,  4 * S, 5 * S,
                                8 * S, 9 * S, 10 * S, 11 * S, 12 * S};
#define COUNT (sizeof(times) / sizeof(times[0]))

static void test_steps_clamp(void **state)
{
	(void)state;
	struct replay_cursor c;
	replay_init(&c, times, COUNT, NULL, 0);
	assert_true(replay_usable(&c));
	assert_int_equal(c.pos, 1); /* the first interval: samples 0..1 */
	assert_int_equal(replay_step(&c, -1, 0), 1);
	assert_int_equal(replay_step(&c, 1, 0), 2);
	assert_int_equal(replay_step(&c, 5, 0), 7);
	assert_int_equal(replay_step(&c, 100, 0), COUNT - 1);
	assert_int_equal(replay_step(&c, -3, 0), COUNT - 4);
	assert_int_equal(replay_step(&c, -100, 0), 1);
	assert_int_equal(replay_end(&c, 0), COUNT - 1);
	assert_int_equal(replay_start(&c, 0), 1);
}

static void test_too_short(void **state)
{
	(void)state;
	struct replay_cursor c;
	replay_init(&c, times, 1, NULL, 0);
	assert_false(replay_usable(&c));
	replay_toggle_play(&c, 0);
	assert_false(c.playing);
	assert_int_equal(replay_step(&c, 1, 0), 1);
}

static void test_marks(void **state)
{
	(void)state;
	/* unsorted, one before the first sample, one after the last */
	const size_t marks[] = {6, 0, 3, COUNT, 6};
	struct replay_cursor c;
	replay_init(&c, times, COUNT, marks, 5);
	assert_int_equal(replay_next_mark(&c, 0), 3);
	assert_int_equal(replay_next_mark(&c, 0), 6);
	assert_int_equal(replay_next_mark(&c, 0), COUNT - 1); /* the one after the end */
	assert_int_equal(replay_next_mark(&c, 0), COUNT - 1); /* none further: stays */
	assert_int_equal(replay_prev_mark(&c, 0), 6);
	assert_int_equal(replay_prev_mark(&c, 0), 3);
	assert_int_equal(replay_prev_mark(&c, 0), 1); /* the one before the start */
	assert_int_equal(replay_prev_mark(&c, 0), 1);
	struct replay_cursor none;
	replay_init(&none, times, COUNT, NULL, 0);
	replay_step(&none, 4, 0);
	assert_int_equal(replay_next_mark(&none, 0), 5);
	assert_int_equal(replay_prev_mark(&none, 0), 5);
}

static void test_play_follows_recorded_time(void **state)
{
	(void)state;
	struct replay_cursor c;
	replay_init(&c, times, COUNT, NULL, 0);
	int64_t t = 100 * S; /* the caller's clock: any origin */
	assert_int_equal(replay_wait_ns(&c, t), -1);
	replay_toggle_play(&c, t);
	assert_true(c.playing);
	assert_int_equal(replay_wait_ns(&c, t), S);
	assert_false(replay_tick(&c, t + S / 2));
	assert_int_equal(replay_wait_ns(&c, t + S / 2), S / 2);
	assert_true(replay_tick(&c, t + S));
	assert_int_equal(c.pos, 2);
	/* a late tick catches up over several samples */
	assert_true(replay_tick(&c, t + 4 * S + 10));
	assert_int_equal(c.pos, 5);
	/* the recorded 3 s gap takes 3 s to play */
	assert_int_equal(replay_wait_ns(&c, t + 4 * S + 10), 3 * S - 10);
	assert_false(replay_tick(&c, t + 6 * S));
	assert_true(replay_tick(&c, t + 7 * S));
	assert_int_equal(c.pos, 6);
	/* pause keeps the place; play goes on from it */
	replay_toggle_play(&c, t + 7 * S);
	assert_false(c.playing);
	assert_false(replay_tick(&c, t + 50 * S));
	assert_int_equal(c.pos, 6);
	replay_toggle_play(&c, t + 50 * S);
	assert_true(replay_tick(&c, t + 51 * S));
	assert_int_equal(c.pos, 7);
	/* playing stops at the end; play again starts over */
	assert_true(replay_tick(&c, t + 1000 * S));
	assert_int_equal(c.pos, COUNT - 1);
	assert_false(c.playing);
	assert_int_equal(replay_wait_ns(&c, t + 1000 * S), -1);
	replay_toggle_play(&c, t + 1001 * S);
	assert_true(c.playing);
	assert_int_equal(c.pos, 1);
}

static void test_speed(void **state)
{
	(void)state;
	struct replay_cursor c;
	replay_init(&c, times, COUNT, NULL, 0);
	replay_set_speed(&c, 4, 0);
	replay_toggle_play(&c, 0);
	assert_int_equal(replay_wait_ns(&c, 0), S / 4);
	assert_true(replay_tick(&c, S)); /* 1 s at x4: 4 recorded seconds */
	assert_int_equal(c.pos, 5);
	/* a speed change counts the time played so far at the old speed */
	replay_slower(&c, S);
	assert_true(c.speed == 2);
	assert_int_equal(replay_wait_ns(&c, S), 3 * S / 2);
	replay_set_speed(&c, 1000, S);
	assert_true(c.speed == REPLAY_SPEED_MAX);
	replay_set_speed(&c, 0, S);
	assert_true(c.speed == REPLAY_SPEED_MIN);
	replay_faster(&c, S);
	assert_true(c.speed == 2 * REPLAY_SPEED_MIN);
	/* moving while playing plays on from the new place */
	replay_set_speed(&c, 1, 2 * S);
	assert_int_equal(replay_start(&c, 2 * S), 1);
	assert_true(c.playing);
	assert_true(replay_tick(&c, 3 * S));
	assert_int_equal(c.pos, 2);
}

/* Issue 15 (2): times from an edited file. A sample at INT64_MIN (the difference to its
 * neighbours overflows int64), one at INT64_MAX, a leap of years: replay at x64 waits at
 * most the capped gap (60 s recorded, under a second at x64) per sample, never years,
 * and still reaches the end. */
static void test_hostile_times_never_wait_long(void **state)
{
	(void)state;
	static const int64_t hostile[] = {
	    0,         S,         INT64_MIN, 2 * S,
	    INT64_MAX, INT64_MIN, 3 * S,     3 * S + 200LL * 365 * 86400 * S,
	    INT64_MAX};
	const size_t n = sizeof(hostile) / sizeof(hostile[0]);
	const int64_t cap = 60 * S / 64 + 1;
	struct replay_cursor c;
	replay_init(&c, hostile, n, NULL, 0);
	replay_set_speed(&c, 64, 0);
	replay_toggle_play(&c, 0);
	int64_t now = 0;
	for (size_t step = 0; step < 4 * n && c.playing; step++) {
		int64_t wait = replay_wait_ns(&c, now);
		assert_true(wait >= 0 && wait <= cap);
		now += wait;
		replay_tick(&c, now);
	}
	assert_false(c.playing);
	assert_int_equal(c.pos, n - 1);
	/* a normal gap is still waited out as recorded */
	replay_init(&c, hostile, n, NULL, 0);
	replay_toggle_play(&c, 0);
	assert_int_equal(replay_wait_ns(&c, 0), 0); /* S -> INT64_MIN: backwards, no wait */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steps_clamp),
	    cmocka_unit_test(test_too_short),
	    cmocka_unit_test(test_marks),
	    cmocka_unit_test(test_play_follows_recorded_time),
	    cmocka_unit_test(test_speed),
	    cmocka_unit_test(test_hostile_times_never_wait_long),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
