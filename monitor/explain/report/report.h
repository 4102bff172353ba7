/* report.h - an explained window (and a comparison) as text, JSON or HTML.
 *
 * Contract: text is what a person pastes into a mailing-list reply (80 columns, verdicts
 * ranked, each with its figures); JSON is one object carrying every figure, in the shape
 * README "Explaining a benchmark" documents ({"window", "domains", "claims", "verdicts"},
 * a comparison {"a", "b", "comparison"}; an imported recording adds "imported" and
 * "not_given", and two imports compared by dom0 CPU alone a "comparison" with
 * "hosts_only"); text and HTML name the verdicts not given too; HTML is one self-contained file (no
 * network, no script) with an inline SVG time chart per domain and the verdicts beside it. Every
 * string from the recording is escaped for its format. Each returns 0, or -1 when
 * writing failed (ferror).
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
/* An HTML report's parts (report_html.c), for the comparison page. */
void html_head(FILE *out, const char *title);
void html_window(FILE *out, const struct explain *ex, const char *heading);
void html_tail(FILE *out);
/* s escaped for HTML text and attributes (after sanitize_text). */
void html_put(FILE *out, const char *s);

#endif
