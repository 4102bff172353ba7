/* replay.c - the replay cursor; see replay.h. */
#include "record/replay.h"

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

size_t replay_start(struct replay_cursor *c, int64_t now)
{
	return move_to(c, 1, now);
}

size_t replay_end(struct replay_cursor *c, int64_t now)
{
	return move_to(c, last_pos(c), now);
}

void replay_toggle_play(struct replay_cursor *c, int64_t now)
{
	if (c->playing) {
		c->playing = false;
		return;
	}
	if (!replay_usable(c))
		return;
	if (c->pos >= last_pos(c))
		move_to(c, 1, now);
	else
		move_to(c, c->pos, now);
	c->playing = true;
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

void replay_faster(struct replay_cursor *c, int64_t now)
{
	replay_set_speed(c, c->speed * 2, now);
}

void replay_slower(struct replay_cursor *c, int64_t now)
{
	replay_set_speed(c, c->speed / 2, now);
}

/* Recorded ns from the anchor sample to sample p (0 if time went backwards). */
static int64_t recorded_since_anchor(const struct replay_cursor *c, size_t p)
{
	int64_t d = c->times[p] - c->times[c->anchor_pos];
	return d > 0 ? d : 0;
}

bool replay_tick(struct replay_cursor *c, int64_t now)
{
	if (!c->playing)
		return false;
	double played = (double)(now - c->anchor_now) * c->speed;
	size_t pos = c->pos;
	while (pos < last_pos(c) && (double)recorded_since_anchor(c, pos + 1) <= played)
		pos++;
	bool moved = pos != c->pos;
	c->pos = pos;
	if (pos >= last_pos(c))
		c->playing = false;
	return moved;
}

int64_t replay_wait_ns(const struct replay_cursor *c, int64_t now)
{
	if (!c->playing || c->pos >= last_pos(c))
		return -1;
	double due = (double)recorded_since_anchor(c, c->pos + 1) / c->speed;
	double waited = (double)(now - c->anchor_now);
	return due > waited ? (int64_t)(due - waited + 0.999) : 0;
}
