/* report_json.c - an explained window as one JSON object (the contract of report.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/figures.h"
#include "core/sanitize.h"
#include "explain/report/prose.h"
#include "explain/report/report.h"
#include "explain/verdicts/verdicts.h"

/* key, then the count or null when the recording does not hold it */
static void put_count(FILE *out, const char *key, bool known, uint64_t v)
{
	fputs(key, out);
	if (known)
		fprintf(out, "%llu", (unsigned long long)v);
	else
		fputs("null", out);
}

/* a text, or null when the recording does not hold it ("") */
static void put_text(FILE *out, const char *s)
{
	json_put_string(out, s[0] ? s : NULL);
}

static void put_num(FILE *out, double v)
{
	if (!isfinite(v))
		fputs("null", out);
	else if (v == floor(v) && fabs(v) < 9e15)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.6g", v);
}

/* v with `decimals` digits after the point, null when not finite (unknown) */
static void put_fixed(FILE *out, double v, int decimals)
{
	if (isfinite(v))
		fprintf(out, "%.*f", decimals, v);
	else
		fputs("null", out);
}

static void put_time(FILE *out, int64_t ns)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;
	gmtime_r(&s, &tm);
	char buf[40];
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(out, "\"%s.%03dZ\"", buf, (int)(ns % 1000000000 / 1000000));
}

static void put_window(FILE *out, const struct explain *ex)
{
	const struct ex_window *w = &ex->win;
	json_put_member(out, "\"file\":", ex->file);
	fputs(",\"window\":{\"from\":", out);
	put_time(out, w->from_ns);
	fputs(",\"to\":", out);
	put_time(out, w->to_ns);
	fprintf(out, ",\"seconds\":%.3f,\"from_mark\":", w->seconds);
	json_put_string(out, w->from_label[0] ? w->from_label : NULL);
	fputs(",\"to_mark\":", out);
	json_put_string(out, w->to_label[0] ? w->to_label : NULL);
	fputs(",\"marks_of\":", out);
	json_put_string(out, w->marks_of[0] ? w->marks_of : NULL);
	fprintf(out,
	        ",\"first_sample\":%zu,\"last_sample\":%zu,\"interval_s\":%.3f,"
	        "\"recorded_after_s\":%.3f}",
	        w->first, w->last, w->interval_s, w->recorded_after_s);
	const struct ex_host *h = &ex->host;
	/* a fact the recording does not hold (an import's logs give no kernel, sysctls, and
	 * CPUs only with iostat's header or --cpus) is null */
	fputs(",\"host\":{\"hostname\":", out);
	put_text(out, h->hostname);
	fputs(",\"kernel\":", out);
	put_text(out, h->kernel);
	put_count(out, ",\"cpus\":", h->cpu_count > 0, (uint64_t)h->cpu_count);
	put_count(out, ",\"dom0_mem_bytes\":", h->mem_total_kb > 0, h->mem_total_kb * 1024);
	fputs(",\"vm.dirty_ratio\":", out);
	put_text(out, h->dirty_ratio);
	fputs(",\"vm.dirty_background_ratio\":", out);
	put_text(out, h->dirty_background_ratio);
	fputs(",\"vm.dirty_bytes\":", out);
	put_text(out, h->dirty_bytes);
	fprintf(out, ",\"has_dirty\":%s,\"has_cpu\":%s", h->has_dirty ? "true" : "false",
	        h->has_cpu ? "true" : "false");
	/* no tracer ran for an import: none of its events could be lost, none counted */
	put_count(out, ",\"lost_events\":", !h->absent, h->lost_events);
	put_count(out,
	          ",\"vmstat_pgpgout_bytes\":", figure_held(FIG_VMSTAT_PGPGOUT_BYTES, h->absent),
	          ex->pgpgout_bytes);
	put_count(out,
	          ",\"unattributed_wr_bytes\":", figure_held(FIG_UNATTRIBUTED_WR_BYTES, h->absent),
	          ex->unattr_wr);
	fputc('}', out);
}

static void put_domain(FILE *out, const struct explain *ex, const struct ex_domain *d)
{
	fprintf(out, "{\"domid\":%u,\"name\":", d->domid);
	json_put_string(out, d->name);
	fputs(",\"file\":", out);
	put_text(out, d->file);
	/* what the recording does not hold prints null (an import's logs: no stack, no CPU by
	 * domain, no dirty pages; no dirty counter follows dom0's own files) */
	struct report_known k = report_known(ex, d);
	bool guest = k.guest, stack = k.stack, cpu = k.cpu, dirty = k.dirty;
	put_count(out, ",\"guest_wr_bytes\":", guest, d->io.guest_wr_bytes);
	put_count(out, ",\"guest_rd_bytes\":", guest, d->io.guest_rd_bytes);
	put_count(out, ",\"phys_wr_bytes\":", stack, d->io.phys_wr_bytes);
	put_count(out, ",\"phys_rd_bytes\":", stack, d->io.phys_rd_bytes);
	put_count(out, ",\"double_counted_bytes\":", stack, d->io.double_counted_bytes);
	put_count(out, ",\"vmstat_wr_bytes\":", stack, d->io.vmstat_wr_bytes);
	put_count(out, ",\"dirty_backlog_end_bytes\":", dirty, d->backlog_end);
	put_count(out, ",\"dirty_backlog_peak_bytes\":", dirty, d->backlog_peak);
	fputs(",\"drain_seconds\":", out);
	if (d->drained)
		fprintf(out, "%.3f", d->drain_s);
	else
		fputs("null", out);
	double gib = guest ? (double)(d->io.guest_wr_bytes + d->io.guest_rd_bytes) / EX_GIB : 0;
	fputs(",\"dom0_cpu_s\":", out);
	put_fixed(out, cpu ? ex_dom0_cpu_s(d) : NAN, 6);
	fputs(",\"dom0_cpu_s_per_gib\":", out);
	put_num(out, cpu && gib > 0 ? ex_dom0_cpu_s(d) / gib : NAN);
	fputs(",\"dom0_cpu_s_drain\":", out);
	put_fixed(out, cpu ? (double)d->after_cpu_ns / 1e9 : NAN, 6);
	fputs(",\"dom0_cpu_s_per_gib_with_drain\":", out);
	put_num(out, cpu && gib > 0 ? ex_cpu_s_per_gib(d) : NAN);
	fputs(",\"path\":", out); /* the layers below a guest: the tracer's */
	json_put_string(out, stack ? ex_path_name(ex_path_of(d)) : NULL);
	fputs(",\"guest_wr_rate_bytes_per_s\":", out);
	put_fixed(out, guest ? ex_guest_wr_rate(ex, d) : NAN, 0);
	fputs(",\"end_to_end_wr_rate_bytes_per_s\":", out);
	put_fixed(out, guest ? ex_end_to_end_wr_rate(ex, d) : NAN, 0);
	if (!stack) {
		fputs(",\"layers\":null}", out);
		return;
	}
	fputs(",\"layers\":[", out);
	for (size_t i = 0; i < d->n_layers; i++) {
		const struct ex_layer *l = &d->layers[i];
		fprintf(out, "%s{%s", i ? "," : "", l->is_file ? "\"file\":" : "\"dev\":");
		json_put_string(out, l->is_file ? d->file : l->name);
		fprintf(out, ",\"role\":\"%s\",\"leaf\":%s,\"rd_bytes\":%llu,\"wr_bytes\":%llu}",
		        model_role_name(l->role), l->is_leaf ? "true" : "false",
		        (unsigned long long)l->rd_bytes, (unsigned long long)l->wr_bytes);
	}
	fputs("]}", out);
}

static void put_claim(FILE *out, const struct explain *ex, const struct ex_claim *c)
{
	fputs("{\"file\":", out);
	json_put_string(out, c->fig.file);
	fputs(",\"tool\":", out);
	json_put_string(out, c->fig.tool);
	fprintf(out, ",\"domid\":%u,\"direction\":\"%s\",\"bytes\":%llu,\"seconds\":", c->domid,
	        c->write ? "write" : "read", (unsigned long long)c->bytes);
	put_num(out, c->seconds > 0 ? c->seconds : NAN);
	fputs(",\"rate_bytes_per_s\":", out);
	put_num(out, c->rate_bps > 0 ? round(c->rate_bps) : NAN);
	/* what dom0 saw of the run: null where the recording holds it for no domain (an
	 * import's logs: no physical bytes per domain; no VBD sectors in NetBSD's xentop) */
	bool placed = c->located.found; /* a run not placed has no observed figure */
	put_count(out, ",\"observed_guest_bytes\":",
	          placed && figure_held(FIG_GUEST_WR_BYTES, ex->host.absent), c->observed_guest);
	put_count(out, ",\"observed_phys_bytes\":",
	          placed && figure_held(FIG_PHYS_WR_BYTES, ex->host.absent), c->observed_phys);
	fputs(",\"inflation\":", out);
	put_num(out, c->inflation >= 0 ? c->inflation : NAN);
	fprintf(out, ",\"placed\":\"%s\",\"placed_by\":[", ex_sureness_name(c->placed_how));
	for (unsigned b = 0, n = 0; b < EXPE_BITS; b++)
		if (c->placed_by & (1u << b))
			fprintf(out, "%s\"%s\"", n++ ? "," : "", ex_place_evidence_name(1u << b));
	fputs("],\"also_active_domid\":", out);
	if (c->also_active_domid == EX_NO_DOMAIN)
		fputs("null}", out);
	else
		fprintf(out, "%u}", c->also_active_domid);
}

static void put_verdict(FILE *out, const struct explain *ex, const struct ex_verdict *v)
{
	fprintf(out, "{\"id\":\"%s\",\"domid\":", ex_verdict_key(v->id));
	if (v->domid == EX_NO_DOMAIN)
		fputs("null", out);
	else
		fprintf(out, "%u", v->domid);
	fputs(",\"share\":", out);
	put_num(out, round(v->share * 10000) / 10000);
	fputs(",\"figures\":{", out);
	for (size_t i = 0; i < v->n_figures; i++) {
		const struct ex_figure *f = &v->figures[i];
		fprintf(out, "%s\"%s\":", i ? "," : "", ex_key_name(f->key));
		if (f->null)
			fputs("null", out);
		else if (f->str[0])
			json_put_string(out, f->str);
		else
			put_num(out, f->value);
	}
	fputs("},\"evidence\":[", out);
	for (size_t i = 0; i < v->n_evidence; i++) {
		fputs(i ? "," : "", out);
		json_put_string(out, v->evidence[i]);
	}
	fputs("],\"text\":", out);
	char text[PROSE_MAX];
	prose_verdict(ex, v, text, sizeof(text));
	json_put_string(out, text);
	fputs("}", out);
}

static void put_imported(FILE *out, const struct explain *ex)
{
	static const char *const names[] = {"guest_io", "stack", "vmstat", "disks"};
	fputs(",\"imported\":{\"from\":", out);
	json_put_string(out, ex->host.imported_from);
	fputs(",\"absent\":[", out);
	bool first = true;
	for (unsigned b = 0; b < 4; b++)
		if (ex->host.absent & (1u << b)) {
			fprintf(out, "%s\"%s\"", first ? "" : ",", names[b]);
			first = false;
		}
	put_count(out, "],\"host_busy_ns\":", ex->host.busy_source[0], ex->host_busy_ns);
	fputs(",\"host_disk_wr_bytes\":", out);
	bool disks = figure_held(FIG_DISKS_WR_BYTES, ex->host.absent);
	put_num(out, disks ? (double)ex->disk_wr : NAN);
	fputs(",\"host_disk_rd_bytes\":", out);
	put_num(out, disks ? (double)ex->disk_rd : NAN);
	fputs("}", out);
}

/* What the recording cannot say, each with why: an import's missing logs, a drain the
 * recording cut short, a leaf whose requests are not one domain's. */
static void put_not_given(FILE *out, const struct explain *ex)
{
	fputs(",\"not_given\":[", out);
	for (size_t i = 0; i < ex->n_not_given; i++) {
		fprintf(out, "%s{\"id\":\"%s\",\"why\":", i ? "," : "", ex->not_given[i].key);
		json_put_string(out, ex->not_given[i].text);
		fputs("}", out);
	}
	fputs("]", out);
}

void report_json_object(FILE *out, const struct explain *ex)
{
	fputs("{", out);
	put_window(out, ex);
	fputs(",\"domains\":[", out);
	for (size_t i = 0; i < ex->n_doms; i++) {
		fputs(i ? "," : "", out);
		put_domain(out, ex, &ex->doms[i]);
	}
	fputs("],\"marks\":[", out);
	for (size_t i = 0; i < ex->n_marks; i++) {
		fprintf(out, "%s{\"t\":%.3f,\"label\":", i ? "," : "", ex->marks[i].t);
		json_put_string(out, ex->marks[i].label);
		fputs(",\"origin\":", out);
		json_put_string(out, ex->marks[i].origin);
		fputs("}", out);
	}
	fputs("],\"claims\":[", out);
	for (size_t i = 0; i < ex->n_claims; i++) {
		fputs(i ? "," : "", out);
		put_claim(out, ex, &ex->claims[i]);
	}
	fputs("],", out);
	report_claims_json(out, ex);
	fputs(",\"verdicts\":[", out);
	for (size_t i = 0; i < ex->n_verdicts; i++) {
		fputs(i ? "," : "", out);
		put_verdict(out, ex, &ex->verdicts[i]);
	}
	fputs("]", out);
	if (ex->host.absent) /* an imported recording: what it has */
		put_imported(out, ex);
	put_not_given(out, ex);
	fputs("}", out);
}

int report_json(FILE *out, const struct explain *ex)
{
	report_json_object(out, ex);
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}

static void put_side(FILE *out, const struct ex_side *s)
{
	fputs("{\"file\":", out);
	json_put_string(out, s->ex->file);
	fprintf(out, ",\"domid\":%u,\"name\":", s->dom->domid);
	json_put_string(out, s->dom->name);
	fprintf(out,
	        ",\"bytes\":%.0f,\"rate_bytes_per_s\":%.0f,\"seen_s_per_gib\":%.4f,"
	        "\"true_s_per_gib\":%.4f,\"hidden_s_per_gib\":%.4f,\"dom0_cpu_s_per_gib\":%.4f",
	        s->bytes, s->rate_bps, s->seen_s_per_gib, s->true_s_per_gib, s->hidden_s_per_gib,
	        s->cpu_s_per_gib);
	/* its test against the caches on its path (the benchmark's size rule) */
	fprintf(out, ",\"test_bytes\":%.0f,\"cache_bytes\":", s->test_bytes);
	put_num(out, s->cache_bytes > 0 ? s->cache_bytes : NAN);
	fprintf(out, ",\"under_size_rule\":%s", s->under_rule ? "true" : "false");
	/* taken as the busiest while this domain moved 1 MiB too; null: named, or alone */
	fputs(",\"also_active_domid\":", out);
	if (s->also_active)
		fprintf(out, "%u}", s->also_active->domid);
	else
		fputs("null}", out);
}

int report_compare_json(FILE *out, const struct ex_compare *c)
{
	fputs("{\"a\":", out);
	report_json_object(out, c->a.ex);
	fputs(",\"b\":", out);
	report_json_object(out, c->b.ex);
	if (c->hosts_only) {
		fprintf(out,
		        ",\"comparison\":{\"hosts_only\":true,\"dom0_cpu_s_a\":%.3f,"
		        "\"dom0_cpu_s_b\":%.3f,\"guests_vcpu_s_a\":%.3f,\"guests_vcpu_s_b\":%.3f,"
		        "\"dom0_cpu_ratio\":%.4f,\"text\":",
		        c->dom0_cpu_s_a, c->dom0_cpu_s_b, c->guests_vcpu_s_a, c->guests_vcpu_s_b,
		        c->ratio);
		char text[PROSE_MAX];
		prose_compare(c, text, sizeof(text));
		json_put_string(out, text);
		fputs("}}\n", out);
		return ferror(out) ? -1 : 0;
	}
	fputs(",\"comparison\":{\"a\":", out);
	put_side(out, &c->a);
	fputs(",\"b\":", out);
	put_side(out, &c->b);
	fprintf(out,
	        ",\"direction\":\"%s\",\"ratio\":%.4f,\"difference_s_per_gib\":%.4f,"
	        "\"size_flaw\":%s,\"causes\":[",
	        c->reads ? "read" : "write", c->ratio, c->difference_s_per_gib,
	        c->size_flaw ? "true" : "false");
	for (size_t i = 0; i < c->n_causes; i++) {
		fprintf(out,
		        "%s{\"rank\":%zu,\"id\":\"%s\",\"s_per_gib\":%.4f,\"share\":%.4f,"
		        "\"against\":%s,\"text\":",
		        i ? "," : "", i + 1, ex_verdict_key(c->causes[i].id),
		        c->causes[i].s_per_gib, c->causes[i].share,
		        c->causes[i].against ? "true" : "false");
		char text[512];
		prose_cause(c, &c->causes[i], text, sizeof(text));
		json_put_string(out, text);
		fputs("}", out);
	}
	fputs("],\"text\":", out);
	char text[PROSE_MAX];
	prose_compare(c, text, sizeof(text));
	json_put_string(out, text);
	fputs("}}\n", out);
	return ferror(out) ? -1 : 0;
}
