/* rec_span.c - recordings read as one timeline; see rec_span.h. */
#include "record/rec_span.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrays.h"
#include "core/when.h"
#include "record/rec_dir.h"
#include "record/rec_internal.h"

struct span_file {
	struct rec_reader *r;
	size_t skip;  /* its first samples, not after the previous file's last */
	size_t first; /* the span's index of its sample `skip` */
	size_t n;     /* the samples it gives: count - skip */
};

struct rec_span {
	char *name;
	struct span_file *files;
	size_t n_files;
	int64_t *times;
	size_t count;
	struct rec_mark *marks;
	size_t n_marks;
};

void rec_span_close(struct rec_span *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_files; i++)
		rec_reader_close(s->files[i].r);
	free(s->files);
	free(s->times);
	free(s->marks);
	free(s->name);
	free(s);
}

/* r's samples and marks after the span's: ENOMEM -1. r is the span's from here on. */
static int add_file(struct rec_span *s, struct rec_reader *r)
{
	struct span_file f = {.r = r, .first = s->count};
	int64_t last = s->count ? s->times[s->count - 1] : INT64_MIN;
	while (f.skip < rec_count(r) && rec_time(r, f.skip) <= last)
		f.skip++; /* the sample a rotation wrote twice */
	f.n = rec_count(r) - f.skip;
	if (arrays_append((void **)&s->files, &s->n_files, &f, sizeof(f))) {
		rec_reader_close(r);
		return -1;
	}
	for (size_t i = f.skip; i < rec_count(r); i++) {
		int64_t t = rec_time(r, i);
		if (arrays_append((void **)&s->times, &s->count, &t, sizeof(t)))
			return -1;
	}
	for (size_t i = 0; i < rec_n_marks(r); i++)
		if (arrays_append((void **)&s->marks, &s->n_marks, &rec_marks(r)[i],
		                  sizeof(struct rec_mark)))
			return -1;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct rec_mark *x = a, *y = b;
	return x->realtime_ns < y->realtime_ns ? -1 : x->realtime_ns > y->realtime_ns;
}

/* The marks by time, each with the span's first sample at or after it. */
static void place_marks(struct rec_span *s)
{
	if (s->n_marks)
		qsort(s->marks, s->n_marks, sizeof(*s->marks), by_time);
	size_t at = 0;
	for (size_t m = 0; m < s->n_marks; m++) {
		while (at < s->count && s->times[at] < s->marks[m].realtime_ns)
			at++;
		s->marks[m].at_or_after = at;
	}
}

static struct rec_span *new_span(const char *name, struct xerr *err)
{
	struct rec_span *s = calloc(1, sizeof(*s));
	if (s && !(s->name = strdup(name))) {
		free(s);
		s = NULL;
	}
	if (!s)
		rec_set_error(err, REC_ERR_NOMEM, "%s: out of memory", name);
	return s;
}

static struct rec_span *nomem(struct rec_span *s, struct xerr *err)
{
	rec_set_error(err, REC_ERR_NOMEM, "%s: out of memory", s->name);
	rec_span_close(s);
	return NULL;
}

struct rec_span *rec_span_open_file(const char *path, struct xerr *err)
{
	struct rec_span *s = new_span(path, err);
	if (!s)
		return NULL;
	struct rec_reader *r = rec_open(path, err);
	if (!r) {
		rec_span_close(s);
		return NULL;
	}
	if (add_file(s, r))
		return nomem(s, err);
	place_marks(s);
	return s;
}

/* The start time a recorder's file name says; file i of n covers [its start, the next
 * one's start]. */
static int64_t start_of(const char *path)
{
	const char *base = strrchr(path, '/');
	int64_t t;
	char stamp[24];
	/* xiotop-YYYYMMDDTHHMMSSZ.xrec */
	if (sscanf(base ? base + 1 : path, "xiotop-%16[0-9TZ]", stamp) != 1)
		return INT64_MIN;
	char iso[32];
	snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", stamp, stamp + 4, stamp + 6,
	         stamp + 9, stamp + 11, stamp + 13);
	return when_parse(iso, 0, &t) ? INT64_MIN : t;
}

struct rec_span *rec_span_open_dir(const char *dir, int64_t from_ns, int64_t to_ns,
                                   struct xerr *err)
{
	struct rec_span *s = new_span(dir, err);
	char **paths;
	long n = s ? rec_dir_list(dir, &paths) : 0;
	if (!s)
		return NULL;
	if (n < 0) {
		rec_set_error(err, REC_ERR_IO, "cannot read the directory %.400s: %s", dir,
		              strerror(errno));
		rec_span_close(s);
		return NULL;
	}
	int rc = 0;
	for (long i = 0; !rc && i < n; i++) {
		int64_t next = i + 1 < n ? start_of(paths[i + 1]) : INT64_MAX;
		if (start_of(paths[i]) > to_ns || next < from_ns)
			continue;
		struct xerr why;
		struct rec_reader *r = rec_open(paths[i], &why);
		if (!r) {
			xnote("%s: left out (%s)", paths[i], why.msg);
			continue;
		}
		rc = add_file(s, r);
	}
	rec_dir_free_list(paths, n);
	if (rc)
		return nomem(s, err);
	if (!s->n_files) {
		rec_set_error(err, REC_ERR_RANGE, "no recording in %.400s within the window", dir);
		rec_span_close(s);
		return NULL;
	}
	place_marks(s);
	return s;
}

const char *rec_span_name(const struct rec_span *s)
{
	return s->name;
}

size_t rec_span_files(const struct rec_span *s)
{
	return s->n_files;
}

size_t rec_span_count(const struct rec_span *s)
{
	return s->count;
}

const int64_t *rec_span_times(const struct rec_span *s)
{
	return s->times;
}

size_t rec_span_n_marks(const struct rec_span *s)
{
	return s->n_marks;
}

const struct rec_mark *rec_span_marks(const struct rec_span *s)
{
	return s->marks;
}

int rec_span_read(struct rec_span *s, size_t i, struct xio_sample *out, struct xerr *err)
{
	size_t lo = 0, hi = s->n_files;
	while (lo + 1 < hi) { /* the last file whose first is at or before i */
		size_t mid = lo + (hi - lo) / 2;
		if (s->files[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	const struct span_file *f = lo < s->n_files ? &s->files[lo] : NULL;
	if (!f || i >= s->count || i - f->first >= f->n) {
		memset(out, 0, sizeof(*out));
		rec_set_error(err, REC_ERR_RANGE, "%s holds %zu samples: no sample %zu", s->name,
		              s->count, i);
		return -1;
	}
	return rec_read(f->r, f->skip + (i - f->first), out, err);
}

int rec_span_window(const struct rec_span *s, const char *from, const char *to, size_t *first,
                    size_t *last, struct xerr *err)
{
	struct rec_times_marks tm = {s->times, s->count, s->marks, s->n_marks};
	return rec_window_of(&tm, from, to, first, last, err);
}
