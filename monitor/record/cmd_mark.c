/* cmd_mark.c - `xiotop mark [-o FILE] LABEL`: a labelled instant in a recording, from
 * another shell. The mark is written straight into the SQLite file (WAL: the recorder
 * is not disturbed and needs no channel of its own); without -o the file is the one the
 * running recorder registered (rec_registry.h). */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rec_registry.h"
#include "record.h"
#include "record_cmds.h"
#include "sanitize.h"

static void mark_usage(FILE *out)
{
	fprintf(out, "usage: xiotop mark [-o FILE] LABEL\n"
	             "  adds a mark now to FILE, or to the running recorder's file\n");
}

int cmd_mark(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *file = NULL;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			file = optarg;
			break;
		case 'h':
			mark_usage(stdout);
			return 0;
		default:
			mark_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !argv[optind][0]) {
		fprintf(stderr, "xiotop mark: give one non-empty LABEL (quote it)\n");
		mark_usage(stderr);
		return 2;
	}
	const char *label = argv[optind];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t t = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	struct rec_error err;
	char found[PATH_MAX];
	if (!file) {
		if (rec_registry_find(found, sizeof(found), &err)) {
			fprintf(stderr, "xiotop mark: %s\n", err.msg);
			return 2;
		}
		file = found;
	}
	if (rec_mark_file(file, label, t, "cli", &err)) {
		fprintf(stderr, "xiotop mark: %s\n", err.msg);
		return 2;
	}
	char shown[300], ts[32];
	sanitize_text(label, shown, sizeof(shown));
	struct tm tm;
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	printf("mark \"%s\" at %s.%03ldZ in %s\n", shown, ts, now.tv_nsec / 1000000, file);
	return 0;
}
