/* report_day.c - the HTML report's day chart: each domain's whole recording at a glance
 * (explain/day.h), one strip a domain, busiest first: guest bytes per second as bars,
 * physical as a line, the window explain judged shaded, the time of day along the bottom
 * in local time with its zone. Inline SVG, nothing external. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/when.h"
#include "explain/day.h"
#include "explain/report/report.h"

#define DAY_W     640
#define DAY_PAD_L 150 /* the domain's name and its peak */
#define DAY_PAD_R 8
#define STRIP_H   40
#define AXIS_H    30

static double day_x(const struct ex_day *day, int64_t t_ns)
{
	double span = (double)day->bucket_ns * (double)day->n_buckets;
	return DAY_PAD_L + (double)(t_ns - day->t0_ns) / span * (DAY_W - DAY_PAD_L - DAY_PAD_R);
}

/* One domain's strip at y: its name and peak, bars and a line scaled to the peak. */
static void strip(FILE *out, const struct ex_day *day, const struct ex_day_domain *d, int y)
{
	double peak = 0;
	for (size_t b = 0; b < day->n_buckets; b++) {
		if (d->guest_bps[b] > peak)
			peak = d->guest_bps[b];
		if (d->phys_bps[b] > peak)
			peak = d->phys_bps[b];
	}
	char who[96]; /* raw: html_put escapes it once */
	snprintf(who, sizeof(who), "%.60s (%u)", d->name[0] ? d->name : "domain", d->domid);
	fputs("<text x=\"4\" y=\"", out);
	fprintf(out, "%d\">", y + 14);
	html_put(out, who);
	fprintf(out, "</text><text x=\"4\" y=\"%d\">peak %.1f MiB/s</text>\n", y + 28,
	        peak / EX_MIB);
	fprintf(out,
	        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
	        "stroke=\"#ddd\"/>\n",
	        DAY_PAD_L, y, DAY_W - DAY_PAD_L - DAY_PAD_R, STRIP_H - 4);
	if (peak <= 0)
		return;
	double h = STRIP_H - 6, w = day_x(day, day->t0_ns + day->bucket_ns) - DAY_PAD_L;
	for (size_t b = 0; d->guest_known && b < day->n_buckets; b++) {
		if (day->gap[b] || d->guest_bps[b] <= 0)
			continue;
		double bh = d->guest_bps[b] / peak * h;
		fprintf(out,
		        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		        "fill=\"#1f77b4\"/>\n",
		        day_x(day, day->t0_ns + (int64_t)b * day->bucket_ns), y + STRIP_H - 4 - bh,
		        w > 1.5 ? w - 0.5 : w, bh);
	}
	if (!d->phys_known)
		return;
	fputs("<polyline fill=\"none\" stroke=\"#2ca02c\" stroke-width=\"1.4\" points=\"", out);
	for (size_t b = 0; b < day->n_buckets; b++)
		if (!day->gap[b])
			fprintf(out, "%.1f,%.1f ",
			        day_x(day, day->t0_ns + (int64_t)b * day->bucket_ns) + w / 2,
			        y + STRIP_H - 4 - d->phys_bps[b] / peak * h);
	fputs("\"/>\n", out);
}

/* The time of day along the bottom, local with the zone named once. */
static void axis(FILE *out, const struct ex_day *day, int y)
{
	int64_t span = day->bucket_ns * (int64_t)day->n_buckets;
	for (int k = 0; k <= 4; k++) {
		int64_t t = day->t0_ns + span * k / 4;
		char clock[48] = "?";
		time_t s = (time_t)(t / NS_PER_S);
		struct tm tm;
		if (localtime_r(&s, &tm))
			strftime(clock, sizeof(clock),
			         span > 86400 * NS_PER_S ? "%m-%d %H:%M" : "%H:%M", &tm);
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>\n",
		        day_x(day, t), y + 12,
		        k == 0   ? "start"
		        : k == 4 ? "end"
		                 : "middle",
		        clock);
	}
	char first[64], last[64];
	if (when_text(day->t0_ns, first, sizeof(first)))
		snprintf(first, sizeof(first), "?");
	if (when_text(day->t0_ns + span, last, sizeof(last)))
		snprintf(last, sizeof(last), "?");
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s to %s</text>\n",
	        DAY_W - DAY_PAD_R, y + 26, first, last);
}

void html_day(FILE *out, const struct explain *ex)
{
	const struct ex_day *day = ex->day;
	if (!day || !day->n_doms || !day->n_buckets)
		return;
	int height = (int)day->n_doms * STRIP_H + AXIS_H;
	fprintf(out,
	        "<h2>The whole recording, per domain</h2>\n<p>Guest bytes per second (bars) "
	        "and physical (line) in buckets of %lld min, each domain scaled to its own "
	        "peak; the window above shaded.</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
	        "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
	        (long long)(day->bucket_ns / (60 * NS_PER_S)), DAY_W, height, DAY_W, height);
	double wx0 = day_x(day, ex->win.from_ns), wx1 = day_x(day, ex->win.to_ns);
	fprintf(out, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%d\" fill=\"#e6f0ff\"/>\n",
	        wx0, wx1 - wx0 > 1 ? wx1 - wx0 : 1, (int)day->n_doms * STRIP_H);
	for (size_t i = 0; i < day->n_doms; i++)
		strip(out, day, &day->doms[i], (int)i * STRIP_H);
	axis(out, day, (int)day->n_doms * STRIP_H);
	fputs("</svg>\n<div class=\"legend\"><span style=\"color:#1f77b4\">&#9632; guest</span>"
	      "<span style=\"color:#2ca02c\">&#9632; physical</span>"
	      "<span style=\"background:#e6f0ff;color:#36c\">| window |</span></div>\n",
	      out);
}
