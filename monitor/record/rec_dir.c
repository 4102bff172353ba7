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
