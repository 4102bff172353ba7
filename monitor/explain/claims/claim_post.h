/* claim_post.h - a claim file as people paste it (a mailing-list post, a terminal
 * scroll-back, a report with prose around several runs): every benchmark result in it, in
 * file order, each with what names it, what it says about how it ran, and its runs.
 *
 * Contract: claim_post_parse_file() / claim_post_parse_buffer() read a text that holds
 * tool outputs; prose between them is skipped. Each of these is one struct claim_result,
 * in the order of the file:
 *   - each dd run (GNU, busybox, NetBSD/FreeBSD: records lines and the summary line);
 *   - each bonnie++ machine row (its text-table row and its CSV line of the same run are
 *     one result) and each classic bonnie table row;
 *   - each iozone table (with its -R report sections when iozone printed both), or a -R
 *     report alone;
 *   - each fio job group (fio's normal text output, or --output-format=json / json+).
 * Each result has its runs (claim.h struct claim_run: one per phase and direction, in the
 * order the tool ran them, with its bytes, seconds and rate), as many as the tool printed:
 * no fixed cap drops a result or a run (`iozone -a` gives hundreds). Nothing is set
 * against a recording here: which results are judged is explain's decision
 * (explain/claim_list.h); a result it does not judge is listed, never dropped.
 *
 * What names a result (all copied raw from the file: escape when printing, core/sanitize.h):
 * its table row's machine name, the shell prompt and command line pasted before it
 * ("[root@DomU]# dd if=/dev/zero ..."), the host that prompt names ("DomU"), and the
 * post's nearest heading above it ("DomU:", "==== Dom0 speed on physical harddisk ====",
 * "bonnie in dom0": a line ending in ':', a line underlined or framed with '-' or '=',
 * or a short line set apart by blank lines or just before the command), carried down to
 * the results after it until the next heading. claim_result_answers() matches a
 * `--claim FILE@DOMAIN:LABEL` label against them.
 *
 * What a result says about how it ran (struct claim_said): O_DIRECT, synchronous
 * writes, a flush inside the timing, request size, queue depth, the test file's size,
 * each with where it was read (the pasted command line, the tool's own output, or what
 * the tool always does); a setting nothing gives is CLAIM_FROM_NONE: unknown, never 0 or
 * "off". The tool's own clock (struct claim_clock) where it prints one.
 *
 * A missing final newline is fine where the last output is whole: its last line ends as
 * the tool ends it (a dd rate's "/s", fio's "msec" or JSON object, a bonnie row's last
 * one-decimal %CPU). A figure that may have been cut (an iozone row's last integer, a
 * line that parses shorter) is refused: "0.0500984 s" cut as "0.05 s" looks whole
 * otherwise. An output garbled or cut inside (records lines without a summary, a bonnie++
 * CSV line short of fields) is refused whole, naming its line. A file cut at a line's
 * end may still parse, with its later results missing: each result it gives is one of the
 * whole file's, figure for figure.
 *
 * Errors: -1, *out empty (nothing to free), and ONE line in err->msg (kind XERR_INPUT;
 * XERR_NOMEM out of memory) "NAME[:LINE]: what was found and what was expected", every
 * control byte, DEL and non-ASCII byte escaped (\xNN), so it can be printed as is; the
 * caller exits 2. A text with no tool output is refused with what it does hold (a
 * benchmark's command line with no output after it, rates written in prose). On success
 * *out holds at least one result; claim_post_free() releases it.
 */
#ifndef XIOTOP_CLAIM_POST_H
#define XIOTOP_CLAIM_POST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "explain/claims/claim.h"

#define CLAIM_HEADING_MAX 160
#define CLAIM_COMMAND_MAX 256

/* What a result says about how it ran. Flags are 1 (on) or 0 (off, said so: a pasted dd
 * command without oflag=direct says buffered). */
struct claim_said {
	/* O_DIRECT: dd iflag=direct (reads) / oflag=direct (writes), iozone -I ("O_DIRECT
	 * feature enabled"), fio direct=1, bonnie++ -D */
	struct claim_setting direct;
	/* every write synchronous: dd oflag=sync|dsync, iozone -o ("SYNC Mode"), fio sync=1,
	 * bonnie++ -b (an fsync after every write) */
	struct claim_setting sync;
	/* the data flushed to the device inside the timed run: dd conv=fsync|fdatasync, iozone
	 * -e ("Include fsync in write timing"), fio end_fsync=1 / fsync_on_close=1 */
	struct claim_setting flush_end;
	/* bytes of one request: dd bs= (obs= for writes, ibs= for reads), iozone -r / its
	 * reclen column when one, fio bs=, bonnie++'s chunk size, classic bonnie's 16 KiB */
	struct claim_setting block_bytes;
	/* requests in flight: fio iodepth=; bonnie++'s concurrency; dd, classic bonnie and
	 * iozone (without -H) one at a time (CLAIM_FROM_TOOL) */
	struct claim_setting queue_depth;
	/* the test file's size: bonnie -s / its size column, iozone -s / its KB column when
	 * one, dd's bytes copied, fio size= (each run's own: struct claim_run.file_bytes) */
	struct claim_setting file_bytes;
	char ioengine[16]; /* fio's ioengine= ("libaio", "psync"); "" not said */
};

/* The tool's own clock, where its output gives one (Unix time, milliseconds). */
enum claim_clock_kind {
	CLAIM_CLOCK_NONE = 0,
	CLAIM_CLOCK_REPORTED, /* fio JSON "timestamp_ms": when fio wrote its report, at the end */
	CLAIM_CLOCK_SEED,     /* bonnie++ CSV's seed field: the clock at its start, unless the
	                       * run was given its seed with -z (then it is no time at all) */
};
struct claim_clock {
	enum claim_clock_kind kind;
	int64_t unix_ms;
};

/* One benchmark result of the post. */
struct claim_result {
	enum claim_tool tool;
	unsigned index;                 /* its place among the post's results, from 0 */
	unsigned first_line, last_line; /* lines of the file it was read from (from 1) */
	/* what names it; "" where the post gives none */
	char machine[CLAIM_NAME_MAX];    /* its table row's machine name */
	char prompt[CLAIM_NAME_MAX];     /* "[root@DomU]#", "Dom0#", "#" */
	char host[CLAIM_NAME_MAX];       /* the host the prompt names: "DomU", "banksy" */
	char heading[CLAIM_HEADING_MAX]; /* the nearest heading above it */
	char command[CLAIM_COMMAND_MAX]; /* its command line after the prompt */
	unsigned command_line;           /* that line; 0 none */
	struct claim_said said;
	struct claim_clock clock;
	/* the tool's headline of the result and everything it says it moved (claim.h's
	 * struct claim describes them: dd its summary, bonnie its block write or read over the
	 * file size, iozone its first row's write or read, fio its jobs summed) */
	unsigned directions; /* CLAIM_DIR_* bits */
	uint64_t bytes;
	double seconds, rate_bytes_per_s; /* -1: not reported */
	uint64_t written_bytes, read_bytes;
	/* the tool's own details (claim.h: dd's records, bonnie's row, iozone's rows, fio's
	 * jobs of the group): the parsers' own; explain reads runs */
	union claim_details u;
	/* the result's runs, in the order the tool ran them (allocated with the post) */
	struct claim_run *runs;
	size_t nruns;
};

/* Something the post holds that is no result, said rather than dropped: a benchmark's
 * command line with no output after it, a bonnie++ table row whose skipped columns
 * cannot be told apart without its CSV line. */
struct claim_note {
	unsigned line;
	char text[200];
};

struct claim_post {
	struct claim_result *results; /* in file order */
	size_t nresults;
	struct claim_note *notes;
	size_t nnotes;
};

/* Reads `path` (at most 16 MiB); errors name `path`. */
int claim_post_parse_file(const char *path, struct claim_post *out, struct xerr *err);
/* Parses `len` bytes of `buf` (need not be NUL terminated); errors name `name`. */
int claim_post_parse_buffer(const char *name, const char *buf, size_t len, struct claim_post *out,
                            struct xerr *err);
void claim_post_free(struct claim_post *post);

/* "dd run", "bonnie++ row", "bonnie row", "iozone table", "fio group". */
const char *claim_result_kind(const struct claim_result *r);

/* Whether the result answers to `label` (FILE@DOMAIN:LABEL): its machine name exactly,
 * or, case aside, its prompt's host or a word of its heading. */
bool claim_result_answers(const struct claim_result *r, const char *label);

/* What the post holds, for errors and the listing: "3 dd runs and 3 bonnie++ rows" of
 * the results with keep[i] (keep NULL: all). */
void claim_post_summary(const struct claim_post *post, const bool *keep, char *out, size_t outlen);

#endif
