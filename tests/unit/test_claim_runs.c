/* test_claim_runs.c - a benchmark output as runs (explain/claims/claim.h struct claim_run): dd
 * logs of several runs with their direction from the pasted command, `time`'s real line,
 * bonnie's and iozone's phases each with its own bytes and seconds, fio's normal text
 * output, a multi-row table's rows each a result answering to its label; and a run
 * located in a domain's timeline (ex_locate_claim, explain.h) on synthetic timelines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/claim_list.h"
#include "explain/claims/claim_post.h"
#include "explain/explain.h"

#define MiB (1024.0 * 1024)

static struct claim_post post;
static struct xerr err;

/* The post's runs in file order, across its results. */
static size_t nruns(void)
{
	size_t n = 0;
	for (size_t i = 0; i < post.nresults; i++)
		n += post.results[i].nruns;
	return n;
}

static const struct claim_run *run(size_t k)
{
	for (size_t i = 0; i < post.nresults; i++) {
		if (k < post.results[i].nruns)
			return &post.results[i].runs[k];
		k -= post.results[i].nruns;
	}
	fail_msg("no run %zu", k);
	return NULL;
}

static const char *fixture(const char *name)
{
	static char path[1024];
	const char *dir = getenv("XIOTOP_FIXTURES");
	snprintf(path, sizeof(path), "%s/claims/%s", dir ? dir : "tests/fixtures", name);
	return path;
}

static void parse_ok(const char *name)
{
	claim_post_free(&post);
	int rc = claim_post_parse_file(fixture(name), &post, &err);
	if (rc != 0)
		print_error("%s: %s\n", name, err.msg);
	assert_int_equal(rc, 0);
}

/* The k-th run of the post as explain sets it against a window. */
static void figures_of(size_t k, struct claim_figures *f)
{
	static struct ex_claim_file cf;
	memset(&cf, 0, sizeof(cf));
	cf.post = post;
	for (size_t i = 0; i < post.nresults; i++) {
		if (k < post.results[i].nruns) {
			ex_run_figures(&cf, i, k, f);
			return;
		}
		k -= post.results[i].nruns;
	}
	fail_msg("no run %zu", k);
}

static int parse_buf(const char *name, const char *buf, size_t len)
{
	claim_post_free(&post);
	return claim_post_parse_buffer(name, buf, len, &post, &err);
}

static void near(double got, double want, double rel)
{
	if (fabs(got - want) > fabs(want) * rel + 1e-9)
		print_error("got %.9g want %.9g\n", got, want);
	assert_true(fabs(got - want) <= fabs(want) * rel + 1e-9);
}

static void one_clean_line(const char *part)
{
	if (!strstr(err.msg, part))
		print_error("err '%s' lacks '%s'\n", err.msg, part);
	assert_non_null(strstr(err.msg, part));
	for (const unsigned char *p = (const unsigned char *)err.msg; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
}

static void parse_bad(const char *buf, const char *part)
{
	assert_int_equal(parse_buf("bad.txt", buf, strlen(buf)), -1);
	one_clean_line(part);
}

/* --- dd -------------------------------------------------------------------------------- */

/* Before: "a second dd run starts here"; and every dd was a write. */
static void test_dd_write_then_read(void **state)
{
	(void)state;
	parse_ok("gnu-dd-write-then-read.txt");
	assert_int_equal(nruns(), 2);
	assert_int_equal(run(0)->direction, CLAIM_DIR_WRITE);
	assert_int_equal(run(0)->bytes, 67108864);
	near(run(0)->seconds, 0.0500984, 1e-9);
	assert_int_equal(run(1)->direction, CLAIM_DIR_READ);
	assert_int_equal(run(1)->bytes, 67108864);
	near(run(1)->seconds, 0.0259911, 1e-9);
	assert_int_equal(post.nresults, 2); /* each dd run a result of its own */
	struct claim_figures f = {0};
	figures_of(1, &f);
	assert_int_equal(f.rd_bytes, 67108864);
	assert_int_equal(f.wr_bytes, 0);
	assert_false(f.direction_unknown);
	figures_of(0, &f);
	assert_int_equal(f.wr_bytes, 67108864);
	assert_int_equal(f.rd_bytes, 0);

	parse_ok("gnu-dd-two-runs-no-command.txt"); /* no command: the tool does not say */
	assert_int_equal(nruns(), 2);
	assert_int_equal(run(0)->direction, 0);
	figures_of(0, &f);
	assert_true(f.direction_unknown);
	assert_int_equal(f.wr_bytes, 67108864);
	assert_int_equal(f.rd_bytes, 67108864);

	parse_ok("gnu-dd-two-writes.txt");
	assert_int_equal(nruns(), 2);
	assert_int_equal(run(1)->bytes, 16777216);
	assert_int_equal(run(1)->direction, CLAIM_DIR_WRITE);

	parse_ok("seed003-dom0-bsd-dd-read.txt"); /* NetBSD: "dd if=testfile of=/dev/zero" */
	assert_int_equal(nruns(), 1);
	assert_int_equal(run(0)->direction, CLAIM_DIR_READ);
	parse_ok("seed000-domu-file-dd.txt");
	assert_int_equal(run(0)->direction, CLAIM_DIR_WRITE);
}

static void test_dd_time_real(void **state)
{
	(void)state;
	parse_ok("gnu-dd-time-sync.txt"); /* time (dd ...; sync): bash's real line */
	assert_int_equal(nruns(), 1);
	assert_int_equal(run(0)->direction, CLAIM_DIR_WRITE);
	assert_true(run(0)->seconds_from_time);
	near(run(0)->seconds, 0.253, 1e-9);
	near(run(0)->rate_bytes_per_s, 67108864 / 0.253, 1e-9);
	near(post.results[0].seconds, 0.223773, 1e-9); /* the headline stays dd's own */
	parse_ok("gnu-dd-time-p.txt");                 /* time -p: "real 0.14" */
	near(run(0)->seconds, 0.14, 1e-9);
	const char *two = "10+0 records in\n10+0 records out\n10 bytes copied, 1 s, 10 B/s\n"
	                  "real\t1m2,5s\nreal\t9m0s\n";
	assert_int_equal(parse_buf("t", two, strlen(two)), 0);
	near(run(0)->seconds, 62.5, 1e-9); /* the first real line only */
}

static void test_dd_truncated_runs(void **state)
{
	(void)state;
	parse_bad("1+0 records in\n1+0 records out\n1 byte copied, 1 s, 1 B/s\n2+0 records in\n",
	          "bad.txt:4: truncated dd output: a records line, then the end");
	parse_bad("1+0 records in\n1+0 records out\n1 byte copied, 1 s, 1 B/s\n2+0 records in\n"
	          "2+0 records out\n",
	          "bad.txt:5: dd records lines but no \"N bytes ... copied\" summary");
}

/* --- bonnie, iozone: one run per phase --------------------------------------------------- */

/* Before: bytes were block write + rewrite (4 GiB) while seconds were size / rate. */
static void test_bonnie_phases(void **state)
{
	(void)state;
	parse_ok("seed000-domu-file-bonnie.txt");
	assert_int_equal(nruns(), 4); /* per-char tests are of a size bonnie++ does not print */
	static const char *labels[] = {"block write", "rewrite (read)", "rewrite (write)",
	                               "block read"};
	static const unsigned dirs[] = {CLAIM_DIR_WRITE, CLAIM_DIR_READ, CLAIM_DIR_WRITE,
	                                CLAIM_DIR_READ};
	static const double kps[] = {94601, 62259, 62259, 130897};
	for (unsigned i = 0; i < 4; i++) {
		assert_non_null(strstr(run(i)->label, labels[i]));
		assert_int_equal(run(i)->direction, dirs[i]);
		assert_int_equal(run(i)->bytes, 2ull << 30);
		near(run(i)->seconds, (2.0 * 1024 * 1024 * 1024) / (kps[i] * 1024), 1e-9);
		assert_true(run(i)->seconds_from_rate);
	}
	parse_ok("bonnie-2.00a-q-x2.csv"); /* -x 2, -f: two runs of the same machine */
	assert_int_equal(nruns(), 8);
	assert_int_equal(post.nresults, 2); /* -x 2: each CSV line a result */
}

static void test_iozone_phases(void **state)
{
	(void)state;
	parse_ok("seed002-domu-loop-iozone.txt");
	assert_int_equal(nruns(), 6);
	assert_string_equal(run(0)->label, "write");
	assert_int_equal(run(0)->direction, CLAIM_DIR_WRITE);
	assert_int_equal(run(0)->bytes, 921600ull * 1024);
	near(run(0)->seconds, 921600.0 / 11478, 1e-9);
	assert_string_equal(run(4)->label, "random read");
	assert_int_equal(run(4)->direction, CLAIM_DIR_READ);
	near(run(4)->seconds, 921600.0 / 7280, 1e-9);
	assert_int_equal(run(5)->direction, CLAIM_DIR_WRITE);
}

/* Before: the first row (dom0-raw) was used silently; then the table was refused until a
 * row was picked ("holds 3 rows; pick one"). Now each row is a result, answering to its
 * machine's name. */
static void test_bonnie_classic_rows(void **state)
{
	(void)state;
	parse_ok("seed003-bonnie-classic-wrapped.txt");
	assert_int_equal(post.nresults, 3);
	assert_int_equal(nruns(), 18);
	static const char *const rows[] = {"dom0-raw", "dom0-lvm", "domU"};
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(post.results[i].machine, rows[i]);
		assert_true(claim_result_answers(&post.results[i], rows[i]));
		assert_false(claim_result_answers(&post.results[i], "nosuch"));
		assert_int_equal(post.results[i].nruns, 6);
	}
	assert_false(claim_result_answers(&post.results[0], "dom0")); /* a machine exactly */
	const struct claim_result *domu = &post.results[2];
	assert_string_equal(domu->runs[1].label, "domU block write");
	near(domu->runs[1].rate_bytes_per_s, 352908 * 1024.0, 1e-9);
	assert_int_equal(domu->runs[1].bytes, 4000ull << 20);
	assert_int_equal(domu->runs[0].bytes, 4000ull << 20); /* classic per-char: the file size */
	char found[200];
	claim_post_summary(&post, NULL, found, sizeof(found));
	assert_string_equal(found, "3 bonnie rows");

	/* the --claim argument: FILE@DOMAIN:LABEL, FILE@X, FILE */
	static struct ex_claim_file cf;
	char arg[1200];
	snprintf(arg, sizeof(arg), "%s@7:dom0-lvm", fixture("seed003-bonnie-classic-wrapped.txt"));
	ex_claim_arg(arg, &cf);
	assert_string_equal(cf.file, fixture("seed003-bonnie-classic-wrapped.txt"));
	assert_string_equal(cf.domain, "7");
	assert_string_equal(cf.label, "dom0-lvm");
	snprintf(arg, sizeof(arg), "%s@domU", fixture("seed003-bonnie-classic-wrapped.txt"));
	ex_claim_arg(arg, &cf);
	assert_string_equal(cf.domain, "domU"); /* a domain or a label: the window decides */
	assert_string_equal(cf.label, "");
	ex_claim_arg(fixture("seed003-bonnie-classic-wrapped.txt"), &cf);
	assert_string_equal(cf.domain, "");
}

/* Seed 004: classic bonnie, one unnamed row; per-char tests move the file size too. */
static void test_bonnie_classic_one_row(void **state)
{
	(void)state;
	parse_ok("seed004-domu-bonnie-classic.txt");
	assert_int_equal(nruns(), 6);
	assert_int_equal(post.nresults, 1);
	static const char *labels[] = {"per-char write",  "block write",   "rewrite (read)",
	                               "rewrite (write)", "per-char read", "block read"};
	static const double kps[] = {15999, 9930, 27065, 27065, 30324, 49356};
	for (unsigned i = 0; i < 6; i++) {
		assert_string_equal(run(i)->label, labels[i]);
		assert_string_equal(run(i)->row, "");
		assert_int_equal(run(i)->bytes, 2048ull << 20);
		near(run(i)->rate_bytes_per_s, kps[i] * 1024, 1e-9);
	}
	parse_ok("seed004-dom0-bonnie-classic.txt"); /* its last %CPU wrapped */
	assert_int_equal(nruns(), 6);
	near(run(1)->seconds, 256.0 * 1024 / 106710, 1e-9);
}

/* --- fio normal output (before: "not the output of dd, ... fio (JSON)") ------------------ */

static void test_fio_text(void **state)
{
	(void)state;
	parse_ok("fio-text-write.txt");
	assert_int_equal(post.results[0].tool, CLAIM_TOOL_FIO);
	assert_int_equal(nruns(), 1);
	assert_int_equal(run(0)->direction, CLAIM_DIR_WRITE);
	assert_int_equal(run(0)->bytes, 64ull << 20); /* io=64.0MiB */
	near(run(0)->seconds, 0.174, 1e-9);
	near(run(0)->rate_bytes_per_s, 368 * MiB, 1e-9);
	assert_int_equal(post.results[0].written_bytes, 64ull << 20);
	assert_string_equal(post.results[0].u.fio.version, "fio-3.33");
	parse_ok("fio-text-read.txt");
	assert_int_equal(run(0)->direction, CLAIM_DIR_READ);
	assert_int_equal(post.results[0].read_bytes, 64ull << 20);
	parse_ok("fio-text-randrw-2jobs.txt"); /* 2 jobs: the group's READ and WRITE lines */
	assert_int_equal(nruns(), 2);
	near((double)run(0)->bytes, 15.6 * MiB, 1e-6);
	near((double)run(1)->bytes, 16.4 * MiB, 1e-6);
	/* fio's own count: 1992+1998 reads, 2104+2098 writes of 4 KiB (issued rwts) */
	near((double)run(0)->bytes, (1992 + 1998) * 4096.0, 0.005);
	near((double)run(1)->bytes, (2104 + 2098) * 4096.0, 0.005);
	near(run(1)->seconds, 0.049, 1e-9);
	parse_ok("fio-text-group.txt");
	assert_int_equal(run(0)->bytes, 16ull << 20);
	parse_bad("Run status group 0 (all jobs):\n  WRITE: bw=368MiB/s (386MB/s), "
	          "368MiB/s-368MiB/s (386MB/s-386MB/s), io=64.0MiB (67.1MB), run=174-1",
	          "bad.txt:2: the last line");
	parse_bad("Run status group 0 (all jobs):\n", "truncated fio output");
	parse_bad("Run status group 0 (all jobs):\nRun status group 1 (all jobs):\n",
	          "bad.txt:1: fio group 0 has no READ: or WRITE: line");
	parse_bad("Run status group 0 (all jobs):\n   READ: bw=1QB/s (1MB/s), io=1MiB (1MB), "
	          "run=1-1msec\n",
	          "garbled fio group line");
}

/* Every prefix of the new fixtures: parses or one clean line, never a crash. */
static void test_prefixes(void **state)
{
	(void)state;
	static const char *files[] = {"gnu-dd-write-then-read.txt", "gnu-dd-time-sync.txt",
	                              "fio-text-randrw-2jobs.txt", "fio-text-write.txt"};
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		FILE *f = fopen(fixture(files[k]), "rb");
		assert_non_null(f);
		static char buf[16384];
		size_t len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		for (size_t cut = 0; cut < len; cut++) {
			int rc = parse_buf("cut.txt", buf, cut);
			assert_true(rc == 0 || rc == -1);
			if (rc)
				one_clean_line("cut.txt");
		}
	}
}

/* --- a run located in a domain's timeline ------------------------------------------------ */

#define NPTS 40
static struct ex_point pts[NPTS];

/* 1 s intervals; wr[i] MiB written in interval i (ending at t = i + 1). */
static void timeline(const double *wr_mib, const double *rd_mib, size_t n)
{
	memset(pts, 0, sizeof(pts));
	for (size_t i = 0; i < n; i++) {
		pts[i].t = (double)i + 1;
		pts[i].interval_s = 1;
		pts[i].guest_wr_bytes = (uint64_t)(wr_mib ? wr_mib[i] * MiB : 0);
		pts[i].guest_rd_bytes = (uint64_t)(rd_mib ? rd_mib[i] * MiB : 0);
		pts[i].phys_wr_bytes = pts[i].guest_wr_bytes;
	}
}

static void test_locate(void **state)
{
	(void)state;
	struct ex_located at;
	/* one run: 64 MiB over 4 s, idle around it */
	double one[NPTS] = {0, 0.5, 0, 0, 16, 16, 16, 16, 0, 0, 0.5};
	timeline(one, NULL, NPTS);
	assert_int_equal(ex_locate_claim(pts, NPTS, 0, 64 << 20, 4, true, &at), 0);
	assert_true(at.found);
	assert_int_equal(at.first, 4);
	assert_int_equal(at.last, 7);
	near(at.from_s, 4, 1e-9);
	near(at.to_s, 8, 1e-9);
	assert_int_equal(at.guest_bytes, 64 << 20);
	assert_int_equal(at.phys_bytes, 64 << 20);
	/* the same without the claim's seconds (bonnie prints rates) */
	assert_int_equal(ex_locate_claim(pts, NPTS, 0, 64 << 20, 0, true, &at), 0);
	assert_int_equal(at.first, 4);
	/* no reads that big: not located, said by found == false */
	assert_int_equal(ex_locate_claim(pts, NPTS, 0, 64 << 20, 4, false, &at), -1);
	assert_false(at.found);
	/* 256 MiB never moved: not located */
	assert_int_equal(ex_locate_claim(pts, NPTS, 0, 256 << 20, 4, true, &at), -1);

	/* two runs: a 32 MiB write in 2 s, then the same 32 MiB read in 1 s, then a second
	 * 32 MiB write in 4 s */
	double wr[NPTS] = {0, 16, 16, 0, 0, 0, 0, 8, 8, 8, 8};
	double rd[NPTS] = {0, 0, 0, 0, 32};
	timeline(wr, rd, NPTS);
	assert_int_equal(ex_locate_claim(pts, NPTS, 0, 32 << 20, 2, true, &at), 0);
	assert_int_equal(at.first, 1);
	assert_int_equal(at.last, 2);
	assert_int_equal(ex_locate_claim(pts, NPTS, 0, 32 << 20, 1, false, &at), 0);
	assert_int_equal(at.first, 4);
	assert_int_equal(at.last, 4);
	/* the second write: by its seconds, or as the next run after the first */
	assert_int_equal(ex_locate_claim(pts, NPTS, 0, 32 << 20, 4, true, &at), 0);
	assert_int_equal(at.first, 7);
	assert_int_equal(at.last, 10);
	assert_int_equal(ex_locate_claim(pts, NPTS, 3, 32 << 20, 2, true, &at), 0);
	assert_int_equal(at.first, 7);

	/* a cached write: dd says 0.1 s, the guest wrote back over 5 s: still located */
	double late[NPTS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 20, 20, 20, 24};
	timeline(late, NULL, NPTS);
	assert_int_equal(ex_locate_claim(pts, NPTS, 0, 100 << 20, 0.1, true, &at), 0);
	assert_int_equal(at.first, 10);
	assert_int_equal(at.last, 14);
	/* a trickle of 40 MiB in all holds no 64 MiB run */
	double trickle[NPTS];
	for (size_t i = 0; i < NPTS; i++)
		trickle[i] = 1;
	timeline(trickle, NULL, NPTS);
	assert_int_equal(ex_locate_claim(pts, NPTS, 0, 64 << 20, 1, true, &at), -1);
	assert_int_equal(ex_locate_claim(NULL, 0, 0, 1, 1, true, &at), -1);
	assert_int_equal(ex_locate_claim(pts, NPTS, 0, 0, 1, true, &at), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dd_write_then_read),
	    cmocka_unit_test(test_dd_time_real),
	    cmocka_unit_test(test_dd_truncated_runs),
	    cmocka_unit_test(test_bonnie_phases),
	    cmocka_unit_test(test_iozone_phases),
	    cmocka_unit_test(test_bonnie_classic_rows),
	    cmocka_unit_test(test_bonnie_classic_one_row),
	    cmocka_unit_test(test_fio_text),
	    cmocka_unit_test(test_prefixes),
	    cmocka_unit_test(test_locate),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	claim_post_free(&post);
	return failed;
}
