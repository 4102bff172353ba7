/* replay_feed.h - a recording as a seekable console feed: the replay cursor (replay.h) over
 * a window of a recording, handing the console the two samples of the interval it stands
 * on.
 *
 * Contract: replay_feed_open() takes the window [first, last] of samples (from
 * rec_resolve_window()), reads its first sample once (CPU_s in the console counts from
 * it) and stands paused on the window's first interval at the given speed (0: x1).
 * replay_feed_navigate() fits struct console_feed's navigate (ctx: the feed): every move
 * goes through the cursor, which alone decides where it lands. Positions are relative to
 * the window: the interval ending at its sample i, of samples 0..n. The window's marks
 * (those whose interval lies in it) are what [ and ] jump to, and the nearest one is
 * named in the view. The reader stays the caller's and must outlive the feed. Nothing
 * here reads a clock or touches a terminal: the console passes the time in.
 */
#ifndef XIOTOP_REPLAY_FEED_H
#define XIOTOP_REPLAY_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "core/source.h"
#include "record/record.h"

struct replay_feed;

/* NULL on failure (err says why: the first sample could not be read, out of memory). */
struct replay_feed *replay_feed_open(struct rec_reader *r, size_t first, size_t last, double speed,
                                     struct xerr *err);
int replay_feed_navigate(void *ctx, enum seek_move nav, int64_t now_ns, struct xio_sample *prev,
                         struct xio_sample *cur, struct seek_view *view);
/* Why the last navigate failed (a sentence naming the file); "" if it did not. */
const char *replay_feed_error(const struct replay_feed *f);
void replay_feed_close(struct replay_feed *f);

#endif
