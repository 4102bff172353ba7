/* error.h - the one way the library layers say what went wrong.
 *
 * Contract: a library function that can fail returns -1 (or its own failure value) and
 * fills a struct xerr the caller gave: a kind and one sentence (naming the file, the
 * option or what is missing, without a "xiotop:" prefix or a newline). The kind says
 * what the failure is, not what to do about it: only cli/ prints the sentence and picks
 * the exit status from the kind (cli/fail.h cli_fail: input and prerequisites 2,
 * runtime and memory 1). A library function never prints a failure; a NULL struct xerr
 * means the caller does not want the sentence. A layer with finer reasons a command acts
 * on (record/: a full disk, a file that exists, a busy writer) also sets code, its own
 * enum; the kind alone still picks the exit status.
 */
#ifndef XIOTOP_CORE_ERROR_H
#define XIOTOP_CORE_ERROR_H

enum xerr_kind {
	XERR_NONE,    /* no failure */
	XERR_INPUT,   /* bad input: a bad recording, dump, log or option value */
	XERR_PREREQ,  /* a missing prerequisite: root, kernel BTF, BPF */
	XERR_RUNTIME, /* the system failed us: a counter that cannot be read */
	XERR_NOMEM,   /* out of memory */
};

struct xerr {
	enum xerr_kind kind;
	unsigned code; /* the failing layer's own reason (record/: enum rec_errcode); 0 none */
	char msg[600]; /* one sentence; may be "" when the failure was said as it happened */
};

/* Fills e (when not NULL) with kind and the formatted sentence (code 0). */
void xerr_set(struct xerr *e, enum xerr_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Notes: what a layer has to tell a person while it goes on (a hook it had to drop, a
 * device two domains claim). One sentence each, as a failure's, handed to the one sink
 * cli/ installs at start (it prints them as its failures); a library layer never prints
 * them itself. Without a sink (unit tests, tools) a note goes nowhere. */
typedef void (*xnote_sink)(const char *sentence);
void xnote_set_sink(xnote_sink sink);
void xnote(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
