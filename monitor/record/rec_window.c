/* rec_window.c - `--from X --to Y` -> a range of samples of a recording or a span of
 * them; see record.h and rec_span.h.
 *
 * A mark or time falls inside some interval (s-1, s]. Both ends of a window include that
 * interval, so the window between two marks holds everything that happened between
 * them (and at most one interval more on each side).
 */
#include "record/rec_internal.h"

#include "core/clock.h"
#include "core/when.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What a time outside int64 nanoseconds since 1970 is told: recordings cannot hold it. */
#define REC_TIME_RANGE "1677-09-21T00:12:44Z to 2262-04-11T23:47:16Z"

/* "+SECONDS" from the first sample (first_ns). 0, -1 if s is not one, -2 if the time it
 * names is outside the representable range (+1e300, or any offset from a first sample at
 * INT64_MAX). */
static int parse_offset(int64_t first_ns, const char *s, int64_t *out)
{
	if (s[0] != '+' || !((s[1] >= '0' && s[1] <= '9') || s[1] == '.'))
		return -1; /* also "+nan", "+inf", "+-1" */
	char *end;
	double secs = strtod(s + 1, &end);
	if (end == s + 1 || *end || !(secs >= 0))
		return -1;
	double ns = secs * 1e9;
	int64_t offset_ns;
	/* 0x1p63 is exact; an int64 holds every double below it */
	if (!isfinite(ns) || ns >= 0x1p63)
		return -2;
	offset_ns = (int64_t)ns;
	if (__builtin_add_overflow(first_ns, offset_ns, out))
		return -2;
	return 0;
}

/* The time of spec: a mark label (the first one at or after not_before), a time as
 * people give it (core/when.h) or an offset. 0, or -1 with err set. */
static int spec_time(const struct rec_times_marks *tm, const char *spec, int64_t not_before,
                     int64_t *out, struct xerr *err)
{
	const struct rec_mark *found = NULL;
	for (size_t i = 0; i < tm->n_marks; i++) {
		if (strcmp(tm->marks[i].label, spec))
			continue;
		if (!found ||
		    (found->realtime_ns < not_before && tm->marks[i].realtime_ns >= not_before))
			found = &tm->marks[i];
	}
	if (found) {
		*out = found->realtime_ns;
		return 0;
	}
	int when = when_parse(spec, clock_real_ns(), out);
	int offset = when == -1 ? parse_offset(tm->times[0], spec, out) : -1;
	if (!when || !offset)
		return 0;
	if (when == -2 || offset == -2) {
		rec_set_error(err, REC_ERR_RANGE,
		              "'%s' is outside the times a recording can hold (" REC_TIME_RANGE ")",
		              spec);
		return -1;
	}
	char labels[256] = "";
	size_t used = 0;
	for (size_t i = 0; i < tm->n_marks && used + 1 < sizeof(labels); i++) {
		int n = snprintf(labels + used, sizeof(labels) - used, "%s\"%s\"", i ? ", " : "",
		                 tm->marks[i].label);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	rec_set_error(err, REC_ERR_RANGE,
	              "'%s' is neither a mark (marks: %s) nor a time (" WHEN_FORMS
	              ", or +SECONDS from the start)",
	              spec, labels[0] ? labels : "none");
	return -1;
}

/* A sample time as the message shows it: local, with its zone, whatever its value. */
static void time_text(int64_t realtime_ns, char *buf, size_t len)
{
	if (when_text(realtime_ns, buf, len))
		snprintf(buf, len, "%lld ns", (long long)realtime_ns);
}

/* The first sample at or after t (n if none), the last at or before it (SIZE_MAX if
 * none). Linear, not binary: a wall clock set back during a recording makes times
 * unsorted, and the answer must still be the first/last such sample. */
static size_t at_or_after(const int64_t *times, size_t n, int64_t t)
{
	size_t i = 0;
	while (i < n && times[i] < t)
		i++;
	return i;
}

static size_t at_or_before(const int64_t *times, size_t n, int64_t t)
{
	size_t i = n;
	while (i > 0 && times[i - 1] > t)
		i--;
	return i ? i - 1 : SIZE_MAX;
}

int rec_window_of(const struct rec_times_marks *tm, const char *from, const char *to, size_t *first,
                  size_t *last, struct xerr *err)
{
	size_t n = tm->count;
	if (n < 2) {
		rec_set_error(err, REC_ERR_RANGE,
		              "%zu sample%s recorded: no complete interval (an interval needs two "
		              "samples)",
		              n, n == 1 ? "" : "s");
		return -1;
	}
	int64_t t_from = tm->times[0], t_to = tm->times[n - 1];
	*first = 0;
	*last = n - 1;
	if (from) {
		if (spec_time(tm, from, INT64_MIN, &t_from, err))
			return -1;
		size_t i = at_or_before(tm->times, n, t_from);
		*first = i == SIZE_MAX ? 0 : i;
	}
	if (to) {
		if (spec_time(tm, to, t_from, &t_to, err))
			return -1;
		size_t i = at_or_after(tm->times, n, t_to);
		*last = i >= n ? n - 1 : i;
	}
	if (*first >= *last) {
		char start[64], end[64];
		time_text(tm->times[0], start, sizeof(start));
		time_text(tm->times[n - 1], end, sizeof(end));
		rec_set_error(err, REC_ERR_RANGE,
		              "the window from %s to %s holds no complete interval of the "
		              "recording (it runs from %s to %s)",
		              from ? from : "the start", to ? to : "the end", start, end);
		return -1;
	}
	return 0;
}

int rec_resolve_window(const struct rec_reader *r, const char *from, const char *to, size_t *first,
                       size_t *last, struct xerr *err)
{
	struct rec_times_marks tm = {rec_times(r), rec_count(r), rec_marks(r), rec_n_marks(r)};
	return rec_window_of(&tm, from, to, first, last, err);
}
