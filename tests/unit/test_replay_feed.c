/* test_replay_feed.c - a recording as the console's seekable feed: each move lands where
 * the replay cursor says, hands back the samples of that interval (or nothing when it
 * did not move), names the nearest mark, plays with the time it is given, steps by a
 * period of recorded time, goes to a time or a mark (g), and keeps to a --from/--to
 * window; a --dir span of two files replays as one timeline. The recordings are written
 * here, under the current directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <cmocka.h>

#include "record/rec_dir.h"
#include "record/rec_span.h"
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

/* One move at now_ns (with NAV_GOTO's text); checks the return, and that samples come
 * exactly when it moved. */
static struct seek_view go_text(struct replay_feed *f, enum seek_move nav, const char *text,
                                int64_t now_ns, int want_rc)
{
	struct xio_sample prev, cur;
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	struct seek_view v;
	int rc = replay_feed_navigate(f, nav, text, now_ns, &prev, &cur, &v);
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

static struct seek_view go(struct replay_feed *f, enum seek_move nav, int64_t now_ns, int want_rc)
{
	return go_text(f, nav, NULL, now_ns, want_rc);
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
	struct rec_span *r = rec_span_open_file(path, &err);
	assert_non_null(r);
	struct replay_feed *f = replay_feed_open(r, 0, rec_span_count(r) - 1, 0, &err);
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
	rec_span_close(r);
}

/* g: a mark's label, start and end, a time (with a zone, local, +SECONDS), one outside the
 * recording (its edge, said), and text that is none of these (said, no move). */
static void test_goto(void **state)
{
	(void)state;
	setenv("TZ", "Europe/Berlin", 1); /* T0 is 2024-05-01 12:40:00 CEST */
	tzset();
	struct xerr err;
	struct rec_span *r = rec_span_open_file(path, &err);
	assert_non_null(r);
	struct replay_feed *f = replay_feed_open(r, 0, rec_span_count(r) - 1, 0, &err);
	assert_non_null(f);
	struct seek_view v = go(f, NAV_HERE, 0, 1);
	v = go_text(f, NAV_GOTO, "bench", 0, 1);
	expect_at(&v, 6, "bench", 0);
	v = go_text(f, NAV_GOTO, "start", 0, 1);
	assert_int_equal(v.pos.sample, 1);
	v = go_text(f, NAV_GOTO, "2024-05-01T10:40:04Z", 0, 1);
	assert_int_equal(v.pos.sample, 4);
	v = go_text(f, NAV_GOTO, "2024-05-01 12:40:02.5", 0, 1); /* local: the interval (2, 3] */
	assert_int_equal(v.pos.sample, 3);
	v = go_text(f, NAV_GOTO, "+7", 0, 1);
	assert_int_equal(v.pos.sample, 7);
	assert_string_equal(v.note, "");
	v = go_text(f, NAV_GOTO, "2025-01-01T00:00:00Z", 0, 1);
	assert_int_equal(v.pos.sample, 8);
	assert_non_null(
	    strstr(v.note, "2025-01-01 01:00:00 CET is outside the replay: at its end"));
	v = go_text(f, NAV_GOTO, "no such thing", 0, 0);
	assert_int_equal(v.pos.sample, 8);
	assert_non_null(strstr(v.note, "'no such thing' is neither a mark"));
	replay_feed_close(f);
	rec_span_close(r);
}

/* [ ] step a period of recorded time (at least one interval), { } change it; the first
 * one is the longest at most a tenth of the window (1 min at least). */
static void test_periods(void **state)
{
	(void)state;
	struct xerr err;
	struct rec_span *r = rec_span_open_file(path, &err);
	assert_non_null(r);
	struct replay_feed *f = replay_feed_open(r, 0, rec_span_count(r) - 1, 0, &err);
	assert_non_null(f);
	struct seek_view v = go(f, NAV_HERE, 0, 1);
	assert_int_equal(v.pos.period_ns, 60 * SEC);
	v = go(f, NAV_PERIOD_AHEAD, 0, 1); /* a minute on: past the end, to it */
	assert_int_equal(v.pos.sample, 8);
	v = go(f, NAV_PERIOD_BACK, 0, 1);
	assert_int_equal(v.pos.sample, 1);
	v = go(f, NAV_PERIOD_LONGER, 0, 0);
	assert_int_equal(v.pos.period_ns, 600 * SEC);
	v = go(f, NAV_PERIOD_SHORTER, 0, 0);
	v = go(f, NAV_PERIOD_SHORTER, 0, 0); /* the shortest already */
	assert_int_equal(v.pos.period_ns, 60 * SEC);
	replay_feed_close(f);
	rec_span_close(r);
}

/* A --dir span of two files, the second's first sample the first's last (a rotation): one
 * timeline of 13 samples, the shared one once, the marks of both, g to a mark of the second
 * file and to a time in the first, the header's time of each. */
static void test_two_files(void **state)
{
	(void)state;
	char span_dir[128], second[192];
	snprintf(span_dir, sizeof(span_dir), "%s/span", dir);
	assert_int_equal(mkdir(span_dir, 0755), 0);
	struct xerr err;
	struct synthetic *syn = synthetic_open(3, false);
	assert_non_null(syn);
	for (int file = 0; file < 2; file++) {
		char name[192];
		assert_int_equal(
		    rec_dir_file_name(span_dir, T0 + file * 6 * SEC, name, sizeof(name)), 0);
		if (file)
			snprintf(second, sizeof(second), "%s", name);
		struct rec_writer *w = rec_create(name, NULL, &err);
		assert_non_null(w);
		for (int i = file * 6; i <= file * 6 + 6; i++) {
			struct xio_sample s;
			assert_int_equal(
			    synthetic_sample_at(syn, (uint64_t)i * SEC, T0 + i * SEC, &s), 0);
			assert_int_equal(rec_append(w, &s, &err), 0);
			sample_free(&s);
		}
		assert_int_equal(rec_add_mark_from(w, file ? "late" : "early",
		                                   T0 + (file * 6 + 3) * SEC, "api", -1, &err),
		                 0);
		assert_int_equal(rec_close(w, &err), 0);
	}
	synthetic_close(syn);
	struct rec_span *r = rec_span_open_dir(span_dir, INT64_MIN, INT64_MAX, &err);
	assert_non_null(r);
	assert_int_equal(rec_span_files(r), 2);
	assert_int_equal(rec_span_count(r), 13);
	assert_int_equal(rec_span_n_marks(r), 2);
	for (size_t i = 0; i < 13; i++)
		assert_int_equal(rec_span_times(r)[i], T0 + (int64_t)i * SEC);
	struct replay_feed *f = replay_feed_open(r, 0, 12, 0, &err);
	assert_non_null(f);
	struct seek_view v = go(f, NAV_HERE, 0, 1);
	assert_int_equal(v.pos.last, 12);
	v = go_text(f, NAV_GOTO, "late", 0, 1);
	expect_at(&v, 9, "late", 0);
	assert_int_equal(v.pos.recorded_ns, T0 + 9 * SEC);
	v = go_text(f, NAV_GOTO, "2024-05-01T10:40:05Z", 0, 1);
	assert_int_equal(v.pos.sample, 5);
	v = go(f, NAV_STEP_AHEAD, 0, 1); /* across the files: sample 6, the shared one */
	v = go(f, NAV_STEP_AHEAD, 0, 1);
	assert_int_equal(v.pos.sample, 7);
	replay_feed_close(f);
	/* --from/--to over the span: a mark of each file */
	size_t first, last;
	assert_int_equal(rec_span_window(r, "early", "late", &first, &last, &err), 0);
	assert_int_equal(first, 3);
	assert_int_equal(last, 9);
	rec_span_close(r);
	/* a file that cannot be read is left out, the other still read */
	FILE *bad = fopen(second, "w");
	assert_non_null(bad);
	fputs("not a recording", bad);
	fclose(bad);
	r = rec_span_open_dir(span_dir, INT64_MIN, INT64_MAX, &err);
	assert_non_null(r);
	assert_int_equal(rec_span_count(r), 7);
	rec_span_close(r);
}

static void test_window(void **state)
{
	(void)state;
	struct xerr err;
	struct rec_span *r = rec_span_open_file(path, &err);
	assert_non_null(r);
	size_t first, last;
	assert_int_equal(rec_span_window(r, "warm", "bench", &first, &last, &err), 0);
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
	rec_span_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_moves),   cmocka_unit_test(test_goto),
	    cmocka_unit_test(test_periods), cmocka_unit_test(test_two_files),
	    cmocka_unit_test(test_window),
	};
	return cmocka_run_group_tests(tests, make_recording, remove_recording);
}
