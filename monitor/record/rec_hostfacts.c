/* rec_hostfacts.c - the host facts a recording keeps (kernel, CPUs, dom0 memory,
 * vm.dirty_* sysctls), read from a proc root; see record.h. These decide how much dom0
 * page cache can hide a benchmark's writes, which is what explain reasons about later. */
#include "record/record.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const dirty_sysctls[REC_DIRTY_SYSCTLS] = {
    "vm.dirty_ratio",
    "vm.dirty_background_ratio",
    "vm.dirty_bytes",
    "vm.dirty_background_bytes",
    "vm.dirty_expire_centisecs",
    "vm.dirty_writeback_centisecs",
};

/* First line of proc_root/rel without its newline; "" if unreadable. */
static void read_line(const char *proc_root, const char *rel, char *out, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", proc_root, rel);
	out[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

static long count_cpus(const char *proc_root)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/stat", proc_root);
	FILE *f = fopen(path, "r");
	if (!f)
		return sysconf(_SC_NPROCESSORS_ONLN);
	char line[512];
	long n = 0;
	/* "cpuN ..." lines: the CPUs dom0 runs on, as /proc/stat (and its busy time) sees. */
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu", 3) && line[3] >= '0' && line[3] <= '9')
			n++;
	fclose(f);
	return n;
}

static unsigned long long mem_total_kb(const char *proc_root)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/meminfo", proc_root);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[256];
	unsigned long long kb = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

void rec_host_facts_read(const char *proc_root, struct rec_host_facts *f)
{
	memset(f, 0, sizeof(*f));
	read_line(proc_root, "sys/kernel/hostname", f->hostname, sizeof(f->hostname));
	read_line(proc_root, "sys/kernel/osrelease", f->kernel_release, sizeof(f->kernel_release));
	f->cpu_count = count_cpus(proc_root);
	f->mem_total_kb = mem_total_kb(proc_root);
	for (int i = 0; i < REC_DIRTY_SYSCTLS; i++) {
		char rel[64];
		f->dirty[i].name = dirty_sysctls[i];
		snprintf(rel, sizeof(rel), "sys/vm/%s", dirty_sysctls[i] + 3);
		read_line(proc_root, rel, f->dirty[i].value, sizeof(f->dirty[i].value));
	}
}
