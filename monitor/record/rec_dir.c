/* rec_dir.c - a directory of recordings; see rec_dir.h. */
#include "record/rec_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000ll

int rec_dir_file_name(const char *dir, int64_t realtime_ns, char *buf, size_t len)
{
	time_t t = (time_t)(realtime_ns / NS_PER_S);
	struct tm tm;
	char stamp[32];
	if (!gmtime_r(&t, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		return -1;
	int n = snprintf(buf, len, "%s/xiotop-%s%s", dir, stamp, REC_DIR_SUFFIX);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int64_t rec_dir_period_start(int64_t realtime_ns, int64_t period_ns)
{
	if (period_ns <= 0)
		return realtime_ns;
	return realtime_ns - realtime_ns % period_ns;
}

/* The start time in a recording's file name; -1 if it is not one of ours. */
static int64_t name_time(const char *name)
{
	struct tm tm = {0};
	size_t len = strlen(name), suffix = strlen(REC_DIR_SUFFIX);
	if (strncmp(name, "xiotop-", 7) || len != 7 + 16 + suffix ||
	    strcmp(name + len - suffix, REC_DIR_SUFFIX))
		return -1;
	const char *end = strptime(name + 7, "%Y%m%dT%H%M%SZ", &tm);
	if (!end || end != name + 7 + 16)
		return -1;
	return (int64_t)timegm(&tm) * NS_PER_S;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void rec_dir_free_list(char **paths, long n)
{
	for (long i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

long rec_dir_list(const char *dir, char ***paths)
{
	*paths = NULL;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	long n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (name_time(e->d_name) < 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			char **grown = realloc(*paths, (size_t)cap * sizeof(*grown));
			if (!grown)
				goto nomem;
			*paths = grown;
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		if (!((*paths)[n] = malloc(len)))
			goto nomem;
		snprintf((*paths)[n++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(*paths, (size_t)n, sizeof(**paths), by_name);
	return n;
nomem:
	closedir(d);
	rec_dir_free_list(*paths, n);
	*paths = NULL;
	errno = ENOMEM;
	return -1;
}

/* A recording's bytes with its WAL and shared-memory files. */
static uint64_t file_bytes(const char *path)
{
	static const char *const extra[] = {"", "-wal", "-shm"};
	uint64_t total = 0;
	for (size_t i = 0; i < 3; i++) {
		char p[4096];
		struct stat st;
		snprintf(p, sizeof(p), "%s%s", path, extra[i]);
		if (stat(p, &st) == 0)
			total += (uint64_t)st.st_size;
	}
	return total;
}

long rec_dir_prune(const char *dir, int64_t now_ns, int64_t max_age_ns, uint64_t max_bytes,
                   const char *keep)
{
	char **paths;
	long n = rec_dir_list(dir, &paths);
	if (n < 0)
		return -1;
	uint64_t total = 0;
	for (long i = 0; i < n; i++)
		total += file_bytes(paths[i]);
	long removed = 0;
	for (long i = 0; i < n; i++) {
		if (keep && !strcmp(paths[i], keep))
			break; /* it and everything newer stay */
		/* a file's age is that of its newest sample: the start of the next file */
		int64_t ends = i + 1 < n ? name_time(strrchr(paths[i + 1], '/') + 1) : now_ns;
		bool too_old = max_age_ns > 0 && now_ns - ends > max_age_ns;
		bool too_big = max_bytes > 0 && total > max_bytes;
		if (!too_old && !too_big)
			break;
		total -= file_bytes(paths[i]);
		rec_remove(paths[i]);
		removed++;
	}
	rec_dir_free_list(paths, n);
	return removed;
}

int rec_dir_parse_time(const char *text, int64_t *ns)
{
	static const char *const local_forms[] = {"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M",
	                                          "%Y-%m-%d"};
	struct tm tm;
	for (size_t i = 0; i < 3; i++) {
		memset(&tm, 0, sizeof(tm));
		const char *end = strptime(text, local_forms[i], &tm);
		if (end && !*end) {
			tm.tm_isdst = -1;
			time_t t = mktime(&tm);
			if (t == (time_t)-1)
				return -1;
			*ns = (int64_t)t * NS_PER_S;
			return 0;
		}
	}
	memset(&tm, 0, sizeof(tm));
	const char *end = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
	if (end && (!strcmp(end, "Z") || !*end) && tm.tm_year < 8000) {
		*ns = (int64_t)timegm(&tm) * NS_PER_S;
		return 0;
	}
	return -1;
}

static int64_t path_time(const char *path)
{
	return name_time(strrchr(path, '/') + 1);
}

int rec_dir_stream_open(struct rec_dir_stream *s, const char *dir, int64_t from_ns, int64_t to_ns,
                        struct xerr *err)
{
	memset(s, 0, sizeof(*s));
	s->from_ns = from_ns;
	s->to_ns = to_ns;
	s->last_ns = INT64_MIN;
	s->n_paths = rec_dir_list(dir, &s->paths);
	if (s->n_paths < 0) {
		rec_set_error(err, REC_ERR_IO, "cannot read the directory %.400s: %s", dir,
		              strerror(errno));
		return -1;
	}
	/* the first file that can hold the window's start: the next one starts after it */
	while (s->next_path + 1 < s->n_paths && path_time(s->paths[s->next_path + 1]) <= from_ns)
		s->next_path++;
	if (s->next_path >= s->n_paths || path_time(s->paths[s->next_path]) > to_ns) {
		rec_set_error(err, REC_ERR_RANGE, "no recording in %.400s within the window", dir);
		rec_dir_stream_close(s);
		return -1;
	}
	return 0;
}

/* Opens the next file of the window; 0, SOURCE_END or SOURCE_FAILED. */
static int open_next_file(struct rec_dir_stream *s)
{
	rec_reader_close(s->reader);
	s->reader = NULL;
	if (s->next_path >= s->n_paths || path_time(s->paths[s->next_path]) > s->to_ns)
		return SOURCE_END;
	s->reader = rec_open(s->paths[s->next_path++], &s->err);
	if (!s->reader)
		return SOURCE_FAILED;
	s->count = rec_count(s->reader);
	s->next = rec_find_at_or_after(s->reader, s->from_ns);
	return 0;
}

static int dir_next(void *ctx, struct xio_sample *out)
{
	struct rec_dir_stream *s = ctx;
	for (;;) {
		if (!s->reader || s->next >= s->count) {
			int rc = open_next_file(s);
			if (rc)
				return rc;
			continue;
		}
		int64_t t = rec_time(s->reader, s->next);
		if (t > s->to_ns)
			return SOURCE_END;
		if (t <= s->last_ns) { /* the boundary sample, already handed out */
			s->next++;
			continue;
		}
		if (rec_read(s->reader, s->next, out, &s->err))
			return SOURCE_FAILED;
		s->next++;
		s->last_ns = t;
		return 0;
	}
}

static const char *dir_why(void *ctx)
{
	return ((struct rec_dir_stream *)ctx)->err.msg;
}

struct sample_source rec_dir_stream_source(struct rec_dir_stream *s)
{
	return (struct sample_source){.ctx = s, .next = dir_next, .fail_status = 2, .why = dir_why};
}

void rec_dir_stream_close(struct rec_dir_stream *s)
{
	rec_reader_close(s->reader);
	rec_dir_free_list(s->paths, s->n_paths > 0 ? s->n_paths : 0);
	memset(s, 0, sizeof(*s));
}
