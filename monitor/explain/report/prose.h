/* prose.h - the words of the verdicts and of a comparison: what a Xen storage expert would
 * post on xen-users, with the numbers, written from a verdict's figures and reason codes
 * (findings.h) and the window they were drawn from. Names taken from the recording are
 * sanitized here.
 *
 * Contract: prose_verdict() writes one verdict's text into buf (NUL-terminated, cut at
 * len); the table of prose.c gives each verdict id its writer. prose_compare() and
 * prose_cause() write a comparison's summary and one cause's sentence. The helpers below
 * (prose_util.c) are the one place numbers and names are put in words.
 */
#ifndef XIOTOP_EXPLAIN_PROSE_H
#define XIOTOP_EXPLAIN_PROSE_H

#include <stdarg.h>
#include <stddef.h>

#include "explain/explain.h"
#include "explain/verdicts/compare.h"

#define PROSE_MAX 2048 /* a verdict's text, at most */

void prose_verdict(const struct explain *ex, const struct ex_verdict *v, char *buf, size_t len);
void prose_compare(const struct ex_compare *c, char *buf, size_t len);
void prose_cause(const struct ex_compare *c, const struct ex_cause *k, char *buf, size_t len);

/* ---- for the writers (prose_util.c) ---- */
struct prose {
	char *buf;
	size_t len;
};
/* Appends to p (printf-style). */
void say(struct prose *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A figure of v: its value (NAN when null or not there), its text ("" none), null. */
double fig(const struct ex_verdict *v, enum ex_key key);
const char *fig_str(const struct ex_verdict *v, enum ex_key key);
bool fig_null(const struct ex_verdict *v, enum ex_key key);
/* The window's domain of that id; NULL if none (EX_NO_DOMAIN included). */
const struct ex_domain *prose_domain(const struct explain *ex, uint32_t domid);
/* "guest1 (domain 1)", sanitized. */
const char *ex_dom_label(const struct ex_domain *d, char *buf, size_t len);
/* "256 MiB", "1.50 GiB", "512 KiB"; "12.3 MiB/s". */
const char *ex_bytes(double bytes, char *buf, size_t len);
const char *ex_rate(double bytes_per_s, char *buf, size_t len);
/* The leaf devices of d, sanitized, comma-separated ("zram1"); "a disk" if none. */
const char *ex_leaf_names(const struct ex_domain *d, char *buf, size_t len);

/* The writers of each verdict (prose_io.c, prose_cost.c, prose_request.c, prose_claim.c;
 * an import's in prose_import.c, a claim's settings' in prose_said.c), and of dom0's own
 * run's drain (prose_dom0.c). d: the
 * verdict's domain, NULL for the host. */
typedef void prose_fn(struct prose *p, const struct explain *ex, const struct ex_verdict *v,
                      const struct ex_domain *d);
prose_fn prose_page_cache_inflation, prose_double_counting, prose_read_cache, prose_dom0_cpu_cost,
    prose_test_size_vs_memory, prose_request_size, prose_path, prose_claim, prose_queue_depth,
    prose_direct_buffered;
prose_fn prose_import_cache, prose_import_double_counting, prose_import_dom0_cpu;
void prose_dom0_drain(struct prose *p, const struct explain *ex, const struct ex_domain *d);
void prose_dom0_after_data(struct prose *p, const struct explain *ex, const char *before);

#endif
