/* report_html.c - an explained window as one self-contained HTML file: inline CSS, an
 * inline SVG time chart per domain (guest, physical and double-counted MiB/s; dirty
 * backlog; dom0 CPU) with the window shaded and the marks drawn, the verdicts about that
 * domain beside it. No script, no external resource: it opens offline. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/sanitize.h"
#include "explain/report/prose.h"
#include "explain/report/report.h"
#include "explain/verdicts/verdicts.h"

#define CHART_W 640
#define PANEL_H 92
#define PAD_L   56
#define PAD_R   12
#define TOP_H   24 /* the marks' labels, above the panels */
#define AXIS_H  40 /* below the panels: the ticks, their labels, the axis's caption */

void html_head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", out);
	html_put(out, title);
	fputs("</title>\n<style>\n"
	      "body{font:14px/1.4 sans-serif;margin:16px;color:#222;background:#fff}\n"
	      "h1{font-size:20px}h2{font-size:17px;margin:20px 0 6px}h3{font-size:15px;margin:4px "
	      "0}\n"
	      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;"
	      "padding:2px 6px;text-align:right}th{background:#f3f3f3}td.l,th.l{text-align:left}\n"
	      ".dom{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start;"
	      "border-top:1px solid #ddd;padding-top:8px}\n"
	      ".verdicts{flex:1;min-width:320px}.v{margin:0 0 10px}.v b{color:#a33}\n"
	      ".fig{font:12px monospace;color:#555;word-break:break-all}\n"
	      ".legend span{margin-right:12px;font-size:12px}\n"
	      "svg text{font:11px sans-serif;fill:#444}\n"
	      "</style></head><body>\n",
	      out);
}

void html_tail(FILE *out)
{
	fputs("</body></html>\n", out);
}

struct frame {
	double t0, t1;
};

static double x_of(const struct frame *f, double t)
{
	return PAD_L + (t - f->t0) / (f->t1 - f->t0) * (CHART_W - PAD_L - PAD_R);
}

/* One panel: a series of d drawn by value(), in y from top. */
static void panel(FILE *out, const struct explain *ex, const struct ex_domain *d,
                  const struct frame *f, int top, const char *unit, int n_lines,
                  double (*value)(const struct ex_point *, int), const char *const *colors)
{
	double max = 0;
	for (size_t i = 0; i < d->n_series; i++)
		for (int k = 0; k < n_lines; k++)
			if (value(&d->series[i], k) > max)
				max = value(&d->series[i], k);
	if (max <= 0)
		max = 1;
	int h = PANEL_H - 16;
	double wx0 = x_of(f, 0), wx1 = x_of(f, ex->win.seconds);
	fprintf(out,
	        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" "
	        "stroke=\"#ccc\"/>\n",
	        PAD_L, top, CHART_W - PAD_L - PAD_R, h);
	fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#e6f0ff\"/>\n",
	        wx0, top, wx1 - wx0, h);
	fprintf(out, "<text x=\"4\" y=\"%d\">%.*f</text><text x=\"4\" y=\"%d\">%s</text>\n",
	        top + 10, max >= 10 ? 0 : 2, max, top + h, unit);
	for (int k = 0; k < n_lines; k++) {
		/* the first line wide and the third dashed: equal values stay visible */
		fprintf(
		    out, "<polyline fill=\"none\" stroke-width=\"%s\" stroke=\"%s\"%s points=\"",
		    k == 0 ? "3.2" : "1.6", colors[k], k == 2 ? " stroke-dasharray=\"5 3\"" : "");
		for (size_t i = 0; i < d->n_series; i++) {
			double v = value(&d->series[i], k);
			fprintf(out, "%.1f,%.1f ", x_of(f, d->series[i].t), top + h - v / max * h);
		}
		fputs("\"/>\n", out);
	}
}

static double rates(const struct ex_point *p, int k)
{
	return (k == 0 ? p->guest_bps : k == 1 ? p->phys_bps : p->double_bps) / EX_MIB;
}

static double backlog(const struct ex_point *p, int k)
{
	(void)k;
	return p->backlog_bytes / EX_MIB;
}

static double cpu(const struct ex_point *p, int k)
{
	(void)k;
	return p->cpu_frac * 100;
}

/* The marks as dashed lines, their labels staggered and cut (the full label in a
 * tooltip), and the window's bounds as solid lines. */
static void marks(FILE *out, const struct explain *ex, const struct frame *f, int height)
{
	for (size_t i = 0; i < ex->n_marks; i++) {
		const struct ex_mark *m = &ex->marks[i];
		if (m->t < f->t0 || m->t > f->t1)
			continue;
		double x = x_of(f, m->t);
		char cut[48];
		snprintf(cut, sizeof(cut), "%.40s%s", m->label, strlen(m->label) > 40 ? "..." : "");
		bool right = x > CHART_W / 2;
		fputs("<g><title>", out);
		html_put(out, m->label);
		fprintf(out,
		        "</title><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
		        "stroke=\"#c60\" stroke-dasharray=\"4 3\"/>\n<text x=\"%.1f\" y=\"%d\" "
		        "text-anchor=\"%s\">",
		        x, 2 + (int)(i % 2) * 11, x, height, right ? x - 3 : x + 3,
		        10 + (int)(i % 2) * 11, right ? "end" : "start");
		html_put(out, cut);
		fputs("</text></g>\n", out);
	}
	for (int k = 0; k < 2; k++) {
		double x = x_of(f, k ? ex->win.seconds : 0);
		fprintf(out,
		        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#36c\" "
		        "stroke-width=\"1\"/>\n",
		        x, TOP_H, x, height);
	}
}

/* Five time ticks along the bottom. */
static void ticks(FILE *out, const struct frame *f, int y)
{
	for (int k = 0; k <= 4; k++) {
		double t = f->t0 + (f->t1 - f->t0) * k / 4;
		double x = x_of(f, t);
		if (t > -0.05 && t < 0.05)
			t = 0; /* no "-0.0 s" */
		fprintf(out,
		        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>"
		        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%.1f s</text>\n",
		        x, y, x, y + 4, x, y + 15, k == 4 ? "end" : "middle", t);
	}
}

static void chart(FILE *out, const struct explain *ex, const struct ex_domain *d)
{
	struct frame f = {.t0 = 0, .t1 = ex->series_end_s};
	if (d->n_series && d->series[0].t - ex->win.interval_s < f.t0)
		f.t0 = d->series[0].t - ex->win.interval_s;
	if (f.t1 < ex->win.seconds)
		f.t1 = ex->win.seconds;
	if (f.t1 <= f.t0)
		f.t1 = f.t0 + 1;
	int bottom = TOP_H + 3 * PANEL_H - 16; /* the panels' last line: the time axis */
	int height = bottom + AXIS_H;
	fprintf(out,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" role=\"img\">\n",
	        CHART_W, height, CHART_W, height);
	static const char *const rate_colors[] = {"#1f77b4", "#2ca02c", "#d62728"};
	static const char *const backlog_colors[] = {"#9467bd"};
	static const char *const cpu_colors[] = {"#ff7f0e"};
	panel(out, ex, d, &f, TOP_H, "MiB/s", 3, rates, rate_colors);
	panel(out, ex, d, &f, TOP_H + PANEL_H, "MiB dirty", 1, backlog, backlog_colors);
	panel(out, ex, d, &f, TOP_H + 2 * PANEL_H, "% CPU", 1, cpu, cpu_colors);
	marks(out, ex, &f, bottom);
	ticks(out, &f, bottom);
	/* under the ticks' labels (bottom + 15), inside the picture: it was drawn below it */
	fprintf(out,
	        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">seconds from the window's "
	        "start</text>\n</svg>\n",
	        CHART_W - PAD_R, height - 6);
	fputs("<div class=\"legend\"><span style=\"color:#1f77b4\">&#9632; guest</span>"
	      "<span style=\"color:#2ca02c\">&#9632; physical</span>"
	      "<span style=\"color:#d62728\">- - double-counted</span>"
	      "<span style=\"color:#9467bd\">&#9632; dirty backlog</span>"
	      "<span style=\"color:#ff7f0e\">&#9632; dom0 CPU</span>"
	      "<span style=\"background:#e6f0ff;color:#36c\">| window |</span>"
	      "<span style=\"color:#c60\">- - mark</span></div>\n",
	      out);
}

static void verdict_list(FILE *out, const struct explain *ex, uint32_t domid)
{
	fputs("<div class=\"verdicts\">\n", out);
	for (size_t i = 0; i < ex->n_verdicts; i++) {
		const struct ex_verdict *v = &ex->verdicts[i];
		if (v->domid != domid)
			continue;
		fprintf(out, "<div class=\"v\"><h3>#%zu <b>%s</b> &middot; share %.0f %%</h3>",
		        i + 1, ex_verdict_key(v->id), v->share * 100);
		char text[PROSE_MAX];
		prose_verdict(ex, v, text, sizeof(text));
		html_put_sanitized(out, text);
		fputs("<div class=\"fig\">", out);
		for (size_t k = 0; k < v->n_figures; k++) {
			const struct ex_figure *fg = &v->figures[k];
			if (fg->null)
				fprintf(out, "%s=null ", ex_key_name(fg->key));
			else if (fg->str[0]) {
				fprintf(out, "%s=", ex_key_name(fg->key));
				html_put_sanitized(out, fg->str);
				fputc(' ', out);
			} else if (fg->value == (double)(long long)fg->value)
				fprintf(out, "%s=%lld ", ex_key_name(fg->key),
				        (long long)fg->value);
			else
				fprintf(out, "%s=%.4g ", ex_key_name(fg->key), fg->value);
		}
		fputs("</div></div>\n", out);
	}
	fputs("</div>\n", out);
}

static void html_imported(FILE *out, const struct explain *ex)
{
	fputs("<p>Imported from logs (", out);
	html_put(out, ex->host.imported_from);
	fputs("): no tracer ran.</p>\n<h3>The host</h3>\n", out);
	verdict_list(out, ex, EX_NO_DOMAIN);
	fputs("<h3>Not given: the recording lacks their counters</h3>\n<ul>\n", out);
	for (size_t i = 0; i < ex->n_not_given; i++) {
		fprintf(out, "<li><b>%s</b> ", ex->not_given[i].key);
		html_put_sanitized(out, ex->not_given[i].text);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* A cell: the value, or "-" when the recording does not hold it. */
static void cell(FILE *out, bool known, const char *fmt, double v)
{
	fputs("<td>", out);
	if (known)
		fprintf(out, fmt, v);
	else
		fputs("-", out);
	fputs("</td>", out);
}

static void domain_row(FILE *out, const struct explain *ex, const struct ex_domain *d)
{
	struct report_known k = report_known(ex, d);
	fprintf(out, "<tr><td>%u</td><td class=\"l\">", d->domid);
	html_put(out, d->name);
	fprintf(out, "</td><td class=\"l\">%s</td>",
	        k.stack ? ex_path_name(ex_path_of(d)) : "-"); /* the tracer's */
	cell(out, k.guest, "%.1f", (double)d->io.guest_wr_bytes / EX_MIB);
	cell(out, k.guest, "%.1f", (double)d->io.guest_rd_bytes / EX_MIB);
	cell(out, k.stack, "%.1f", (double)d->io.phys_wr_bytes / EX_MIB);
	cell(out, k.stack, "%.1f", (double)d->io.phys_rd_bytes / EX_MIB);
	cell(out, k.stack, "%.1f", (double)d->io.double_counted_bytes / EX_MIB);
	cell(out, k.dirty, "%.1f", (double)d->backlog_end / EX_MIB);
	if (d->drained)
		fprintf(out, "<td>%.1f</td>", d->drain_s);
	else
		fprintf(out, "<td>%s</td>",
		        ex->host.has_dirty ? "not drained"
		        : ex->host.absent  ? "-"
		                           : "?");
	cell(out, k.cpu, "%.2f", ex_dom0_cpu_s(d));
	cell(out, k.cpu && k.guest, "%.2f", ex_cpu_s_per_gib(d));
	fputs("</tr>\n", out);
}

void html_window(FILE *out, const struct explain *ex, const char *heading)
{
	fputs("<h2>", out);
	html_put(out, heading);
	fputs("</h2>\n<p>Window: ", out);
	html_put(out, ex->win.from_label[0] ? ex->win.from_label : "(first sample)");
	fputs(" &rarr; ", out);
	html_put(out, ex->win.to_label[0] ? ex->win.to_label : "(last sample)");
	char host[1024];
	report_host_line(ex, host, sizeof(host));
	fprintf(out, ", %.2f s; recorded %.1f s after it. Host: ", ex->win.seconds,
	        ex->win.recorded_after_s);
	html_put(out, host);
	fputs(".</p>\n<table><tr><th>domid</th><th class=\"l\">name</th>"
	      "<th class=\"l\">path</th><th>guest wr MiB</th><th>guest rd MiB</th>"
	      "<th>phys wr MiB</th><th>phys rd MiB</th><th>2x counted MiB</th>"
	      "<th>backlog at end MiB</th><th>drain s</th><th>dom0 CPU s</th>"
	      "<th>CPU s/GiB</th></tr>\n",
	      out);
	for (size_t i = 0; i < ex->n_doms; i++)
		if (report_domain_shown(ex, &ex->doms[i]))
			domain_row(out, ex, &ex->doms[i]);
	fputs("</table>\n", out);
	if (ex->host.absent) /* an import: host-wide verdicts, and the ones it cannot give */
		html_imported(out, ex);
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		if (d->io.guest_wr_bytes + d->io.guest_rd_bytes < EX_ACTIVE_BYTES)
			continue;
		char who[160];
		fputs("<div class=\"dom\"><div><h3>", out);
		html_put_sanitized(out, ex_dom_label(d, who, sizeof(who)));
		fputs("</h3>\n", out);
		chart(out, ex, d);
		fputs("</div>\n", out);
		verdict_list(out, ex, d->domid);
		fputs("</div>\n", out);
	}
}

int report_html(FILE *out, const struct explain *ex)
{
	char title[700];
	snprintf(title, sizeof(title), "xiotop explain %s", ex->file);
	html_head(out, title);
	fputs("<h1>", out);
	html_put(out, title);
	fputs("</h1>\n", out);
	html_window(out, ex, "The window");
	html_day(out, ex);
	html_tail(out);
	return ferror(out) ? -1 : 0;
}

int report_compare_html(FILE *out, const struct ex_compare *c)
{
	html_head(out, "xiotop explain: A against B");
	fputs("<h1>xiotop explain: A against B</h1>\n<p>", out);
	char text[PROSE_MAX];
	prose_compare(c, text, sizeof(text));
	html_put_sanitized(out, text);
	fputs("</p>\n", out);
	if (!c->hosts_only) /* two imports without bytes: dom0's CPU only, no causes */
		fputs("<table><tr><th>#</th><th class=\"l\">cause</th><th>s per GiB</th>"
		      "<th>share</th><th class=\"l\">why</th></tr>\n",
		      out);
	for (size_t i = 0; i < c->n_causes; i++) {
		fprintf(out,
		        "<tr><td>%zu</td><td class=\"l\">%s</td><td>%+.2f</td><td>%.0f %%%s</td>"
		        "<td class=\"l\">",
		        i + 1, ex_verdict_key(c->causes[i].id), c->causes[i].s_per_gib,
		        c->causes[i].share * 100, c->causes[i].against ? " (against)" : "");
		char why[512];
		prose_cause(c, &c->causes[i], why, sizeof(why));
		html_put_sanitized(out, why);
		fputs("</td></tr>\n", out);
	}
	if (!c->hosts_only)
		fputs("</table>\n", out);
	char head[700];
	snprintf(head, sizeof(head), "A: %s", c->a.ex->file);
	html_window(out, c->a.ex, head);
	snprintf(head, sizeof(head), "B: %s", c->b.ex->file);
	html_window(out, c->b.ex, head);
	html_tail(out);
	return ferror(out) ? -1 : 0;
}
