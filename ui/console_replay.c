/* console_replay.c - the console over a seekable feed (a recording); see console.h.
 *
 * The loop takes no sample of its own. Each replay key, and while playing each tick that
 * falls due, is a move the feed makes (the replay cursor decides where it lands); the
 * feed hands back the two samples of the interval to show, and the loop computes that
 * interval and the one since the replay's first sample (for CPU_s) and shows them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/clock.h"
#include "ui/console_loop.h"

#define IDLE_WAIT_MS 500 /* not playing: wake this often to notice the stop flag */

/* Shows the interval (prev, cur] and frees both samples. */
static void show_pair(struct console_run *r, struct xio_sample *prev, struct xio_sample *cur,
                      const struct seek_view *v)
{
	struct model_interval m, since;
	int rc = model_compute(prev, cur, &m);
	bool have_since = !rc && v->origin && model_compute(v->origin, cur, &since) == 0;
	sample_free(prev);
	sample_free(cur);
	if (rc) {
		snprintf(r->st.status, sizeof(r->st.status), "out of memory: interval not shown");
		return;
	}
	console_show(r, &m, have_since ? &since : NULL);
	if (have_since)
		model_free(&since);
}

/* One move of the feed, shown; the feed's note (a goto that found nothing) in the status
 * line. 0, or -1 (r->error says why). */
static int feed_move(struct console_run *r, enum seek_move nav, struct seek_view *v)
{
	struct xio_sample prev, cur;
	const char *text = nav == NAV_GOTO ? r->st.go_to : NULL;
	int rc =
	    r->feed->navigate(r->feed->navigate_ctx, nav, text, clock_mono_ns(), &prev, &cur, v);
	if (rc > 0)
		show_pair(r, &prev, &cur, v);
	if (rc < 0) {
		r->error = "cannot read the recording";
		return -1;
	}
	console_state_set_replay(&r->st, &v->pos);
	if (v->note[0])
		snprintf(r->st.status, sizeof(r->st.status), "%s", v->note);
	return 0;
}

/* Monotonic ns at which the next tick is due; 0: not playing. */
static int64_t due_of(const struct seek_view *v)
{
	if (v->wait_ns < 0)
		return 0;
	int64_t due = clock_mono_ns() + v->wait_ns;
	return due ? due : 1;
}

int console_replay_loop(struct console_run *r)
{
	struct seek_view v;
	if (feed_move(r, NAV_HERE, &v))
		return 1;
	int64_t due = due_of(&v);
	bool dirty = true;
	while (!(r->o->stop && *r->o->stop)) {
		int64_t now = clock_mono_ns();
		if (due && now >= due) {
			if (feed_move(r, NAV_TICK, &v))
				return 1;
			due = due_of(&v);
			dirty = true;
		}
		if (dirty && console_draw(r)) {
			r->error = "out of memory";
			return 1;
		}
		dirty = false;
		now = clock_mono_ns();
		int64_t wait_ms = IDLE_WAIT_MS;
		if (due)
			wait_ms = due > now ? (due - now + 999999) / 1000000 : 0;
		enum console_action act =
		    console_key(r, wait_ms < IDLE_WAIT_MS ? wait_ms : IDLE_WAIT_MS, &dirty);
		if (act == CA_QUIT)
			return 0;
		if (act == CA_NAVIGATE) {
			if (feed_move(r, r->st.nav, &v))
				return 1;
			due = due_of(&v);
		}
	}
	return 0;
}
