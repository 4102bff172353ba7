/* exposition.c - the families of a scrape, in either text format; see exposition.h. */
#include "export/exposition.h"

#include <inttypes.h>
#include <string.h>

#include "core/latency.h"

enum family_type { FAMILY_COUNTER, FAMILY_GAUGE, FAMILY_INFO, FAMILY_HISTOGRAM };

struct family {
	const char *name; /* the family: without _total / _info */
	enum family_type type;
	const char *unit; /* OpenMetrics UNIT, the name's suffix; NULL none */
	const char *help;
};

struct writer {
	FILE *out;
	enum expo_format format;
	const struct family *family;
};

static const char *suffix(enum family_type t)
{
	return t == FAMILY_COUNTER ? "_total" : t == FAMILY_INFO ? "_info" : "";
}

/* HELP, TYPE (and UNIT): OpenMetrics names the family, 0.0.4 the sample. */
static void begin(struct writer *w, const struct family *f)
{
	static const char *const om_types[] = {"counter", "gauge", "info", "histogram"};
	static const char *const prom_types[] = {"counter", "gauge", "gauge", "histogram"};
	bool om = w->format == EXPO_OPENMETRICS;
	const char *sfx = om ? "" : suffix(f->type);
	w->family = f;
	fprintf(w->out, "# HELP %s%s %s\n", f->name, sfx, f->help);
	fprintf(w->out, "# TYPE %s%s %s\n", f->name, sfx, (om ? om_types : prom_types)[f->type]);
	if (om && f->unit)
		fprintf(w->out, "# UNIT %s %s\n", f->name, f->unit);
}

/* The sample name and "{" or "" (labels follow with label()). */
static void sample_name(struct writer *w)
{
	fprintf(w->out, "%s%s", w->family->name, suffix(w->family->type));
}

static void label(struct writer *w, bool first, const char *key, const char *value)
{
	fprintf(w->out, "%s%s=\"", first ? "{" : ",", key);
	expo_put_label_value(w->out, value);
	fputc('"', w->out);
}

static void value_u64(struct writer *w, bool labelled, uint64_t v)
{
	fprintf(w->out, "%s %" PRIu64 "\n", labelled ? "}" : "", v);
}

/* Nanoseconds as exact decimal seconds. */
static void value_seconds(struct writer *w, bool labelled, uint64_t ns)
{
	fprintf(w->out, "%s %" PRIu64 ".%09" PRIu64 "\n", labelled ? "}" : "", ns / 1000000000u,
	        ns % 1000000000u);
}

static void domain_labels(struct writer *w, const struct metrics_domain *d)
{
	char domid[16], gen[16];
	snprintf(domid, sizeof(domid), "%" PRIu32, d->domid);
	snprintf(gen, sizeof(gen), "%" PRIu32, d->generation);
	sample_name(w);
	label(w, true, "domid", domid);
	label(w, false, "domain", d->name);
	label(w, false, "generation", gen);
}

/* A family with no labels and one value. */
static void scalar(struct writer *w, const struct family *f, uint64_t v, bool seconds)
{
	begin(w, f);
	sample_name(w);
	if (seconds)
		value_seconds(w, false, v);
	else
		value_u64(w, false, v);
}

static void domain_bytes(struct writer *w, const struct metrics_state *st, bool written)
{
	static const struct family rd = {"xiotop_domain_read_bytes", FAMILY_COUNTER, "bytes",
	                                 "Bytes read for the domain: at its backend (guest) or "
	                                 "at physical devices (physical)."};
	static const struct family wr = {"xiotop_domain_written_bytes", FAMILY_COUNTER, "bytes",
	                                 "Bytes written for the domain: at its backend (guest) "
	                                 "or at physical devices (physical)."};
	/* a series the samples do not hold (an imported recording's) is left out, not 0 */
	bool guest = !(st->absent & XS_ABSENT_GUEST_IO), phys = !(st->absent & XS_ABSENT_STACK);
	if (!guest && !phys)
		return;
	begin(w, written ? &wr : &rd);
	for (size_t i = 0; i < st->n_domains; i++) {
		const struct metrics_domain *d = &st->domains[i];
		if (guest) {
			domain_labels(w, d);
			label(w, false, "layer", "guest");
			value_u64(w, true, written ? d->guest_wr_bytes : d->guest_rd_bytes);
		}
		if (phys) {
			domain_labels(w, d);
			label(w, false, "layer", "physical");
			value_u64(w, true, written ? d->phys_wr_bytes : d->phys_rd_bytes);
		}
	}
}

static void domain_page_cache(struct writer *w, const struct metrics_state *st)
{
	static const struct family dbl = {
	    "xiotop_domain_double_counted_bytes", FAMILY_COUNTER, "bytes",
	    "Bytes vmstat pgpgout counted for the domain beyond its physical writes (a "
	    "file-backed loop device submits each write twice)."};
	static const struct family backlog = {
	    "xiotop_domain_dirty_backlog_bytes", FAMILY_GAUGE, "bytes",
	    "dom0 page cache the domain dirtied that is not yet written back."};
	if (!(st->absent & XS_ABSENT_STACK)) { /* an import: vmstat's share is not known */
		begin(w, &dbl);
		for (size_t i = 0; i < st->n_domains; i++) {
			domain_labels(w, &st->domains[i]);
			value_u64(w, true, st->domains[i].double_counted_bytes);
		}
	}
	if (!st->has_dirty)
		return;
	begin(w, &backlog);
	for (size_t i = 0; i < st->n_domains; i++) {
		domain_labels(w, &st->domains[i]);
		value_u64(w, true, st->domains[i].dirty_backlog_bytes);
	}
}

static void cpu(struct writer *w, const struct metrics_state *st)
{
	static const char *const roles[XS_CPU_ROLES] = {"backend", "device_model", "loop",
	                                                "writeback"};
	static const struct family dom = {
	    "xiotop_domain_dom0_cpu_seconds", FAMILY_COUNTER, "seconds",
	    "dom0 CPU time spent for the domain, by role: backend threads, device model, loop "
	    "workers, writeback (apportioned by bytes written back)."};
	static const struct family unattr = {"xiotop_unattributed_dom0_cpu_seconds", FAMILY_COUNTER,
	                                     "seconds", "dom0 CPU time charged to no domain."};
	static const struct family busy = {"xiotop_host_dom0_cpu_busy_seconds", FAMILY_COUNTER,
	                                   "seconds", "dom0 non-idle CPU time, all CPUs."};
	if (!st->has_cpu)
		return;
	begin(w, &dom);
	for (size_t i = 0; i < st->n_domains; i++)
		for (int r = 0; r < XS_CPU_ROLES; r++) {
			domain_labels(w, &st->domains[i]);
			label(w, false, "role", roles[r]);
			value_seconds(w, true, st->domains[i].cpu_ns_by_role[r]);
		}
	scalar(w, &unattr, st->cpu_unattributed_ns, true);
	scalar(w, &busy, st->host_busy_ns, true);
}

/* Nanoseconds as the shortest exact decimal seconds (a bucket bound: 0.000001024). */
static void put_seconds_short(FILE *out, uint64_t ns)
{
	char frac[16];
	snprintf(frac, sizeof(frac), "%09" PRIu64, ns % 1000000000u);
	size_t n = strlen(frac);
	while (n > 1 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(out, "%" PRIu64 ".%s", ns / 1000000000u, frac);
}

/* The first bucket shown: le 1.024 us (2^10 ns); faster I/O is counted in it (buckets are
 * cumulative), none of a block device's is faster. */
#define LATENCY_FIRST_SHOWN 9

/* A histogram sample's name (the family's and a suffix) and the domain's labels and op. */
static void latency_sample(struct writer *w, const struct metrics_domain *d, const char *sfx,
                           const char *op)
{
	char domid[16], gen[16];
	snprintf(domid, sizeof(domid), "%" PRIu32, d->domid);
	snprintf(gen, sizeof(gen), "%" PRIu32, d->generation);
	fprintf(w->out, "%s%s", w->family->name, sfx);
	label(w, true, "domid", domid);
	label(w, false, "domain", d->name);
	label(w, false, "generation", gen);
	label(w, false, "op", op);
}

/* One domain's histogram of one op: cumulative _bucket{le} up to +Inf, _sum, _count. */
static void latency_series(struct writer *w, const struct metrics_domain *d, const char *op,
                           const struct xiotop_lat *h)
{
	uint64_t cumulative = 0;
	for (int b = 0; b < XIOTOP_LAT_BUCKETS - 1; b++) {
		cumulative += h->buckets[b];
		if (b < LATENCY_FIRST_SHOWN)
			continue;
		latency_sample(w, d, "_bucket", op);
		fputs(",le=\"", w->out);
		put_seconds_short(w->out, latency_bucket_high_ns(b));
		fputc('"', w->out);
		value_u64(w, true, cumulative);
	}
	cumulative += h->buckets[XIOTOP_LAT_BUCKETS - 1];
	latency_sample(w, d, "_bucket", op);
	fputs(",le=\"+Inf\"", w->out);
	value_u64(w, true, cumulative);
	latency_sample(w, d, "_sum", op);
	value_seconds(w, true, h->sum_ns);
	latency_sample(w, d, "_count", op);
	value_u64(w, true, cumulative);
}

static void latency(struct writer *w, const struct metrics_state *st)
{
	static const char *const ops[XIOTOP_LAT_OPS] = {"read", "write"};
	static const struct family fam = {
	    "xiotop_domain_io_latency_seconds", FAMILY_HISTOGRAM, "seconds",
	    "I/O latency of the domain at its guest-visible layer (its backend device from "
	    "queue to completion, or its device model's file syscalls), by op (--latency)."};
	if (!st->has_latency)
		return;
	begin(w, &fam);
	for (size_t i = 0; i < st->n_domains; i++)
		for (int op = 0; op < XIOTOP_LAT_OPS; op++)
			latency_series(w, &st->domains[i], ops[op], &st->domains[i].lat[op]);
}

static void host(struct writer *w, const struct metrics_state *st)
{
	static const struct family fams[] = {
	    {"xiotop_unattributed_read_bytes", FAMILY_COUNTER, "bytes",
	     "Bytes read by dom0 for no domain."},
	    {"xiotop_unattributed_written_bytes", FAMILY_COUNTER, "bytes",
	     "Bytes written by dom0 for no domain (bios vmstat counts)."},
	    {"xiotop_host_vmstat_pgpgin_bytes", FAMILY_COUNTER, "bytes",
	     "/proc/vmstat pgpgin, in bytes."},
	    {"xiotop_host_vmstat_pgpgout_bytes", FAMILY_COUNTER, "bytes",
	     "/proc/vmstat pgpgout, in bytes."},
	    {"xiotop_lost_events", FAMILY_COUNTER, NULL,
	     "Events not counted because a tracer map was full."},
	    {"xiotop_intervals", FAMILY_COUNTER, NULL, "Sampling intervals since start."},
	};
	const uint64_t values[] = {st->unattr_rd_bytes, st->unattr_wr_bytes, st->pgpgin_bytes,
	                           st->pgpgout_bytes,   st->lost_events,     st->intervals};
	bool stack = !(st->absent & XS_ABSENT_STACK), vmstat = !(st->absent & XS_ABSENT_VMSTAT);
	const bool known[] = {stack, stack, vmstat, vmstat, true, true};
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++)
		if (known[i])
			scalar(w, &fams[i], values[i], false);
}

static void disks(struct writer *w, const struct metrics_state *st, bool written)
{
	static const struct family rd = {"xiotop_host_disk_read_bytes", FAMILY_COUNTER, "bytes",
	                                 "Bytes read from a physical device (/proc/diskstats)."};
	static const struct family wr = {"xiotop_host_disk_written_bytes", FAMILY_COUNTER, "bytes",
	                                 "Bytes written to a physical device (/proc/diskstats)."};
	if (st->absent & XS_ABSENT_DISKS)
		return;
	begin(w, written ? &wr : &rd);
	for (size_t i = 0; i < st->n_disks; i++) {
		sample_name(w);
		label(w, true, "device", st->disks[i].name);
		value_u64(w, true, written ? st->disks[i].wr_bytes : st->disks[i].rd_bytes);
	}
}

/* hooks as the tracer says them, "MODE hook hook a/b(while ...)", into "MODE hook hook a b":
 * parenthesised notes dropped, a slash between two hooks a space. */
static void hook_words(const char *hooks, char *out, size_t outlen)
{
	size_t n = 0;
	int depth = 0;
	for (const char *p = hooks; *p && n + 1 < outlen; p++) {
		depth += *p == '(';
		if (!depth)
			out[n++] = *p == '/' ? ' ' : *p;
		depth -= *p == ')' && depth > 0;
	}
	out[n] = '\0';
}

/* One info sample per hook. */
static void info(struct writer *w, const struct metrics_state *st, const char *version)
{
	static const struct family build = {"xiotop_build", FAMILY_INFO, NULL, "xiotop's version."};
	static const struct family hook = {"xiotop_hook", FAMILY_INFO, NULL,
	                                   "A kernel hook the tracer runs, and how (mode)."};
	begin(w, &build);
	sample_name(w);
	label(w, true, "version", version);
	value_u64(w, true, 1);
	begin(w, &hook);
	char words[sizeof(st->hooks)], *save = NULL;
	hook_words(st->hooks, words, sizeof(words));
	const char *mode = strtok_r(words, " ", &save);
	for (const char *h; mode && (h = strtok_r(NULL, " ", &save));) {
		sample_name(w);
		label(w, true, "hook", h);
		label(w, false, "mode", mode);
		value_u64(w, true, 1);
	}
}

int expo_render(FILE *out, const struct metrics_state *st, enum expo_format f, const char *version)
{
	struct writer w = {.out = out, .format = f};
	domain_bytes(&w, st, false);
	domain_bytes(&w, st, true);
	domain_page_cache(&w, st);
	cpu(&w, st);
	latency(&w, st);
	host(&w, st);
	disks(&w, st, false);
	disks(&w, st, true);
	info(&w, st, version);
	if (f == EXPO_OPENMETRICS)
		fputs("# EOF\n", out);
	return fflush(out) || ferror(out) ? -1 : 0;
}
