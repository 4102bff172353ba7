/* cmd_explain.c - `xiotop explain FILE [FILE2]`: a recorded benchmark explained (the
 * window's figures and verdicts, explain/), or two windows compared (two files, or
 * `--against MARK..MARK` of one), as text, JSON or HTML, to stdout or -o OUT.
 *
 * Claims (`--claim FILE[@DOMAIN[:LABEL]]`) plug in at add_claims(): explain_add_claim_file()
 * reads every result of the file, lists them in the report and sets the runs it judges
 * against the window.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/fail.h"
#include "explain/claim_list.h"
#include "explain/day.h"
#include "explain/verdicts/compare.h"
#include "explain/explain.h"
#include "explain/report/report.h"
#include "explain/tool_claims.h"
#include "explain/verdicts/verdicts.h"

enum ex_format { EXF_TEXT, EXF_JSON, EXF_HTML };

/* One window of path explained; 0 or 2 (said why). The reader stays open in *rp. */
static int explain_window(const char *path, const char *from, const char *to,
                          const char *const *doms, size_t n_doms, struct explain *ex,
                          struct rec_reader **rp)
{
	struct xerr err;
	*rp = rec_open(path, &err);
	if (!*rp) {
		return cli_fail(&err);
	}
	if (explain_collect(*rp, from, to, ex, &err)) {
		fprintf(stderr, "xiotop: %s: %s\n", path, err.msg);
		return 2;
	}
	if (explain_keep_domains(ex, doms, n_doms, &err)) {
		fprintf(stderr, "xiotop: %s: %s\n", path, err.msg);
		return 2;
	}
	return 0;
}

/* One subject named (a domain, or every claim's @DOMAIN the same) whose guest wrote its own
 * marks, and no window given nor a wrapped command's: that guest's marks are the window. */
static int guest_window(const char *path, const char *subject, const char *const *doms,
                        size_t n_doms, struct explain *ex, struct rec_reader *r)
{
	const struct ex_domain *d = subject ? explain_find_domain(ex, subject) : NULL;
	char own[16];
	if (!d || d->dom0_subject || !explain_has_guest_marks(r, d->domid))
		return 0;
	snprintf(own, sizeof(own), "domain %u", (unsigned)d->domid);
	if (!strcmp(ex->win.marks_of, "wrap") || !strcmp(ex->win.marks_of, own))
		return 0;
	uint32_t domid = d->domid;
	struct xerr err;
	explain_free(ex);
	if (explain_collect_marked(r, NULL, NULL, (long)domid, ex, &err) ||
	    explain_keep_domains(ex, doms, n_doms, &err)) {
		fprintf(stderr, "xiotop: %s: %s\n", path, err.msg);
		return 2;
	}
	return 0;
}

/* The one domain the command is about: -d's only one, else the @DOMAIN all claims name
 * (a domain of the window: an @LABEL names none). */
static const char *one_subject(const struct cli_opts *o, const struct explain *ex)
{
	if (o->n_domains == 1)
		return o->domains[0];
	if (o->n_domains || !o->n_claims)
		return NULL;
	static char subject[64];
	subject[0] = '\0';
	for (size_t i = 0; i < o->n_claims; i++) {
		static struct ex_claim_file cf;
		ex_claim_arg(o->claims[i], &cf);
		if (!cf.domain[0] || !explain_find_domain(ex, cf.domain) ||
		    (subject[0] && strcmp(subject, cf.domain)))
			return NULL;
		snprintf(subject, sizeof(subject), "%s", cf.domain);
	}
	return subject[0] ? subject : NULL;
}

static int add_claims(struct explain *ex, const struct cli_opts *o)
{
	for (size_t i = 0; i < o->n_claims; i++) {
		struct xerr err;
		if (explain_add_claim_file(ex, o->claims[i], &err)) {
			fprintf(stderr, "xiotop explain: %s\n", err.msg);
			return cli_status(&err);
		}
	}
	return 0;
}

static int write_report(FILE *out, enum ex_format f, const struct explain *ex,
                        const struct ex_compare *c)
{
	if (c)
		return f == EXF_JSON   ? report_compare_json(out, c)
		       : f == EXF_HTML ? report_compare_html(out, c)
		                       : report_compare_text(out, c);
	return f == EXF_JSON   ? report_json(out, ex)
	       : f == EXF_HTML ? report_html(out, ex)
	                       : report_text(out, ex);
}

static int emit(const struct cli_opts *o, enum ex_format f, const struct explain *ex,
                const struct ex_compare *c)
{
	FILE *out = o->output ? fopen(o->output, "w") : stdout;
	if (!out) {
		fprintf(stderr, "xiotop explain: cannot write %s: %m\n", o->output);
		return 2;
	}
	int rc = write_report(out, f, ex, c) || fflush(out) ? 1 : 0;
	/* a reader that stopped reading (| head) is no failure: quietly done, as -b is */
	if (rc && !o->output && errno == EPIPE)
		return 0;
	if (rc)
		fprintf(stderr, "xiotop explain: writing %s failed: %m\n",
		        o->output ? o->output : "stdout");
	if (o->output && fclose(out) && !rc) {
		fprintf(stderr, "xiotop explain: writing %s failed: %m\n", o->output);
		rc = 1;
	}
	return rc;
}

/* --against X..Y -> from X to Y of the same file. */
static int split_against(const char *spec, char *from, char *to, size_t len)
{
	const char *dots = strstr(spec, "..");
	if (!dots || dots == spec || !dots[2])
		return -1;
	snprintf(from, len, "%.*s", (int)(dots - spec), spec);
	snprintf(to, len, "%s", dots + 2);
	return 0;
}

static int run_compare(const struct cli_opts *o, enum ex_format f)
{
	char bfrom[256], bto[256];
	const char *path_b = o->n_args == 2 ? o->args[1] : o->args[0];
	if (o->against && split_against(o->against, bfrom, bto, sizeof(bfrom)))
		return cli_bad_usage(CMD_EXPLAIN, "--against wants MARK..MARK (or TIME..TIME)");
	static struct explain a, b;
	struct rec_reader *ra = NULL, *rb = NULL;
	const char *dom_a = o->n_domains ? o->domains[0] : NULL;
	const char *dom_b = o->n_domains > 1 ? o->domains[1] : dom_a;
	int rc = explain_window(o->args[0], o->from, o->to, NULL, 0, &a, &ra);
	if (!rc)
		rc = explain_window(path_b, o->against ? bfrom : o->from, o->against ? bto : o->to,
		                    NULL, 0, &b, &rb);
	struct ex_compare cmp;
	struct xerr err;
	if (!rc && explain_compare(&a, dom_a, &b, dom_b, &cmp, &err)) {
		fprintf(stderr, "xiotop explain: %s\n", err.msg);
		rc = cli_status(&err);
	}
	if (!rc) {
		explain_verdicts(&a);
		explain_verdicts(&b);
		rc = emit(o, f, NULL, &cmp);
	}
	explain_free(&a);
	explain_free(&b);
	rec_reader_close(ra);
	rec_reader_close(rb);
	return rc;
}

static int run_one(const struct cli_opts *o, enum ex_format f)
{
	static struct explain ex;
	struct rec_reader *r = NULL;
	int rc = explain_window(o->args[0], o->from, o->to, o->domains, o->n_domains, &ex, &r);
	if (!rc && !o->from && !o->to)
		rc =
		    guest_window(o->args[0], one_subject(o, &ex), o->domains, o->n_domains, &ex, r);
	if (!rc)
		rc = add_claims(&ex, o);
	static struct ex_day day; /* the HTML report's day chart: the whole recording */
	struct xerr err = {0};
	if (!rc && f == EXF_HTML && explain_day_collect(r, &day, &err) == 0)
		ex.day = &day;
	else if (!rc && f == EXF_HTML)
		cli_say(&err); /* the report goes on without the day chart */
	if (!rc) {
		explain_verdicts(&ex);
		rc = emit(o, f, &ex, NULL);
	}
	ex.day = NULL;
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	return rc;
}

/* Would -o OUT overwrite one of the recordings? */
static bool output_is_input(const struct cli_opts *o)
{
	struct stat out, in;
	if (!o->output || stat(o->output, &out))
		return false;
	for (int i = 0; i < o->n_args; i++)
		if (!stat(o->args[i], &in) && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return true;
	return false;
}

int cmd_explain(struct cli_opts *o)
{
	if (o->n_args < 1 || o->n_args > 2)
		return cli_bad_usage(CMD_EXPLAIN, o->n_args ? "one FILE, or two to compare"
		                                            : "which recording? give FILE");
	enum ex_format f = o->format_html            ? EXF_HTML
	                   : o->format == BATCH_JSON ? EXF_JSON
	                                             : EXF_TEXT;
	if (o->against && o->n_args == 2)
		return cli_bad_usage(CMD_EXPLAIN, "--against compares windows of one FILE");
	if (output_is_input(o))
		return cli_bad_usage(CMD_EXPLAIN,
		                     "-o names a recording: the report would overwrite it");
	if (o->n_claims && (o->against || o->n_args == 2))
		return cli_bad_usage(CMD_EXPLAIN, "--claim goes with one window, not a comparison");
	return o->against || o->n_args == 2 ? run_compare(o, f) : run_one(o, f);
}
