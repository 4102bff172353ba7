/* clock.h - the two clocks every layer reads: monotonic for intervals and deadlines,
 * wall clock (realtime) for what is shown and recorded. Both in ns. */
#ifndef XIOTOP_CLOCK_H
#define XIOTOP_CLOCK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nanoseconds in a second and a millisecond: every conversion of the ns the samples hold
 * to the seconds and milliseconds shown says which it is. */
#define NS_PER_S  1000000000LL
#define NS_PER_MS 1000000LL

int64_t clock_mono_ns(void);
int64_t clock_real_ns(void);
/* Sleeps ns (<= 0: not at all), resuming after signals unless *stop becomes non-zero
 * (stop may be NULL). */
void clock_sleep_ns(int64_t ns, const volatile sig_atomic_t *stop);
/* A wall-clock time as ISO 8601 in UTC: "2026-05-01T12:00:00Z", with millis
 * "2026-05-01T12:00:00.123Z". The one formatter of the JSON, CSV and text outputs and the
 * recording's messages. 0, or -1 when the time has no calendar date or buf is too short. */
int clock_iso8601(int64_t realtime_ns, bool millis, char *buf, size_t len);

#endif
