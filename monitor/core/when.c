/* when.c - times as people give and read them; see when.h. */
#include "core/when.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/clock.h"

static int format(int64_t realtime_ns, const char *fmt, char *buf, size_t len)
{
	time_t sec = (time_t)(realtime_ns / NS_PER_S - (realtime_ns % NS_PER_S < 0));
	struct tm tm;
	return localtime_r(&sec, &tm) && strftime(buf, len, fmt, &tm) ? 0 : -1;
}

int when_text(int64_t realtime_ns, char *buf, size_t len)
{
	return format(realtime_ns, "%Y-%m-%d %H:%M:%S %Z", buf, len);
}

int when_clock_text(int64_t realtime_ns, char *buf, size_t len)
{
	return format(realtime_ns, "%H:%M:%S %Z", buf, len);
}

/* Seconds since the epoch into ns, with frac_ns; -2 out of range. */
static int to_ns(int64_t secs, int64_t frac_ns, int64_t *ns)
{
	int64_t t;
	if (__builtin_mul_overflow(secs, NS_PER_S, &t) || __builtin_add_overflow(t, frac_ns, ns))
		return -2;
	return 0;
}

/* "[.fraction]" at *p, moved past it; its ns. */
static int64_t fraction(const char **p)
{
	int64_t ns = 0, scale = 100000000;
	if (**p != '.' && **p != ',')
		return 0;
	for ((*p)++; isdigit((unsigned char)**p); (*p)++) {
		ns += (**p - '0') * scale;
		scale /= 10;
	}
	return ns;
}

/* A zone at p: "Z", "+HH:MM", "+HHMM", "+HH", "-..." into *offset_s (east positive). */
static bool zone(const char *p, long *offset_s)
{
	if ((*p == 'Z' || *p == 'z') && !p[1]) {
		*offset_s = 0;
		return true;
	}
	int hh, mm = 0, n = 0;
	if ((*p != '+' && *p != '-') ||
	    !(sscanf(p + 1, "%2d:%2d%n", &hh, &mm, &n) == 2 ||
	      sscanf(p + 1, "%2d%2d%n", &hh, &mm, &n) == 2 ||
	      sscanf(p + 1, "%2d%n", &hh, &n) == 1) ||
	    p[1 + n] || hh > 23 || mm > 59 || n < 2)
		return false;
	*offset_s = (*p == '-' ? -1 : 1) * (hh * 3600L + mm * 60L);
	return true;
}

/* A local date's midnight (days from today: 0, -1) with HH:MM[:SS] at p. */
static int clock_of_day(const char *p, int64_t now_ns, int days, int64_t *ns)
{
	int hh, mm, ss = 0, n = 0;
	if (!(sscanf(p, "%2d:%2d:%2d%n", &hh, &mm, &ss, &n) == 3 ||
	      sscanf(p, "%2d:%2d%n", &hh, &mm, &n) == 2) ||
	    p[n] || hh > 23 || mm > 59 || ss > 60)
		return -1;
	time_t now = (time_t)(now_ns / NS_PER_S);
	struct tm tm;
	if (!localtime_r(&now, &tm))
		return -1;
	tm.tm_mday += days;
	tm.tm_hour = hh, tm.tm_min = mm, tm.tm_sec = ss;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	return t == (time_t)-1 ? -1 : to_ns((int64_t)t, 0, ns);
}

/* "N UNIT ago". */
static int ago(const char *p, int64_t now_ns, int64_t *ns)
{
	static const struct {
		const char *unit;
		int64_t secs;
	} units[] = {{"s", 1},        {"sec", 1},       {"secs", 1},      {"second", 1},
	             {"seconds", 1},  {"m", 60},        {"min", 60},      {"mins", 60},
	             {"minute", 60},  {"minutes", 60},  {"h", 3600},      {"hour", 3600},
	             {"hours", 3600}, {"d", 86400},     {"day", 86400},   {"days", 86400},
	             {"w", 604800},   {"week", 604800}, {"weeks", 604800}};
	char *end;
	double n = strtod(p, &end);
	if (end == p || !(n >= 0) || n > 1e9)
		return -1;
	while (*end == ' ')
		end++;
	size_t ulen = strcspn(end, " ");
	const char *rest = end + ulen;
	while (*rest == ' ')
		rest++;
	if (strcmp(rest, "ago"))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (strlen(units[i].unit) == ulen && !strncasecmp(end, units[i].unit, ulen)) {
			int64_t back = (int64_t)(n * (double)units[i].secs * 1e9);
			return __builtin_sub_overflow(now_ns, back, ns) ? -2 : 0;
		}
	return -1;
}

/* A date and maybe a time and a zone: ISO 8601 with a zone, else local time. */
static int date_time(const char *text, int64_t *ns)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	int n = 0;
	if (sscanf(text, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &n) != 3 ||
	    n != 10 || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31)
		return -1;
	const char *p = text + n;
	int64_t frac = 0;
	if (*p == 'T' || *p == 't' || *p == ' ') {
		int k = 0;
		if (!(sscanf(p + 1, "%2d:%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &k) ==
		          3 ||
		      sscanf(p + 1, "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &k) == 2) ||
		    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
			return -1;
		p += 1 + k;
		frac = fraction(&p);
		while (*p == ' ')
			p++;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	long offset;
	if (*p && zone(p, &offset))
		return to_ns((int64_t)timegm(&tm) - offset, frac, ns);
	if (*p)
		return -1;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	return t == (time_t)-1 ? -1 : to_ns((int64_t)t, frac, ns);
}

int when_parse(const char *text, int64_t now_ns, int64_t *ns)
{
	while (*text == ' ')
		text++;
	if (!strcasecmp(text, "now")) {
		*ns = now_ns;
		return 0;
	}
	if (!strncasecmp(text, "today ", 6))
		return clock_of_day(text + 6, now_ns, 0, ns);
	if (!strncasecmp(text, "yesterday ", 10))
		return clock_of_day(text + 10, now_ns, -1, ns);
	if (isdigit((unsigned char)text[0]) && strstr(text, "ago"))
		return ago(text, now_ns, ns);
	if (strlen(text) <= 8 && strchr(text, ':'))
		return clock_of_day(text, now_ns, 0, ns);
	return date_time(text, ns);
}
