/* claim_list.c - every result of a --claim file listed, the runs judged against the
 * window set through explain_add_claim(), and why each other run is not; see
 * claim_list.h. */
#include "explain/claim_list.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/arrays.h"
#include "core/sanitize.h"
#include "explain/tool_claims.h"

static const char *const status_text[] = {
    [EX_RUN_JUDGED] = "judged",
    [EX_RUN_NOT_LABELLED] = "not labelled so",
    [EX_RUN_NO_BYTES] = "no byte count",
    [EX_RUN_TOO_SHORT] = "shorter than two of the recording's intervals",
    [EX_RUN_NOT_FOUND] = "not found in the domain's timeline",
    [EX_RUN_OVER_LIMIT] = "past the judged runs' limit",
};

const char *ex_run_status_text(enum ex_run_status s)
{
	return (unsigned)s < sizeof(status_text) / sizeof(status_text[0]) ? status_text[s] : "?";
}

void ex_claim_files_free(struct explain *ex)
{
	for (size_t i = 0; i < ex->n_claim_files; i++) {
		claim_post_free(&ex->claim_files[i].post);
		free(ex->claim_files[i].runs);
	}
	free(ex->claim_files);
	ex->claim_files = NULL;
	ex->n_claim_files = 0;
}

void ex_claim_arg(const char *arg, struct ex_claim_file *cf)
{
	struct stat st;
	const char *at = strrchr(arg, '@');
	snprintf(cf->arg, sizeof(cf->arg), "%s", arg);
	cf->domain[0] = cf->label[0] = '\0';
	if (!at || !stat(arg, &st) || strchr(at, '/')) {
		snprintf(cf->file, sizeof(cf->file), "%s", arg);
		return;
	}
	snprintf(cf->file, sizeof(cf->file), "%.*s", (int)(at - arg), arg);
	const char *colon = strchr(at + 1, ':');
	if (!colon) {
		snprintf(cf->domain, sizeof(cf->domain), "%s", at + 1);
		return;
	}
	snprintf(cf->domain, sizeof(cf->domain), "%.*s", (int)(colon - at - 1), at + 1);
	snprintf(cf->label, sizeof(cf->label), "%s", colon + 1);
}

static double known(double v)
{
	return v > 0 ? v : 0;
}

void ex_run_figures(const struct ex_claim_file *cf, size_t result, size_t run,
                    struct claim_figures *out)
{
	const struct claim_result *r = &cf->post.results[result];
	const struct claim_run *u = &r->runs[run];
	memset(out, 0, sizeof(*out));
	snprintf(out->file, sizeof(out->file), "%s", cf->file);
	snprintf(out->tool, sizeof(out->tool), "%s", claim_tool_name(r->tool));
	snprintf(out->domain, sizeof(out->domain), "%s", cf->domain);
	snprintf(out->run, sizeof(out->run), "%s", u->label);
	out->seconds_from_rate = u->seconds_from_rate;
	out->file_bytes = u->file_bytes;
	/* what the result says of itself and its clock, for the run's placement and flags */
	out->said = r->said;
	out->clock = r->clock;
	for (size_t k = 0; k < r->nruns; k++)
		out->result_seconds += known(r->runs[k].seconds);
	unsigned dir = u->direction;
	if (dir != CLAIM_DIR_READ && dir != CLAIM_DIR_WRITE) {
		out->direction_unknown = true; /* both ways: explain_add_claim() decides */
		dir = CLAIM_DIR_READ | CLAIM_DIR_WRITE;
	}
	if (dir & CLAIM_DIR_WRITE) {
		out->wr_bytes = u->bytes;
		out->wr_seconds = known(u->seconds);
		out->wr_rate_bps = known(u->rate_bytes_per_s);
	}
	if (dir & CLAIM_DIR_READ) {
		out->rd_bytes = u->bytes;
		out->rd_seconds = known(u->seconds);
		out->rd_rate_bps = known(u->rate_bytes_per_s);
	}
}

/* Appends ", text" (sanitized) to out[*o]. */
static void add_item(char *out, size_t outlen, size_t *o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_item(char *out, size_t outlen, size_t *o, const char *fmt, ...)
{
	char raw[256], clean[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	sanitize_text(raw, clean, sizeof(clean));
	if (*o < outlen) {
		int k = snprintf(out + *o, outlen - *o, "%s%s", *o ? ", " : "", clean);
		*o += k > 0 ? (size_t)k : 0;
	}
}

/* "0 dom0, 5 DomU" */
static void domain_list(const struct explain *ex, char *out, size_t outlen)
{
	size_t o = 0;
	out[0] = '\0';
	for (size_t i = 0; i < ex->n_doms; i++)
		add_item(out, outlen, &o, "%u %s", (unsigned)ex->doms[i].domid, ex->doms[i].name);
	if (!ex->n_doms)
		snprintf(out, outlen, "none");
}

/* What its results answer to: machine names, prompts' hosts, headings. */
static void label_list(const struct claim_post *post, char *out, size_t outlen)
{
	size_t o = 0;
	out[0] = '\0';
	for (size_t i = 0; i < post->nresults && o < outlen; i++) {
		const struct claim_result *r = &post->results[i];
		const char *name = r->machine[0] ? r->machine : r->host[0] ? r->host : r->heading;
		bool seen = !name[0];
		for (size_t j = 0; j < i && !seen; j++) {
			const struct claim_result *q = &post->results[j];
			seen = !strcmp(name, q->machine[0] ? q->machine
			                     : q->host[0]  ? q->host
			                                   : q->heading);
		}
		if (!seen)
			add_item(out, outlen, &o, "%s%.40s%s",
			         r->machine[0] || r->host[0] ? "" : "\"", name,
			         r->machine[0] || r->host[0] ? "" : "\"");
	}
	if (!o)
		snprintf(out, outlen, "none: its results have no machine, prompt or heading");
}

static int fail(struct xerr *err, const struct ex_claim_file *cf, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct xerr *err, const struct ex_claim_file *cf, const char *fmt, ...)
{
	char msg[sizeof(err->msg)], file[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sanitize_text(cf->arg, file, sizeof(file));
	xerr_set(err, XERR_INPUT, "%s: %s", file, msg);
	return -1;
}

/* Whether any result answers to `label`. */
static bool any_answers(const struct claim_post *post, const char *label)
{
	for (size_t i = 0; i < post->nresults; i++)
		if (claim_result_answers(&post->results[i], label))
			return true;
	return false;
}

/* Without a label: the results answering to the domain's name (or to the @ part naming
 * it), when some do. */
static void domain_label(struct ex_claim_file *cf, const struct ex_domain *d)
{
	if (cf->label[0])
		return;
	const char *names[] = {cf->domain, d->name};
	for (size_t i = 0; i < 2; i++)
		if (names[i][0] && any_answers(&cf->post, names[i])) {
			snprintf(cf->label, sizeof(cf->label), "%s", names[i]);
			cf->label_from = EX_LABEL_DOMAIN;
			return;
		}
}

/* @DOMAIN: a domain of the window, else (FILE@LABEL) a label of the post; the domain
 * the runs are set against (*d). */
static int resolve(const struct explain *ex, struct ex_claim_file *cf, const struct ex_domain **d,
                   struct xerr *err)
{
	char found[200], doms[300], labels[300], name[200];
	claim_post_summary(&cf->post, NULL, found, sizeof(found));
	domain_list(ex, doms, sizeof(doms));
	label_list(&cf->post, labels, sizeof(labels));
	cf->label_from = cf->label[0] ? EX_LABEL_GIVEN : EX_LABEL_NONE;
	*d = NULL;
	if (cf->domain[0] && !(*d = explain_find_domain(ex, cf->domain))) {
		sanitize_text(cf->domain, name, sizeof(name));
		if (cf->label[0] || !any_answers(&cf->post, cf->domain))
			return fail(
			    err, cf,
			    "%s found; no domain '%s' in the window (its domains: %s)%s%s%s", found,
			    name, doms,
			    cf->label[0] ? ""
			                 : ", and none of them answers to it as a label "
			                   "(their labels: ",
			    cf->label[0] ? "" : labels, cf->label[0] ? "" : ")");
		snprintf(cf->label, sizeof(cf->label), "%s", cf->domain); /* FILE@LABEL */
		cf->label_from = EX_LABEL_AT;
		cf->domain[0] = '\0';
	}
	if (cf->label[0] && !any_answers(&cf->post, cf->label)) {
		sanitize_text(cf->label, name, sizeof(name));
		return fail(err, cf, "%s found; none of them answers to '%s' (their labels: %s)",
		            found, name, labels);
	}
	if (!*d)
		*d = explain_busiest(ex, NULL);
	if (*d) {
		domain_label(cf, *d);
		return 0;
	}
	sanitize_text(cf->label, name, sizeof(name));
	bool at = cf->label_from == EX_LABEL_AT;
	return fail(err, cf,
	            "%s found; none can be judged: no domain moved any bytes in the window, and "
	            "%s%s%s the busiest is the default domain (its domains: %s); name the domain, "
	            "FILE@DOMAIN%s%s",
	            found, at ? "'" : "", at ? name : "",
	            at ? "' is no domain of the window but a label of the post, so"
	               : "without @DOMAIN",
	            doms, cf->label[0] ? ":" : "", cf->label[0] ? name : "");
}

/* Every run of every result, not judged yet: NOT_LABELLED, NO_BYTES, or a candidate
 * (JUDGED until decided). */
static int list_runs(struct ex_claim_file *cf, struct xerr *err)
{
	for (size_t i = 0; i < cf->post.nresults; i++) {
		const struct claim_result *r = &cf->post.results[i];
		bool answers = claim_result_answers(r, cf->label);
		for (size_t k = 0; k < r->nruns; k++) {
			struct ex_listed_run lr = {.result = i, .run = k, .status = EX_RUN_JUDGED};
			if (!answers)
				lr.status = EX_RUN_NOT_LABELLED;
			else if (!r->runs[k].bytes)
				lr.status = EX_RUN_NO_BYTES;
			if (arrays_append((void **)&cf->runs, &cf->nruns, &lr, sizeof(lr))) {
				xerr_set(err, XERR_NOMEM, "out of memory");
				return -1;
			}
		}
	}
	return 0;
}

/* With more runs than rows: whether this one fits the window (long enough for two
 * intervals, its bytes found in the domain's timeline). */
static enum ex_run_status fits(const struct explain *ex, const struct ex_domain *d,
                               const struct claim_run *u)
{
	double tick = ex->win.interval_s;
	if (u->seconds > 0 && tick > 0 && u->seconds < 2 * tick)
		return EX_RUN_TOO_SHORT;
	struct ex_located at;
	for (int w = 0; w < 2; w++) {
		unsigned dir = w ? CLAIM_DIR_WRITE : CLAIM_DIR_READ;
		if (u->direction && u->direction != dir)
			continue;
		if (!ex_locate_claim(d->series, d->n_series, 0, u->bytes, u->seconds,
		                     dir == CLAIM_DIR_WRITE, &at))
			return EX_RUN_JUDGED;
	}
	return EX_RUN_NOT_FOUND;
}

/* None judged: what was found, and why each was not. */
static int none_judged(const struct ex_claim_file *cf, const struct ex_domain *d, struct xerr *err)
{
	size_t count[EX_RUN_OVER_LIMIT + 1] = {0};
	for (size_t i = 0; i < cf->nruns; i++)
		count[cf->runs[i].status]++;
	char found[200], why[400], who[160];
	claim_post_summary(&cf->post, NULL, found, sizeof(found));
	size_t o = 0;
	why[0] = '\0';
	for (int s = EX_RUN_NOT_LABELLED; s <= EX_RUN_OVER_LIMIT; s++)
		if (count[s])
			add_item(why, sizeof(why), &o, "%zu %s", count[s],
			         ex_run_status_text((enum ex_run_status)s));
	sanitize_printf(who, sizeof(who), "domain %u (%s)", (unsigned)d->domid, d->name);
	return fail(err, cf, "%s found (%zu runs); none of them judged in %s's window: %s", found,
	            cf->nruns, who, why);
}

/* Sets each candidate run against the window (all, while they fit in the rows left). */
static int judge(struct explain *ex, struct ex_claim_file *cf, const struct ex_domain *d,
                 struct xerr *err)
{
	size_t candidates = 0, judged = 0;
	for (size_t i = 0; i < cf->nruns; i++)
		candidates += cf->runs[i].status == EX_RUN_JUDGED;
	bool all = candidates <= EX_MAX_CLAIMS - ex->n_claims;
	for (size_t i = 0; i < cf->nruns; i++) {
		struct ex_listed_run *lr = &cf->runs[i];
		if (lr->status != EX_RUN_JUDGED)
			continue;
		const struct claim_run *u = &cf->post.results[lr->result].runs[lr->run];
		if (!all)
			lr->status = fits(ex, d, u);
		if (lr->status == EX_RUN_JUDGED && ex->n_claims == EX_MAX_CLAIMS)
			lr->status = EX_RUN_OVER_LIMIT;
		if (lr->status != EX_RUN_JUDGED)
			continue;
		struct claim_figures fig;
		ex_run_figures(cf, lr->result, lr->run, &fig);
		if (explain_add_claim(ex, &fig, err))
			return -1;
		lr->claim_row = ex->n_claims - 1;
		judged++;
	}
	return judged ? 0 : none_judged(cf, d, err);
}

int explain_add_claim_file(struct explain *ex, const char *arg, struct xerr *err)
{
	struct ex_claim_file cf = {0};
	const struct ex_domain *d;
	ex_claim_arg(arg, &cf);
	if (claim_post_parse_file(cf.file, &cf.post, err))
		return -1;
	int rc = resolve(ex, &cf, &d, err);
	if (!rc)
		rc = list_runs(&cf, err);
	if (!rc) {
		cf.domid = d->domid;
		rc = judge(ex, &cf, d, err);
	}
	if (!rc && arrays_append((void **)&ex->claim_files, &ex->n_claim_files, &cf, sizeof(cf))) {
		xerr_set(err, XERR_NOMEM, "out of memory");
		rc = -1;
	}
	if (rc) {
		claim_post_free(&cf.post);
		free(cf.runs);
	}
	return rc;
}
