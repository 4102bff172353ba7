/* exposition.h - the metrics state as Prometheus reads it: OpenMetrics text 1.0.0, or the
 * Prometheus text format 0.0.4 for scrapers that ask for it.
 *
 * Contract: expo_render() writes every family with HELP and TYPE (and UNIT, OpenMetrics),
 * in base units (bytes, seconds), counters named *_total, then "# EOF" (OpenMetrics).
 * Family names, help, units and when a family is left out (its figure not known) come
 * from the figure table (core/figures.h); a figure of the table with a family that no
 * writer here names is exposed after the others (a counter or a gauge per domain, or one
 * value for the host). The families (labels in braces; domain ones are domid, domain,
 * generation):
 *   xiotop_domain_read_bytes_total / _written_bytes_total {..., layer="guest|physical"}
 *   xiotop_domain_double_counted_bytes_total, xiotop_domain_dirty_backlog_bytes (gauge),
 *   xiotop_domain_dom0_cpu_seconds_total {..., role}, xiotop_unattributed_*_bytes_total,
 *   xiotop_unattributed_dom0_cpu_seconds_total, xiotop_host_dom0_cpu_busy_seconds_total,
 *   xiotop_host_dom0_own_cpu_seconds_total,
 *   xiotop_lost_events_total, xiotop_intervals_total,
 *   xiotop_domain_io_latency_seconds {..., op="read|write"} (a histogram: cumulative
 *   _bucket{le} from 1.024e-06 s doubling to 2.147483648 s and +Inf, _sum, _count; only
 *   when latency was timed: the default, not with --no-latency; no series for a domain
 *   whose latency the latest interval did not time, a kind of its backends timed by a
 *   hook not attached: a 0-count histogram would say it did no I/O),
 *   xiotop_host_vmstat_pgpg{in,out}_bytes_total, xiotop_host_disk_{read,written}_bytes_total
 *   {device}, and the info metrics xiotop_build_info{version}, xiotop_hook_info{hook,mode}.
 * CPU families appear only when CPU was collected, the backlog only when dirty pages were.
 * Label values are escaped as both formats want (\\ \" \n); any other control byte (C0,
 * DEL, C1) and any byte that is not valid UTF-8 becomes the visible text \xNN, so a
 * guest-chosen name can never end a line, a label or the exposition early.
 * Pure: writes to the FILE it is given, nothing else.
 */
#ifndef XIOTOP_EXPORT_EXPOSITION_H
#define XIOTOP_EXPORT_EXPOSITION_H

#include <stdio.h>

#include "export/metrics.h"

enum expo_format { EXPO_OPENMETRICS, EXPO_PROMETHEUS };

/* The format an HTTP Accept header asks for: OpenMetrics when it is preferred to the text
 * format; else (NULL, no preference, * / *, a tie) the Prometheus text format, as
 * node_exporter answers. */
enum expo_format expo_negotiate(const char *accept);
const char *expo_content_type(enum expo_format f);
/* 0, or -1 if out failed. */
int expo_render(FILE *out, const struct metrics_state *st, enum expo_format f, const char *version);
/* One label value, escaped, without the quotes. */
void expo_put_label_value(FILE *out, const char *s);

#endif
