/* claim_lex.h - shared by the claim parsers: their input's lines and words (over the one
 * scanner, core/text_scan.h, whose cursor and numbers they read with), the one-line error.
 *
 * Contract: nothing here allocates or reads past `len`; number readers refuse values
 * that do not fit (no overflow, no wrap) and never depend on the process locale (a
 * decimal comma is accepted only where the caller allows it). claim_fail() formats
 * "NAME[:LINE]: message", escapes every byte outside printable ASCII, and returns -1.
 */
#ifndef XIOTOP_CLAIM_LEX_H
#define XIOTOP_CLAIM_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/text_scan.h"
#include "explain/claims/claim.h"

struct claim_src {
	const char *name;
	const char *buf;
	size_t len;
	char *err;
	size_t errlen;
};

/* One line of the input, without its terminator. `no` counts '\n' from 1. */
struct claim_line {
	const char *s;
	size_t len;
	unsigned no;
};

/* The next word of l (blanks: space, tab, CR) from *pos: true with *start at its first
 * byte and *pos just past it; false when only blanks are left. */
bool claim_next_word(const struct claim_line *l, size_t *pos, size_t *start);

/* Next line ending at '\n' (or, with split_cr, also at '\r'); false at the end. */
bool claim_next_line(const struct claim_src *src, size_t *pos, unsigned *lineno, bool split_cr,
                     struct claim_line *out);

/* `line` says "NAME:LINE: " (0: just "NAME: "). Always returns -1. */
int claim_fail(const struct claim_src *src, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copies at most 40 bytes of a line for quoting in an error (claim_fail escapes it). */
void claim_excerpt(const struct claim_line *line, char *out, size_t outlen);

/* Bytes per unit for a rate or size unit before "/s": "B" "kB" "KB" "K" "MB" "M"
 * "KiB" "kiB" "MiB" ... ; si_for_plain: whether kB/MB/GB mean 1000 (GNU) or 1024
 * (busybox). 0 if unknown. */
double claim_unit_factor(const char *u, size_t ulen, bool si_for_plain);

/* Detection helpers: does the buffer hold this substring / a line starting with it. */
bool claim_contains(const struct claim_src *src, const char *needle);

int claim_parse_dd(const struct claim_src *src, struct claim *out);
int claim_parse_bonnie(const struct claim_src *src, struct claim *out);
int claim_parse_bonnie_classic(const struct claim_src *src, struct claim *out);
/* Fills the headline and totals of a claim from out->u.bonnie (both bonnie parsers). */
void claim_bonnie_headline(struct claim *out);
int claim_parse_iozone(const struct claim_src *src, struct claim *out);
int claim_parse_fio(const struct claim_src *src, struct claim *out);
/* Fills the headline and totals of a claim from out->u.fio (both fio parsers). */
void claim_fio_headline(struct claim *out);
/* fio's normal (default text) output: its "Run status group" READ:/WRITE: lines. */
int claim_parse_fio_text(const struct claim_src *src, struct claim *out);
/* Does the buffer look like fio's normal output (a "Run status group" line)? */
bool claim_is_fio_text(const struct claim_src *src);

/* Runs (claim_runs.c): appended in order; past CLAIM_MAX_RUNS counted in runs_dropped. */
void claim_add_run(struct claim *out, const struct claim_run *run);
/* One bonnie table row's phases; per_char_sized: its per-char tests moved the file size
 * (classic bonnie; bonnie++'s own size for them is not in its output). */
void claim_add_bonnie_runs(struct claim *out, const struct claim_bonnie *b, const char *row,
                           bool per_char_sized);
/* A table row read: its phases added as runs (claim_add_bonnie_runs), the first row kept
 * as out->u.bonnie, and the rows counted in out->u.bonnie.runs. */
void claim_take_bonnie_row(struct claim *out, const struct claim_bonnie *row, bool per_char_sized);
void claim_add_iozone_runs(struct claim *out);
/* One run per direction of out->u.fio's jobs, labelled prefix + "read"/"write". */
void claim_add_fio_runs(struct claim *out, const char *prefix);

#endif
