/* replay_feed.c - a recording window as a seekable console feed; see replay_feed.h. */
#include "record/replay_feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/when.h"
#include "record/replay.h"

/* The step periods, shortest first. */
static const int64_t periods_s[] = {60, 600, 3600, 6 * 3600, 86400};
#define N_PERIODS (sizeof(periods_s) / sizeof(*periods_s))

struct replay_feed {
	struct rec_span *r;
	size_t first;                  /* the window's first sample in the recording */
	struct replay_cursor cur;      /* over the window: its sample i is recording's first + i */
	size_t *mark_pos;              /* per window mark: the window sample at or after it */
	const struct rec_mark **marks; /* the recording's marks in the window, by time */
	size_t n_marks;
	struct xio_sample origin;
	size_t period; /* index in periods_s */
	char note[320];
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
	size_t n = rec_span_n_marks(f->r);
	const struct rec_mark *all = rec_span_marks(f->r);
	f->mark_pos = calloc(n ? n : 1, sizeof(*f->mark_pos));
	f->marks = calloc(n ? n : 1, sizeof(*f->marks));
	if (!f->mark_pos || !f->marks)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!in_window(all[i].at_or_after, f->first, last, rec_span_count(f->r)))
			continue;
		f->mark_pos[f->n_marks] = all[i].at_or_after - f->first;
		f->marks[f->n_marks++] = &all[i];
	}
	return 0;
}

struct replay_feed *replay_feed_open(struct rec_span *r, size_t first, size_t last, double speed,
                                     struct xerr *err)
{
	struct replay_feed *f = calloc(1, sizeof(*f));
	if (!f || last >= rec_span_count(r) || first >= last) {
		if (f)
			rec_set_error(err, REC_ERR_RANGE,
			              "%s: samples %zu..%zu hold no interval of the recording",
			              rec_span_name(r), first, last);
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
	if (rec_span_read(r, first, &f->origin, err)) {
		replay_feed_close(f);
		return NULL;
	}
	const int64_t *times = rec_span_times(r) + first;
	replay_init(&f->cur, times, last - first + 1, f->mark_pos, f->n_marks);
	int64_t span_s = (times[last - first] - times[0]) / NS_PER_S;
	while (f->period + 1 < N_PERIODS && periods_s[f->period + 1] * 10 <= span_s)
		f->period++;
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
	view->pos.period_ns = periods_s[f->period] * NS_PER_S;
	snprintf(view->note, sizeof(view->note), "%s", f->note);
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

/* NAV_GOTO: the window's first mark of that label, start or end, a time, +SECONDS. The
 * time into *t; false (f->note says why) when the text names none. */
static bool goto_time(struct replay_feed *f, const char *text, int64_t *t)
{
	const struct replay_cursor *c = &f->cur;
	for (size_t i = 0; i < f->n_marks; i++)
		if (!strcmp(f->marks[i]->label, text)) {
			*t = f->marks[i]->realtime_ns;
			return true;
		}
	if (!strcmp(text, "start") || !strcmp(text, "end")) {
		*t = text[0] == 's' ? c->times[0] : c->times[c->count - 1];
		return true;
	}
	char *end;
	double secs = text[0] == '+' ? strtod(text + 1, &end) : -1;
	if (secs >= 0 && secs < 1e9 && end != text + 1 && !*end) {
		*t = c->times[0] + (int64_t)(secs * 1e9);
		return true;
	}
	if (!when_parse(text, clock_real_ns(), t)) {
		char shown[64];
		if (*t < c->times[0] || *t > c->times[c->count - 1])
			snprintf(f->note, sizeof(f->note), "%s is outside the replay: at its %s",
			         when_text(*t, shown, sizeof(shown)) ? text : shown,
			         *t < c->times[0] ? "start" : "end");
		return true;
	}
	snprintf(f->note, sizeof(f->note),
	         "'%.60s' is neither a mark of the replay, start, end, +SECONDS nor a time (%s)",
	         text, WHEN_FORMS);
	return false;
}

/* The moves that need only the time (NAV_HERE stays, NAV_TICK plays, a step has its
 * direction, a period its own): the new position is unused here. */
static void move(struct replay_feed *f, enum seek_move nav, const char *text, int64_t now_ns)
{
	struct replay_cursor *c = &f->cur;
	int64_t t;
	if (nav == NAV_TICK)
		replay_tick(c, now_ns);
	else if (nav == NAV_STEP_BACK || nav == NAV_STEP_AHEAD)
		replay_step(c, nav == NAV_STEP_AHEAD ? +1 : -1, now_ns);
	else if (nav == NAV_PERIOD_BACK || nav == NAV_PERIOD_AHEAD)
		replay_step_time(
		    c, (nav == NAV_PERIOD_AHEAD ? 1 : -1) * periods_s[f->period] * NS_PER_S,
		    now_ns);
	else if (nav == NAV_PERIOD_SHORTER && f->period > 0)
		f->period--;
	else if (nav == NAV_PERIOD_LONGER && f->period + 1 < N_PERIODS)
		f->period++;
	else if (nav == NAV_GOTO && text && goto_time(f, text, &t))
		replay_goto(c, t, now_ns);
	else if ((size_t)nav < sizeof(moves) / sizeof(moves[0]) && moves[nav])
		moves[nav](c, now_ns);
}

int replay_feed_navigate(void *ctx, enum seek_move nav, const char *text, int64_t now_ns,
                         struct xio_sample *prev, struct xio_sample *cur, struct seek_view *view)
{
	struct replay_feed *f = ctx;
	struct replay_cursor *c = &f->cur;
	size_t was = c->pos;
	f->note[0] = '\0';
	move(f, nav, text, now_ns);
	describe(f, now_ns, view);
	f->err.msg[0] = '\0';
	if (nav != NAV_HERE && c->pos == was)
		return 0;
	if (rec_span_read(f->r, f->first + c->pos - 1, prev, &f->err))
		return -1;
	if (rec_span_read(f->r, f->first + c->pos, cur, &f->err)) {
		sample_free(prev);
		return -1;
	}
	return 1;
}
