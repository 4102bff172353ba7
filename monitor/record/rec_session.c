/* rec_session.c - the recorder's files; see rec_session.h. */
#include "record/rec_session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "record/rec_dir.h"
#include "record/rec_registry.h"

/* Facts set by the caller, into the file being written. */
static void store_meta(struct rec_session *s)
{
	struct xerr err;
	for (size_t i = 0; s->rec && i < s->n_meta; i++)
		if (rec_set_meta(s->rec, s->meta[i].key, s->meta[i].value, &err))
			xnote("%s", err.msg);
}

void rec_session_set_meta(struct rec_session *s, const char *key, const char *value)
{
	size_t i = 0;
	while (i < s->n_meta && strcmp(s->meta[i].key, key))
		i++;
	if (i == REC_SESSION_META)
		return;
	char *v = strdup(value);
	if (!v)
		return;
	if (i == s->n_meta)
		s->n_meta++;
	free(s->meta[i].value);
	s->meta[i].key = key;
	s->meta[i].value = v;
	struct xerr err;
	if (s->rec && rec_set_meta(s->rec, key, value, &err))
		xnote("%s", err.msg);
}

/* A new file at s->path (--dir: named by realtime_ns) into *w, its facts, and the
 * registry entry `xiotop mark` finds. 0, or -1 with err (REC_ERR_FULL: no room for it). */
static int open_file(struct rec_session *s, int64_t realtime_ns, struct rec_writer **w,
                     struct xerr *err)
{
	const struct rec_session_opts *o = &s->o;
	char path[sizeof(s->path)];
	snprintf(path, sizeof(path), "%s", s->path);
	if (o->dir) {
		/* made again if it was removed (or renamed) under the recorder */
		if (mkdir(o->dir, 0750) == 0)
			xnote("--dir %s was gone: made it again", o->dir);
		if (rec_dir_file_name(o->dir, realtime_ns, path, sizeof(path))) {
			rec_set_error(err, REC_ERR_IO, "--dir %s: path too long", o->dir);
			return -1;
		}
	}
	*w = rec_create(path, &s->facts, err);
	if (!*w)
		return -1;
	if (o->commit_age_ns > 0)
		rec_set_commit_rule(*w, REC_COMMIT_BYTES, o->commit_age_ns, REC_WAIT_MAX);
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (o->dir) {
		int64_t period = (int64_t)(o->period_s * 1e9);
		s->period_end_ns = rec_dir_period_start(realtime_ns, period) + period;
	}
	s->files++;
	char why[512];
	if (rec_registry_publish(s->path, why, sizeof(why)))
		xnote("`xiotop mark` will need -o %s (%s)", s->path, why);
	return 0;
}

int rec_session_open(struct rec_session *s, const struct rec_session_opts *o, struct xerr *err)
{
	memset(s, 0, sizeof(*s));
	s->o = *o;
	s->say_samples = getenv("XIOTOP_TEST_SAMPLES") != NULL;
	rec_host_facts_read(o->proc_root, &s->facts);
	if (o->dir) {
		/* with --user that user writes it (root may hold no CAP_DAC_OVERRIDE for a
		 * directory given to it by an earlier run): checked after the drop */
		if ((mkdir(o->dir, 0750) && errno != EEXIST) ||
		    (!o->check_dir_later && access(o->dir, W_OK | X_OK))) {
			rec_set_error(err, REC_ERR_IO, "--dir %s: %s", o->dir, strerror(errno));
			return 2;
		}
		return 0;
	}
	snprintf(s->path, sizeof(s->path), "%s", o->output);
	return open_file(s, 0, &s->rec, err) ? 2 : 0;
}

void rec_session_abandon(struct rec_session *s)
{
	if (!s->rec)
		return;
	rec_close(s->rec, NULL);
	s->rec = NULL;
	unlink(s->path); /* nothing recorded: no file that looks like a recording */
}

/* The file in hand ends (what waited committed: into it at its new name when it moved);
 * 0, or -1 after saying what was lost. */
static int close_file(struct rec_session *s)
{
	struct xerr err;
	size_t n = rec_writer_count(s->rec);
	int rc = rec_close(s->rec, &err);
	s->rec = NULL;
	s->stored += n;
	if (rc)
		xnote("%s", err.msg);
	return rc ? -1 : 0;
}

static void prune(struct rec_session *s, int64_t now_ns)
{
	const struct rec_session_opts *o = &s->o;
	if (o->dir && rec_dir_prune(o->dir, now_ns, (int64_t)(o->retain_s * 1e9),
	                            (uint64_t)o->retain_bytes, s->path) < 0)
		xnote("cannot prune %s: %s", o->dir, strerror(errno));
}

/* --dir: the sample that crosses a period's end is the last of its file and the first of
 * the next (readers hand it out once), so each file holds its whole period. The same when
 * the file was removed or renamed under the recorder (-o too): the old file ends with
 * this sample, so a renamed one stands alone. The new file is made first: on a full file
 * system the old one goes on (tried again at the next sample). 1 rotated, 0 not (no
 * room), -1 failed (s->failed). */
static int rotate(struct rec_session *s, const struct xio_sample *cur)
{
	struct rec_writer *next;
	struct xerr err;
	if (open_file(s, cur->realtime_ns, &next, &err)) {
		/* EXISTS: a file named by the same second, cut short by the full disk */
		if (err.code == REC_ERR_FULL || (s->full && err.code == REC_ERR_EXISTS)) {
			s->want_file = true;
			return 0;
		}
		s->failed = err;
		return -1;
	}
	if (s->rec) {
		if (rec_append(s->rec, cur, &err))
			xnote("%s", err.msg);
		close_file(s);
	}
	s->rec = next;
	s->want_file = false;
	store_meta(s);
	prune(s, cur->realtime_ns);
	return 1;
}

/* The marks guests wrote into their xenstore node (sources/xen/xenlive.h), each timed
 * before the sample just stored: they fall in its interval. Refused ones are said once. */
static void store_guest_marks(struct rec_session *s)
{
	if (!s->o.take_marks)
		return;
	struct xenlive_mark marks[XENLIVE_MARKS_MAX];
	unsigned long refused = 0;
	size_t n = s->o.take_marks(s->o.marks_ctx, marks, XENLIVE_MARKS_MAX, &refused);
	for (size_t i = 0; i < n; i++) {
		char origin[16];
		snprintf(origin, sizeof(origin), "domain %u", (unsigned)marks[i].domid);
		rec_session_mark(s, marks[i].label, marks[i].realtime_ns, origin, -1);
	}
	if (refused && !s->said_refused_marks) {
		xnote("a guest mark was refused: its xenstore node is not its domain's own (or "
		      "too many waited); said once");
		s->said_refused_marks = true;
	}
}

/* A full file system, after each sample: the episode (the writer's commit, or a new file,
 * found no room) said once as it starts and once as it ends; the size rule run while it
 * lasts. */
static void follow_full(struct rec_session *s, int64_t now_ns)
{
	const struct xerr *why = NULL;
	if (s->rec)
		rec_writer_waiting(s->rec, &why);
	bool full = (why && why->code == REC_ERR_FULL) || s->want_file;
	const char *where = s->o.dir ? s->o.dir : s->path;
	if (full && !s->full)
		xnote("%s is full: samples wait in memory for room (up to %u MiB of them, then "
		      "samples are lost), tried again at every sample; said once until it has room",
		      where, REC_WAIT_MAX >> 20);
	if (full)
		prune(s, now_ns);
	if (!full && s->full) {
		char lost[64] = "";
		if (s->lost_episode)
			snprintf(lost, sizeof(lost), "; %ld were lost meanwhile", s->lost_episode);
		xnote("recording again in %s: the samples that waited are in it%s", s->path, lost);
		s->lost_episode = 0;
	}
	s->full = full;
}

static int store_sample(void *ctx, const struct xio_sample *cur, bool first)
{
	(void)first;
	struct rec_session *s = ctx;
	if (s->say_samples)
		fprintf(stderr, "xiotop-test: sample %lld\n", (long long)cur->realtime_ns);
	char moved_from[sizeof(s->path)] = "";
	if (s->rec && rec_writer_moved(s->rec))
		snprintf(moved_from, sizeof(moved_from), "%s", s->path);
	/* a new file needs room: none is made while samples wait for room in the old one */
	const struct xerr *why = NULL;
	if (s->rec)
		rec_writer_waiting(s->rec, &why);
	bool waits_for_room = why && why->code == REC_ERR_FULL;
	bool period_over =
	    s->o.dir && (!s->rec || (cur->realtime_ns >= s->period_end_ns && !waits_for_room));
	int rotated = moved_from[0] || period_over ? rotate(s, cur) : 0;
	if (rotated < 0)
		return 2;
	if (rotated && moved_from[0])
		xnote("%s was removed or renamed under the recorder (what it holds ends with this "
		      "sample); recording goes on in a new file %s",
		      moved_from, s->path);
	if (!s->rec) { /* --dir, no file yet: no room for the first one */
		s->lost++;
		s->lost_episode++;
		follow_full(s, cur->realtime_ns);
		return LOOP_GO_ON;
	}
	struct xerr err;
	if (rec_append(s->rec, cur, &err)) {
		if (err.code != REC_ERR_FULL) {
			s->failed = err;
			return 2;
		}
		if (!s->lost_episode)
			xnote("%s", err.msg); /* the first sample not kept, said once */
		s->lost++;
		s->lost_episode++;
	}
	follow_full(s, cur->realtime_ns);
	store_guest_marks(s);
	return LOOP_GO_ON;
}

static const struct xerr *session_failure(void *ctx)
{
	return &((struct rec_session *)ctx)->failed;
}

struct interval_sink rec_session_sink(struct rec_session *s)
{
	return (struct interval_sink){.ctx = s, .sample = store_sample, .failure = session_failure};
}

const struct xerr *rec_session_failure(const struct rec_session *s)
{
	return &s->failed;
}

void rec_session_mark(struct rec_session *s, const char *label, int64_t realtime_ns,
                      const char *origin, int exit_status)
{
	struct xerr err;
	if (!s->rec)
		xnote("mark \"%s\" not stored: no file is being written", label);
	else if (rec_add_mark_from(s->rec, label, realtime_ns, origin, exit_status, &err))
		xnote("%s", err.msg);
}

int rec_session_close(struct rec_session *s, size_t *samples, struct xerr *err)
{
	*samples = s->rec ? rec_writer_count(s->rec) : 0;
	int rc = 0;
	if (s->rec) {
		rc = rec_close(s->rec, err);
		s->rec = NULL;
	}
	rec_registry_withdraw();
	if (s->lost)
		xnote("%ld samples lost to a full %s", s->lost, s->o.dir ? s->o.dir : s->path);
	for (size_t i = 0; i < s->n_meta; i++)
		free(s->meta[i].value);
	s->n_meta = 0;
	return rc ? 2 : 0;
}
