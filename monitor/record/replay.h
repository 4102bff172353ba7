/* replay.h - a cursor moving through a recording: what replay shows and when it moves.
 *
 * Contract: pure (no I/O, no clock of its own: the caller passes `now`, any monotonic ns),
 * so the console and tests drive it alike. The cursor stands on a sample index pos and
 * shows the interval (pos-1, pos]: pos stays within [1, count-1], so a recording needs
 * two samples (replay_usable). Moves: step +-n, by a span of recorded time (at least one
 * interval: to the first sample at or after the time ahead, the last at or before the
 * time behind), to the interval holding a time, previous/next mark, start/end. Playing
 * advances pos as recorded time passes, `speed` times faster than real time (paced by the
 * samples' own times, so a recording with uneven intervals replays unevenly, as it
 * happened); it stops at the end. Any move while playing continues playing from there.
 * The arrays given to replay_init are borrowed, not copied.
 */
#ifndef XIOTOP_REPLAY_H
#define XIOTOP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REPLAY_SPEED_MIN 0.125
#define REPLAY_SPEED_MAX 64.0
/* The longest recorded gap between two samples replay waits out: times come from a file
 * anyone may have edited (a sample at INT64_MIN, a clock set years ahead), so a gap is
 * counted as 0 when time went backwards and as at most this when it leapt forward;
 * replay_wait_ns() is then never above REPLAY_MAX_GAP_NS / REPLAY_SPEED_MIN. */
#define REPLAY_MAX_GAP_NS (60 * 1000000000LL)

struct replay_cursor {
	const int64_t *times; /* per sample, ns, nondecreasing in practice */
	size_t count;
	const size_t *marks; /* sample index of each mark (first sample at or after it) */
	size_t n_marks;
	size_t pos;
	bool playing;
	double speed;
	/* While playing: the (now, pos) pair time is measured from. */
	int64_t anchor_now;
	size_t anchor_pos;
	int64_t anchor_to_pos_ns; /* recorded ns (gaps capped) from anchor_pos to pos */
};

void replay_init(struct replay_cursor *c, const int64_t *times, size_t count, const size_t *marks,
                 size_t n_marks);
bool replay_usable(const struct replay_cursor *c);
/* Each returns the new pos. */
size_t replay_step(struct replay_cursor *c, long delta, int64_t now);
size_t replay_next_mark(struct replay_cursor *c, int64_t now);
size_t replay_prev_mark(struct replay_cursor *c, int64_t now);
size_t replay_step_time(struct replay_cursor *c, int64_t delta_ns, int64_t now);
size_t replay_goto(struct replay_cursor *c, int64_t realtime_ns, int64_t now);
size_t replay_start(struct replay_cursor *c, int64_t now);
size_t replay_end(struct replay_cursor *c, int64_t now);
/* Play/pause. Playing at the end starts again from the start. */
size_t replay_toggle_play(struct replay_cursor *c, int64_t now);
/* Clamped to [REPLAY_SPEED_MIN, REPLAY_SPEED_MAX]; replay_faster/slower double/halve. */
void replay_set_speed(struct replay_cursor *c, double speed, int64_t now);
size_t replay_faster(struct replay_cursor *c, int64_t now);
size_t replay_slower(struct replay_cursor *c, int64_t now);
/* Playing: moves pos to where recorded time has reached at now. True if pos moved. */
bool replay_tick(struct replay_cursor *c, int64_t now);
/* Playing: ns from now until the next move is due (>= 0); -1 when not playing. */
int64_t replay_wait_ns(const struct replay_cursor *c, int64_t now);

#endif
