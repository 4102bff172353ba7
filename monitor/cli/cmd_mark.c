/* cmd_mark.c - `xiotop mark [-o FILE] LABEL`: a labelled instant in a recording, from
 * another shell. The mark is written straight into the SQLite file (WAL: the recorder
 * is not disturbed and needs no channel of its own); without -o the file is the one the
 * running recorder registered (rec_registry.h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "record/rec_registry.h"
#include "record/record.h"
#include "cli/commands.h"
#include "core/sanitize.h"

int cmd_mark(int argc, char **argv)
{
	struct cli_opts o;
	cli_defaults(&o);
	int rc = cli_parse(CMD_MARK, argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.n_args != 1 || !o.args[0][0])
		return cli_bad_usage(CMD_MARK, "give one non-empty LABEL (quote it)");
	const char *file = o.output;
	const char *label = o.args[0];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t t = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	struct xerr err;
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
	char shown[300], ts[32], file_shown[1024];
	sanitize_text(label, shown, sizeof(shown));
	sanitize_text(file, file_shown, sizeof(file_shown));
	struct tm tm;
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	printf("mark \"%s\" at %s.%03ldZ in %s\n", shown, ts, now.tv_nsec / 1000000, file_shown);
	return 0;
}
