/* replay.c - the replay cursor; see replay.h. */
#include "record/replay.h"

#include <stdint.h>

void replay_init(struct replay_cursor *c, const int64_t *times, size_t count, const size_t *marks,
                 size_t n_marks)
{
	*c = (struct replay_cursor){.times = times,
	                            .count = count,
	                            .marks = marks,
	                            .n_marks = n_marks,
	                            .pos = 1,
	                            .speed = 1.0};
}

bool replay_usable(const struct replay_cursor *c)
{
	return c->count >= 2;
}

static size_t last_pos(const struct replay_cursor *c)
{
	return c->count >= 2 ? c->count - 1 : 1;
}

/* Every move goes through here: clamp, and re-anchor playing time at the new place. */
static size_t move_to(struct replay_cursor *c, size_t pos, int64_t now)
{
	if (pos < 1)
		pos = 1;
	if (pos > last_pos(c))
		pos = last_pos(c);
	c->pos = pos;
	c->anchor_now = now;
	c->anchor_pos = pos;
	c->anchor_to_pos_ns = 0;
	return pos;
}

size_t replay_step(struct replay_cursor *c, long delta, int64_t now)
{
	size_t pos = c->pos;
	if (delta < 0)
		pos = (size_t)-delta >= pos ? 1 : pos - (size_t)-delta;
	else
		pos = (size_t)delta > last_pos(c) - pos ? last_pos(c) : pos + (size_t)delta;
	return move_to(c, pos, now);
}

/* A mark's interval: the one ending at its first sample at or after it. */
static size_t mark_pos(const struct replay_cursor *c, size_t i)
{
	size_t p = c->marks[i];
	return p < 1 ? 1 : p > last_pos(c) ? last_pos(c) : p;
}

size_t replay_next_mark(struct replay_cursor *c, int64_t now)
{
	size_t best = c->pos;
	for (size_t i = 0; i < c->n_marks; i++) {
		size_t p = mark_pos(c, i);
		if (p > c->pos && (best == c->pos || p < best))
			best = p;
	}
	return move_to(c, best, now);
}

size_t replay_prev_mark(struct replay_cursor *c, int64_t now)
{
	size_t best = c->pos;
	for (size_t i = 0; i < c->n_marks; i++) {
		size_t p = mark_pos(c, i);
		if (p < c->pos && (best == c->pos || p > best))
			best = p;
	}
	return move_to(c, best, now);
}

size_t replay_step_time(struct replay_cursor *c, int64_t delta_ns, int64_t now)
{
	int64_t at = c->times[c->pos], target;
	if (__builtin_add_overflow(at, delta_ns, &target))
		target = delta_ns < 0 ? INT64_MIN : INT64_MAX;
	size_t p = c->pos;
	if (delta_ns > 0) {
		p++; /* at least one interval on */
		while (p < last_pos(c) && c->times[p] < target)
			p++;
	} else if (delta_ns < 0 && p > 1) {
		p--; /* at least one interval back */
		while (p > 1 && c->times[p] > target)
			p--;
	}
	return move_to(c, p, now);
}

size_t replay_goto(struct replay_cursor *c, int64_t realtime_ns, int64_t now)
{
	size_t p = 1; /* the interval holding the time: the first sample at or after it */
	while (p < last_pos(c) && c->times[p] < realtime_ns)
		p++;
	return move_to(c, p, now);
}

size_t replay_start(struct replay_cursor *c, int64_t now)
{
	return move_to(c, 1, now);
}

size_t replay_end(struct replay_cursor *c, int64_t now)
{
	return move_to(c, last_pos(c), now);
}

size_t replay_toggle_play(struct replay_cursor *c, int64_t now)
{
	if (c->playing) {
		c->playing = false;
		return c->pos;
	}
	if (!replay_usable(c))
		return c->pos;
	move_to(c, c->pos >= last_pos(c) ? 1 : c->pos, now);
	c->playing = true;
	return c->pos;
}

void replay_set_speed(struct replay_cursor *c, double speed, int64_t now)
{
	/* Re-anchor first: the time already played counts at the old speed. */
	replay_tick(c, now);
	move_to(c, c->pos, now);
	if (!(speed >= REPLAY_SPEED_MIN)) /* also NaN */
		speed = REPLAY_SPEED_MIN;
	if (speed > REPLAY_SPEED_MAX)
		speed = REPLAY_SPEED_MAX;
	c->speed = speed;
}

size_t replay_faster(struct replay_cursor *c, int64_t now)
{
	replay_set_speed(c, c->speed * 2, now);
	return c->pos;
}

size_t replay_slower(struct replay_cursor *c, int64_t now)
{
	replay_set_speed(c, c->speed / 2, now);
	return c->pos;
}

/* Recorded ns from sample p-1 to p: 0 if time went backwards, at most
 * REPLAY_MAX_GAP_NS; computed without overflow whatever the two times are. */
static int64_t gap_before(const struct replay_cursor *c, size_t p)
{
	int64_t a = c->times[p - 1], b = c->times[p];
	if (b <= a)
		return 0;
	uint64_t d = (uint64_t)b - (uint64_t)a; /* exact: b > a */
	return d > (uint64_t)REPLAY_MAX_GAP_NS ? REPLAY_MAX_GAP_NS : (int64_t)d;
}

/* Recorded ns from the anchor sample to pos + 1, saturating. */
static int64_t recorded_to_next(const struct replay_cursor *c)
{
	int64_t gap = gap_before(c, c->pos + 1);
	return c->anchor_to_pos_ns > INT64_MAX - gap ? INT64_MAX : c->anchor_to_pos_ns + gap;
}

bool replay_tick(struct replay_cursor *c, int64_t now)
{
	if (!c->playing)
		return false;
	double played = (double)(now - c->anchor_now) * c->speed;
	size_t start = c->pos;
	while (c->pos < last_pos(c)) {
		int64_t next = recorded_to_next(c);
		if ((double)next > played)
			break;
		c->anchor_to_pos_ns = next;
		c->pos++;
	}
	bool moved = c->pos != start;
	if (c->pos >= last_pos(c))
		c->playing = false;
	return moved;
}

int64_t replay_wait_ns(const struct replay_cursor *c, int64_t now)
{
	if (!c->playing || c->pos >= last_pos(c))
		return -1;
	double due = (double)recorded_to_next(c) / c->speed;
	double waited = (double)(now - c->anchor_now);
	return due > waited ? (int64_t)(due - waited + 0.999) : 0;
}
