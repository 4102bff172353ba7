/* claim_lex.h - shared by the claim readers: their input's lines and words (over the one
 * scanner, core/text_scan.h, whose cursor and numbers they read with), the one-line error,
 * the post being built and what the prose before an output says about it.
 *
 * Contract: nothing here reads past `len`; number readers refuse values that do not fit
 * (no overflow, no wrap) and never depend on the process locale (a decimal comma is
 * accepted only where the caller allows it). claim_fail() formats "NAME[:LINE]: message"
 * into the caller's struct xerr (XERR_INPUT), escapes every byte outside printable ASCII,
 * and returns -1. A reader of one output (claim_parse_*) gets its lines only (a struct
 * claim_src whose first line is `first_line` of the file) and appends its results to the
 * post through claim_new_result(), each stamped with the context the prose before it gave
 * (claim_scan.c); a result pointer is valid until the next claim_new_result().
 */
#ifndef XIOTOP_CLAIM_LEX_H
#define XIOTOP_CLAIM_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/text_scan.h"
#include "explain/claims/claim_post.h"

struct claim_src {
	const char *name;
	const char *buf;
	size_t len;
	unsigned first_line; /* the file's line number of buf's first line (from 1) */
	struct xerr *err;
};

/* One line of the input, without its terminator. `no` counts '\n' from first_line. */
struct claim_line {
	const char *s;
	size_t len;
	unsigned no;
	bool ended; /* a '\n' (or, split at '\r', a '\r') ended it */
};

/* The tools whose command lines the prose may hold. */
enum claim_family {
	CLAIM_FAMILY_NONE,
	CLAIM_FAMILY_DD,
	CLAIM_FAMILY_BONNIE,
	CLAIM_FAMILY_IOZONE,
	CLAIM_FAMILY_FIO,
	CLAIM_FAMILIES,
};

/* What the prose before an output says about it (claim_scan.c, claim_prose.c). */
struct claim_context {
	char prompt[CLAIM_NAME_MAX], host[CLAIM_NAME_MAX];
	char heading[CLAIM_HEADING_MAX];
	char command[CLAIM_COMMAND_MAX];
	unsigned command_line;
	unsigned dd_direction; /* the dd command's: CLAIM_DIR_*, 0 it does not say */
	bool not_kib_per_s;    /* iozone's banner says -O (ops/s) or -N (us/op) */
	struct claim_said said;
};

/* A bonnie++ 2 table row: its figures are rounded ("248k"), so the run is its CSV line's,
 * which bonnie++ prints after the table; one the post does not hold is said in a note. */
struct claim_pending_row {
	unsigned line;
	char machine[CLAIM_NAME_MAX];
	uint64_t size;
	bool completed;
};

/* The post being read. */
struct claim_build {
	struct claim_post *post;
	struct claim_context ctx; /* stamped on each new result */
	struct claim_pending_row *pending;
	size_t npending;
};

/* The first line of src from *pos on (ending at '\n', or with split_cr also '\r');
 * false at the end. *lineno is the line's number, moved past a '\n'. */
bool claim_next_line(const struct claim_src *src, size_t *pos, unsigned *lineno, bool split_cr,
                     struct claim_line *out);

/* The next word of l (blanks: space, tab, CR) from *pos: true with *start at its first
 * byte and *pos just past it; false when only blanks are left. */
bool claim_next_word(const struct claim_line *l, size_t *pos, size_t *start);

/* `line` says "NAME:LINE: " (0: just "NAME: "). Always returns -1. */
int claim_fail(const struct claim_src *src, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Out of memory: -1, err kind XERR_NOMEM. */
int claim_no_memory(const struct claim_src *src);

/* Copies at most 40 bytes of a line for quoting in an error (claim_fail escapes it). */
void claim_excerpt(const struct claim_line *line, char *out, size_t outlen);

/* Bytes per unit for a rate or size unit before "/s": "B" "kB" "KB" "K" "MB" "M"
 * "KiB" "kiB" "MiB" ... ; si_for_plain: whether kB/MB/GB mean 1000 (GNU) or 1024
 * (busybox). 0 if unknown. */
double claim_unit_factor(const char *u, size_t ulen, bool si_for_plain);

/* Does the buffer hold this substring. */
bool claim_contains(const struct claim_src *src, const char *needle);

/* A new result at the end of the post, stamped with b->ctx, its runs none yet: NULL on
 * ENOMEM (err said). */
struct claim_result *claim_new_result(struct claim_build *b, const struct claim_src *src,
                                      enum claim_tool tool, unsigned first_line,
                                      unsigned last_line);
/* Frees what r holds (its runs, iozone's rows, fio's jobs), not r (claim_post.c). */
void claim_result_release(struct claim_result *r);
/* Appends a run to r (its block size the result's when the run gives none): 0 or -1
 * (ENOMEM, err said). */
int claim_add_run(const struct claim_src *src, struct claim_result *r, const struct claim_run *run);

/* A setting said: `from` and `value` (claim_post.h). */
void claim_say(struct claim_setting *s, enum claim_from from, uint64_t value);
/* Each setting `from` says over the one in `to`. */
void claim_said_merge(struct claim_said *to, const struct claim_said *from);

/* Reads the whole file into b->post (claim_scan.c): 0, or -1 (err said). */
int claim_scan(const struct claim_src *file, struct claim_build *b);

/* --- the prose between outputs (claim_prose.c) ------------------------------------------ */

bool claim_blank_line(const struct claim_line *l);
/* A shell prompt at the line's start: its length (with the blank after it), and the host
 * it names in host ("" none); 0 when the line starts with none. */
size_t claim_prompt(const struct claim_line *l, char *host, size_t hostlen);
/* The benchmark the line runs from byte `from` on (a command of dd, bonnie, bonnie++,
 * iozone or fio): its family and *tool_at, the tool's word; CLAIM_FAMILY_NONE when none. */
enum claim_family claim_command(const struct claim_line *l, size_t from, size_t *tool_at);
/* Whether l is a heading: after_blank (a blank line or the file's start before it), the
 * line after it (NULL: none), whether that one is a benchmark's command line. */
bool claim_heading(bool after_blank, const struct claim_line *l, const struct claim_line *next,
                   bool next_is_command);
/* A rate written in prose ("150 MB/s"). */
bool claim_prose_rate(const struct claim_line *l);

/* --- what command lines and the tools' banners say (claim_command.c) -------------------- */

/* What a command (the tool's word on, until the end of its command) of family f says, into
 * *said (each flag it knows said on or off, `from` where), and a dd's direction. */
void claim_command_said(enum claim_family f, const char *cmd, size_t len, enum claim_from from,
                        struct claim_said *said, unsigned *dd_direction);
/* A line of a tool's own banner before its output ("O_DIRECT feature enabled", "Command
 * line used: iozone ...", "File './Bonnie.76622', size: 2147483648", "Concurrency 1"): its
 * family, with what it says into *said (and *not_kib for iozone's -O/-N), or NONE. */
enum claim_family claim_banner(const struct claim_line *l, struct claim_said *said, bool *not_kib);

/* --- the readers of one output each ----------------------------------------------------- */

/* Where one output is in the file: [start, end) and its first and last lines. */
struct claim_extent {
	size_t start, end;
	unsigned first_line, last_line;
};

/* Each kind of output has a finder, a reader and a test of its last line (claim_scan.c's
 * table). A finder looks at the line at `pos` (its number `lineno`) of the whole file:
 * 1 and *out when an output of its kind starts there, 0 when not (prose), -1 when one
 * starts there but is cut or garbled (err said). A reader gets the output's lines only
 * and appends its results. `whole` says, of an output (src: its lines) whose last line
 * has no newline, whether that line ends as the tool ends it (its last figure read cannot
 * have been cut). */
int claim_find_dd(const struct claim_src *file, size_t pos, unsigned lineno,
                  struct claim_extent *out);
bool claim_whole_dd(const struct claim_src *src, const struct claim_line *last);
int claim_parse_dd(const struct claim_src *src, struct claim_build *b);

/* bonnie++: its CSV lines (claim_bonnie.c) and its text table (claim_bonnie_table.c) */
int claim_find_bonnie_csv(const struct claim_src *file, size_t pos, unsigned lineno,
                          struct claim_extent *out);
bool claim_whole_bonnie_csv(const struct claim_src *src, const struct claim_line *last);
int claim_find_bonnie_table(const struct claim_src *file, size_t pos, unsigned lineno,
                            struct claim_extent *out);
bool claim_whole_bonnie_table(const struct claim_src *src, const struct claim_line *last);
/* "2G", "256M", "512K": bytes (bonnie++ sizes are 1024-based). */
bool claim_bonnie_size(const char *s, size_t len, uint64_t *out);
int claim_parse_bonnie_csv(const struct claim_src *src, struct claim_build *b);
int claim_parse_bonnie_table(const struct claim_src *src, struct claim_build *b);
/* classic bonnie's table (claim_bonnie_classic.c) */
int claim_find_bonnie_classic(const struct claim_src *file, size_t pos, unsigned lineno,
                              struct claim_extent *out);
bool claim_whole_bonnie_classic(const struct claim_src *src, const struct claim_line *last);
int claim_parse_bonnie_classic(const struct claim_src *src, struct claim_build *b);
/* iozone's table and -R report (claim_iozone.c) */
int claim_find_iozone(const struct claim_src *file, size_t pos, unsigned lineno,
                      struct claim_extent *out);
bool claim_whole_iozone(const struct claim_src *src, const struct claim_line *last);
int claim_parse_iozone(const struct claim_src *src, struct claim_build *b);
/* fio: --output-format=json (claim_fio.c) and its normal text output (claim_fio_text.c) */
int claim_find_fio(const struct claim_src *file, size_t pos, unsigned lineno,
                   struct claim_extent *out);
bool claim_whole_fio(const struct claim_src *src, const struct claim_line *last);
int claim_parse_fio(const struct claim_src *src, struct claim_build *b);
int claim_find_fio_text(const struct claim_src *file, size_t pos, unsigned lineno,
                        struct claim_extent *out);
bool claim_whole_fio_text(const struct claim_src *src, const struct claim_line *last);
int claim_parse_fio_text(const struct claim_src *src, struct claim_build *b);

/* --- runs (claim_runs.c) ---------------------------------------------------------------- */
/* A bonnie row's headline, totals and phases as runs; per_char_sized: its per-char tests
 * moved the file size (classic bonnie; bonnie++'s own size for them is not printed). */
int claim_bonnie_result(const struct claim_src *src, struct claim_result *r, bool per_char_sized);
/* Each iozone row's tests as runs, in the order iozone runs them. */
int claim_add_iozone_runs(const struct claim_src *src, struct claim_result *r);
/* The headline of a fio group, and one run per direction of its jobs, summed, labelled
 * prefix + "read"/"write". */
int claim_fio_result(const struct claim_src *src, struct claim_result *r, const char *prefix);

#endif
