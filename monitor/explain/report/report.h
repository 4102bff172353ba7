/* report.h - an explained window (and a comparison) as text, JSON or HTML.
 *
 * Contract: text is what a person pastes into a mailing-list reply (80 columns, verdicts
 * ranked, each with its figures); JSON is one object carrying every figure, in the shape
 * README "Explaining a benchmark" documents ({"window", "domains", "claims", "verdicts"},
 * a comparison {"a", "b", "comparison"}; an imported recording adds "imported" and
 * "not_given", and two imports compared by dom0 CPU alone a "comparison" with
 * "hosts_only"); text and HTML name the verdicts not given too; HTML is one self-contained file (no
 * network, no script) with an inline SVG time chart per domain and the verdicts beside it,
 * and when the whole recording was read (ex->day) a day chart of every domain. Every
 * string from the recording is escaped for its format. Each verdict's words are
 * prose.h's, the same in every format. Each returns 0, or -1 when writing failed (ferror).
 */
#ifndef XIOTOP_EXPLAIN_REPORT_H
#define XIOTOP_EXPLAIN_REPORT_H

#include <stdio.h>

#include "explain/verdicts/compare.h"
#include "explain/explain.h"

int report_text(FILE *out, const struct explain *ex);
int report_json(FILE *out, const struct explain *ex);
int report_html(FILE *out, const struct explain *ex);

int report_compare_text(FILE *out, const struct ex_compare *c);
int report_compare_json(FILE *out, const struct ex_compare *c);
int report_compare_html(FILE *out, const struct ex_compare *c);

/* The JSON object of one window, without a newline (report_json prints it and one). */
void report_json_object(FILE *out, const struct explain *ex);
/* What every format says of the window (report_window.c): the host line ("kernel 6.1,
 * CPUs 4, dom0 memory 1.0 GiB, vm.dirty_ratio 20, ..."; a fact not recorded says so, and
 * on an import what would give it); whether a domain table shows d (it moved bytes or
 * had CPU in the window, or an import knows its CPU or memory); which of d's figures the
 * recording holds (an import's logs: no stack, no per-domain CPU). */
void report_host_line(const struct explain *ex, char *buf, size_t len);
bool report_domain_shown(const struct explain *ex, const struct ex_domain *d);
struct report_known {
	bool guest, stack, dirty, cpu;
};
struct report_known report_known(const struct explain *ex, const struct ex_domain *d);

/* An HTML report's parts (report_html.c), for the comparison page. */
void html_head(FILE *out, const char *title);
void html_window(FILE *out, const struct explain *ex, const char *heading);
void html_tail(FILE *out);
/* s escaped for HTML text and attributes (after sanitize_text); text already sanitized
 * (a verdict's sentence): the entities only (html_escape.c). */
void html_put(FILE *out, const char *s);
void html_put_sanitized(FILE *out, const char *clean);
/* The day chart (report_day.c): each domain's whole recording (ex->day, explain/day.h),
 * the window shaded; nothing when ex->day is NULL or empty. */
void html_day(FILE *out, const struct explain *ex);
/* text (already sanitized) word-wrapped at 78 columns, each line led by indent. */
void report_wrap(FILE *out, const char *indent, const char *text);
/* Every result of every --claim file, judged or not (report_claims.c, claim_list.h): in
 * the text report before the verdicts, and the JSON member "claim_files":[...]. */
void report_claims_text(FILE *out, const struct explain *ex);
void report_claims_json(FILE *out, const struct explain *ex);

#endif
