/* proc_stat.c - a process's start time from /proc/PID/stat; see proc_stat.h. */
#include "sources/proc_stat.h"

#include <stdio.h>
#include <string.h>

int proc_start_ticks(const char *proc, int pid, unsigned long long *ticks)
{
	char path[256], buf[1024];
	snprintf(path, sizeof(path), "%s/%d/stat", proc ? proc : "/proc", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: fields resume after the last ')' */
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	int field = 2;
	for (p++; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	return sscanf(p, "%llu", ticks) == 1 ? 0 : -1;
}
