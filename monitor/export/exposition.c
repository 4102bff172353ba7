/* exposition.c - the families of a scrape, in either text format; see exposition.h. */
#include "export/exposition.h"

#include <inttypes.h>
#include <string.h>

#include "core/figures.h"
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
	bool written[FIGURE_MAX]; /* the figures whose family is out */
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

/* A figure's family as the table gives it (core/figures.h): ns are exposed as seconds. */
static struct family family_of(enum figure_id fig)
{
	const struct figure *f = figure_get(fig);
	bool ns = f->unit && !strcmp(f->unit, "ns"), bytes = f->unit && !strcmp(f->unit, "bytes");
	return (struct family){f->metric.family,
	                       f->form == FORM_GAUGE ? FAMILY_GAUGE : FAMILY_COUNTER,
	                       ns      ? "seconds"
	                       : bytes ? "bytes"
	                               : NULL,
	                       f->metric.help};
}

static bool same_family(enum figure_id a, enum figure_id b)
{
	const char *fa = figure_get(a)->metric.family, *fb = figure_get(b)->metric.family;
	return fa && fb && !strcmp(fa, fb);
}

static bool is_ns(enum figure_id fig)
{
	const char *unit = figure_get(fig)->unit;
	return unit && !strcmp(unit, "ns");
}

static bool state_knows(const struct metrics_state *st, enum figure_id fig)
{
	unsigned collected = (st->has_cpu ? NEED_CPU : 0) | (st->has_dirty ? NEED_DIRTY : 0) |
	                     (st->has_latency ? NEED_LATENCY : 0) |
	                     (st->host[FIG_HOST_BUSY_NS] > 0 ? NEED_HOST_BUSY : 0);
	return figure_known_with(fig, st->absent, collected, NULL);
}

/* The family of a domain figure: per domain, each figure of that family the samples
 * hold (told apart by its label: layer="guest"). A figure the samples do not hold (an
 * imported recording's) is left out, not 0; a family with none of them too. */
static void domain_family(struct writer *w, const struct metrics_state *st, enum figure_id first)
{
	enum figure_id members[FIGURE_MAX];
	size_t n = 0;
	for (int i = 0; i < figure_count(); i++) {
		if (!same_family(first, (enum figure_id)i) || w->written[i])
			continue;
		w->written[i] = true;
		if (state_knows(st, (enum figure_id)i))
			members[n++] = (enum figure_id)i;
	}
	if (!n)
		return;
	struct family fam = family_of(first);
	begin(w, &fam);
	for (size_t i = 0; i < st->n_domains; i++)
		for (size_t k = 0; k < n; k++) {
			const struct figure_metric *mt = &figure_get(members[k])->metric;
			domain_labels(w, &st->domains[i]);
			if (mt->label && mt->label_value)
				label(w, false, mt->label, mt->label_value);
			uint64_t v = st->domains[i].value[members[k]];
			if (is_ns(members[k]))
				value_seconds(w, true, v);
			else
				value_u64(w, true, v);
		}
}

/* A host figure's family: one value with no labels, when the samples hold it. */
static void host_family(struct writer *w, const struct metrics_state *st, enum figure_id fig)
{
	w->written[fig] = true;
	if (!state_knows(st, fig))
		return;
	struct family fam = family_of(fig);
	scalar(w, &fam, st->host[fig], is_ns(fig));
}

static void cpu(struct writer *w, const struct metrics_state *st)
{
	w->written[FIG_DOM0_CPU_NS_BY_ROLE] = true;
	if (!st->has_cpu)
		return;
	struct family dom = family_of(FIG_DOM0_CPU_NS_BY_ROLE);
	begin(w, &dom);
	for (size_t i = 0; i < st->n_domains; i++)
		for (int r = 0; r < XIO_CPU_ROLES; r++) {
			domain_labels(w, &st->domains[i]);
			label(w, false, figure_get(FIG_DOM0_CPU_NS_BY_ROLE)->metric.label,
			      figure_cpu_role_key((enum xio_cpu_role)r));
			value_seconds(w, true, st->domains[i].cpu_ns_by_role[r]);
		}
	host_family(w, st, FIG_UNATTRIBUTED_CPU_NS);
	host_family(w, st, FIG_HOST_BUSY_NS);
	host_family(w, st, FIG_DOM0_OWN_CPU_NS);
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
	label(w, false, figure_get(FIG_IO_LATENCY)->metric.label, op);
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
	struct family fam = family_of(FIG_IO_LATENCY);
	fam.type = FAMILY_HISTOGRAM;
	w->written[FIG_IO_LATENCY] = true;
	if (!st->has_latency)
		return;
	begin(w, &fam);
	for (size_t i = 0; i < st->n_domains; i++)
		for (int op = 0; op < XIOTOP_LAT_OPS; op++)
			if (!st->domains[i].lat_untimed[op]) /* not timed: no series, never 0 */
				latency_series(w, &st->domains[i], ops[op],
				               &st->domains[i].lat[op]);
}

static void host(struct writer *w, const struct metrics_state *st)
{
	static const struct family intervals = {"xiotop_intervals", FAMILY_COUNTER, NULL,
	                                        "Sampling intervals since start."};
	host_family(w, st, FIG_UNATTRIBUTED_RD_BYTES);
	host_family(w, st, FIG_UNATTRIBUTED_WR_BYTES);
	host_family(w, st, FIG_VMSTAT_PGPGIN_BYTES);
	host_family(w, st, FIG_VMSTAT_PGPGOUT_BYTES);
	host_family(w, st, FIG_LOST_EVENTS);
	scalar(w, &intervals, st->intervals, false);
}

/* Per device: the family of the disks' read or written bytes. */
static void disks(struct writer *w, const struct metrics_state *st, bool written)
{
	enum figure_id fig = written ? FIG_DISKS_WR_BYTES : FIG_DISKS_RD_BYTES;
	w->written[fig] = true;
	if (!state_knows(st, fig))
		return;
	struct family fam = family_of(fig);
	begin(w, &fam);
	for (size_t i = 0; i < st->n_disks; i++) {
		sample_name(w);
		label(w, true, figure_get(fig)->metric.label, st->disks[i].name);
		value_u64(w, true, written ? st->disks[i].wr_bytes : st->disks[i].rd_bytes);
	}
}

/* Every other figure of the table with a family: a figure added to the table is exposed
 * without a line here. */
static void other_families(struct writer *w, const struct metrics_state *st)
{
	for (int i = 0; i < figure_count(); i++) {
		const struct figure *f = figure_get((enum figure_id)i);
		if (w->written[i] || !f->metric.family || !figure_is_scalar(f))
			continue;
		if (f->scope == FIGURE_DOMAIN)
			domain_family(w, st, (enum figure_id)i);
		else
			host_family(w, st, (enum figure_id)i);
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
	domain_family(&w, st, FIG_GUEST_RD_BYTES);
	domain_family(&w, st, FIG_GUEST_WR_BYTES);
	domain_family(&w, st, FIG_DOUBLE_COUNTED_BYTES);
	domain_family(&w, st, FIG_DIRTY_BACKLOG_BYTES);
	cpu(&w, st);
	latency(&w, st);
	host(&w, st);
	disks(&w, st, false);
	disks(&w, st, true);
	other_families(&w, st);
	info(&w, st, version);
	if (f == EXPO_OPENMETRICS)
		fputs("# EOF\n", out);
	return fflush(out) || ferror(out) ? -1 : 0;
}
