/* test_when.c - times as people give them (core/when.h), in the zones they give them:
 * ISO 8601 with a zone, local times in two zones (one with DST), the clock of today or
 * yesterday, "N UNIT ago", and what is not a time; and every time shown with its zone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "core/when.h"

#define S 1000000000LL
/* 2026-05-01T12:00:00Z */
#define NOON_UTC (1777636800LL * S)

static void zone(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static int64_t parsed(const char *text, int64_t now)
{
	int64_t ns = 0;
	if (when_parse(text, now, &ns))
		fail_msg("'%s' not taken", text);
	return ns;
}

static void test_iso_with_zone(void **state)
{
	(void)state;
	zone("America/New_York"); /* the local zone must not matter */
	assert_int_equal(parsed("2026-05-01T12:00:00Z", 0), NOON_UTC);
	assert_int_equal(parsed("2026-05-01 12:00:00Z", 0), NOON_UTC);
	assert_int_equal(parsed("2026-05-01T14:00:00+02:00", 0), NOON_UTC);
	assert_int_equal(parsed("2026-05-01T14:00+0200", 0), NOON_UTC);
	assert_int_equal(parsed("2026-05-01T07:30:00-04:30", 0), NOON_UTC);
	assert_int_equal(parsed("2026-05-01T12:00:00.250Z", 0), NOON_UTC + S / 4);
}

static void test_local(void **state)
{
	(void)state;
	zone("Europe/Berlin"); /* CEST in May: UTC+2 */
	assert_int_equal(parsed("2026-05-01 14:00", 0), NOON_UTC);
	assert_int_equal(parsed("2026-05-01T14:00:00", 0), NOON_UTC);
	assert_int_equal(parsed("2026-05-01", 0), NOON_UTC - 14 * 3600 * S);
	zone("UTC");
	assert_int_equal(parsed("2026-05-01 12:00:00", 0), NOON_UTC);
	/* a winter date in Berlin: UTC+1 */
	zone("Europe/Berlin");
	assert_int_equal(parsed("2026-01-15 13:00", 0), 1768478400LL * S);
}

static void test_relative(void **state)
{
	(void)state;
	zone("Europe/Berlin");
	int64_t now = NOON_UTC + 17 * S; /* 14:00:17 local */
	assert_int_equal(parsed("1h ago", now), now - 3600 * S);
	assert_int_equal(parsed("90s ago", now), now - 90 * S);
	assert_int_equal(parsed("5 min ago", now), now - 300 * S);
	assert_int_equal(parsed("2 days ago", now), now - 2 * 86400 * S);
	assert_int_equal(parsed("now", now), now);
	assert_int_equal(parsed("14:00", now), NOON_UTC);
	assert_int_equal(parsed("today 13:30:05", now), NOON_UTC - 1795 * S);
	assert_int_equal(parsed("yesterday 14:00", now), NOON_UTC - 86400 * S);
}

static void test_not_times(void **state)
{
	(void)state;
	const char *bad[] = {
	    "",      "bench start", "2026-13-01 10:00",          "2026-05-01x", "1 fortnight ago",
	    "25:00", "yesterday",   "2026-05-01T12:00:00+25:00", "h ago"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int64_t ns;
		if (when_parse(bad[i], NOON_UTC, &ns) != -1)
			fail_msg("'%s' taken as a time", bad[i]);
	}
	int64_t ns;
	assert_int_equal(when_parse("9999-01-01T00:00:00Z", 0, &ns), -2);
}

static void test_shown_with_zone(void **state)
{
	(void)state;
	char buf[64];
	zone("Europe/Berlin");
	assert_int_equal(when_text(NOON_UTC, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2026-05-01 14:00:00 CEST");
	assert_int_equal(when_clock_text(NOON_UTC, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "14:00:00 CEST");
	zone("UTC");
	assert_int_equal(when_text(NOON_UTC, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2026-05-01 12:00:00 UTC");
	/* a time before the epoch, and one not on a second */
	assert_int_equal(when_text(-S / 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1969-12-31 23:59:59 UTC");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_iso_with_zone),   cmocka_unit_test(test_local),
	    cmocka_unit_test(test_relative),        cmocka_unit_test(test_not_times),
	    cmocka_unit_test(test_shown_with_zone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
