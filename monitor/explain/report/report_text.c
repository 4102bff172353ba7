/* report_text.c - an explained window as text for a mailing-list reply: the window, the
 * host, a table of domains, then the verdicts ranked, wrapped at 78 columns. */
#include <stdio.h>
#include <string.h>

#include "core/figures.h"
#include "core/sanitize.h"
#include "explain/report/prose.h"
#include "explain/report/report.h"
#include "explain/verdicts/verdicts.h"

static void mib(FILE *out, uint64_t b)
{
	fprintf(out, " %7.0f", (double)b / EX_MIB);
}

static void header(FILE *out, const struct explain *ex)
{
	char file[2048], from[1024], to[1024];
	sanitize_text(ex->file, file, sizeof(file));
	sanitize_text(ex->win.from_label[0] ? ex->win.from_label : "(sample)", from, sizeof(from));
	sanitize_text(ex->win.to_label[0] ? ex->win.to_label : "(sample)", to, sizeof(to));
	fprintf(out, "xiotop explain %s\n", file);
	char line[4096];
	snprintf(line, sizeof(line),
	         "window: %.2f s, from \"%s\" to \"%s\" (samples %zu..%zu, every %.1f s); "
	         "recorded %.1f s after it.",
	         ex->win.seconds, from, to, ex->win.first, ex->win.last, ex->win.interval_s,
	         ex->win.recorded_after_s);
	report_wrap(out, "", line);
	const struct ex_host *h = &ex->host;
	char host[1024];
	report_host_line(ex, host, sizeof(host));
	snprintf(line, sizeof(line), "host: %s%s.", host,
	         h->lost_events ? " (events were lost: figures are low)" : "");
	report_wrap(out, "", line);
	if (h->absent) {
		char from[1024];
		sanitize_text(h->imported_from, from, sizeof(from));
		snprintf(line, sizeof(line),
		         "imported from logs (%s): no tracer ran, so a figure the logs do not "
		         "hold shows -, and the verdicts it would need are named at the end.",
		         from[0] ? from : "?");
		report_wrap(out, "", line);
	}
	fputc('\n', out);
}

/* A column's MiB, or "-" when the recording does not hold it (an import). */
static void mib_or_dash(FILE *out, bool known, uint64_t b)
{
	if (known)
		mib(out, b);
	else
		fprintf(out, " %7s", "-");
}

static void domain_table(FILE *out, const struct explain *ex)
{
	fprintf(out, "%-14s %7s %7s %7s %7s %7s %7s %6s %6s\n", "domain, MiB", "guestwr", "guestrd",
	        "phys wr", "phys rd", "2xcount", "backlog", "drain", "CPU/G");
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		if (!report_domain_shown(ex, d))
			continue; /* idle in the window: in the JSON only */
		char name[XIO_NAME_MAX * 4], label[300];
		sanitize_text(d->name, name, sizeof(name));
		snprintf(label, sizeof(label), "%u %s", d->domid, name);
		fprintf(out, "%-14.14s", label);
		struct report_known k = report_known(ex, d);
		mib_or_dash(out, k.guest, d->io.guest_wr_bytes);
		mib_or_dash(out, k.guest, d->io.guest_rd_bytes);
		mib_or_dash(out, k.stack, d->io.phys_wr_bytes);
		mib_or_dash(out, k.stack, d->io.phys_rd_bytes);
		mib_or_dash(out, k.stack, d->io.double_counted_bytes);
		mib_or_dash(out, k.dirty, d->backlog_end);
		if (d->drained)
			fprintf(out, " %5.1fs", d->drain_s);
		else
			fprintf(out, " %6s",
			        ex->host.has_dirty ? "never"
			        : ex->host.absent  ? "-"
			                           : "?");
		if (k.cpu && (!ex->host.absent || ex->host.has_cpu))
			fprintf(out, " %6.2f\n", ex_cpu_s_per_gib(d));
		else
			fprintf(out, " %6s\n", "-");
	}
	fputs("(drain: seconds after the window until its dirty backlog was on disk;\n"
	      " CPU/G: dom0 CPU seconds per GiB the guest moved, the drain's included)\n\n",
	      out);
}

static void figures(FILE *out, const struct ex_verdict *v)
{
	char line[4096] = "figures:";
	size_t used = strlen(line);
	for (size_t i = 0; i < v->n_figures && used < sizeof(line) - 80; i++) {
		const struct ex_figure *f = &v->figures[i];
		int n;
		if (f->null)
			n = snprintf(line + used, sizeof(line) - used, " %s=null",
			             ex_key_name(f->key));
		else if (f->str[0])
			n = snprintf(line + used, sizeof(line) - used, " %s=\"%s\"",
			             ex_key_name(f->key), f->str);
		else if (f->value == (double)(long long)f->value)
			n = snprintf(line + used, sizeof(line) - used, " %s=%lld",
			             ex_key_name(f->key), (long long)f->value);
		else
			n = snprintf(line + used, sizeof(line) - used, " %s=%.4g",
			             ex_key_name(f->key), f->value);
		if (n > 0)
			used += (size_t)n;
	}
	report_wrap(out, "     ", line);
	char ev[1024] = "evidence:";
	for (size_t i = 0; i < v->n_evidence; i++)
		snprintf(ev + strlen(ev), sizeof(ev) - strlen(ev), "%s %s", i ? "," : "",
		         v->evidence[i]);
	report_wrap(out, "     ", ev);
}

static void verdicts(FILE *out, const struct explain *ex)
{
	fputs("Verdicts, ranked by the share of the discrepancy each accounts for:\n\n", out);
	for (size_t i = 0; i < ex->n_verdicts; i++) {
		const struct ex_verdict *v = &ex->verdicts[i];
		char head[160];
		if (v->domid == EX_NO_DOMAIN)
			snprintf(head, sizeof(head), "%2zu. %s, share %.0f %%", i + 1,
			         ex_verdict_key(v->id), v->share * 100);
		else
			snprintf(head, sizeof(head), "%2zu. %s, domain %u, share %.0f %%", i + 1,
			         ex_verdict_key(v->id), v->domid, v->share * 100);
		fprintf(out, "%s\n", head);
		char text[PROSE_MAX];
		prose_verdict(ex, v, text, sizeof(text));
		report_wrap(out, "     ", text);
		figures(out, v);
		fputc('\n', out);
	}
	if (!ex->n_verdicts)
		fputs("   none: no domain moved 1 MiB in the window.\n", out);
	if (ex->n_not_given)
		fputs("\nNot given: the recording lacks their counters.\n\n", out);
	for (size_t i = 0; i < ex->n_not_given; i++) {
		char line[sizeof(ex->not_given[i].text) + 80]; /* the key, the whole text */
		snprintf(line, sizeof(line), "- %s %s.", ex->not_given[i].key,
		         ex->not_given[i].text);
		report_wrap(out, "   ", line);
	}
}

int report_text(FILE *out, const struct explain *ex)
{
	header(out, ex);
	domain_table(out, ex);
	report_claims_text(out, ex);
	verdicts(out, ex);
	return ferror(out) ? -1 : 0;
}

/* A side taken as its recording's busiest domain while another moved 1 MiB too. */
static void also_active(FILE *out, const char *which, const struct ex_side *s)
{
	if (!s->also_active)
		return;
	char chosen[160], other[160], bytes[32], line[512];
	ex_bytes((double)(s->also_active->io.guest_wr_bytes + s->also_active->io.guest_rd_bytes),
	         bytes, sizeof(bytes));
	snprintf(line, sizeof(line),
	         "(%s is its recording's busiest domain, %s; %s moved %s too: --domain names "
	         "the one meant)",
	         which, ex_dom_label(s->dom, chosen, sizeof(chosen)),
	         ex_dom_label(s->also_active, other, sizeof(other)), bytes);
	report_wrap(out, "", line);
}

int report_compare_text(FILE *out, const struct ex_compare *c)
{
	char a[160], b[160], fa[1024], fb[1024];
	sanitize_text(c->a.ex->file, fa, sizeof(fa));
	sanitize_text(c->b.ex->file, fb, sizeof(fb));
	char line[2600];
	if (c->hosts_only)
		snprintf(line, sizeof(line), "xiotop explain: A = dom0 in %s, B = dom0 in %s", fa,
		         fb);
	else
		snprintf(line, sizeof(line), "xiotop explain: A = %s in %s, B = %s in %s",
		         ex_dom_label(c->a.dom, a, sizeof(a)), fa,
		         ex_dom_label(c->b.dom, b, sizeof(b)), fb);
	report_wrap(out, "", line);
	also_active(out, "A", &c->a);
	also_active(out, "B", &c->b);
	fputc('\n', out);
	char text[PROSE_MAX];
	prose_compare(c, text, sizeof(text));
	report_wrap(out, "", text);
	if (!c->hosts_only)
		fputs("\nCauses of the difference, ranked by their seconds per GiB (signed, they "
		      "add up to the difference; shares of all the causes' seconds):\n",
		      out);
	for (size_t i = 0; i < c->n_causes; i++) {
		const struct ex_cause *k = &c->causes[i];
		fprintf(out, "%2zu. %s: %+.2f s per GiB, share %.0f %%%s\n", i + 1,
		        ex_verdict_key(k->id), k->s_per_gib, k->share * 100,
		        k->against ? ", against the difference" : "");
		char why[512];
		prose_cause(c, k, why, sizeof(why));
		report_wrap(out, "     ", why);
	}
	fputs("\n==== A ====\n", out);
	report_text(out, c->a.ex);
	fputs("==== B ====\n", out);
	report_text(out, c->b.ex);
	return ferror(out) ? -1 : 0;
}
