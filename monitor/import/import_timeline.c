/* import_timeline.c - where each log's blocks fall in time; see imp_timeline() in
 * import_build.h. */
#include "import/import_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LOG_XT, LOG_VM, LOG_IO, N_LOGS };
static const char *const log_kind[N_LOGS] = {"xentop", "vmstat", "iostat"};

static size_t blocks_of(const struct imp_logs *in, int k)
{
	if (k == LOG_XT)
		return in->xentop ? in->xentop->n_blocks : 0;
	if (k == LOG_VM)
		return in->vmstat ? in->vmstat->n : 0;
	return in->iostat ? in->iostat->n : 0;
}

static bool present(const struct imp_logs *in, int k)
{
	return k == LOG_XT   ? in->xentop != NULL
	       : k == LOG_VM ? in->vmstat != NULL
	                     : in->iostat != NULL;
}

static const char *file_of(const struct imp_logs *in, int k)
{
	const char *f = k == LOG_XT   ? in->xentop_file
	                : k == LOG_VM ? in->vmstat_file
	                              : in->iostat_file;
	return f ? f : log_kind[k];
}

/* A block's own time (-1: the log has none) and line. */
static int64_t time_of(const struct imp_logs *in, int k, size_t j, unsigned *line)
{
	if (k == LOG_XT) {
		*line = in->xentop->blocks[j].doms[0].line;
		return -1;
	}
	if (k == LOG_VM) {
		*line = in->vmstat->rows[j].line;
		return in->vmstat->has_time ? in->vmstat->rows[j].time_ns : -1;
	}
	*line = in->iostat->reports[j].line;
	return in->iostat->has_time ? in->iostat->reports[j].time_ns : -1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The lower median of a timed log's steps, in whole seconds (0: one block only; -1: out
 * of memory). */
static int64_t median_step(const struct imp_logs *in, int k, size_t n)
{
	if (n < 2)
		return 0;
	int64_t *steps = malloc((n - 1) * sizeof(*steps));
	if (!steps)
		return -1;
	unsigned line;
	int64_t prev = time_of(in, k, 0, &line);
	for (size_t j = 1; j < n; j++) {
		int64_t t = time_of(in, k, j, &line);
		steps[j - 1] = llround((double)(t - prev) / 1e9) * 1000000000ll;
		prev = t;
	}
	qsort(steps, n - 1, sizeof(*steps), cmp_i64);
	int64_t median = steps[(n - 2) / 2];
	free(steps);
	return median;
}

/* Every log with times keeps one interval (*interval_ns, chosen here when 0). */
static int check_interval(const struct imp_logs *in, int k, int64_t *interval_ns,
                          const char **chosen_by, struct xerr *err)
{
	size_t n = blocks_of(in, k);
	unsigned line0, line = 0;
	int64_t t0 = time_of(in, k, 0, &line0), prev = t0, t = t0;
	if (t0 < 0)
		return 0;
	if (!*interval_ns) { /* the log's median step sets it; the others must keep it */
		/* not the first step: iostat's first two reports can be less than the interval
		 * apart (its timer runs while it reads the first), even the same whole second */
		*interval_ns = median_step(in, k, n);
		if (*interval_ns < 0)
			return imp_fail(err, file_of(in, k), line0, "out of memory"), -1;
		*chosen_by = file_of(in, k);
		if (*interval_ns <= 0)
			return imp_fail(err, file_of(in, k), line,
			                "rows 1 s apart or more expected"),
			       -1;
	}
	for (size_t j = 1; j < n; j++) {
		t = time_of(in, k, j, &line);
		/* times are whole seconds: two reports less than a second apart can share one */
		if (t < prev || t - prev > 2 * *interval_ns + 1000000000ll)
			return imp_fail(
			           err, file_of(in, k), line,
			           "a time after the row before, one interval later, expected"),
			       -1;
		prev = t;
	}
	double mean = (double)(t - t0) / (double)(n - 1);
	if (fabs(mean - (double)*interval_ns) > 0.1 * (double)*interval_ns)
		return imp_fail(err, file_of(in, k), line,
		                "rows %.0f s apart expected (as %s), found %.2f s on average",
		                (double)*interval_ns / 1e9, *chosen_by, mean / 1e9),
		       -1;
	return 0;
}

static int find_interval(const struct imp_logs *in, struct imp_timeline *t, struct xerr *err)
{
	int64_t interval_ns = llround(in->interval_s * 1e9);
	const char *chosen_by = "--interval";
	for (int k = 0; k < N_LOGS; k++)
		if (present(in, k) && check_interval(in, k, &interval_ns, &chosen_by, err))
			return -1;
	if (!interval_ns)
		return imp_fail_logs(err,
		                     "no log has times (vmstat -t, iostat -t): give --interval S"),
		       -1;
	t->interval_s = (double)interval_ns / 1e9;
	return 0;
}

/* Where each log starts: its first time, else --start, else where the timed ones start. */
static int find_starts(const struct imp_logs *in, struct imp_timeline *t, int64_t start[N_LOGS],
                       struct xerr *err)
{
	int64_t timed_min = -1;
	unsigned line;
	for (int k = 0; k < N_LOGS; k++) {
		start[k] = present(in, k) ? time_of(in, k, 0, &line) : -1;
		if (start[k] >= 0 && (timed_min < 0 || start[k] < timed_min)) {
			timed_min = start[k];
			t->time_from = file_of(in, k);
		}
	}
	for (int k = 0; k < N_LOGS; k++) {
		if (!present(in, k) || start[k] >= 0)
			continue;
		if (!in->has_start && timed_min < 0)
			return imp_fail_logs(
			           err,
			           "no log has times (vmstat -t, iostat -t): give --start TIME"),
			       -1;
		start[k] = in->has_start ? in->start_ns : timed_min;
	}
	if (timed_min < 0)
		t->time_from = "--start";
	t->t0_ns = -1;
	for (int k = 0; k < N_LOGS; k++)
		if (start[k] >= 0 && (t->t0_ns < 0 || start[k] < t->t0_ns))
			t->t0_ns = start[k];
	return 0;
}

/* Where the timed logs end (their last block's time); -1 when none has times. */
static int64_t timed_end(const struct imp_logs *in)
{
	int64_t end = -1;
	unsigned line;
	for (int k = 0; k < N_LOGS; k++) {
		size_t n = present(in, k) ? blocks_of(in, k) : 0;
		int64_t at = n ? time_of(in, k, n - 1, &line) : -1;
		if (at > end)
			end = at;
	}
	return end;
}

/* The time between two blocks of untimed log k: one interval, or for xentop (-d sleeps
 * after each frame, so its frames come later than -d) with fewer frames than the timed
 * logs' span holds intervals, that span over its frames (said in t->note). */
static double untimed_step_ns(const struct imp_logs *in, struct imp_timeline *t, int k,
                              int64_t from, double interval_ns)
{
	size_t n = blocks_of(in, k);
	if (k != LOG_XT || in->has_start || n < 2)
		return interval_ns;
	int64_t end = timed_end(in);
	if (end < 0)
		return interval_ns;
	double span = (double)(end - from), step = span / (double)(n - 1);
	if (step <= interval_ns)
		return interval_ns;
	snprintf(t->note, sizeof(t->note),
	         "%s has no times: its %zu frames are spread over the %.0f s the timed logs "
	         "cover (%.2f s apart, not -d's %.0f s: xentop sleeps -d after each frame; "
	         "--start places them one interval apart instead)",
	         file_of(in, k), n, span / 1e9, step / 1e9, interval_ns / 1e9);
	return step;
}

int imp_timeline(const struct imp_logs *in, struct imp_timeline *t, struct xerr *err)
{
	memset(t, 0, sizeof(*t));
	int64_t start[N_LOGS];
	if (find_interval(in, t, err) || find_starts(in, t, start, err))
		return -1;
	double interval_ns = t->interval_s * 1e9;
	for (int k = 0; k < N_LOGS; k++) {
		if (!present(in, k))
			continue;
		size_t n = blocks_of(in, k);
		double untimed_ns = untimed_step_ns(in, t, k, start[k], interval_ns);
		t->step[k] = calloc(n, sizeof(long));
		if (!t->step[k])
			return imp_fail(err, file_of(in, k), 0, "out of memory"),
			       imp_timeline_free(t), -1;
		t->n_blocks[k] = n;
		for (size_t j = 0; j < n; j++) {
			unsigned line;
			int64_t at = time_of(in, k, j, &line);
			if (at < 0)
				at = start[k] + (int64_t)llround((double)j * untimed_ns);
			long s = lround((double)(at - t->t0_ns) / interval_ns);
			/* a row stamped in the same whole second as the one before (iostat's
			 * second report, its timer running while it read the first) is the next
			 * interval's: the log's steps keep the median interval (checked above) */
			if (j && s == t->step[k][j - 1])
				s++;
			if (j && s <= t->step[k][j - 1])
				return imp_fail(
				           err, file_of(in, k), line,
				           "one row per interval expected: two in one interval"),
				       imp_timeline_free(t), -1;
			t->step[k][j] = s;
			if ((size_t)s + 1 > t->n_steps)
				t->n_steps = (size_t)s + 1;
		}
	}
	return 0;
}

void imp_timeline_free(struct imp_timeline *t)
{
	for (int k = 0; k < N_LOGS; k++)
		free(t->step[k]);
	memset(t, 0, sizeof(*t));
}
