/* rec2logs.c - a test helper: an xiotop recording written out as the logs `xentop -b -x`,
 * `vmstat N` and `iostat -dx N` would have given on the same host (logs_writer.h), so
 * that `xiotop import` of them can be compared with the recording (the round trip).
 *
 *   rec2logs RECORDING DIR [--interval S]
 *
 * Writes DIR/xentop.log, DIR/vmstat.log and DIR/iostat.log (never over existing files)
 * and prints the import options that place them: "--interval S --start TIME" (S: the
 * recording's -d unless given; TIME: its first sample, UTC, whole seconds). The CPU count
 * is the recording's. Exit 0, 1 usage, 2 an unreadable recording or unwritable file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/record.h"
#include "tools/logs_writer.h"

enum { XT, VM, IO, N_LOGS };
static const char *const log_names[N_LOGS] = {"xentop.log", "vmstat.log", "iostat.log"};

static int usage(void)
{
	fputs("usage: rec2logs RECORDING DIR [--interval S]\n", stderr);
	return 1;
}

static int open_logs(const char *dir, FILE *out[N_LOGS])
{
	for (int k = 0; k < N_LOGS; k++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, log_names[k]);
		out[k] = fopen(path, "wx");
		if (!out[k]) {
			fprintf(stderr, "rec2logs: %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int close_logs(FILE *out[N_LOGS])
{
	int rc = 0;
	for (int k = 0; k < N_LOGS; k++)
		if (out[k] && fclose(out[k])) {
			fprintf(stderr, "rec2logs: %s: %s\n", log_names[k], strerror(errno));
			rc = -1;
		}
	return rc;
}

/* Every sample, one block of each log, holding only the one before. */
static int write_logs(struct rec_reader *r, FILE *out[N_LOGS], const struct logs_shape *shape)
{
	struct xio_sample s[2];
	memset(s, 0, sizeof(s));
	logs_vmstat_header(out[VM]);
	logs_iostat_banner(out[IO], shape);
	for (size_t i = 0; i < rec_count(r); i++) {
		struct xio_sample *cur = &s[i % 2], *prev = i ? &s[(i + 1) % 2] : NULL;
		struct xerr err;
		sample_free(cur);
		if (rec_read(r, i, cur, &err)) {
			fprintf(stderr, "rec2logs: %s\n", err.msg);
			sample_free(&s[(i + 1) % 2]);
			return -1;
		}
		if (logs_xentop_block(out[XT], cur)) {
			fputs("rec2logs: out of memory\n", stderr);
			return sample_free(&s[0]), sample_free(&s[1]), -1;
		}
		logs_vmstat_row(out[VM], prev, cur, shape);
		logs_iostat_report(out[IO], prev, cur, shape);
	}
	sample_free(&s[0]);
	sample_free(&s[1]);
	return 0;
}

static double meta_number(const struct rec_reader *r, const char *key)
{
	const char *v = rec_meta(r, key);
	return v ? strtod(v, NULL) : 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 && !(argc == 5 && !strcmp(argv[3], "--interval")))
		return usage();
	struct xerr err;
	struct rec_reader *r = rec_open(argv[1], &err);
	if (!r) {
		fprintf(stderr, "rec2logs: %s\n", err.msg);
		return 2;
	}
	struct logs_shape shape = {.interval_s = argc == 5 ? strtod(argv[4], NULL)
	                                                   : meta_number(r, "interval_s"),
	                           .cpus = (long)meta_number(r, "cpu_count")};
	if (!(shape.interval_s > 0) || rec_count(r) < 2) {
		fprintf(stderr, "rec2logs: %s: %s\n", argv[1],
		        rec_count(r) < 2 ? "fewer than two samples"
		                         : "no interval (meta interval_s): give --interval S");
		rec_reader_close(r);
		return 2;
	}
	FILE *out[N_LOGS] = {NULL, NULL, NULL};
	int rc = open_logs(argv[2], out) || write_logs(r, out, &shape) ? 2 : 0;
	if (close_logs(out))
		rc = 2;
	if (!rc) {
		time_t t0 = (time_t)(rec_time(r, 0) / 1000000000);
		struct tm tm;
		char start[32];
		strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t0, &tm));
		printf("--interval %g --start %s\n", shape.interval_s, start);
	}
	rec_reader_close(r);
	return rc;
}
