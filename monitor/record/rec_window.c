/* rec_window.c - `--from X --to Y` -> a range of samples of a recording; see record.h.
 *
 * A mark or time falls inside some interval (s-1, s]. Both ends of a window include that
 * interval, so the window between two marks holds everything that happened between
 * them (and at most one interval more on each side).
 */
#include "record/rec_internal.h"

#include "core/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What a time outside int64 nanoseconds since 1970 is told: recordings cannot hold it. */
#define REC_TIME_RANGE "1677-09-21T00:12:44Z to 2262-04-11T23:47:16Z"

/* "2024-05-01T12:00:00[.fraction][Z]" (or a space for the T), UTC. 0, -1 if s is not
 * such a time, -2 if it is one outside the representable range. */
static int parse_iso_utc(const char *s, int64_t *out)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	char sep;
	int used = 0;
	if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &sep,
	           &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &used) != 7 ||
	    (sep != 'T' && sep != ' '))
		return -1;
	const char *p = s + used;
	int64_t frac_ns = 0;
	if (*p == '.') {
		int64_t scale = 100000000;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			frac_ns += (*p - '0') * scale;
			scale /= 10;
		}
	}
	if (*p == 'Z')
		p++;
	if (*p || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	int64_t secs = (int64_t)timegm(&tm), ns;
	if (__builtin_mul_overflow(secs, (int64_t)1000000000, &ns) ||
	    __builtin_add_overflow(ns, frac_ns, out))
		return -2;
	return 0;
}

/* "+SECONDS" from the first sample. 0, -1 if s is not one, -2 if the time it names is
 * outside the representable range (+1e300, or any offset from a first sample at
 * INT64_MAX). */
static int parse_offset(const struct rec_reader *r, const char *s, int64_t *out)
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
	if (__builtin_add_overflow(rec_time(r, 0), offset_ns, out))
		return -2;
	return 0;
}

/* The time of spec: a mark label (the first one at or after not_before), a time or an
 * offset. 0, or -1 with err set. */
static int spec_time(const struct rec_reader *r, const char *spec, int64_t not_before, int64_t *out,
                     struct xerr *err)
{
	const struct rec_mark *marks = rec_marks(r);
	const struct rec_mark *found = NULL;
	for (size_t i = 0; i < rec_n_marks(r); i++) {
		if (strcmp(marks[i].label, spec))
			continue;
		if (!found ||
		    (found->realtime_ns < not_before && marks[i].realtime_ns >= not_before))
			found = &marks[i];
	}
	if (found) {
		*out = found->realtime_ns;
		return 0;
	}
	int iso = parse_iso_utc(spec, out), offset = iso == -1 ? parse_offset(r, spec, out) : -1;
	if (!iso || !offset)
		return 0;
	if (iso == -2 || offset == -2) {
		rec_set_error(err, REC_ERR_RANGE,
		              "'%s' is outside the times a recording can hold (" REC_TIME_RANGE ")",
		              spec);
		return -1;
	}
	char labels[256] = "";
	size_t used = 0;
	for (size_t i = 0; i < rec_n_marks(r) && used + 1 < sizeof(labels); i++) {
		int n = snprintf(labels + used, sizeof(labels) - used, "%s\"%s\"", i ? ", " : "",
		                 marks[i].label);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	rec_set_error(err, REC_ERR_RANGE,
	              "'%s' is neither a mark (marks: %s) nor a time (2024-05-01T12:00:00Z or "
	              "+SECONDS from the start)",
	              spec, labels[0] ? labels : "none");
	return -1;
}

/* A sample time as the message shows it: UTC to the second, whatever its value. */
static void iso_text(int64_t realtime_ns, char *buf, size_t len)
{
	if (clock_iso8601(realtime_ns, false, buf, len))
		snprintf(buf, len, "%lld ns", (long long)realtime_ns);
}

int rec_resolve_window(const struct rec_reader *r, const char *from, const char *to, size_t *first,
                       size_t *last, struct xerr *err)
{
	size_t n = rec_count(r);
	if (n < 2) {
		rec_set_error(err, REC_ERR_RANGE,
		              "%zu sample%s recorded: no complete interval (an interval needs two "
		              "samples)",
		              n, n == 1 ? "" : "s");
		return -1;
	}
	int64_t t_from = rec_time(r, 0), t_to = rec_time(r, n - 1);
	*first = 0;
	*last = n - 1;
	if (from) {
		if (spec_time(r, from, INT64_MIN, &t_from, err))
			return -1;
		size_t i = rec_find_at_or_before(r, t_from);
		*first = i == SIZE_MAX ? 0 : i;
	}
	if (to) {
		if (spec_time(r, to, t_from, &t_to, err))
			return -1;
		size_t i = rec_find_at_or_after(r, t_to);
		*last = i >= n ? n - 1 : i;
	}
	if (*first >= *last) {
		char start[32], end[32];
		iso_text(rec_time(r, 0), start, sizeof(start));
		iso_text(rec_time(r, n - 1), end, sizeof(end));
		rec_set_error(err, REC_ERR_RANGE,
		              "the window from %s to %s holds no complete interval of the "
		              "recording (it runs from %s to %s)",
		              from ? from : "the start", to ? to : "the end", start, end);
		return -1;
	}
	return 0;
}
