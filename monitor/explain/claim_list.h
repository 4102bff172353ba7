/* claim_list.h - every result of every `--claim FILE[@DOMAIN[:LABEL]]`, listed: which runs
 * are judged against the window, against which domain, and why each other one is not.
 *
 * Contract: explain_add_claim_file() reads the claim file (claims/claim_post.h), resolves
 * @DOMAIN against the window (a domain's id or name; when it names no domain but some
 * result answers to it, it is the label, FILE@LABEL, set against the default domain),
 * keeps the file in ex->claim_files with every result and run, and sets each run it
 * judges against the window through explain_add_claim() (tool_claims.h): one row of
 * ex->claims, whose index the run keeps. @DOMAIN and :LABEL only narrow which runs are
 * judged; a run that is not judged keeps its reason (enum ex_run_status), and the
 * reports list it (report_claims.c): nothing is dropped. Which results are the domain's:
 * those answering to :LABEL (or FILE@LABEL); without one, those answering to the
 * domain's name (or the @ part that named it) when some do (the post's other results are
 * other machines'), else all. Judging (for now): every run of those results, while they
 * fit in EX_MAX_CLAIMS rows; past that,
 * in file order, the runs that fit the window (long enough for two of its intervals, and
 * a stretch of the domain's timeline holds their bytes) until the rows are full, the
 * others summarised. Where each judged run sits in the window is explain's placement
 * (tool_claims.c, claim_locate.c).
 *
 * Errors: -1 with one sentence in err (XERR_INPUT; the caller exits 2) when the file
 * cannot be read, or when none of its runs can be judged; it names the file, what it
 * holds ("3 dd runs and 3 bonnie++ rows") and what is missing (no result labelled so,
 * no domain of that name, no domain moved any bytes in the window, none long enough or
 * found in the domain's timeline). Strings are kept raw: escape when printing.
 */
#ifndef XIOTOP_EXPLAIN_CLAIM_LIST_H
#define XIOTOP_EXPLAIN_CLAIM_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "explain/claims/claim_post.h"
#include "explain/explain.h"

/* Why a run is, or is not, judged. */
enum ex_run_status {
	EX_RUN_JUDGED,       /* set against the window: ex->claims[claim_row] */
	EX_RUN_NOT_LABELLED, /* its result does not answer to the file's :LABEL */
	EX_RUN_NO_BYTES,     /* the tool gives no byte count for it */
	EX_RUN_TOO_SHORT,  /* under two of the recording's intervals: the samples cannot time it */
	EX_RUN_NOT_FOUND,  /* no stretch of the domain's timeline holds its bytes */
	EX_RUN_OVER_LIMIT, /* EX_MAX_CLAIMS rows were judged already */
};

/* Where the label the judged results answer to comes from. */
enum ex_label_from {
	EX_LABEL_NONE,   /* no label: every result is judged */
	EX_LABEL_GIVEN,  /* FILE@DOMAIN:LABEL */
	EX_LABEL_AT,     /* FILE@LABEL: the @ part names no domain of the window but results */
	EX_LABEL_DOMAIN, /* the domain's own name (or the @ part naming it): some results answer
	                  * to it, so they are its and the others another machine's */
};

/* One run of one result of the file. */
struct ex_listed_run {
	size_t result, run; /* post.results[result].runs[run] */
	enum ex_run_status status;
	size_t claim_row; /* EX_RUN_JUDGED: its row of ex->claims */
};

/* One --claim argument. */
struct ex_claim_file {
	char arg[512];   /* as given */
	char file[256];  /* FILE */
	char domain[64]; /* the domain named, "" none: the default one */
	char label[64];  /* the results judged answer to it (claim_result_answers); "" all */
	enum ex_label_from label_from;
	uint32_t domid; /* the domain its runs are set against; EX_NO_DOMAIN none */
	struct claim_post post;
	struct ex_listed_run *runs; /* every run of every result, in file order */
	size_t nruns;
};

/* The argument read, its runs judged and kept in ex->claim_files. After explain_collect()
 * and explain_keep_domains(), before explain_verdicts(). 0 or -1 (err said why). */
int explain_add_claim_file(struct explain *ex, const char *arg, struct xerr *err);

/* The argument FILE@DOMAIN[:LABEL] split into cf's arg, file, domain and label ("" none);
 * the whole argument is the file when a file of that name exists. Nothing is read. */
void ex_claim_arg(const char *arg, struct ex_claim_file *cf);

/* "judged", "not labelled so", ... for the reports. */
const char *ex_run_status_text(enum ex_run_status s);

/* One run of the file as the figures explain_add_claim() sets against the window (its
 * direction's bytes, seconds and rate, 0 where the tool does not say; a run whose tool
 * does not say which way it went has both ways' figures and direction_unknown). */
void ex_run_figures(const struct ex_claim_file *cf, size_t result, size_t run,
                    struct claim_figures *out);

/* Releases ex->claim_files; explain_free() does not (call this before it). */
void ex_claim_files_free(struct explain *ex);

#endif
