/* fuzz_claims.c - libFuzzer harness for the claim readers (explain/claims/: a post of dd runs
 * with their commands and `time`, bonnie++ CSV lines and tables, classic bonnie's table,
 * iozone's table and -R report, fio JSON and text, prose between them): any bytes either
 * read into results or give one error line, which must hold no control or bidi byte taken
 * from the input, and an error keeps nothing. Every result has a run. A truncated input
 * (its first half) that reads gives only results the whole input gave, in order, each with
 * runs the whole one has, figure for figure: a cut is never taken as other figures. */
#include "explain/claims/claim_post.h"
#include "fuzz/fuzz_util.h"

#include <math.h>

static struct claim_post whole, part;

/* The runs are the same figures; labels may be shorter in the part (iozone names a run
 * by its row only when several rows are there; a bonnie++ table row's machine is cut to
 * its column until its CSV line gives it whole). */
static bool same_figures(const struct claim_run *a, const struct claim_run *w)
{
	/* a `time` real line not yet there leaves dd's own seconds and rate */
	bool time_missing = w->seconds_from_time && !a->seconds_from_time;
	size_t ar = strlen(a->row), wr = strlen(w->row);
	size_t al = strlen(a->label), wl = strlen(w->label);
	bool row = ar <= wr && !strncmp(a->row, w->row, ar);
	bool label = (al <= wl && !strcmp(w->label + wl - al, a->label)) ||
	             (row && !strcmp(a->label + ar, w->label + wr));
	return row && label && a->direction == w->direction && a->bytes == w->bytes &&
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

/* The half's results are the whole's first ones. */
static void check_half(void)
{
	if (part.nresults > whole.nresults)
		fail("the input's first half gave more results than the whole");
	for (size_t i = 0; i < part.nresults; i++) {
		const struct claim_result *p = &part.results[i], *w = &whole.results[i];
		/* iozone prints its figures twice, in the table and in the -R report; which one
		 * was read may differ (a glued table row falls back to the report), and a mutated
		 * input's two copies need not agree */
		if (p->tool == CLAIM_TOOL_IOZONE && w->tool == CLAIM_TOOL_IOZONE &&
		    p->u.iozone.from_report != w->u.iozone.from_report)
			return;
		if (p->tool != w->tool)
			fail("the input's first half gave a result of another tool");
		for (size_t k = 0; k < p->nruns; k++) {
			bool found = false;
			for (size_t j = 0; j < w->nruns && !found; j++)
				found = same_figures(&p->runs[k], &w->runs[j]);
			if (!found)
				fail("the input's first half gave a run the whole did not");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xerr err;
	if (claim_post_parse_buffer("fuzz\x1b[31m", (const char *)data, size, &whole, &err)) {
		fuzz_check_output("claim error", err.msg, strlen(err.msg), false);
		if (whole.nresults || whole.results || whole.nnotes) /* nothing partial kept */
			fail("an error left a partial post");
		return 0;
	}
	if (!whole.nresults)
		fail("a post read with no result");
	for (size_t i = 0; i < whole.nresults; i++) {
		if (!whole.results[i].nruns)
			fail("a result without a run");
		for (size_t k = 0; k < whole.results[i].nruns; k++)
			check_run(&whole.results[i].runs[k]);
		/* what the listing matches labels against: never a crash */
		(void)claim_result_answers(&whole.results[i], whole.results[i].machine);
		(void)claim_result_answers(&whole.results[i], "domU");
	}
	char found[200];
	claim_post_summary(&whole, NULL, found, sizeof(found));
	fuzz_check_output("claim summary", found, strlen(found), false);
	if (!claim_post_parse_buffer("half", (const char *)data, size / 2, &part, &err)) {
		check_half();
		claim_post_free(&part);
	}
	claim_post_free(&whole);
	return 0;
}
