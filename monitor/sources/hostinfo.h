/* hostinfo.h - host ground truth: /proc/diskstats, /proc/vmstat and /proc/stat.
 *
 * Contract: readers take a proc root ("/proc" live, a fixture tree in tests) and return
 * cumulative kernel counters converted to bytes (diskstats sectors are 512 bytes;
 * vmstat pgpgin/pgpgout are KiB). Return 0, or -1 with errno set when the file cannot
 * be read or holds nothing usable.
 */
#ifndef XIOTOP_HOSTINFO_H
#define XIOTOP_HOSTINFO_H

#include <stddef.h>
#include <stdint.h>

struct host_diskstat {
	uint32_t dev; /* kernel dev_t */
	char name[32];
	uint64_t rd_ios, rd_bytes, wr_ios, wr_bytes;
	uint64_t rd_merges, wr_merges; /* bios merged into a request diskstats counts once */
	uint64_t in_flight;            /* requests in progress now (0 when the line has none) */
};

/* Reads every line; *out is malloc'ed (free it). */
int host_read_diskstats(const char *proc_root, struct host_diskstat **out, size_t *n);
int host_read_vmstat(const char *proc_root, uint64_t *pgpgin_kb, uint64_t *pgpgout_kb);
/* CPU time of all CPUs from the "cpu" line of /proc/stat, in ns: busy (user, nice,
 * system, irq, softirq; guest time is inside user), of it interrupt time (irq, softirq),
 * and apart steal (time the hypervisor gave other domains while this one wanted to run:
 * not dom0's work, and no task's runtime holds it). */
struct host_cpu_times {
	uint64_t busy_ns, irq_ns, steal_ns;
};
int host_read_cpu(const char *proc_root, struct host_cpu_times *out);

#endif
