/* replay_feed.h - a recording (one file, or a --dir span: rec_span.h) as a seekable
 * console feed: the replay cursor (replay.h) over a window of it, handing the console the
 * two samples of the interval it stands on.
 *
 * Contract: replay_feed_open() takes the window [first, last] of samples (from
 * rec_span_window()), reads its first sample once (CPU_s in the console counts from it)
 * and stands paused on the window's first interval at the given speed (0: x1).
 * replay_feed_navigate() fits struct console_feed's navigate (ctx: the feed): every move
 * goes through the cursor, which alone decides where it lands. Positions are relative to
 * the window: the interval ending at its sample i, of samples 0..n. The window's marks
 * (those whose interval lies in it) are what the mark moves go to, and the nearest one
 * is named in the view. The step period (NAV_PERIOD_*) is one of 1 min, 10 min, 1 h, 6 h
 * and 1 d, at first the longest that is at most a tenth of the window (1 min at least).
 * NAV_GOTO's text is a mark's label in the window (the first of that label), "start" or
 * "end", a time as people give it (core/when.h; "1h ago" from the wall clock's now) or
 * +SECONDS from the window's start; the interval holding that time is shown, one outside
 * the window said in the view's note (as is text that is none of these). The span stays
 * the caller's and must outlive the feed. Nothing here touches a terminal; the console
 * passes the monotonic time in.
 */
#ifndef XIOTOP_REPLAY_FEED_H
#define XIOTOP_REPLAY_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "core/source.h"
#include "record/rec_span.h"

struct replay_feed;

/* NULL on failure (err says why: the first sample could not be read, out of memory). */
struct replay_feed *replay_feed_open(struct rec_span *s, size_t first, size_t last, double speed,
                                     struct xerr *err);
int replay_feed_navigate(void *ctx, enum seek_move nav, const char *text, int64_t now_ns,
                         struct xio_sample *prev, struct xio_sample *cur, struct seek_view *view);
/* Why the last navigate failed (a sentence naming the file); "" if it did not. */
const char *replay_feed_error(const struct replay_feed *f);
void replay_feed_close(struct replay_feed *f);

#endif
