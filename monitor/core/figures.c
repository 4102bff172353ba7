/* figures.c - the figure table; see figures.h. */
#include "core/figures.h"

#include <stddef.h>
#include <string.h>

/* A figure's value read from a member of the domain (DOM) or of the interval (HOST): its
 * place and width, an unsigned 32- or 64-bit member only (any other type matches no
 * _Generic association: a compile error); DERIVED: a function of the interval and the
 * domain, for a figure no member holds. */
/* clang-format off */
#define WIDTH(member) _Generic((member), uint32_t: sizeof(uint32_t), uint64_t: sizeof(uint64_t))
#define MEMBER(from, type, member) {from, offsetof(type, member), WIDTH(((type *)0)->member), NULL}
#define DOM(member)  MEMBER(FIGURE_FROM_DOMAIN, struct model_domain, member)
#define HOST(member) MEMBER(FIGURE_FROM_INTERVAL, struct model_interval, member)
#define DERIVED(f)   {FIGURE_FROM_FUNCTION, .fn = f}
#define NO_VALUE     {FIGURE_FROM_NONE, 0, 0, NULL}
/* clang-format on */

/* A derived figure's value function: an expression of the interval m and the domain d. */
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

VALUE(guest_cpu_ns, d->guest_cpu_ns > 0 ? (uint64_t)d->guest_cpu_ns : 0) /* -1: unknown */
VALUE(disks_rd_bytes, totals_of(m).disk_rd_bytes)
VALUE(disks_wr_bytes, totals_of(m).disk_wr_bytes)
VALUE(double_counted_total, totals_of(m).double_counted_bytes)
VALUE(dom0_own_cpu_ns, model_dom0_own_cpu_ns(m))

/* what only the tracer attributes: the layers below each guest, the unattributed bytes */
#define STACK XIO_ABSENT_STACK
#define GUEST XIO_ABSENT_GUEST_IO
/* the stack, and which of its devices are redundant arrays and their members */
#define ARRAYS (XIO_ABSENT_STACK | XIO_ABSENT_ARRAYS)
/* latency: timed at all (not --no-latency), and for the domain (no kind of its backends
 * left untimed by a hook not attached) */
#define LATENCY (NEED_LATENCY | NEED_TIMED)
/* the host's busy time: CPU collected, and /proc/stat read (its 0 is unknown) */
#define BUSY (NEED_CPU | NEED_HOST_BUSY)
/* one of CSV's first columns (its place kept; every figure with a key is a column) */
#define CSV_FIRST FIGURE_CSV_FIRST

static const char read_help[] = "Bytes read for the domain: at its backend (guest) or at physical "
                                "devices (physical).";
static const char written_help[] = "Bytes written for the domain: at its backend (guest) or at "
                                   "physical devices (physical).";

/* One figure a row, in struct figure's order: the short columns, then its meaning and
 * its /metrics family (none: no metric). Kept as a table, not wrapped. */
/* clang-format off */
static const struct figure table[] = {
/*  id                             scope          form         unit        absent               needs           flags       header       key                      json                         value                          meaning, metric */
    [FIG_DOMID]                 = {FIGURE_DOMAIN, FORM_TEXT,   NULL,       0,                   0,              CSV_FIRST,  "DOMID",     "domid",                 NULL,                        DOM(domid),                    "domain id"},
    [FIG_NAME]                  = {FIGURE_DOMAIN, FORM_TEXT,   NULL,       0,                   0,              CSV_FIRST,  "NAME",      "name",                  NULL,                        NO_VALUE,                      "domain name (escaped if it holds control characters)"},
    [FIG_KIND]                  = {FIGURE_DOMAIN, FORM_TEXT,   NULL,       0,                   0,              0,          "KIND",      "kind",                  NULL,                        NO_VALUE,                      "backend kind (vbd, qdisk, mixed); ! a backend is missing"},
    [FIG_MISSING]               = {FIGURE_DOMAIN, FORM_TEXT,   NULL,       0,                   0,              0,          NULL,        "missing",               NULL,                        NO_VALUE,                      "a backend of the domain could not be resolved"},
    [FIG_GUEST_RD_BYTES]        = {FIGURE_DOMAIN, FORM_COUNT,  "bytes",    GUEST,               0,              CSV_FIRST,  "GRD_MiB/s", "guest_rd_bytes",        NULL,                        DOM(io.guest_rd_bytes),        "guest reads: bytes at the top of its stack", {"xiotop_domain_read_bytes", read_help, "layer", "guest"}},
    [FIG_GUEST_WR_BYTES]        = {FIGURE_DOMAIN, FORM_COUNT,  "bytes",    GUEST,               0,              CSV_FIRST,  "GWR_MiB/s", "guest_wr_bytes",        NULL,                        DOM(io.guest_wr_bytes),        "guest writes: bytes at the top of its stack", {"xiotop_domain_written_bytes", written_help, "layer", "guest"}},
    [FIG_GUEST_RD_IOS]          = {FIGURE_DOMAIN, FORM_COUNT,  "requests", GUEST,               0,              CSV_FIRST,  "R_IOPS",    "guest_rd_ios",          NULL,                        DOM(io.guest_rd_ios),          "guest read requests per second"},
    [FIG_GUEST_WR_IOS]          = {FIGURE_DOMAIN, FORM_COUNT,  "requests", GUEST,               0,              CSV_FIRST,  "W_IOPS",    "guest_wr_ios",          NULL,                        DOM(io.guest_wr_ios),          "guest write requests per second"},
    [FIG_PHYS_RD_BYTES]         = {FIGURE_DOMAIN, FORM_COUNT,  "bytes",    STACK,               0,              CSV_FIRST,  NULL,        "phys_rd_bytes",         NULL,                        DOM(io.phys_rd_bytes),         "bytes read from physical (leaf) devices for it", {"xiotop_domain_read_bytes", read_help, "layer", "physical"}},
    [FIG_PHYS_WR_BYTES]         = {FIGURE_DOMAIN, FORM_COUNT,  "bytes",    STACK,               0,              CSV_FIRST,  "PWR_MiB/s", "phys_wr_bytes",         NULL,                        DOM(io.phys_wr_bytes),         "bytes written to physical (leaf) devices for it", {"xiotop_domain_written_bytes", written_help, "layer", "physical"}},
    [FIG_DOUBLE_COUNTED_BYTES]  = {FIGURE_DOMAIN, FORM_COUNT,  "bytes",    STACK,               0,              CSV_FIRST,  "DBL_MiB/s", "double_counted_bytes",  NULL,                        DOM(io.double_counted_bytes),  "vmstat bo's second count: written again below its loop device", {"xiotop_domain_double_counted_bytes", "Bytes vmstat pgpgout counted a second time for the domain: its writes submitted again below its loop device, by the image's writeback or loop's direct I/O."}},
    [FIG_DOM0_CPU_NS]           = {FIGURE_DOMAIN, FORM_COUNT,  "ns",       0,                   NEED_CPU,       0,          "CPU%",      "dom0_cpu_ns",           NULL,                        DOM(cpu_ns),                   "dom0 CPU spent for it (100 = one core)"},
    [FIG_DOM0_CPU_NS_BY_ROLE]   = {FIGURE_DOMAIN, FORM_RECORD, "ns",       0,                   NEED_CPU,       0,          NULL,        "dom0_cpu_ns_by_role",   NULL,                        NO_VALUE,                      "dom0 CPU spent for it by role: backend threads, device model, loop workers, writeback", {"xiotop_domain_dom0_cpu_seconds", "dom0 CPU time spent for the domain, by role: backend threads, device model, loop workers, writeback (apportioned by bytes written back).", "role", NULL}},
    [FIG_GUEST_CPU_NS]          = {FIGURE_DOMAIN, FORM_COUNT,  "ns",       0,                   NEED_GUEST_CPU, 0,          "GCPU%",     "guest_cpu_ns",          NULL,                        DERIVED(guest_cpu_ns),         "the guest's own vCPU time (100 = one vCPU), where known"},
    [FIG_DIRTY_BACKLOG_BYTES]   = {FIGURE_DOMAIN, FORM_GAUGE,  "bytes",    0,                   NEED_DIRTY,     0,          "DIRTY_MiB", "dirty_backlog_bytes",   NULL,                        DOM(dirty_backlog_bytes),      "written into dom0 page cache, not yet written back", {"xiotop_domain_dirty_backlog_bytes", "dom0 page cache the domain dirtied that is not yet written back."}},
    [FIG_DIRTIED_BYTES]         = {FIGURE_DOMAIN, FORM_COUNT,  "bytes",    0,                   NEED_DIRTY,     0,          NULL,        "dirtied_bytes",         NULL,                        DOM(dirtied_bytes),            "written into dom0 page cache for it"},
    [FIG_WRITTEN_BACK_BYTES]    = {FIGURE_DOMAIN, FORM_COUNT,  "bytes",    0,                   NEED_DIRTY,     0,          NULL,        "written_back_bytes",    NULL,                        DOM(written_back_bytes),       "of its dirty page cache, written back"},
    [FIG_LAYERS]                = {FIGURE_DOMAIN, FORM_RECORD, "bytes",    0,                   0,              0,          NULL,        "layers",                NULL,                        NO_VALUE,                      "the devices and file of its stack with their bytes"},
    [FIG_VBD_STATS]             = {FIGURE_DOMAIN, FORM_RECORD, "bytes",    0,                   NEED_VBD,       0,          NULL,        "vbd_stats",             NULL,                        NO_VALUE,                      "blkback's own per-vbd counters beside xiotop's bytes"},
    [FIG_IO_LATENCY]            = {FIGURE_DOMAIN, FORM_RECORD, "ns",       0,                   LATENCY,        0,          NULL,        "io_latency",            NULL,                        NO_VALUE,                      "I/O latency by op at its guest-visible layer (unless --no-latency)", {"xiotop_domain_io_latency_seconds", "I/O latency of the domain at its guest-visible layer (its backend device from queue to completion, or its device model's file syscalls), by op (timed unless --no-latency).", "op", NULL}},
    [FIG_AMPLIFICATION]         = {FIGURE_DOMAIN, FORM_SCREEN, NULL,       STACK,               0,              0,          "AMPL",      NULL,                    NULL,                        NO_VALUE,                      "amplification: physical / guest writes"},
    [FIG_DOM0_CPU_SINCE_START]  = {FIGURE_DOMAIN, FORM_SCREEN, "ns",       0,                   NEED_CPU,       0,          "CPU_s",     NULL,                    NULL,                        NO_VALUE,                      "dom0 CPU seconds for it since xiotop started"},
    [FIG_LATENCY_P50]           = {FIGURE_DOMAIN, FORM_SCREEN, "ns",       0,                   LATENCY,        0,          "P50_ms",    NULL,                    NULL,                        NO_VALUE,                      "median I/O latency, reads and writes (unless --no-latency)"},
    [FIG_LATENCY_P99]           = {FIGURE_DOMAIN, FORM_SCREEN, "ns",       0,                   LATENCY,        0,          "P99_ms",    NULL,                    NULL,                        NO_VALUE,                      "99th percentile I/O latency, reads and writes (unless --no-latency)"},
    [FIG_VMSTAT_PGPGOUT_BYTES]  = {FIGURE_HOST,   FORM_COUNT,  "bytes",    XIO_ABSENT_VMSTAT,   0,              CSV_FIRST,  "vmstat bo", "vmstat_pgpgout_bytes",  "host.vmstat_pgpgout_bytes", HOST(pgpgout_bytes),           "/proc/vmstat pgpgout, in bytes (vmstat bo)", {"xiotop_host_vmstat_pgpgout_bytes", "/proc/vmstat pgpgout, in bytes."}},
    [FIG_VMSTAT_PGPGIN_BYTES]   = {FIGURE_HOST,   FORM_COUNT,  "bytes",    XIO_ABSENT_VMSTAT,   0,              0,          NULL,        "vmstat_pgpgin_bytes",   "host.vmstat_pgpgin_bytes",  HOST(pgpgin_bytes),            "/proc/vmstat pgpgin, in bytes (vmstat bi)", {"xiotop_host_vmstat_pgpgin_bytes", "/proc/vmstat pgpgin, in bytes."}},
    [FIG_DISKS]                 = {FIGURE_HOST,   FORM_RECORD, "bytes",    XIO_ABSENT_DISKS,    0,              0,          NULL,        "disks",                 "host.disks",                NO_VALUE,                      "each leaf (physical) device's bytes, from /proc/diskstats"},
    [FIG_DISKS_RD_BYTES]        = {FIGURE_HOST,   FORM_COUNT,  "bytes",    XIO_ABSENT_DISKS,    0,              0,          "disks rd",  NULL,                    "host.disks[].rd_bytes",     DERIVED(disks_rd_bytes),       "bytes read from the leaf devices (per device in disks)", {"xiotop_host_disk_read_bytes", "Bytes read from a physical device (/proc/diskstats).", "device", NULL}},
    [FIG_DISKS_WR_BYTES]        = {FIGURE_HOST,   FORM_COUNT,  "bytes",    XIO_ABSENT_DISKS,    0,              0,          "wr",        NULL,                    "host.disks[].wr_bytes",     DERIVED(disks_wr_bytes),       "bytes written to the leaf devices (per device in disks)", {"xiotop_host_disk_written_bytes", "Bytes written to a physical device (/proc/diskstats).", "device", NULL}},
    [FIG_DOUBLE_COUNTED_TOTAL]  = {FIGURE_HOST,   FORM_COUNT,  "bytes",    STACK,               0,              0,          "double",    NULL,                    NULL,                        DERIVED(double_counted_total), "all domains' double-counted bytes"},
    [FIG_HOST_BUSY_NS]          = {FIGURE_HOST,   FORM_COUNT,  "ns",       0,                   BUSY,           0,          "dom0 CPU",  "dom0_cpu_busy_ns",      "host.dom0_cpu_busy_ns",     HOST(host_busy_ns),            "dom0 non-idle CPU time but steal, all CPUs (/proc/stat)", {"xiotop_host_dom0_cpu_busy_seconds", "dom0 non-idle CPU time, all CPUs, steal not included."}},
    [FIG_UNATTRIBUTED_RD_BYTES] = {FIGURE_HOST,   FORM_COUNT,  "bytes",    STACK,               0,              0,          NULL,        "unattributed_rd_bytes", "unattributed.rd_bytes",     HOST(unattr_rd_bytes),         "bytes dom0 read for no domain", {"xiotop_unattributed_read_bytes", "Bytes read by dom0 for no domain."}},
    [FIG_UNATTRIBUTED_WR_BYTES] = {FIGURE_HOST,   FORM_COUNT,  "bytes",    STACK,               0,              CSV_FIRST,  "unattr",    "unattributed_wr_bytes", "unattributed.wr_bytes",     HOST(unattr_wr_bytes),         "bytes dom0 wrote for no domain (bios vmstat counts)", {"xiotop_unattributed_written_bytes", "Bytes written by dom0 for no domain (bios vmstat counts)."}},
    [FIG_UNATTRIBUTED_CPU_NS]   = {FIGURE_HOST,   FORM_COUNT,  "ns",       0,                   NEED_CPU,       0,          NULL,        "unattributed_cpu_ns",   "unattributed_cpu_ns",       HOST(cpu_unattributed_ns),     "dom0 CPU charged to no domain", {"xiotop_unattributed_dom0_cpu_seconds", "dom0 CPU time charged to no domain."}},
    [FIG_DOM0_OWN_CPU_NS]       = {FIGURE_HOST,   FORM_COUNT,  "ns",       0,                   BUSY,           0,          NULL,        "dom0_own_cpu_ns",       "dom0_own_cpu_ns",           DERIVED(dom0_own_cpu_ns),      "dom0's own CPU: busy time beyond what is charged to a domain or left unattributed", {"xiotop_host_dom0_own_cpu_seconds", "dom0 CPU time for its own work: busy time not charged to a domain nor unattributed."}},
    [FIG_LOST_EVENTS]           = {FIGURE_HOST,   FORM_COUNT,  "events",   0,                   0,              CSV_FIRST,  "lost",      "lost_events",           "lost_events",               HOST(lost_events),             "events not counted: a tracer map full, a program the kernel skipped as nested, a request not timed", {"xiotop_lost_events", "Events not counted: a tracer map full, a program the kernel skipped as nested, or (latency) a request not timed."}},
    /* host-wide: /proc/stat does not say which domain's completion an interrupt ran */
    [FIG_HOST_IRQ_NS]           = {FIGURE_HOST,   FORM_COUNT,  "ns",       XIO_ABSENT_HOST_CPU, 0,              CSV_FIRST,  "irq",       "dom0_irq_ns",           "host.dom0_irq_ns",          HOST(host_irq_ns),             "of dom0's busy time, hard and soft interrupts, all CPUs (/proc/stat irq + softirq ticks; without IRQ_TIME_ACCOUNTING also in the interrupted tasks' CPU)", {"xiotop_host_dom0_irq_seconds", "dom0 CPU time in hard and soft interrupts, all CPUs (/proc/stat irq + softirq)."}},
    [FIG_HOST_STEAL_NS]         = {FIGURE_HOST,   FORM_COUNT,  "ns",       XIO_ABSENT_HOST_CPU, 0,              CSV_FIRST,  "steal",     "steal_ns",              "host.steal_ns",             HOST(host_steal_ns),           "steal: time the hypervisor gave other domains while dom0 wanted to run, all CPUs (/proc/stat; not dom0's busy time)", {"xiotop_host_steal_seconds", "Time the hypervisor ran other domains while dom0 wanted to run, all CPUs (/proc/stat steal)."}},
    /* figures no code names by id: their entry is all it takes */
    {FIGURE_DOMAIN, FORM_COUNT, "bytes", STACK, 0, 0, NULL, "vmstat_wr_bytes", NULL, DOM(io.vmstat_wr_bytes), "what vmstat bo (pgpgout) counted for it: each write bio submitted for it where vmstat counts, double_counted_bytes included", {"xiotop_domain_vmstat_written_bytes", "Bytes vmstat pgpgout counted for the domain: each write bio submitted for it at a layer vmstat counts (a file-backed loop device's writes twice)."}},
    {FIGURE_DOMAIN, FORM_COUNT, "bytes", ARRAYS, 0, 0, NULL, "copy_wr_bytes", NULL, DOM(io.copy_wr_bytes), "mirror and parity copies: what its redundant arrays' members took beyond what the arrays took (in phys_wr_bytes; a write whose copies fall in the next interval counted there)", {"xiotop_domain_copy_written_bytes", "Bytes the members of the domain's redundant arrays (md RAID mirrors, parity) wrote beyond what the arrays took: the copies."}},
    {FIGURE_DOMAIN, FORM_COUNT, "bytes", ARRAYS, 0, 0, NULL, "copy_rd_bytes", NULL, DOM(io.copy_rd_bytes), "reads its redundant arrays' members did beyond the arrays' (parity RAID's read-modify-write)", {"xiotop_domain_copy_read_bytes", "Bytes the members of the domain's redundant arrays read beyond what the arrays read (parity RAID's read-modify-write)."}},
};
/* clang-format on */
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
	       (m->has_vbd_stats ? NEED_VBD : 0) | (m->has_latency ? NEED_LATENCY : 0) |
	       (m->host_busy_ns > 0 ? NEED_HOST_BUSY : 0);
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
	if ((f->needs & NEED_TIMED) && d &&
	    (d->lat_untimed[XIOTOP_LAT_READ] | d->lat_untimed[XIOTOP_LAT_WRITE]))
		return false;
	return !(f->needs & ~(NEED_GUEST_CPU | NEED_TIMED) & ~collected);
}

bool figure_known(enum figure_id id, const struct model_interval *m, const struct model_domain *d)
{
	return figure_known_with(id, m->absent, figure_collected(m), d);
}

static uint64_t member_at(const void *base, const struct figure_source *v)
{
	const char *at = (const char *)base + v->offset;
	if (v->size == sizeof(uint32_t)) {
		uint32_t x;
		memcpy(&x, at, sizeof(x));
		return x;
	}
	uint64_t x;
	memcpy(&x, at, sizeof(x));
	return x;
}

uint64_t figure_value(enum figure_id id, const struct model_interval *m,
                      const struct model_domain *d)
{
	const struct figure *f = figure_get(id);
	if (f->scope == FIGURE_DOMAIN && !d)
		return 0;
	switch (f->value.from) {
	case FIGURE_FROM_DOMAIN:
		return member_at(d, &f->value);
	case FIGURE_FROM_INTERVAL:
		return member_at(m, &f->value);
	case FIGURE_FROM_FUNCTION:
		return f->value.fn(m, d);
	case FIGURE_FROM_NONE:
		break;
	}
	return 0;
}

bool figure_held(enum figure_id id, uint32_t absent)
{
	return !(absent & figure_get(id)->absent);
}

static const char *const cpu_role_keys[XIO_CPU_ROLES] = {"backend", "device_model", "loop",
                                                         "writeback"};
static const char *const cpu_role_texts[XIO_CPU_ROLES] = {"backend", "device model", "loop",
                                                          "writeback"};

const char *figure_cpu_role_key(enum xio_cpu_role r)
{
	return (unsigned)r < XIO_CPU_ROLES ? cpu_role_keys[r] : "?";
}

const char *figure_cpu_role_text(enum xio_cpu_role r)
{
	return (unsigned)r < XIO_CPU_ROLES ? cpu_role_texts[r] : "?";
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
