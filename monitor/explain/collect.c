/* collect.c - a recording's window into struct explain: which window (the wrapped
 * command's marks by default), the host facts, the marks, and the interval loop over the
 * window and its tail with window.c's sink; see explain.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/loop.h"
#include "core/sanitize.h"
#include "explain/dom0_subject.h"
#include "explain/window.h"
#include "record/rec_stream.h"

/* The wrapped command's start and end marks ("start: CMD", "end: CMD (exit N)"). */
static void wrap_marks(struct rec_reader *r, const char **from, const char **to)
{
	const struct rec_mark *m = rec_marks(r);
	for (size_t i = 0; i < rec_n_marks(r); i++) {
		if (strcmp(m[i].origin, "wrap"))
			continue;
		if (!*from && !strncmp(m[i].label, "start: ", 7))
			*from = m[i].label;
		else if (*from && !*to && !strncmp(m[i].label, "end: ", 5))
			*to = m[i].label;
	}
	if (!*to)
		*from = NULL;
}

/* The time a bound stands for: a mark's own time (the command's real start or end), else
 * the window's sample. */
static int64_t bound_time(struct rec_reader *r, const char *spec, size_t sample, char *label,
                          size_t len)
{
	const struct rec_mark *m = rec_marks(r);
	for (size_t i = 0; spec && i < rec_n_marks(r); i++)
		if (!strcmp(m[i].label, spec)) {
			snprintf(label, len, "%s", m[i].label);
			return m[i].realtime_ns;
		}
	return rec_time(r, sample);
}

static void copy_fact(char *dst, size_t len, const char *v)
{
	snprintf(dst, len, "%s", v ? v : "");
}

static void host_facts(struct rec_reader *r, struct ex_host *h)
{
	copy_fact(h->hostname, sizeof(h->hostname), rec_meta(r, "hostname"));
	copy_fact(h->kernel, sizeof(h->kernel), rec_meta(r, "kernel_release"));
	const char *v = rec_meta(r, "cpu_count");
	h->cpu_count = v ? atol(v) : 0;
	v = rec_meta(r, "dom0_mem_kb");
	h->mem_total_kb = v ? strtoull(v, NULL, 10) : 0;
	copy_fact(h->dirty_ratio, sizeof(h->dirty_ratio), rec_meta(r, "vm.dirty_ratio"));
	copy_fact(h->dirty_background_ratio, sizeof(h->dirty_background_ratio),
	          rec_meta(r, "vm.dirty_background_ratio"));
	copy_fact(h->dirty_bytes, sizeof(h->dirty_bytes), rec_meta(r, "vm.dirty_bytes"));
	copy_fact(h->dirty_background_bytes, sizeof(h->dirty_background_bytes),
	          rec_meta(r, "vm.dirty_background_bytes"));
	copy_fact(h->dirty_expire_cs, sizeof(h->dirty_expire_cs),
	          rec_meta(r, "vm.dirty_expire_centisecs"));
	copy_fact(h->dirty_writeback_cs, sizeof(h->dirty_writeback_cs),
	          rec_meta(r, "vm.dirty_writeback_centisecs"));
	copy_fact(h->imported_from, sizeof(h->imported_from), rec_meta(r, "imported_from"));
	/* shown as it is in figures, evidence and texts (a file's meta may hold anything) */
	const char *busy = rec_meta(r, "host_busy_source");
	sanitize_text(busy ? busy : "", h->busy_source, sizeof(h->busy_source));
	copy_fact(h->imported_counters, sizeof(h->imported_counters),
	          rec_meta(r, "imported_counters"));
	copy_fact(h->stacked_devices, sizeof(h->stacked_devices),
	          rec_meta(r, "iostat_stacked_devices"));
	copy_fact(h->leaf_devices, sizeof(h->leaf_devices), rec_meta(r, "iostat_leaf_devices"));
	copy_fact(h->dom0_os, sizeof(h->dom0_os), rec_meta(r, "dom0_os"));
}

static void take_marks(struct rec_reader *r, struct explain *ex)
{
	const struct rec_mark *m = rec_marks(r);
	for (size_t i = 0; i < rec_n_marks(r) && ex->n_marks < EX_MAX_MARKS; i++) {
		struct ex_mark *x = &ex->marks[ex->n_marks++];
		x->t = (double)(m[i].realtime_ns - ex->win.from_ns) / 1e9;
		snprintf(x->label, sizeof(x->label), "%s", m[i].label);
		snprintf(x->origin, sizeof(x->origin), "%s", m[i].origin);
	}
}

static int resolve(struct rec_reader *r, const char *from, const char *to, struct explain *ex,
                   struct xerr *err)
{
	if (!from && !to)
		wrap_marks(r, &from, &to);
	struct ex_window *w = &ex->win;
	if (rec_resolve_window(r, from, to, &w->first, &w->last, err))
		return -1;
	w->from_ns = bound_time(r, from, w->first, w->from_label, sizeof(w->from_label));
	w->to_ns = bound_time(r, to, w->last, w->to_label, sizeof(w->to_label));
	if (w->to_ns <= w->from_ns) {
		rec_set_error(err, REC_ERR_RANGE, "the window from %s to %s is empty",
		              from ? from : "the start", to ? to : "the end");
		return -1;
	}
	w->seconds = (double)(w->to_ns - w->from_ns) / 1e9;
	size_t n = rec_count(r);
	w->interval_s = (double)(rec_time(r, n - 1) - rec_time(r, 0)) / 1e9 / (double)(n - 1);
	w->recorded_after_s = (double)(rec_time(r, n - 1) - w->to_ns) / 1e9;
	return 0;
}

int explain_collect(struct rec_reader *r, const char *from, const char *to, struct explain *ex,
                    struct xerr *err)
{
	memset(ex, 0, sizeof(*ex));
	snprintf(ex->file, sizeof(ex->file), "%s", rec_path(r));
	if (resolve(r, from, to, ex, err))
		return -1;
	host_facts(r, &ex->host);
	take_marks(r, ex);
	/* the tail after the window: how long the backlog took to drain */
	struct rec_stream stream = {.reader = r, .next = ex->win.first, .last = rec_count(r) - 1};
	struct sample_source src = rec_stream_source(&stream);
	struct ex_window_sink ws = {.ex = ex};
	struct interval_sink sink = ex_window_sink(&ws);
	struct xerr loop_err = {0};
	struct loop l = {.src = &src, .sinks = &sink, .n_sinks = 1, .err = &loop_err};
	int rc = interval_loop(&l);
	int failed = ws.failed;
	ex_window_sink_done(&ws);
	if (rc || failed) {
		err->code = failed ? REC_ERR_NOMEM : REC_ERR_CORRUPT;
		err->kind = rec_errcode_kind(err->code);
		if (!failed && loop_err.msg[0]) /* the reader's sentence names the file */
			snprintf(err->msg, sizeof(err->msg), "%s", loop_err.msg);
		else
			snprintf(err->msg, sizeof(err->msg), "%s: %s", rec_path(r),
			         failed ? "out of memory" : "a sample could not be read");
		explain_free(ex);
		return -1;
	}
	ex_dom0_name(ex);
	return 0;
}

void explain_free(struct explain *ex)
{
	for (size_t i = 0; i < ex->n_doms; i++)
		free(ex->doms[i].series);
	free(ex->doms);
	ex->doms = NULL;
	ex->n_doms = 0;
}

const struct ex_domain *explain_find_domain(const struct explain *ex, const char *name)
{
	char *end;
	unsigned long id = strtoul(name, &end, 10);
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		if ((*name && !*end && d->domid == id) || !strcmp(d->name, name) ||
		    (d->dom0_subject && !strcmp(name, "dom0")))
			return d;
	}
	return NULL;
}

int explain_keep_domains(struct explain *ex, const char *const *names, size_t n, struct xerr *err)
{
	if (!n)
		return 0;
	bool *keep = calloc(ex->n_doms ? ex->n_doms : 1, sizeof(*keep));
	if (!keep)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct ex_domain *d = explain_find_domain(ex, names[i]);
		if (!d) {
			rec_set_error(err, REC_ERR_RANGE,
			              "no domain '%s' in the window (give a domain id or name)",
			              names[i]);
			free(keep);
			return -1;
		}
		keep[d - ex->doms] = true;
	}
	size_t out = 0;
	for (size_t i = 0; i < ex->n_doms; i++) {
		if (keep[i])
			ex->doms[out++] = ex->doms[i];
		else
			free(ex->doms[i].series);
	}
	ex->n_doms = out;
	free(keep);
	return 0;
}

const struct ex_domain *explain_busiest(const struct explain *ex)
{
	const struct ex_domain *best = NULL;
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		if (d->guest_wr + d->guest_rd &&
		    (!best || d->guest_wr + d->guest_rd > best->guest_wr + best->guest_rd))
			best = d;
	}
	return best;
}

double ex_dom0_cpu_s(const struct ex_domain *d)
{
	return (double)d->cpu_ns / 1e9;
}

double ex_cpu_s_per_gib(const struct ex_domain *d)
{
	double gib = (double)(d->guest_wr + d->guest_rd) / EX_GIB;
	return gib > 0 ? (double)(d->cpu_ns + d->after_cpu_ns) / 1e9 / gib : 0;
}

double ex_guest_wr_rate(const struct explain *ex, const struct ex_domain *d)
{
	return ex->win.seconds > 0 ? (double)d->guest_wr / ex->win.seconds : 0;
}

double ex_end_to_end_wr_rate(const struct explain *ex, const struct ex_domain *d)
{
	double s = ex->win.seconds +
	           (d->drained || d->dom0_subject ? d->drain_s : ex->win.recorded_after_s);
	return s > 0 ? (double)d->guest_wr / s : 0;
}
