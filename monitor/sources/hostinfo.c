/* hostinfo.c - /proc/diskstats and /proc/vmstat readers; see hostinfo.h. */
#include "sources/hostinfo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *open_proc(const char *proc_root, const char *file)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", proc_root ? proc_root : "/proc", file);
	return fopen(path, "re");
}

int host_read_diskstats(const char *proc_root, struct host_diskstat **out, size_t *n)
{
	FILE *f = open_proc(proc_root, "diskstats");
	*out = NULL;
	*n = 0;
	if (!f)
		return -1;
	size_t cap = 0;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		unsigned int major, minor;
		char name[32];
		uint64_t rd_ios, rd_merges, rd_sectors, rd_ms, wr_ios, wr_merges, wr_sectors, wr_ms,
		    in_flight = 0;
		/* fields 1-10 of Documentation/admin-guide/iostats.rst, and 11-12 (write time, I/Os
		 * in progress) where the line has them; later ones vary */
		int got = sscanf(line,
		                 "%u %u %31s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		                 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		                 &major, &minor, name, &rd_ios, &rd_merges, &rd_sectors, &rd_ms,
		                 &wr_ios, &wr_merges, &wr_sectors, &wr_ms, &in_flight);
		if (got < 10)
			continue;
		if (got < 12)
			in_flight = 0;
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			struct host_diskstat *p = realloc(*out, cap * sizeof(*p));
			if (!p) {
				fclose(f);
				free(*out);
				*out = NULL;
				*n = 0;
				errno = ENOMEM;
				return -1;
			}
			*out = p;
		}
		struct host_diskstat *d = &(*out)[(*n)++];
		d->dev = (major << 20) | minor;
		snprintf(d->name, sizeof(d->name), "%s", name);
		d->rd_ios = rd_ios;
		d->rd_bytes = rd_sectors * 512;
		d->wr_ios = wr_ios;
		d->wr_bytes = wr_sectors * 512;
		d->rd_merges = rd_merges;
		d->in_flight = in_flight;
		d->wr_merges = wr_merges;
	}
	fclose(f);
	if (!*n) {
		errno = ENODATA;
		return -1;
	}
	return 0;
}

int host_read_vmstat(const char *proc_root, uint64_t *pgpgin_kb, uint64_t *pgpgout_kb)
{
	FILE *f = open_proc(proc_root, "vmstat");
	if (!f)
		return -1;
	char key[64];
	uint64_t val;
	int found = 0;
	while (fscanf(f, "%63s %" SCNu64, key, &val) == 2) {
		if (!strcmp(key, "pgpgin")) {
			*pgpgin_kb = val;
			found |= 1;
		} else if (!strcmp(key, "pgpgout")) {
			*pgpgout_kb = val;
			found |= 2;
		}
	}
	fclose(f);
	if (found != 3) {
		errno = ENODATA;
		return -1;
	}
	return 0;
}

int host_read_cpu(const char *proc_root, struct host_cpu_times *out)
{
	FILE *f = open_proc(proc_root, "stat");
	if (!f)
		return -1;
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal = 0;
	int n = fscanf(f,
	               "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
	               " %" SCNu64 " %" SCNu64,
	               &user, &nice, &system, &idle, &iowait, &irq, &softirq, &steal);
	fclose(f);
	if (n < 7) {
		errno = ENODATA;
		return -1;
	}
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t tick_ns = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	out->busy_ns = (user + nice + system + irq + softirq) * tick_ns;
	out->irq_ns = (irq + softirq) * tick_ns;
	out->steal_ns = steal * tick_ns;
	return 0;
}
