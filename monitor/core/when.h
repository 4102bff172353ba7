/* when.h - wall-clock times as people give and read them, one way for every command.
 *
 * Contract: when_text() writes a time as people read it, always with its zone: the local
 * time and the zone's abbreviation ("2026-05-01 14:00:03 CEST"; "UTC" where local time is
 * UTC), as the console, explain's prose and the recorder's messages show times; machine
 * outputs (JSON, CSV, batch text) use clock_iso8601() (UTC, "Z"). when_parse() reads a
 * time as people give it (--from, --to, import --start, the console's g key), the same in
 * every command:
 *   - ISO 8601 with a zone: 2026-05-01T12:00:00Z, 2026-05-01T14:00:00+02:00 (or +0200),
 *     a fraction of a second allowed, 'T' or a space between date and time;
 *   - a local time without a zone: 2026-05-01 14:00[:SS], 2026-05-01T14:00, 2026-05-01
 *     (midnight), 14:00[:SS] (today), "today 14:00", "yesterday 14:00";
 *   - a time before now: "1h ago", "90s ago", "5 min ago", "2 days ago" (s, sec, m, min,
 *     h, hour(s), d, day(s), w, week(s)), "now".
 * A local time that a DST change makes twice or never is taken as mktime() takes it.
 * Pure but for the local zone (TZ) and, for relative times, the now it is handed.
 */
#ifndef XIOTOP_WHEN_H
#define XIOTOP_WHEN_H

#include <stddef.h>
#include <stdint.h>

/* The forms when_parse() takes, for messages that list them. */
#define WHEN_FORMS                                                                                 \
	"2026-05-01T12:00:00Z, 2026-05-01T14:00+02:00, 2026-05-01 14:00 (local), 14:00, "          \
	"yesterday 14:00, 1h ago"

/* 0, or -1 when buf is too short or the time has no calendar date. */
int when_text(int64_t realtime_ns, char *buf, size_t len);
/* Just the clock and zone, for times of the same day: "14:00:03 CEST". */
int when_clock_text(int64_t realtime_ns, char *buf, size_t len);
/* 0 with *ns; -1 text is not a time; -2 a time outside what int64 ns hold. */
int when_parse(const char *text, int64_t now_ns, int64_t *ns);

#endif
