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

/* A guest's own marks (origin "domain N": it wrote its xenstore node, see
 * sources/xen/xenlive.h): the first and the last of domain `domid`, or of every guest when
 * domid < 0. False unless both exist and the last is later. */
static bool guest_marks(const struct rec_reader *r, long domid, const struct rec_mark **first,
                        const struct rec_mark **last)
{
	char want[16];
	snprintf(want, sizeof(want), "domain %ld", domid);
	*first = *last = NULL;
	const struct rec_mark *m = rec_marks(r);
	for (size_t i = 0; i < rec_n_marks(r); i++) {
		if (domid < 0 ? strncmp(m[i].origin, "domain ", 7) : strcmp(m[i].origin, want))
			continue;
		if (!*first)
			*first = &m[i];
		*last = &m[i];
	}
	return *first && (*last)->realtime_ns > (*first)->realtime_ns;
}

bool explain_has_guest_marks(const struct rec_reader *r, uint32_t domid)
{
	const struct rec_mark *a, *b;
	return guest_marks(r, (long)domid, &a, &b);
}

/* A mark as a window bound: its time as "+SECONDS" from the first sample (labels may repeat
 * across guests: "start fio" in each), its label and time kept. */
static void mark_bound(const struct rec_reader *r, const struct rec_mark *m, char *spec, size_t len)
{
	double s = (double)(m->realtime_ns - rec_time(r, 0)) / 1e9;
	snprintf(spec, len, "+%.9f", s > 0 ? s : 0);
}

/* Default bounds: the wrapped command's marks, else the guests' own (marks_domid's, or
 * every guest's when < 0). */
static void default_bounds(struct rec_reader *r, long marks_domid, const char **from,
                           const char **to, const struct rec_mark **gm, char spec[2][64],
                           struct ex_window *w)
{
	wrap_marks(r, from, to);
	if (*from) {
		snprintf(w->marks_of, sizeof(w->marks_of), "wrap");
		return;
	}
	if (!guest_marks(r, marks_domid, &gm[0], &gm[1]))
		return;
	mark_bound(r, gm[0], spec[0], sizeof(spec[0]));
	mark_bound(r, gm[1], spec[1], sizeof(spec[1]));
	*from = spec[0];
	*to = spec[1];
	snprintf(w->marks_of, sizeof(w->marks_of), "%s",
	         marks_domid < 0 ? "domains" : gm[0]->origin);
}

static int resolve(struct rec_reader *r, const char *from, const char *to, long marks_domid,
                   struct explain *ex, struct xerr *err)
{
	struct ex_window *w = &ex->win;
	const struct rec_mark *gm[2] = {NULL, NULL};
	char spec[2][64];
	if (!from && !to)
		default_bounds(r, marks_domid, &from, &to, gm, spec, w);
	if (rec_resolve_window(r, from, to, &w->first, &w->last, err))
		return -1;
	w->from_ns = bound_time(r, from, w->first, w->from_label, sizeof(w->from_label));
	w->to_ns = bound_time(r, to, w->last, w->to_label, sizeof(w->to_label));
	for (int k = 0; k < 2 && gm[k]; k++) { /* the guest's marks themselves */
		snprintf(k ? w->to_label : w->from_label, sizeof(w->from_label), "%s",
		         gm[k]->label);
		*(k ? &w->to_ns : &w->from_ns) = gm[k]->realtime_ns;
	}
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
	return explain_collect_marked(r, from, to, -1, ex, err);
}

int explain_collect_marked(struct rec_reader *r, const char *from, const char *to, long marks_domid,
                           struct explain *ex, struct xerr *err)
{
	memset(ex, 0, sizeof(*ex));
	snprintf(ex->file, sizeof(ex->file), "%s", rec_path(r));
	if (resolve(r, from, to, marks_domid, ex, err))
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
	free(ex->dom0_drain);
	ex->dom0_drain = NULL;
	free(ex->host_series);
	ex->host_series = NULL;
	ex->n_host_series = 0;
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

const struct ex_domain *explain_busiest(const struct explain *ex, const struct ex_domain *except)
{
	const struct ex_domain *best = NULL;
	for (size_t i = 0; i < ex->n_doms; i++) {
		const struct ex_domain *d = &ex->doms[i];
		uint64_t moved = d->io.guest_wr_bytes + d->io.guest_rd_bytes;
		if (d != except && moved &&
		    (!best || moved > best->io.guest_wr_bytes + best->io.guest_rd_bytes))
			best = d;
	}
	return best;
}

const struct ex_domain *explain_also_active(const struct explain *ex,
                                            const struct ex_domain *picked)
{
	const struct ex_domain *d = explain_busiest(ex, picked);
	return d && d->io.guest_wr_bytes + d->io.guest_rd_bytes >= EX_ACTIVE_BYTES ? d : NULL;
}

double ex_dom0_cpu_s(const struct ex_domain *d)
{
	return (double)d->cpu_ns / 1e9;
}

double ex_cpu_s_per_gib(const struct ex_domain *d)
{
	double gib = (double)(d->io.guest_wr_bytes + d->io.guest_rd_bytes) / EX_GIB;
	return gib > 0 ? (double)(d->cpu_ns + d->after_cpu_ns) / 1e9 / gib : 0;
}

double ex_guest_wr_rate(const struct explain *ex, const struct ex_domain *d)
{
	return ex->win.seconds > 0 ? (double)d->io.guest_wr_bytes / ex->win.seconds : 0;
}

double ex_end_to_end_wr_rate(const struct explain *ex, const struct ex_domain *d)
{
	double s = ex->win.seconds +
	           (d->drained || d->dom0_subject ? d->drain_s : ex->win.recorded_after_s);
	return s > 0 ? (double)d->io.guest_wr_bytes / s : 0;
}

bool ex_drain_cut(const struct explain *ex, const struct ex_domain *d)
{
	return ex->host.has_dirty && !d->dom0_subject && !d->drained;
}

bool ex_dom0_netbsd(const struct explain *ex)
{
	return !strcmp(ex->host.dom0_os, "netbsd");
}

/* On a NetBSD dom0 no tracer runs (xiotop's needs Linux eBPF); its disks' iostat -x and
 * vmstat give what they can. */
const char *ex_tracer_advice(const struct explain *ex)
{
	return ex_dom0_netbsd(ex) ? "a tracer, which a NetBSD dom0 does not have (xiotop's needs "
	                            "Linux eBPF); iostat -x of the disks and vmstat give what "
	                            "they can"
	                          : "xiotop record";
}
