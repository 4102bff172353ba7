/* rec_registry.c - the running recorder's file, for `xiotop mark`; see rec_registry.h. */
#include "record/rec_registry.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/rec_internal.h"

static const char *run_dir(void)
{
	const char *d = getenv("XIOTOP_RUNTIME_DIR");
	return d && d[0] ? d : "/run/xiotop";
}

const char *rec_registry_dir(void)
{
	return run_dir();
}

static void registry_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/recorder", run_dir());
}

int rec_registry_publish(const char *recording, char *why, size_t whylen)
{
	char abs[PATH_MAX], reg[PATH_MAX], tmp[PATH_MAX + 32];
	if (!realpath(recording, abs)) {
		snprintf(why, whylen, "%s: %s", recording, strerror(errno));
		return -1;
	}
	if (mkdir(run_dir(), 0755) && errno != EEXIST) {
		snprintf(why, whylen, "cannot create %s: %s", run_dir(), strerror(errno));
		return -1;
	}
	registry_path(reg, sizeof(reg));
	snprintf(tmp, sizeof(tmp), "%s.%d", reg, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "%d %s\n", (int)getpid(), abs);
	bool ok = fclose(f) == 0;
	if (!ok || rename(tmp, reg)) {
		snprintf(why, whylen, "cannot write %s: %s", reg, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Reads "PID PATH". 0 or -1 (errno-style reason in err). */
static int read_registry(int *pid, char *path, size_t len, struct xerr *err)
{
	char reg[PATH_MAX];
	registry_path(reg, sizeof(reg));
	FILE *f = fopen(reg, "r");
	if (!f) {
		rec_set_error(err, REC_ERR_IO,
		              "no running recorder found (%s: %s); give the recording with -o FILE",
		              reg, strerror(errno));
		return -1;
	}
	char line[PATH_MAX + 32];
	bool ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	char *sp = ok ? strchr(line, ' ') : NULL;
	if (!sp || sscanf(line, "%d", pid) != 1 || *pid <= 0) {
		rec_set_error(err, REC_ERR_IO, "%s is not a recorder registration", reg);
		return -1;
	}
	sp[strcspn(sp, "\n")] = 0;
	snprintf(path, len, "%s", sp + 1);
	return 0;
}

void rec_registry_withdraw(void)
{
	char path[PATH_MAX], reg[PATH_MAX];
	int pid;
	if (read_registry(&pid, path, sizeof(path), NULL) == 0 && pid == (int)getpid()) {
		registry_path(reg, sizeof(reg));
		unlink(reg);
	}
}

int rec_registry_find(char *path, size_t len, struct xerr *err)
{
	int pid;
	if (read_registry(&pid, path, len, err))
		return -1;
	if (kill(pid, 0) && errno == ESRCH) {
		rec_set_error(err, REC_ERR_IO,
		              "the last recorder (pid %d, %s) is gone; give the recording with -o "
		              "FILE",
		              pid, path);
		return -1;
	}
	return 0;
}

int rec_registry_mark(const char *label, int64_t realtime_ns, const char *origin, char *path,
                      size_t len, struct xerr *err)
{
	if (rec_registry_find(path, len, err))
		return 0;
	return rec_mark_file(path, label, realtime_ns, origin, err) ? -1 : 1;
}
