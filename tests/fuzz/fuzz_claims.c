/* fuzz_claims.c - libFuzzer harness for the benchmark-output parsers (explain/claims/claim*.c:
 * dd with several runs and `time`, bonnie++ CSV, classic bonnie's table, iozone's table
 * and -R report, fio JSON and text): any bytes either parse into figures or give one error
 * line, which must hold no control or bidi byte taken from the input; the same for picking
 * a table row of what parsed. A truncated input (its first half) that parses gives only
 * runs the whole input gave, figure for figure: a cut is never taken as other figures. */
#include "explain/claims/claim.h"
#include "fuzz/fuzz_util.h"

#include <math.h>

static struct claim whole, part; /* large: not on the stack */

static bool same_figures(const struct claim_run *a, const struct claim_run *w)
{
	/* a `time` real line not yet there leaves dd's own seconds and rate */
	bool time_missing = w->seconds_from_time && !a->seconds_from_time;
	/* iozone labels a run with its row only when several rows are there */
	size_t al = strlen(a->label), wl = strlen(w->label);
	return al <= wl && !strcmp(w->label + wl - al, a->label) && !strcmp(a->row, w->row) &&
	       a->direction == w->direction && a->bytes == w->bytes &&
	       a->file_bytes == w->file_bytes &&
	       (time_missing ||
	        (a->seconds == w->seconds && a->rate_bytes_per_s == w->rate_bytes_per_s));
}

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_claims: %s\n", what);
	abort();
}

static void check_run(const struct claim_run *r)
{
	if (r->direction > CLAIM_DIR_WRITE ||
	    !(r->seconds == -1 || (isfinite(r->seconds) && r->seconds >= 0)) ||
	    !(r->rate_bytes_per_s == -1 ||
	      (isfinite(r->rate_bytes_per_s) && r->rate_bytes_per_s >= 0))) {
		fprintf(stderr, "run \"%s\": dir %u, %.17g s, %.17g B/s\n", r->label, r->direction,
		        r->seconds, r->rate_bytes_per_s);
		fail("a run's direction, seconds or rate out of range");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	if (claim_parse_buffer("fuzz\x1b[31m", (const char *)data, size, &whole, err,
	                       sizeof(err))) {
		fuzz_check_output("claim error", err, strlen(err), false);
		if (whole.nruns || whole.bytes) /* *out zeroed: nothing partial kept */
			fail("an error left a partial claim");
		return 0;
	}
	for (unsigned i = 0; i < whole.nruns; i++)
		check_run(&whole.runs[i]);
	/* its first half: an error, or runs of the whole (all of them: none dropped) */
	if (!claim_parse_buffer("half", (const char *)data, size / 2, &part, err, sizeof(err)) &&
	    part.tool == whole.tool && !whole.runs_dropped &&
	    /* iozone prints its figures twice, in the table and in the -R report; which one
	     * was read may differ (a glued table row falls back to the report), and a
	     * mutated input's two copies need not agree */
	    (part.tool != CLAIM_TOOL_IOZONE ||
	     part.u.iozone.from_report == whole.u.iozone.from_report)) {
		for (unsigned i = 0; i < part.nruns; i++) {
			bool found = false;
			for (unsigned j = 0; j < whole.nruns && !found; j++)
				found = same_figures(&part.runs[i], &whole.runs[j]);
			if (!found)
				fail("the input's first half gave a run the whole did not");
		}
	}
	/* a table's rows: no pick (one row, or the list of rows), then the last run's row */
	if (claim_pick_row(&whole, "fuzz\x1b[31m", NULL, err, sizeof(err)))
		fuzz_check_output("claim row error", err, strlen(err), false);
	if (whole.nruns &&
	    claim_pick_row(&whole, "fuzz", whole.runs[whole.nruns - 1].row, err, sizeof(err)))
		fuzz_check_output("claim row error", err, strlen(err), false);
	return 0;
}
