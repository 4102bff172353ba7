/* import_iostat.h - `iostat -dx N` text (sysstat, with or without -t; -k, -m or sectors)
 * and NetBSD's `iostat -x N` into reports of per-device byte rates.
 *
 * Contract: imp_iostat_parse() is pure over a buffer. sysstat: columns by header name
 * (rkB/s wkB/s, or rMB/s wMB/s, or rsec/s wsec/s of old sysstat), a report per "Device"
 * header, its time from the line above it with -t (MM/DD/YY[YY] HH:MM:SS [AM|PM], or
 * ISO 8601 with S_TIME_FORMAT=ISO; dom0's local time, read with the importing process's
 * TZ), the CPU count from the banner's "(N CPU)"; avg-cpu sections are skipped. NetBSD:
 * the header "device read KB/t r/s time MB/s write KB/t w/s time MB/s" (reads then
 * writes; MB/s with two decimals: 10 KiB/s resolution), no times, reports not separated:
 * a report ends where a device name repeats. The first report is the average since boot
 * (both tools' documentation): kept as reports[0] with since_boot set.
 * Which devices are leaves (physical: host disk truth), imp_iostat_is_leaf(): not a
 * stacked kind (Linux loop*, dm-*, md*; NetBSD vnd*, dk*, cgd*, raid*, ccd*, dm*; zram is a
 * leaf, as the live collector has it: nothing lies below it)
 * and not a partition of another listed device (sda1 of sda, nvme0n1p1 of nvme0n1), so
 * no byte is counted twice. A last report with fewer devices than the one before, or a
 * last line cut without its newline, is dropped and said in note.
 */
#ifndef XIOTOP_IMPORT_IOSTAT_H
#define XIOTOP_IMPORT_IOSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "import/import_text.h"

struct imp_io_dev {
	char name[32]; /* raw: escape before showing */
	double rd_Bps, wr_Bps;
	double rd_iops, wr_iops; /* r/s, w/s; 0 if the layout has none */
};

struct imp_io_report {
	unsigned line;
	bool since_boot;
	int64_t time_ns; /* -t; -1 none */
	struct imp_io_dev *devs;
	size_t n;
};

struct imp_iostat {
	struct imp_io_report *reports;
	size_t n;
	bool netbsd;
	bool has_time;
	long cpu_count; /* sysstat's banner; 0 unknown */
	char note[256];
};

int imp_iostat_parse(const char *file, const char *buf, size_t len, struct imp_iostat *out,
                     struct xerr *err);
void imp_iostat_free(struct imp_iostat *io);
/* Is names[i] a leaf among the n names of a report (see above)? */
bool imp_iostat_is_leaf(const char *const *names, size_t n, size_t i);

#endif
