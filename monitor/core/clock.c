/* clock.c - see clock.h. */
#include "core/clock.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

static int64_t read_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int64_t clock_mono_ns(void)
{
	return read_ns(CLOCK_MONOTONIC);
}

int64_t clock_real_ns(void)
{
	return read_ns(CLOCK_REALTIME);
}

void clock_sleep_ns(int64_t ns, const volatile sig_atomic_t *stop)
{
	if (ns <= 0)
		return;
	struct timespec ts = {.tv_sec = ns / NS_PER_S, .tv_nsec = ns % NS_PER_S};
	while (nanosleep(&ts, &ts) && errno == EINTR && !(stop && *stop))
		;
}

int clock_iso8601(int64_t realtime_ns, bool millis, char *buf, size_t len)
{
	time_t sec = (time_t)(realtime_ns / NS_PER_S);
	struct tm tm;
	size_t n = gmtime_r(&sec, &tm) ? strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm) : 0;
	if (!n)
		return -1;
	int more = millis
	               ? snprintf(buf + n, len - n, ".%03dZ", (int)(realtime_ns / 1000000 % 1000))
	               : snprintf(buf + n, len - n, "Z");
	return more > 0 && (size_t)more < len - n ? 0 : -1;
}
