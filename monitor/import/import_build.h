/* import_build.h - parsed xentop, vmstat and iostat logs -> cumulative samples and the meta
 * facts of an imported recording, and that recording written through the recorder.
 *
 * Contract: imp_build() is pure (no I/O). Timeline: the interval is --interval, else the
 * one the -t times of vmstat/iostat show; every log with times must keep it (+-1 s, as
 * they print whole seconds), and logs with times that disagree with each other or with
 * --interval are an error naming FILE:LINE. A log without times starts at --start, else
 * where the logs with times start; without any, --start is needed. Its blocks are one
 * interval apart, but for xentop -b (its -d is a sleep after each frame, so frames come
 * later than -d says: 1.2 s apart under a loaded dom0) with fewer frames than the timed
 * logs' span holds intervals and no --start: its frames are then spread evenly over
 * that span (started and stopped with them, as the logs of one run are), said in
 * out->note. Block j of a log lands on grid step round((t_j - t0) / interval); a sample
 * is made at every step where every given log has a block (so no interval is guessed).
 * Per sample (see record/SCHEMA.md, "Imported recordings"):
 *   - per domain (xentop): Domain-0 is domid 0, the others 1, 2, ... in order of first
 *     appearance; guest_cpu_ns = CPU(sec) x 1e9 (whole seconds); with VBD_RSECT/WSECT a
 *     layer (via dev) at the domain's pseudo backend device IMP_VBD_DEV(domid):
 *     rd/wr_bytes = sectors x 512, rd/wr_ios = VBD_RD/WR; with -x its vbd_stats
 *     (libxenstat's, backend unknown); mem_bytes from MEM(k);
 *   - host_busy_ns: Domain-0's CPU(sec) x 1e9, else vmstat (us+sy)% x interval x CPUs (not
 *     st: steal is other domains' time)
 *     when the CPU count is known (--cpus or iostat's banner);
 *   - vmstat_pgpgin_kb/pgpgout_kb: bi/bo x interval, summed from the first interval on;
 *   - disks: iostat's leaf devices, rates (bytes, r/s, w/s) x interval summed, at pseudo devices
 *     IMP_DISK_DEV(i) (i: first appearance), names escaped (consumers show device names
 *     as they are); domain names stay raw, as in every recording (escaped on output);
 *   - has_cpu and has_dirty false (no tracer: no dom0 CPU by domain, no dirty pages),
 *     domains_live true with xentop (its rows are the hypervisor's domain list);
 *   - absent (enum xio_absent, imp_absent()): always the stack below the guests (no
 *     tracer: the pseudo VBD layer is the guest's bytes only, no physical or vmstat bytes
 *     by domain); guest bytes without xentop VBD_RSECT/WSECT; vmstat without bi/bo;
 *     disks without iostat.
 */
#ifndef XIOTOP_IMPORT_BUILD_H
#define XIOTOP_IMPORT_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arrays.h"
#include "core/sample.h"
#include "import/import_iostat.h"
#include "import/import_text.h"
#include "import/import_vmstat.h"
#include "import/import_xentop.h"
#include "record/record.h"

/* Block majors are below 512 (the kernel's BLKDEV_MAJOR_MAX): these never collide. */
#define IMP_VBD_MAJOR      4095u
#define IMP_DISK_MAJOR     4094u
#define IMP_VBD_DEV(domid) ((IMP_VBD_MAJOR << 20) | ((domid)&0xfffffu))
#define IMP_DISK_DEV(i)    ((IMP_DISK_MAJOR << 20) | ((i)&0xfffffu))

struct imp_logs {
	const struct imp_xentop *xentop; /* NULL: not given */
	const struct imp_vmstat *vmstat;
	const struct imp_iostat *iostat;
	const char *xentop_file, *vmstat_file, *iostat_file; /* for messages and meta */
	double interval_s;                                   /* --interval; 0 not given */
	bool has_start;
	int64_t start_ns; /* --start */
	long cpus;        /* --cpus; 0 unknown */
};

#define IMP_META_MAX 16

struct imp_result {
	struct xio_sample *samples;
	size_t n;
	struct keyed_text meta[IMP_META_MAX];
	size_t n_meta;
	long cpus;            /* what the recording's cpu_count says; 0 unknown */
	uint64_t dom0_mem_kb; /* Domain-0's MEM(k); 0 unknown */
	char note[256];       /* how the timeline was made, when the user should know; "" */
};

/* The counters every sample of these logs lacks (enum xio_absent bits). */
uint32_t imp_absent(const struct imp_logs *in);
int imp_build(const struct imp_logs *in, struct imp_result *out, struct xerr *err);
void imp_result_free(struct imp_result *r);
/* A new recording at path holding r (refusing to overwrite). 0 or -1 with err. */
int imp_write(const char *path, const struct imp_result *r, struct xerr *err);

/* ---- the timeline (import_timeline.c), used by imp_build ---- */
struct imp_timeline {
	double interval_s;
	int64_t t0_ns;  /* grid step 0 */
	size_t n_steps; /* grid steps spanned */
	long *step[3];  /* per log (xentop, vmstat, iostat), per block: its step; NULL absent */
	size_t n_blocks[3];
	const char *time_from; /* which log gave the times, or "--start" */
	char note[256];        /* a log's frames spread over the timed span (see above); "" */
};
int imp_timeline(const struct imp_logs *in, struct imp_timeline *t, struct xerr *err);
void imp_timeline_free(struct imp_timeline *t);
/* ---- the meta facts (import_meta.c), used by imp_build ---- */
void imp_build_meta(const struct imp_logs *in, const struct imp_timeline *tl, long cpus,
                    struct imp_result *out);

#endif
