/* placement.c - a claim's run placed by evidence; see placement.h. */
#include "explain/placement.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "explain/dom0_subject.h"

/* [from, end) of a domain's series, and the evidence that bounds it */
struct range {
	size_t from, end;
	unsigned by;
};

/* "start bonnie" for bonnie++: the label after `prefix` names the tool (a prefix of its
 * name, at least 2 characters, case aside). */
static bool names_tool(const char *label, const char *prefix, const char *tool)
{
	size_t p = strlen(prefix), n = strlen(label);
	return n >= p + 2 && !strncmp(label, prefix, p) && n - p <= strlen(tool) &&
	       !strncasecmp(label + p, tool, n - p);
}

/* A mark's label says the tool's run starts or ends (`word` "start", "end"): "start dd"
 * or "dd start", the tool's name or a prefix of it ("start bonnie" for bonnie++). */
static bool marks_tool(const char *label, const char *word, const char *tool)
{
	char prefix[16], name[64];
	snprintf(prefix, sizeof(prefix), "%s ", word);
	if (names_tool(label, prefix, tool))
		return true;
	size_t n = strlen(label), w = strlen(word);
	if (n <= w + 1 || strcmp(label + n - w, word) || label[n - w - 1] != ' ')
		return false;
	snprintf(name, sizeof(name), "%.*s", (int)(n - w - 1), label);
	return names_tool(name, "", tool);
}

/* The series indices of the intervals from the one holding `start` to the one holding
 * `stop` (seconds from the window's start), within r. */
static void bound(const struct ex_domain *d, double start, double stop, struct range *r)
{
	size_t a = 0, b;
	while (a < d->n_series && d->series[a].t <= start)
		a++;
	for (b = a; b < d->n_series && d->series[b].t < stop; b++)
		;
	r->from = a > r->from ? a : r->from;
	r->end = b < d->n_series ? b + 1 : d->n_series;
}

/* The nth pair of marks "start TOOL" .. "end TOOL" (a tool run twice is marked twice): the
 * guest's own (origin "domain N"), or dom0's (xiotop mark, the console, the API). */
static bool tool_marks(const struct explain *ex, const struct ex_domain *d, const char *tool,
                       bool guest, size_t nth, struct range *r)
{
	char own[16];
	snprintf(own, sizeof(own), "domain %u", (unsigned)d->domid);
	double start = -1, stop = -1;
	for (size_t i = 0; i < ex->n_marks; i++) {
		const struct ex_mark *m = &ex->marks[i];
		bool ours = guest ? !strcmp(m->origin, own)
		                  : !strcmp(m->origin, "cli") || !strcmp(m->origin, "console") ||
		                        !strcmp(m->origin, "api");
		if (!ours)
			continue;
		if (start < 0 && marks_tool(m->label, "start", tool))
			start = m->t;
		else if (start >= 0 && stop < 0 && marks_tool(m->label, "end", tool)) {
			stop = m->t;
			if (nth-- > 0) /* not this pair: the next one */
				start = stop = -1;
		}
	}
	if (start < 0 || stop < start)
		return false;
	bound(d, start, stop, r);
	r->by |= guest ? EXPE_GUEST_MARKS : EXPE_DOM0_MARKS;
	return true;
}

/* The window is the recorder's wrapped command (`record -- CMD`) and CMD's program is
 * the tool ("start: /bin/dd if=..." for dd, dd-bsd, dd-busybox). */
static bool wrap_is_tool(const struct explain *ex, const struct ex_domain *d, const char *tool,
                         struct range *r)
{
	if (strcmp(ex->win.marks_of, "wrap") || strncmp(ex->win.from_label, "start: ", 7))
		return false;
	const char *cmd = ex->win.from_label + 7;
	size_t n = strcspn(cmd, " \t");
	const char *base = cmd;
	for (const char *p = cmd; p < cmd + n; p++)
		if (*p == '/' && p + 1 < cmd + n)
			base = p + 1;
	char prog[64];
	snprintf(prog, sizeof(prog), "%.*s", (int)(cmd + n - base), base);
	if (!names_tool(prog, "", tool))
		return false;
	bound(d, 0, ex->win.seconds, r);
	r->by |= EXPE_WRAP;
	return true;
}

/* The tool's own clock: fio's report time ends its runs, bonnie++'s seed starts them;
 * the span its result's runs take around it, two intervals either side. False when it
 * does not fall in the domain's series. */
static bool tool_clock(const struct explain *ex, const struct ex_domain *d,
                       const struct ex_claim *row, struct range *r)
{
	const struct claim_clock *c = &row->fig.clock;
	if (c->kind == CLAIM_CLOCK_NONE || !d->n_series)
		return false;
	double at = ((double)c->unix_ms * 1e6 - (double)ex->win.from_ns) / 1e9;
	double span = row->fig.result_seconds > 0 ? row->fig.result_seconds : row->seconds;
	double tol = 2 * ex->win.interval_s;
	double start = c->kind == CLAIM_CLOCK_REPORTED ? at - span : at;
	double stop = c->kind == CLAIM_CLOCK_REPORTED ? at : at + span;
	if (stop + tol < d->series[0].t - d->series[0].interval_s ||
	    start - tol > d->series[d->n_series - 1].t)
		return false; /* another day's run, or a clock that is not dom0's */
	bound(d, start - tol, stop + tol, r);
	r->by |= EXPE_CLOCK;
	return true;
}

static bool same_file(const struct ex_claim *a, const struct ex_claim *b)
{
	return a->domid == b->domid && !strcmp(a->fig.file, b->fig.file);
}

/* row's index in ex->claims; n_claims for a row not in it yet (it comes after them all) */
static size_t index_of(const struct explain *ex, const struct ex_claim *row)
{
	uintptr_t at = (uintptr_t)row, base = (uintptr_t)ex->claims;
	if (at < base || at >= base + ex->n_claims * sizeof(*row))
		return ex->n_claims;
	return (at - base) / sizeof(*row);
}

/* After the same file's placed runs before it (the runs of a file ran in its order): past
 * the last one's stretch that way, no earlier than the start of one the other way (a
 * phase may read and write at once). */
static bool after_previous(const struct explain *ex, const struct ex_claim *row, struct range *r)
{
	bool any = false;
	for (size_t i = 0; i < index_of(ex, row); i++) {
		const struct ex_claim *p = &ex->claims[i];
		if (!same_file(p, row) || !p->located.found)
			continue;
		size_t from = p->write == row->write ? p->located.last + 1 : p->located.first;
		r->from = from > r->from ? from : r->from;
		any = true;
	}
	return any;
}

static bool overlap(const struct ex_located *a, const struct ex_located *b)
{
	return !(a->last < b->first || b->last < a->first);
}

/* Whether stretch s is another run's: a row before this one placed over it that way. */
static bool taken(const struct explain *ex, const struct ex_claim *row, const struct ex_located *s)
{
	for (size_t i = 0; i < index_of(ex, row); i++) {
		const struct ex_claim *p = &ex->claims[i];
		if (p->domid == row->domid && p->write == row->write && p->located.found &&
		    overlap(&p->located, s))
			return true;
	}
	return false;
}

/* The stretch lasts as long as the run: whole intervals make it up to two intervals
 * longer (the run may start late in its first, end early in its last) and a quarter more
 * (a guest writing back after its tool returned); at most an interval and the byte
 * margin shorter (its last interval's few bytes within EX_LOCATE_BYTES_TOLERANCE). */
static bool fits_duration(const struct ex_domain *d, const struct ex_claim *row,
                          const struct ex_located *s)
{
	double tick = d->series[s->first].interval_s, span = s->to_s - s->from_s;
	return span >= row->seconds * (1 - EX_LOCATE_BYTES_TOLERANCE) - tick &&
	       span <= row->seconds * 1.25 + 2 * tick;
}

/* The file's next run the same way that left bytes in the timeline outside s (a row after
 * this one, filled already; a run its guest's cache served leaves none, and one whose
 * only stretch is s tells nothing) has a stretch of its own after s: true when there is
 * no such run to ask. A run the other way tells nothing: a phase may read and write at
 * once (bonnie++'s rewrite, fio's mixed jobs). */
static bool leaves_next(const struct explain *ex, const struct ex_domain *d,
                        const struct ex_claim *row, const struct ex_located *s, bool *asked)
{
	struct ex_located other[EX_MAX_STRETCHES];
	for (size_t i = index_of(ex, row) + 1; i < ex->n_claims; i++) {
		const struct ex_claim *next = &ex->claims[i];
		if (!same_file(next, row) || next->write != row->write || !next->bytes)
			continue;
		size_t n = ex_find_stretches(d->series, d->n_series, 0, next->bytes, next->seconds,
		                             next->write, other, EX_MAX_STRETCHES);
		bool elsewhere = false, after = false;
		for (size_t k = 0; k < n; k++) {
			if (overlap(&other[k], s))
				continue;
			elsewhere = true;
			after |= other[k].first > s->last;
		}
		if (!elsewhere)
			continue;
		*asked = true;
		return after;
	}
	return true;
}

/* Of the stretches in the bounds (marks, the wrap, the clock): the nearest the run's own
 * time, then in bytes, then the earliest. */
static size_t best_of(const struct ex_located *s, size_t n, const struct ex_claim *row)
{
	size_t best = 0;
	for (size_t i = 1; i < n; i++) {
		double ei = fabs((s[i].to_s - s[i].from_s) - row->seconds);
		double eb = fabs((s[best].to_s - s[best].from_s) - row->seconds);
		double bi = fabs((double)s[i].guest_bytes - (double)row->bytes);
		double bb = fabs((double)s[best].guest_bytes - (double)row->bytes);
		if (row->seconds > 0 && fabs(ei - eb) > 1e-9 ? ei < eb : bi < bb)
			best = i;
	}
	return best;
}

/* Without bounds: the one stretch that fits the run's duration and its file's next run;
 * n when none or several do. */
static size_t the_one(const struct explain *ex, const struct ex_domain *d, struct ex_claim *row,
                      const struct ex_located *s, size_t n)
{
	size_t one = n, fitting = 0;
	bool asked = false;
	for (size_t i = 0; i < n; i++) {
		bool fits = (row->seconds <= 0 || fits_duration(d, row, &s[i])) &&
		            leaves_next(ex, d, row, &s[i], &asked);
		if (fits && fitting++ == 0)
			one = i;
	}
	if (row->seconds > 0)
		row->placed_by |= EXPE_DURATION;
	if (asked)
		row->placed_by |= EXPE_ORDER;
	row->n_fitting = fitting;
	return fitting == 1 ? one : n;
}

static void place_in(const struct explain *ex, const struct ex_domain *d, struct ex_claim *row,
                     struct range r)
{
	memset(&row->located, 0, sizeof(row->located));
	row->placed_how = EXS_NOT_PLACED;
	row->placed_by = 0;
	row->n_stretches = row->n_fitting = 0;
	bool bounded = r.by & (EXPE_GUEST_MARKS | EXPE_DOM0_MARKS | EXPE_WRAP | EXPE_CLOCK);
	/* a run's writes may reach dom0 after it ends (the guest's own cache written back): a
	 * bounded write starts within its bounds and may end after them */
	size_t end = bounded && row->write ? d->n_series : r.end;
	while (d->dom0_subject && row->write && end > r.from &&
	       !ex_dom0_in_data(ex, d->series[end - 1].t))
		end--; /* dom0's own run: its data's drain ends it (dom0_subject.h) */
	if (after_previous(ex, row, &r))
		r.by |= EXPE_ORDER;
	struct ex_located s[EX_MAX_STRETCHES];
	size_t found = ex_find_stretches(d->series, end, r.from, row->bytes, row->seconds,
	                                 row->write, s, EX_MAX_STRETCHES);
	/* dom0's own writes reach its bios by writeback, after the command may have ended
	 * (dom0_subject.h): they start before its data's drain ends, not within the run */
	size_t start_by = d->dom0_subject && row->write ? end : r.end;
	size_t n = 0, in_bounds = 0;
	for (size_t i = 0; i < found; i++) {
		if (s[i].first >= start_by)
			continue; /* starts after its bounds */
		in_bounds++;
		if (!taken(ex, row, &s[i])) /* another run's stretch is not this one's */
			s[n++] = s[i];
	}
	row->placed_by = r.by | (n < in_bounds ? EXPE_TAKEN : 0);
	row->n_stretches = n;
	if (!n)
		return;
	row->placed_by |= EXPE_BYTES;
	size_t pick = bounded ? best_of(s, n, row) : the_one(ex, d, row, s, n);
	/* bytes alone tie nothing: a duration, or the file's runs around it, must agree */
	if (pick == n || (!bounded && !(row->placed_by & (EXPE_DURATION | EXPE_ORDER))))
		return;
	row->located = s[pick];
	row->placed_how = bounded ? EXS_SURE : EXS_LIKELY;
}

/* The bounds of the run: the nth pair of its tool's marks, the guest's then dom0's, else
 * the wrapped command, else the tool's own clock; false when there is no nth pair. */
static bool bounds(const struct explain *ex, const struct ex_domain *d, struct ex_claim *row,
                   size_t nth, struct range *r)
{
	*r = (struct range){.from = 0, .end = d->n_series};
	if (tool_marks(ex, d, row->fig.tool, true, nth, r) ||
	    tool_marks(ex, d, row->fig.tool, false, nth, r))
		return true;
	if (nth)
		return false;
	if (!wrap_is_tool(ex, d, row->fig.tool, r))
		tool_clock(ex, d, row, r);
	return true;
}

/* A tool run more than once, each run marked (dd, then dd oflag=direct; fio's write, then
 * its random reads): the first pair of its marks where this run has a stretch (holding its
 * bytes that way, not another run's); none: the first pair's bounds say why not. */
void ex_place_claim(const struct explain *ex, const struct ex_domain *d, struct ex_claim *row)
{
	struct range r;
	for (size_t nth = 0; bounds(ex, d, row, nth, &r); nth++) {
		place_in(ex, d, row, r);
		if (row->placed_how != EXS_NOT_PLACED ||
		    !(r.by & (EXPE_GUEST_MARKS | EXPE_DOM0_MARKS)))
			return;
	}
	bounds(ex, d, row, 0, &r);
	place_in(ex, d, row, r);
}
