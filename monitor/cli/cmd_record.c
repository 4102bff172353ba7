/* cmd_record.c - `xiotop record`: live samples (live.h) into a recording; the wiring.
 *
 *   xiotop record -o FILE [-d SECONDS] [--duration D] [--tail SECONDS] [--print FORMAT]
 *                 [--xenstore-dump FILE] [-- COMMAND ARGS...]
 *   xiotop record --dir DIR [--period D] [--retain D] [--retain-size SIZE] [--user NAME]
 *
 * The files, their periods, the full disk and the marks are the session's
 * (record/rec_session.h); the pace, the wrapped command and the drain after it are
 * record/rec_wrap.h's. Here: the options checked, the file (or directory) first, then the
 * tracer, the drop to --user, the loop with --print's batch lines beside the recorder,
 * and the exit status: the wrapped command's, else 2 when the recording failed or lost
 * what waited for its commit.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/fail.h"
#include "cli/privdrop.h"
#include "cli/stop.h"
#include "record/rec_registry.h"
#include "record/rec_session.h"
#include "record/rec_wrap.h"

/* Signals are blocked everywhere but in the pacer's wait (ppoll), so none is missed. */
static void catch_signals(sigset_t *wait_mask)
{
	sigset_t blocked;
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGCHLD);
	sigprocmask(SIG_BLOCK, &blocked, wait_mask);
	cli_catch_stop();
	struct sigaction child_sa = {.sa_handler = rec_wrap_on_child};
	sigaction(SIGCHLD, &child_sa, NULL);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGCHLD);
}

/* The facts every file of the session gets. */
static void session_facts(struct rec_session *s, const struct cli_opts *o, struct live *live,
                          const char *command)
{
	char interval[32];
	snprintf(interval, sizeof(interval), "%g", o->delay_s);
	rec_session_set_meta(s, "interval_s", interval);
	rec_session_set_meta(s, "tracer_mode", live_tracer_mode(live));
	rec_session_set_meta(s, "tracer_hooks", live_tracer_hooks(live));
	if (o->src.xenstore_dump)
		rec_session_set_meta(s, "xenstore_dump", o->src.xenstore_dump);
	if (command[0])
		rec_session_set_meta(s, "command", command);
}

static size_t take_marks(void *ctx, struct xenlive_mark *out, size_t max, unsigned long *refused)
{
	return live_take_marks(ctx, out, max, refused);
}

/* --user: once attached, the recorder goes on as that user, owning what it writes: the
 * directory (or the file with its journal) and the registry's. */
static int drop_privileges(const struct rec_session *s, const struct cli_opts *o,
                           const struct priv_user *user)
{
	if (!user->name)
		return 0;
	char journal[sizeof(s->path) + 16];
	snprintf(journal, sizeof(journal), "%s-journal", s->path);
	if (mkdir(rec_registry_dir(), 0755) && errno != EEXIST)
		fprintf(stderr, "xiotop: cannot create %s: %s\n", rec_registry_dir(),
		        strerror(errno));
	const char *dir_paths[] = {o->dir, rec_registry_dir()};
	const char *file_paths[] = {s->path, journal, rec_registry_dir()};
	if (o->dir ? priv_drop("record", user, dir_paths, 2)
	           : priv_drop("record", user, file_paths, 3))
		return -1;
	if (o->dir && access(o->dir, W_OK | X_OK)) {
		fprintf(stderr, "xiotop: --dir %s: %s (as %s)\n", o->dir, strerror(errno),
		        user->name);
		return -1;
	}
	char why[512]; /* -o: published as root, maybe refused; again as the user */
	if (!o->dir && rec_registry_publish(s->path, why, sizeof(why)))
		fprintf(stderr, "xiotop: `xiotop mark` will need -o %s (%s)\n", s->path, why);
	return 0;
}

/* The sampling loop: the recorder, the wrapped command, and with --print the batch lines. */
static int run(struct rec_session *s, struct rec_wrap *w, struct live *live,
               const struct cli_opts *o)
{
	struct batch_sink printer = {.out = stdout, .opts = {.format = o->print_format}};
	struct interval_sink sinks[3] = {rec_session_sink(s), rec_wrap_sink(w),
	                                 batch_sink(&printer)};
	struct sample_source src = live_source(live);
	struct xerr err = {0};
	struct loop l = {.src = &src,
	                 .sinks = sinks,
	                 .n_sinks = o->print ? 3 : 2,
	                 .pacer = rec_wrap_pacer(w),
	                 .err = &err};
	int rc = interval_loop(&l);
	cli_say(&err);
	batch_sink_free(&printer);
	return rc;
}

static int check_usage(const struct cli_opts *o)
{
	if (!o->output == !o->dir)
		return cli_bad_usage(CMD_RECORD, "where to? give -o FILE or --dir DIR");
	if (o->dir && o->n_args)
		return cli_bad_usage(CMD_RECORD, "--dir records continuously: no -- COMMAND");
	if (o->user && o->n_args)
		return cli_bad_usage(CMD_RECORD,
		                     "--user would run the -- COMMAND as that user too");
	return 0;
}

int cmd_record(struct cli_opts *o)
{
	struct priv_user user;
	int rc = check_usage(o);
	if (!rc)
		rc = priv_lookup("record", o->user, &user);
	if (rc)
		return rc;
	struct rec_session s;
	struct rec_session_opts so = {.output = o->output,
	                              .dir = o->dir,
	                              .period_s = o->period_s,
	                              .retain_s = o->retain_s,
	                              .retain_bytes = o->retain_bytes,
	                              .proc_root = o->src.roots.proc,
	                              .check_dir_later = o->user != NULL,
	                              .commit_age_ns = (int64_t)(o->commit_s * 1e9),
	                              .take_marks = take_marks};
	struct xerr err = {0};
	size_t n = 0;
	if (live_can_open(&err)) /* only what the tracer needs at all (root) before the place */
		return cli_fail(&err);
	rc = rec_session_open(&s, &so, &err); /* before the tracer: the place first */
	if (rc) {
		cli_say(&err);
		return rc;
	}
	struct live *live;
	if ((rc = open_live(&live, &o->src))) {
		rec_session_abandon(&s);
		rec_session_close(&s, &n, NULL);
		return rc;
	}
	s.o.marks_ctx = live;
	struct rec_wrap w;
	sigset_t wait_mask;
	rec_wrap_init(
	    &w, &(struct rec_wrap_opts){.argv = o->n_args ? o->args : NULL,
	                                .delay_s = o->delay_s,
	                                .duration_s = o->duration_s,
	                                .tail_s = o->tail_s,
	                                .drain_bound_ns = rec_drain_bound(&s.facts, o->delay_s),
	                                .stop = &cli_stop_signal,
	                                .wait_mask = &wait_mask,
	                                .session = &s});
	session_facts(&s, o, live, w.line);
	if (drop_privileges(&s, o, &user)) {
		rec_session_close(&s, &n, NULL);
		close_live(live);
		return 1;
	}
	catch_signals(&wait_mask);
	fprintf(stderr,
	        "xiotop: recording to %s every %g s; Ctrl-C stops; `xiotop mark LABEL` adds a "
	        "mark\n",
	        o->dir ? o->dir : o->output, o->delay_s);
	rc = run(&s, &w, live, o);
	rec_wrap_finish(&w, rc != 0, cli_stop_signal);
	char last[sizeof(s.path)];
	snprintf(last, sizeof(last), "%s", s.path);
	if (rec_session_close(&s, &n, &err) && !rc) {
		cli_say(&err); /* 2 whatever the kind (a full disk too), as record always said */
		rc = 2;
	}
	close_live(live);
	fprintf(stderr, "xiotop: %s: %zu samples (%zu intervals)\n", last, n, n ? n - 1 : 0);
	if (!rc && o->n_args && rec_wrap_status(&w) >= 0)
		return rec_wrap_status(&w);
	return rc;
}
