/* test_record_moved.c - the writer against what happens to its file from outside: a
 * recorder killed while it creates a file leaves nothing half-made at the path (every
 * file there opens), and a file removed, renamed (logrotate) or replaced under the writer
 * is noticed (rec_writer_moved), a renamed one complete on its own once closed (the
 * samples waiting for their commit go into it, at its new name). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_files.h"
#include "record/record.h"
#include "sources/synthetic.h"

TEST_SCRATCH_DIR("record-moved")

#define SECOND 1000000000ll

static struct synthetic *syn;

static int setup(void **state)
{
	syn = synthetic_open(4, false);
	return syn ? make_dir(state) : -1;
}

static int teardown(void **state)
{
	synthetic_close(syn);
	return remove_dir(state);
}

static void append(struct rec_writer *w, unsigned i)
{
	struct xio_sample s;
	struct xerr err;
	assert_int_equal(synthetic_sample_at(syn, (uint64_t)i * SECOND, i * SECOND, &s), 0);
	if (rec_append(w, &s, &err))
		fail_msg("%s", err.msg);
	sample_free(&s);
}

static size_t samples_in(const char *path)
{
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	if (!r)
		fail_msg("%s", err.msg);
	size_t n = rec_count(r);
	rec_reader_close(r);
	return n;
}

/* Creators killed at every moment of rec_create (delays spread over one and a half times
 * its run, timed once), the last one only once it has made its file: whatever is at a
 * path afterwards is a recording that opens; a creator killed before leaves at most its
 * PATH.new-PID. */
static void test_killed_while_creating(void **state)
{
	(void)state;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct xerr err;
	struct rec_writer *w = rec_create(path_of("timed.xiotop"), NULL, &err);
	assert_non_null(w);
	rec_close(w, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long span_us = (t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
	int at_path = 0, kills = 60;
	for (int k = 0; k < kills; k++) {
		char name[32];
		snprintf(name, sizeof(name), "k%02d.xiotop", k);
		const char *path = path_of(name);
		int made[2];
		assert_int_equal(pipe(made), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct rec_writer *cw = rec_create(path, NULL, &err);
			if (!cw || write(made[1], "m", 1) != 1)
				_exit(1);
			pause(); /* the writer stays open, as a recorder's */
			_exit(0);
		}
		char c;
		if (k == kills - 1) {
			assert_int_equal(read(made[0], &c, 1), 1);
		} else {
			struct timespec d = {0, (k * (span_us * 3 / 2) / kills) * 1000};
			nanosleep(&d, NULL);
		}
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(made[0]);
		close(made[1]);
		if (access(path, F_OK) == 0) {
			at_path++;
			assert_int_equal(samples_in(path), 0);
		}
	}
	print_message("%d creators killed over %ld us: %d files at their path, all open\n", kills,
	              span_us * 3 / 2, at_path);
	assert_true(at_path >= 1);
}

static void test_renamed(void **state)
{
	(void)state;
	const char *path = path_of("renamed.xiotop");
	char rotated[160];
	snprintf(rotated, sizeof(rotated), "%s.1", path);
	struct xerr err;
	struct rec_writer *w = rec_create(path, NULL, &err);
	assert_non_null(w);
	append(w, 0);
	assert_false(rec_writer_moved(w));
	assert_int_equal(rename(path, rotated), 0); /* logrotate, without copytruncate */
	assert_true(rec_writer_moved(w));
	append(w, 1); /* still into the renamed file */
	assert_int_equal(rec_close(w, &err), 0);
	/* closed: what waited committed into the renamed file, which stands alone (nothing
	 * left at the old name) */
	char journal[180];
	snprintf(journal, sizeof(journal), "%s-journal", path);
	assert_int_equal(access(journal, F_OK), -1);
	assert_int_equal(samples_in(rotated), 2);
	/* and the path is free for the next file */
	w = rec_create(path, NULL, &err);
	assert_non_null(w);
	append(w, 1);
	assert_false(rec_writer_moved(w));
	rec_close(w, NULL);
	assert_int_equal(samples_in(path), 1);
}

static void test_removed_and_replaced(void **state)
{
	(void)state;
	const char *path = path_of("removed.xiotop");
	struct xerr err;
	struct rec_writer *w = rec_create(path, NULL, &err);
	assert_non_null(w);
	append(w, 0);
	assert_int_equal(unlink(path), 0);
	assert_true(rec_writer_moved(w));
	rec_close(w, NULL);

	w = rec_create(path, NULL, &err);
	assert_non_null(w);
	append(w, 0);
	const char *other = path_of("other.xiotop");
	struct rec_writer *o = rec_create(other, NULL, &err);
	assert_non_null(o);
	rec_close(o, NULL);
	assert_int_equal(rename(other, path), 0); /* another file now at the path */
	assert_true(rec_writer_moved(w));
	rec_close(w, NULL);
}

/* Renamed, then its writer killed before it noticed: what it had committed is in the
 * renamed file, whole (what still waited for its commit is lost with it), and a journal
 * left at the old name by a writer killed while committing is not taken by a new file at
 * the path (refused, saying why). */
static void test_renamed_then_killed(void **state)
{
	(void)state;
	const char *path = path_of("rotated-killed.xiotop");
	char rotated[160], journal[180];
	snprintf(rotated, sizeof(rotated), "%s.1", path);
	snprintf(journal, sizeof(journal), "%s-journal", path);
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct xerr err;
		struct rec_writer *w = rec_create(path, NULL, &err);
		for (unsigned i = 0; w && i < 3; i++)
			append(w, i);
		if (!w || rec_flush(w, &err))
			_exit(1);
		append(w, 3); /* waits for its commit */
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(rename(path, rotated), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	assert_int_equal(samples_in(rotated), 3);
	FILE *f = fopen(journal, "w"); /* as a writer killed in a commit leaves it */
	assert_non_null(f);
	fputs("not ours", f);
	fclose(f);
	struct xerr err;
	assert_null(rec_create(path, NULL, &err));
	assert_int_equal(err.code, REC_ERR_EXISTS);
	assert_non_null(strstr(err.msg, journal));
	assert_non_null(strstr(err.msg, "killed"));
	unlink(journal);
	struct rec_writer *w = rec_create(path, NULL, &err);
	assert_non_null(w);
	rec_close(w, NULL);
}

/* A creator's leftover (killed while making its file) does not stop the next one. */
static void test_leftover_of_a_killed_creator(void **state)
{
	(void)state;
	const char *path = path_of("after.xiotop");
	char leftover[180];
	snprintf(leftover, sizeof(leftover), "%s.new-999999", path);
	FILE *f = fopen(leftover, "w");
	assert_non_null(f);
	fclose(f);
	struct xerr err;
	struct rec_writer *w = rec_create(path, NULL, &err);
	if (!w)
		fail_msg("%s", err.msg);
	append(w, 0);
	rec_close(w, NULL);
	assert_int_equal(samples_in(path), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_killed_while_creating),
	    cmocka_unit_test(test_renamed),
	    cmocka_unit_test(test_removed_and_replaced),
	    cmocka_unit_test(test_renamed_then_killed),
	    cmocka_unit_test(test_leftover_of_a_killed_creator),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
