/* rec_session.h - the recorder: the samples of one `xiotop record` into a file (-o) or a
 * directory of files, one a period (--dir), with their facts and marks.
 *
 * Contract:
 *   - rec_session_open() makes the -o file at once (a place that cannot take it is found
 *     before the tracer loads; rec_session_abandon() removes it if nothing is recorded),
 *     or checks that the --dir directory can be made; the host facts are read once.
 *     rec_session_set_meta() adds a fact every file of the session gets.
 *   - rec_session_sink() is an interval sink (core/loop.h): every sample is kept in the
 *     file being written (record.h: committed in groups). With --dir a file ends when its
 *     period does: the sample that crosses it ends the old file and begins the new one
 *     (readers hand it out once), and the oldest files go by --retain and --retain-size.
 *     A file removed or renamed under the recorder ends with the sample (what waited is
 *     committed into it at its new name) and a new file begins at the path (--dir: the
 *     directory made again if gone), said once.
 *   - A full file system: the writer keeps what waits in memory and tries again at every
 *     sample (record.h); the session says so once an episode ("is full: ... wait"), runs
 *     the size rule at once (--dir), keeps the file it writes until room comes back (no
 *     new file is made meanwhile, a period's end included), counts the samples not kept
 *     once REC_WAIT_MAX waits, and says once that the episode ended ("recording again").
 *   - The marks guests wrote (take_marks, at every sample kept) go into the file with
 *     origin "domain N"; refused ones are said once. rec_session_mark() adds one.
 *   - Messages are notes (xnote, core/error.h); a failure that ends the recording (a file
 *     that cannot be made, a writer failing) returns 2 from the sink with its sentence in
 *     rec_session_failure(); the wrapped command is not the session's business.
 */
#ifndef XIOTOP_REC_SESSION_H
#define XIOTOP_REC_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/loop.h"
#include "record/record.h"
#include "sources/xen/xenlive.h"

#define REC_SESSION_META 8 /* facts set by the caller */

typedef size_t (*rec_take_marks_fn)(void *ctx, struct xenlive_mark *out, size_t max,
                                    unsigned long *refused);

struct rec_session_opts {
	const char *output;  /* -o FILE, or */
	const char *dir;     /* --dir DIR */
	double period_s;     /* --dir: a new file every period (UTC-aligned) */
	double retain_s;     /* --dir: files older go (0: kept) */
	double retain_bytes; /* --dir: the oldest go while the files hold more (0: any) */
	const char *proc_root;
	bool check_dir_later;  /* --user: the directory's access is checked after the drop */
	int64_t commit_age_ns; /* the commit rule's age (record.h); 0: REC_COMMIT_AGE_NS */
	rec_take_marks_fn take_marks;
	void *marks_ctx;
};

struct rec_session {
	struct rec_session_opts o;
	struct rec_host_facts facts;
	struct rec_writer *rec;
	char path[4096];       /* the file being written */
	int64_t period_end_ns; /* --dir: the wall-clock time the next file starts */
	struct {
		const char *key;
		char *value;
	} meta[REC_SESSION_META];
	size_t n_meta;
	size_t files;            /* made */
	size_t stored;           /* samples kept in the files closed so far */
	bool full;               /* in a full-disk episode */
	bool want_file;          /* --dir: a new file is due and found no room */
	long lost, lost_episode; /* samples not kept: in all, in this episode */
	bool said_refused_marks;
	/* XIOTOP_TEST_SAMPLES set: each sample's instant said on stderr as it comes in, before
	 * it is stored, so that a test knows every sample taken from outside the files (a
	 * sample the pacer took late stretches an interval, which the files' times alone
	 * cannot tell from a sample lost: tests/live/test_recorder_service.sh) */
	bool say_samples;
	struct xerr failed;
};

/* 0, or 2 with err (the file cannot be made, the directory cannot be). */
int rec_session_open(struct rec_session *s, const struct rec_session_opts *o, struct xerr *err);
/* A fact for every file (copied); the file open now gets it too. */
void rec_session_set_meta(struct rec_session *s, const char *key, const char *value);
struct interval_sink rec_session_sink(struct rec_session *s);
/* A mark into the file being written (none: dropped, said). */
void rec_session_mark(struct rec_session *s, const char *label, int64_t realtime_ns,
                      const char *origin, int exit_status);
const struct xerr *rec_session_failure(const struct rec_session *s);
/* Nothing recorded after all (the tracer did not load): the -o file removed. */
void rec_session_abandon(struct rec_session *s);
/* Commits and closes the file; says the samples lost, if any. 0, or 2 with err when what
 * waited could not be committed. *samples gets the last file's samples. */
int rec_session_close(struct rec_session *s, size_t *samples, struct xerr *err);

#endif
