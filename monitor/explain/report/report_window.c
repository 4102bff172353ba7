/* report_window.c - what every format says of the window itself: the host line, and which
 * domains a table shows with which of their figures known. See report.h. */
#include <stdio.h>
#include <string.h>

#include "core/figures.h"
#include "core/sanitize.h"
#include "explain/report/report.h"

/* fmt with the value, or `none` when the recording does not hold it ("") */
static size_t put(char *buf, size_t len, size_t used, const char *fmt, const char *value,
                  const char *none)
{
	if (used >= len)
		return used;
	int n = value[0] ? snprintf(buf + used, len - used, fmt, value)
	                 : snprintf(buf + used, len - used, "%s", none);
	return n > 0 ? used + (size_t)n : used;
}

void report_host_line(const struct explain *ex, char *buf, size_t len)
{
	const struct ex_host *h = &ex->host;
	char kernel[300], cpus[32] = "", mem[32] = "";
	sanitize_text(h->kernel, kernel, sizeof(kernel));
	if (h->cpu_count > 0)
		snprintf(cpus, sizeof(cpus), "%ld", h->cpu_count);
	if (h->mem_total_kb)
		snprintf(mem, sizeof(mem), "%.1f GiB", (double)h->mem_total_kb / 1048576.0);
	size_t used = 0;
	buf[0] = '\0';
	used = put(buf, len, used, "kernel %s", kernel, "kernel not recorded");
	used = put(buf, len, used, ", %s CPUs", cpus, ", CPUs not recorded");
	used = put(buf, len, used, ", dom0 memory %s", mem, ", dom0 memory not recorded");
	used = put(buf, len, used, ", vm.dirty_ratio %s", h->dirty_ratio,
	           ", vm.dirty_ratio not recorded");
	used = put(buf, len, used, ", vm.dirty_background_ratio %s", h->dirty_background_ratio,
	           ", vm.dirty_background_ratio not recorded");
	if (!h->absent || (kernel[0] && cpus[0] && mem[0]))
		return;
	/* an import: what gives the facts its logs lack */
	snprintf(buf + used, len > used ? len - used : 0,
	         " (no log holds the kernel or the vm.dirty_* sysctls%s%s)",
	         cpus[0] ? "" : "; xiotop import --cpus N, or iostat's header, gives the CPUs",
	         mem[0] ? "" : "; xentop's Domain-0 MEM(k) gives dom0's memory");
}

bool report_domain_shown(const struct explain *ex, const struct ex_domain *d)
{
	return d->io.guest_wr_bytes + d->io.guest_rd_bytes + d->io.phys_wr_bytes +
	           d->io.phys_rd_bytes + d->cpu_ns ||
	       (ex->host.absent && (d->guest_cpu_known || d->mem_bytes));
}

struct report_known report_known(const struct explain *ex, const struct ex_domain *d)
{
	const struct ex_host *h = &ex->host;
	return (struct report_known){
	    .guest = figure_held(FIG_GUEST_WR_BYTES, h->absent),
	    .stack = figure_held(FIG_PHYS_WR_BYTES, h->absent),
	    /* no dirty counter follows dom0's own files (the dom0 subject) */
	    .dirty = (h->has_dirty || !h->absent) && !d->dom0_subject,
	    .cpu = h->has_cpu || d->dom0_subject,
	};
}
