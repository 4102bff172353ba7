/* figures.c - the figure table; see figures.h. */
#include "core/figures.h"

#include <stddef.h>
#include <string.h>

/* A figure's value function: an expression of the interval m and the domain d. */
#define VALUE(fn, expr)                                                                            \
	static uint64_t fn(const struct model_interval *m, const struct model_domain *d)           \
	{                                                                                          \
		(void)m;                                                                           \
		(void)d;                                                                           \
		return (expr);                                                                     \
	}

static struct model_host_totals totals_of(const struct model_interval *m)
{
	struct model_host_totals t;
	model_host_totals(m, &t);
	return t;
}

VALUE(domid, d->domid)
VALUE(guest_rd_bytes, d->guest_rd_bytes)
VALUE(guest_wr_bytes, d->guest_wr_bytes)
VALUE(guest_rd_ios, d->guest_rd_ios)
VALUE(guest_wr_ios, d->guest_wr_ios)
VALUE(phys_rd_bytes, d->phys_rd_bytes)
VALUE(phys_wr_bytes, d->phys_wr_bytes)
VALUE(double_counted_bytes, d->double_counted_bytes)
VALUE(dom0_cpu_ns, d->cpu_ns)
VALUE(guest_cpu_ns, d->guest_cpu_ns > 0 ? (uint64_t)d->guest_cpu_ns : 0)
VALUE(dirty_backlog_bytes, d->dirty_backlog_bytes)
VALUE(dirtied_bytes, d->dirtied_bytes)
VALUE(written_back_bytes, d->written_back_bytes)
VALUE(pgpgout_bytes, m->pgpgout_bytes)
VALUE(pgpgin_bytes, m->pgpgin_bytes)
VALUE(disks_rd_bytes, totals_of(m).disk_rd_bytes)
VALUE(disks_wr_bytes, totals_of(m).disk_wr_bytes)
VALUE(double_counted_total, totals_of(m).double_counted_bytes)
VALUE(host_busy_ns, m->host_busy_ns)
VALUE(host_irq_ns, m->host_irq_ns)
VALUE(host_steal_ns, m->host_steal_ns)
VALUE(unattributed_rd_bytes, m->unattr_rd_bytes)
VALUE(unattributed_wr_bytes, m->unattr_wr_bytes)
VALUE(unattributed_cpu_ns, m->cpu_unattributed_ns)
VALUE(dom0_own_cpu_ns, model_dom0_own_cpu_ns(m))
VALUE(lost_events, m->lost_events)

/* what only the tracer attributes: the layers below each guest, the unattributed bytes */
#define STACK XIO_ABSENT_STACK
#define GUEST XIO_ABSENT_GUEST_IO

static const char read_help[] = "Bytes read for the domain: at its backend (guest) or at physical "
                                "devices (physical).";
static const char written_help[] = "Bytes written for the domain: at its backend (guest) or at "
                                   "physical devices (physical).";

static const struct figure table[] = {
    [FIG_DOMID] = {.form = FORM_TEXT,
                   .meaning = "domain id",
                   .header = "DOMID",
                   .key = "domid",
                   .flags = FIGURE_CSV,
                   .value = domid},
    [FIG_NAME] = {.form = FORM_TEXT,
                  .meaning = "domain name (escaped if it holds control characters)",
                  .header = "NAME",
                  .key = "name",
                  .flags = FIGURE_CSV},
    [FIG_KIND] = {.form = FORM_TEXT,
                  .meaning = "backend kind (vbd, qdisk, mixed); ! a backend is missing",
                  .header = "KIND",
                  .key = "kind"},
    [FIG_MISSING] = {.form = FORM_TEXT,
                     .meaning = "a backend of the domain could not be resolved",
                     .key = "missing"},
    [FIG_GUEST_RD_BYTES] = {.form = FORM_COUNT,
                            .meaning = "guest reads: bytes at the top of its stack",
                            .unit = "bytes",
                            .absent = GUEST,
                            .flags = FIGURE_CSV,
                            .header = "GRD_MB/s",
                            .key = "guest_rd_bytes",
                            .metric = {"xiotop_domain_read_bytes", read_help, "layer", "guest"},
                            .value = guest_rd_bytes},
    [FIG_GUEST_WR_BYTES] = {.form = FORM_COUNT,
                            .meaning = "guest writes: bytes at the top of its stack",
                            .unit = "bytes",
                            .absent = GUEST,
                            .flags = FIGURE_CSV,
                            .header = "GWR_MB/s",
                            .key = "guest_wr_bytes",
                            .metric = {"xiotop_domain_written_bytes", written_help, "layer",
                                       "guest"},
                            .value = guest_wr_bytes},
    [FIG_GUEST_RD_IOS] = {.form = FORM_COUNT,
                          .meaning = "guest read requests per second",
                          .unit = "requests",
                          .absent = GUEST,
                          .flags = FIGURE_CSV,
                          .header = "R_IOPS",
                          .key = "guest_rd_ios",
                          .value = guest_rd_ios},
    [FIG_GUEST_WR_IOS] = {.form = FORM_COUNT,
                          .meaning = "guest write requests per second",
                          .unit = "requests",
                          .absent = GUEST,
                          .flags = FIGURE_CSV,
                          .header = "W_IOPS",
                          .key = "guest_wr_ios",
                          .value = guest_wr_ios},
    [FIG_PHYS_RD_BYTES] = {.form = FORM_COUNT,
                           .meaning = "bytes read from physical (leaf) devices for it",
                           .unit = "bytes",
                           .absent = STACK,
                           .flags = FIGURE_CSV,
                           .key = "phys_rd_bytes",
                           .metric = {"xiotop_domain_read_bytes", read_help, "layer", "physical"},
                           .value = phys_rd_bytes},
    [FIG_PHYS_WR_BYTES] = {.form = FORM_COUNT,
                           .meaning = "bytes written to physical (leaf) devices for it",
                           .unit = "bytes",
                           .absent = STACK,
                           .flags = FIGURE_CSV,
                           .header = "PWR_MB/s",
                           .key = "phys_wr_bytes",
                           .metric = {"xiotop_domain_written_bytes", written_help, "layer",
                                      "physical"},
                           .value = phys_wr_bytes},
    [FIG_DOUBLE_COUNTED_BYTES] = {.form = FORM_COUNT,
                                  .meaning = "what vmstat bo counts beyond the physical writes",
                                  .unit = "bytes",
                                  .absent = STACK,
                                  .flags = FIGURE_CSV,
                                  .header = "DBL_MB/s",
                                  .key = "double_counted_bytes",
                                  .metric = {"xiotop_domain_double_counted_bytes",
                                             "Bytes vmstat pgpgout counted for the domain beyond "
                                             "its physical writes (a file-backed loop device "
                                             "submits each write twice)."},
                                  .value = double_counted_bytes},
    [FIG_DOM0_CPU_NS] = {.form = FORM_COUNT,
                         .meaning = "dom0 CPU spent for it (100 = one core)",
                         .unit = "ns",
                         .needs = NEED_CPU,
                         .header = "CPU%",
                         .key = "dom0_cpu_ns",
                         .value = dom0_cpu_ns},
    [FIG_DOM0_CPU_NS_BY_ROLE] = {.form = FORM_RECORD,
                                 .meaning = "dom0 CPU spent for it by role: backend threads, "
                                            "device model, loop workers, writeback",
                                 .unit = "ns",
                                 .needs = NEED_CPU,
                                 .key = "dom0_cpu_ns_by_role",
                                 .metric = {"xiotop_domain_dom0_cpu_seconds",
                                            "dom0 CPU time spent for the domain, by role: backend "
                                            "threads, device model, loop workers, writeback "
                                            "(apportioned by bytes written back).",
                                            "role", NULL}},
    [FIG_GUEST_CPU_NS] = {.form = FORM_COUNT,
                          .meaning = "the guest's own vCPU time (100 = one vCPU), where known",
                          .unit = "ns",
                          .needs = NEED_GUEST_CPU,
                          .header = "GCPU%",
                          .key = "guest_cpu_ns",
                          .value = guest_cpu_ns},
    [FIG_DIRTY_BACKLOG_BYTES] = {.form = FORM_GAUGE,
                                 .meaning = "written into dom0 page cache, not yet written back",
                                 .unit = "bytes",
                                 .needs = NEED_DIRTY,
                                 .header = "DIRTY_MiB",
                                 .key = "dirty_backlog_bytes",
                                 .metric = {"xiotop_domain_dirty_backlog_bytes",
                                            "dom0 page cache the domain dirtied that is not yet "
                                            "written back."},
                                 .value = dirty_backlog_bytes},
    [FIG_DIRTIED_BYTES] = {.form = FORM_COUNT,
                           .meaning = "written into dom0 page cache for it",
                           .unit = "bytes",
                           .needs = NEED_DIRTY,
                           .key = "dirtied_bytes",
                           .value = dirtied_bytes},
    [FIG_WRITTEN_BACK_BYTES] = {.form = FORM_COUNT,
                                .meaning = "of its dirty page cache, written back",
                                .unit = "bytes",
                                .needs = NEED_DIRTY,
                                .key = "written_back_bytes",
                                .value = written_back_bytes},
    [FIG_LAYERS] = {.form = FORM_RECORD,
                    .meaning = "the devices and file of its stack with their bytes",
                    .unit = "bytes",
                    .key = "layers"},
    [FIG_VBD_STATS] = {.form = FORM_RECORD,
                       .meaning = "blkback's own per-vbd counters beside xiotop's bytes",
                       .unit = "bytes",
                       .needs = NEED_VBD,
                       .key = "vbd_stats"},
    [FIG_IO_LATENCY] = {.form = FORM_RECORD,
                        .meaning = "I/O latency by op at its guest-visible layer (--latency)",
                        .unit = "ns",
                        .needs = NEED_LATENCY,
                        .key = "io_latency",
                        .metric = {"xiotop_domain_io_latency_seconds",
                                   "I/O latency of the domain at its guest-visible layer (its "
                                   "backend device from queue to completion, or its device "
                                   "model's file syscalls), by op (--latency).",
                                   "op", NULL}},
    [FIG_AMPLIFICATION] = {.form = FORM_SCREEN,
                           .meaning = "amplification: physical / guest writes",
                           .absent = STACK,
                           .header = "AMPL"},
    [FIG_DOM0_CPU_SINCE_START] = {.form = FORM_SCREEN,
                                  .meaning = "dom0 CPU seconds for it since xiotop started",
                                  .unit = "ns",
                                  .needs = NEED_CPU,
                                  .header = "CPU_s"},
    [FIG_LATENCY_P50] = {.form = FORM_SCREEN,
                         .meaning = "median I/O latency, reads and writes (--latency)",
                         .unit = "ns",
                         .needs = NEED_LATENCY,
                         .header = "P50_ms"},
    [FIG_LATENCY_P99] = {.form = FORM_SCREEN,
                         .meaning = "99th percentile I/O latency, reads and writes (--latency)",
                         .unit = "ns",
                         .needs = NEED_LATENCY,
                         .header = "P99_ms"},
    [FIG_VMSTAT_PGPGOUT_BYTES] = {.scope = FIGURE_HOST,
                                  .form = FORM_COUNT,
                                  .json = "host.vmstat_pgpgout_bytes",
                                  .meaning = "/proc/vmstat pgpgout, in bytes (vmstat bo)",
                                  .unit = "bytes",
                                  .absent = XIO_ABSENT_VMSTAT,
                                  .flags = FIGURE_CSV,
                                  .header = "vmstat bo",
                                  .key = "vmstat_pgpgout_bytes",
                                  .metric = {"xiotop_host_vmstat_pgpgout_bytes",
                                             "/proc/vmstat pgpgout, in bytes."},
                                  .value = pgpgout_bytes},
    [FIG_VMSTAT_PGPGIN_BYTES] = {.scope = FIGURE_HOST,
                                 .form = FORM_COUNT,
                                 .json = "host.vmstat_pgpgin_bytes",
                                 .meaning = "/proc/vmstat pgpgin, in bytes (vmstat bi)",
                                 .unit = "bytes",
                                 .absent = XIO_ABSENT_VMSTAT,
                                 .key = "vmstat_pgpgin_bytes",
                                 .metric = {"xiotop_host_vmstat_pgpgin_bytes",
                                            "/proc/vmstat pgpgin, in bytes."},
                                 .value = pgpgin_bytes},
    [FIG_DISKS] = {.scope = FIGURE_HOST,
                   .form = FORM_RECORD,
                   .json = "host.disks",
                   .meaning = "each leaf (physical) device's bytes, from /proc/diskstats",
                   .unit = "bytes",
                   .absent = XIO_ABSENT_DISKS,
                   .key = "disks"},
    [FIG_DISKS_RD_BYTES] = {.scope = FIGURE_HOST,
                            .form = FORM_COUNT,
                            .json = "host.disks[].rd_bytes",
                            .meaning = "bytes read from the leaf devices (per device in disks)",
                            .unit = "bytes",
                            .absent = XIO_ABSENT_DISKS,
                            .header = "disks rd",
                            .metric = {"xiotop_host_disk_read_bytes",
                                       "Bytes read from a physical device (/proc/diskstats).",
                                       "device", NULL},
                            .value = disks_rd_bytes},
    [FIG_DISKS_WR_BYTES] = {.scope = FIGURE_HOST,
                            .form = FORM_COUNT,
                            .json = "host.disks[].wr_bytes",
                            .meaning = "bytes written to the leaf devices (per device in disks)",
                            .unit = "bytes",
                            .absent = XIO_ABSENT_DISKS,
                            .header = "wr",
                            .metric = {"xiotop_host_disk_written_bytes",
                                       "Bytes written to a physical device (/proc/diskstats).",
                                       "device", NULL},
                            .value = disks_wr_bytes},
    [FIG_DOUBLE_COUNTED_TOTAL] = {.scope = FIGURE_HOST,
                                  .form = FORM_COUNT,
                                  .meaning = "all domains' double-counted bytes",
                                  .unit = "bytes",
                                  .absent = STACK,
                                  .header = "double",
                                  .value = double_counted_total},
    [FIG_HOST_BUSY_NS] = {.scope = FIGURE_HOST,
                          .form = FORM_COUNT,
                          .json = "host.dom0_cpu_busy_ns",
                          .meaning = "dom0 non-idle CPU time but steal, all CPUs (/proc/stat)",
                          .unit = "ns",
                          .needs = NEED_CPU,
                          .header = "dom0 CPU",
                          .key = "dom0_cpu_busy_ns",
                          .metric = {"xiotop_host_dom0_cpu_busy_seconds",
                                     "dom0 non-idle CPU time, all CPUs, steal not included."},
                          .value = host_busy_ns},
    [FIG_UNATTRIBUTED_RD_BYTES] = {.scope = FIGURE_HOST,
                                   .form = FORM_COUNT,
                                   .json = "unattributed.rd_bytes",
                                   .meaning = "bytes dom0 read for no domain",
                                   .unit = "bytes",
                                   .absent = STACK,
                                   .key = "unattributed_rd_bytes",
                                   .metric = {"xiotop_unattributed_read_bytes",
                                              "Bytes read by dom0 for no domain."},
                                   .value = unattributed_rd_bytes},
    [FIG_UNATTRIBUTED_WR_BYTES] = {.scope = FIGURE_HOST,
                                   .form = FORM_COUNT,
                                   .json = "unattributed.wr_bytes",
                                   .meaning = "bytes dom0 wrote for no domain (bios vmstat "
                                              "counts)",
                                   .unit = "bytes",
                                   .absent = STACK,
                                   .flags = FIGURE_CSV,
                                   .header = "unattr",
                                   .key = "unattributed_wr_bytes",
                                   .metric = {"xiotop_unattributed_written_bytes",
                                              "Bytes written by dom0 for no domain (bios vmstat "
                                              "counts)."},
                                   .value = unattributed_wr_bytes},
    [FIG_UNATTRIBUTED_CPU_NS] = {.scope = FIGURE_HOST,
                                 .form = FORM_COUNT,
                                 .json = "unattributed_cpu_ns",
                                 .meaning = "dom0 CPU charged to no domain",
                                 .unit = "ns",
                                 .needs = NEED_CPU,
                                 .key = "unattributed_cpu_ns",
                                 .metric = {"xiotop_unattributed_dom0_cpu_seconds",
                                            "dom0 CPU time charged to no domain."},
                                 .value = unattributed_cpu_ns},
    [FIG_DOM0_OWN_CPU_NS] = {.scope = FIGURE_HOST,
                             .form = FORM_COUNT,
                             .json = "dom0_own_cpu_ns",
                             .meaning = "dom0's own CPU: busy time beyond what is charged to a "
                                        "domain or left unattributed",
                             .unit = "ns",
                             .needs = NEED_CPU,
                             .key = "dom0_own_cpu_ns",
                             .metric = {"xiotop_host_dom0_own_cpu_seconds",
                                        "dom0 CPU time for its own work: busy time not charged "
                                        "to a domain nor unattributed."},
                             .value = dom0_own_cpu_ns},
    [FIG_LOST_EVENTS] = {.scope = FIGURE_HOST,
                         .form = FORM_COUNT,
                         .json = "lost_events",
                         .meaning = "events not counted because a tracer map was full",
                         .unit = "events",
                         .flags = FIGURE_CSV,
                         .header = "lost",
                         .key = "lost_events",
                         .metric = {"xiotop_lost_events",
                                    "Events not counted because a tracer map was full."},
                         .value = lost_events},
    /* host-wide: /proc/stat does not say which domain's completion an interrupt ran */
    [FIG_HOST_IRQ_NS] = {.scope = FIGURE_HOST,
                         .form = FORM_COUNT,
                         .json = "host.dom0_irq_ns",
                         .meaning = "of dom0's busy time, hard and soft interrupts, all CPUs "
                                    "(/proc/stat irq + softirq ticks; without "
                                    "IRQ_TIME_ACCOUNTING also in the interrupted tasks' CPU)",
                         .unit = "ns",
                         .absent = XIO_ABSENT_HOST_CPU,
                         .flags = FIGURE_CSV,
                         .header = "irq",
                         .key = "dom0_irq_ns",
                         .metric = {"xiotop_host_dom0_irq_seconds",
                                    "dom0 CPU time in hard and soft interrupts, all CPUs "
                                    "(/proc/stat irq + softirq)."},
                         .value = host_irq_ns},
    [FIG_HOST_STEAL_NS] = {.scope = FIGURE_HOST,
                           .form = FORM_COUNT,
                           .json = "host.steal_ns",
                           .meaning = "steal: time the hypervisor gave other domains while dom0 "
                                      "wanted to run, all CPUs (/proc/stat; not dom0's busy time)",
                           .unit = "ns",
                           .absent = XIO_ABSENT_HOST_CPU,
                           .flags = FIGURE_CSV,
                           .header = "steal",
                           .key = "steal_ns",
                           .metric = {"xiotop_host_steal_seconds",
                                      "Time the hypervisor ran other domains while dom0 wanted "
                                      "to run, all CPUs (/proc/stat steal)."},
                           .value = host_steal_ns},
    /* figures no code names by id: their entry is all it takes */
};
#define N_FIGURES ((int)(sizeof(table) / sizeof(table[0])))
_Static_assert(N_FIGURES <= FIGURE_MAX, "FIGURE_MAX holds every figure");

int figure_count(void)
{
	return N_FIGURES;
}

const struct figure *figure_get(enum figure_id id)
{
	return (unsigned)id < (unsigned)N_FIGURES ? &table[id] : &table[0];
}

unsigned figure_collected(const struct model_interval *m)
{
	return (m->has_cpu ? NEED_CPU : 0) | (m->has_dirty ? NEED_DIRTY : 0) |
	       (m->has_vbd_stats ? NEED_VBD : 0) | (m->has_latency ? NEED_LATENCY : 0);
}

bool figure_present(enum figure_id id, const struct model_interval *m)
{
	unsigned lacking = (NEED_VBD | NEED_LATENCY) & ~figure_collected(m);
	return !(figure_get(id)->needs & lacking);
}

bool figure_known_with(enum figure_id id, uint32_t absent, unsigned collected,
                       const struct model_domain *d)
{
	const struct figure *f = figure_get(id);
	if (absent & f->absent)
		return false;
	if ((f->needs & NEED_GUEST_CPU) && !(d && d->guest_cpu_ns >= 0))
		return false;
	return !(f->needs & ~NEED_GUEST_CPU & ~collected);
}

bool figure_known(enum figure_id id, const struct model_interval *m, const struct model_domain *d)
{
	return figure_known_with(id, m->absent, figure_collected(m), d);
}

uint64_t figure_value(enum figure_id id, const struct model_interval *m,
                      const struct model_domain *d)
{
	const struct figure *f = figure_get(id);
	if (!f->value || (f->scope == FIGURE_DOMAIN && !d))
		return 0;
	return f->value(m, d);
}

bool figure_is_scalar(const struct figure *f)
{
	return f->form == FORM_COUNT || f->form == FORM_GAUGE;
}

const char *figure_json_name(const struct figure *f)
{
	const char *dot = f->json ? strrchr(f->json, '.') : NULL;
	return dot ? dot + 1 : f->json ? f->json : f->key;
}
