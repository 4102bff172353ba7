/* replay_feed.c - a recording window as a seekable console feed; see replay_feed.h. */
#include "record/replay_feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/replay.h"

struct replay_feed {
	struct rec_reader *r;
	size_t first;                  /* the window's first sample in the recording */
	struct replay_cursor cur;      /* over the window: its sample i is recording's first + i */
	size_t *mark_pos;              /* per window mark: the window sample at or after it */
	const struct rec_mark **marks; /* the recording's marks in the window, by time */
	size_t n_marks;
	struct xio_sample origin;
	struct xerr err;
};

/* A mark belongs to the window when the interval holding it does; one after the end of
 * the recording belongs to a window reaching that end (the cursor shows it at the end). */
static bool in_window(size_t at_or_after, size_t first, size_t last, size_t count)
{
	return at_or_after >= first && (at_or_after <= last || last + 1 == count);
}

static int take_marks(struct replay_feed *f, size_t last)
{
	size_t n = rec_n_marks(f->r);
	const struct rec_mark *all = rec_marks(f->r);
	f->mark_pos = calloc(n ? n : 1, sizeof(*f->mark_pos));
	f->marks = calloc(n ? n : 1, sizeof(*f->marks));
	if (!f->mark_pos || !f->marks)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!in_window(all[i].at_or_after, f->first, last, rec_count(f->r)))
			continue;
		f->mark_pos[f->n_marks] = all[i].at_or_after - f->first;
		f->marks[f->n_marks++] = &all[i];
	}
	return 0;
}

struct replay_feed *replay_feed_open(struct rec_reader *r, size_t first, size_t last, double speed,
                                     struct xerr *err)
{
	struct replay_feed *f = calloc(1, sizeof(*f));
	if (!f || last >= rec_count(r) || first >= last) {
		if (f)
			rec_set_error(err, REC_ERR_RANGE,
			              "%s: samples %zu..%zu hold no interval of the recording",
			              rec_path(r), first, last);
		else
			rec_set_error(err, REC_ERR_NOMEM, "out of memory");
		free(f);
		return NULL;
	}
	f->r = r;
	f->first = first;
	if (take_marks(f, last)) {
		rec_set_error(err, REC_ERR_NOMEM, "out of memory");
		replay_feed_close(f);
		return NULL;
	}
	if (rec_read(r, first, &f->origin, err)) {
		replay_feed_close(f);
		return NULL;
	}
	replay_init(&f->cur, rec_times(r) + first, last - first + 1, f->mark_pos, f->n_marks);
	if (speed > 0)
		replay_set_speed(&f->cur, speed, 0);
	return f;
}

void replay_feed_close(struct replay_feed *f)
{
	if (!f)
		return;
	sample_free(&f->origin);
	free(f->mark_pos);
	free(f->marks);
	free(f);
}

const char *replay_feed_error(const struct replay_feed *f)
{
	return f->err.msg;
}

/* The mark nearest to the shown interval: fewest intervals away, one behind (or here)
 * before one as far ahead, the earlier of two in one interval. */
static void nearest_mark(const struct replay_feed *f, struct seek_pos *pos)
{
	const struct replay_cursor *c = &f->cur;
	long best = 0;
	const struct rec_mark *found = NULL;
	for (size_t i = 0; i < f->n_marks; i++) {
		size_t p = f->mark_pos[i] < 1              ? 1
		           : f->mark_pos[i] > c->count - 1 ? c->count - 1
		                                           : f->mark_pos[i];
		long d = (long)p - (long)c->pos;
		long ad = d < 0 ? -d : d, abest = best < 0 ? -best : best;
		if (!found || ad < abest || (ad == abest && d < best)) {
			found = f->marks[i];
			best = d;
		}
	}
	pos->mark[0] = '\0';
	pos->mark_offset = best;
	if (!found)
		return;
	if (found->exit_status >= 0)
		/* a wrapped command's end: its label is the command line, cut to leave room */
		snprintf(pos->mark, sizeof(pos->mark), "%.200s (exit %d)", found->label,
		         found->exit_status);
	else
		snprintf(pos->mark, sizeof(pos->mark), "%s", found->label);
}

static void describe(const struct replay_feed *f, int64_t now_ns, struct seek_view *view)
{
	const struct replay_cursor *c = &f->cur;
	memset(view, 0, sizeof(*view));
	view->origin = &f->origin;
	view->pos.sample = c->pos;
	view->pos.last = c->count - 1;
	view->pos.recorded_ns = c->times[c->pos];
	view->pos.playing = c->playing;
	view->pos.speed = c->speed;
	view->pos.n_marks = f->n_marks;
	nearest_mark(f, &view->pos);
	view->wait_ns = replay_wait_ns(c, now_ns);
}

/* The moves that need only the time (NAV_HERE stays, NAV_TICK plays, a step has its
 * direction): each returns the new position, unused here. */
static size_t (*const moves[])(struct replay_cursor *c, int64_t now) = {
    [NAV_PREV_MARK] = replay_prev_mark,
    [NAV_NEXT_MARK] = replay_next_mark,
    [NAV_START] = replay_start,
    [NAV_END] = replay_end,
    [NAV_PLAY_PAUSE] = replay_toggle_play,
    [NAV_FASTER] = replay_faster,
    [NAV_SLOWER] = replay_slower,
};

int replay_feed_navigate(void *ctx, enum seek_move nav, int64_t now_ns, struct xio_sample *prev,
                         struct xio_sample *cur, struct seek_view *view)
{
	struct replay_feed *f = ctx;
	struct replay_cursor *c = &f->cur;
	size_t was = c->pos;
	if (nav == NAV_TICK)
		replay_tick(c, now_ns);
	else if (nav == NAV_STEP_BACK || nav == NAV_STEP_AHEAD)
		replay_step(c, nav == NAV_STEP_AHEAD ? +1 : -1, now_ns);
	else if ((size_t)nav < sizeof(moves) / sizeof(moves[0]) && moves[nav])
		moves[nav](c, now_ns);
	describe(f, now_ns, view);
	f->err.msg[0] = '\0';
	if (nav != NAV_HERE && c->pos == was)
		return 0;
	if (rec_read(f->r, f->first + c->pos - 1, prev, &f->err))
		return -1;
	if (rec_read(f->r, f->first + c->pos, cur, &f->err)) {
		sample_free(prev);
		return -1;
	}
	return 1;
}
