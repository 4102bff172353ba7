/* test_claims.c - explain/claims/claim_post.h, one tool output at a time: every fixture of
 * tests/fixtures/claims/ parses to the figures its tool printed; truncated, foreign,
 * garbled, huge and escape-laden input gives one escaped line naming the file and, where
 * it applies, the line. Whole posts (several outputs among prose): test_claim_posts.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/claims/claim_post.h"

static struct claim_post post;
static const struct claim_result *cl; /* post's first result */
static struct xerr err;

/* Parses buf as the post: 0 (cl its first result) or -1. */
static int parse_buf(const char *name, const char *buf, size_t len)
{
	claim_post_free(&post);
	int rc = claim_post_parse_buffer(name, buf, len, &post, &err);
	cl = rc ? NULL : &post.results[0];
	return rc;
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
	cl = &post.results[0];
}

static int parse_file(const char *name)
{
	claim_post_free(&post);
	return claim_post_parse_file(fixture(name), &post, &err);
}

static void near(double got, double want)
{
	if (fabs(got - want) > fabs(want) * 1e-9 + 1e-9)
		print_error("got %.9g want %.9g\n", got, want);
	assert_true(fabs(got - want) <= fabs(want) * 1e-9 + 1e-9);
}

/* The error is one line, names the file, holds no raw control or high byte. */
static void assert_one_clean_line(const char *name_part)
{
	assert_non_null(strstr(err.msg, name_part));
	for (const unsigned char *p = (const unsigned char *)err.msg; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
}

static void parse_bad_buf(const char *buf, size_t len, const char *want_in_err)
{
	int rc = parse_buf("bad.txt", buf, len);
	if (rc == 0 || !strstr(err.msg, want_in_err))
		print_error("rc %d err '%s' want '%s'\n", rc, err.msg, want_in_err);
	assert_int_equal(rc, -1);
	assert_one_clean_line("bad.txt");
	assert_non_null(strstr(err.msg, want_in_err));
	assert_int_equal(post.nresults, 0); /* nothing partial kept */
}

static void parse_bad(const char *buf, const char *want_in_err)
{
	parse_bad_buf(buf, strlen(buf), want_in_err);
}

/* --- GNU dd --------------------------------------------------------------------------- */

static void test_gnu_dd(void **state)
{
	(void)state;
	parse_ok("gnu-dd-64MiB.txt");
	assert_int_equal(cl->tool, CLAIM_TOOL_DD);
	assert_string_equal(claim_tool_name(cl->tool), "dd");
	assert_int_equal(cl->bytes, 67108864);
	assert_int_equal(cl->u.dd.records_in_full, 64);
	assert_int_equal(cl->u.dd.records_out_partial, 0);
	assert_int_equal(cl->directions, CLAIM_DIR_READ | CLAIM_DIR_WRITE);
	assert_true(cl->seconds > 0 && cl->seconds < 10);
	assert_true(cl->rate_bytes_per_s >= 1e8);

	parse_ok("gnu-dd-1000B.txt"); /* "(1.0 kB)" */
	assert_int_equal(cl->bytes, 1000);
	parse_ok("gnu-dd-100B.txt"); /* "100 bytes copied" */
	assert_int_equal(cl->bytes, 100);
	parse_ok("gnu-dd-1B.txt"); /* "1 byte copied" */
	assert_int_equal(cl->bytes, 1);
	assert_true(fmod(cl->rate_bytes_per_s, 100) == 0); /* kB/s: 1000-based, one decimal */
}

static void test_gnu_dd_progress(void **state)
{
	(void)state;
	parse_ok("gnu-dd-progress.txt");
	assert_int_equal(cl->bytes, 2621440000ull);
	near(cl->seconds, 6.83006);
	near(cl->rate_bytes_per_s, 384e6);
	assert_int_equal(cl->u.dd.progress_lines, 6);
	assert_int_equal(cl->u.dd.progress_last_bytes, 2297430016ull);
}

static void test_gnu_dd_decimal_comma(void **state)
{
	(void)state;
	parse_ok("gnu-dd-lc-numeric-de.txt");
	assert_int_equal(cl->bytes, 67108864);
	near(cl->seconds, 0.0428492);
	near(cl->rate_bytes_per_s, 1.6e9);
	parse_ok("gnu-dd-lang-de.txt"); /* "Bytes ... kopiert", "Datensätze ein" */
	assert_int_equal(cl->bytes, 67108864);
	assert_int_equal(cl->u.dd.records_in_full, 64);
	near(cl->seconds, 0.0255709);
	near(cl->rate_bytes_per_s, 2.6e9);
}

static void test_gnu_dd_inline_forms(void **state)
{
	(void)state;
	static const char iec[] = "1+0 records in\n1+0 records out\n"
	                          "1048576 bytes (1.0 MB, 1.0 MiB) copied, 0,5 s, 1,5 GiB/s\n";
	assert_int_equal(parse_buf("x", iec, strlen(iec)), 0);
	near(cl->seconds, 0.5);
	near(cl->rate_bytes_per_s, 1.5 * 1024 * 1024 * 1024);
	static const char kib[] = "0+1 records in\n0+1 records out\n"
	                          "512 bytes copied, 0.001 s, 512 kiB/s\n";
	assert_int_equal(parse_buf("x", kib, strlen(kib)), 0);
	assert_int_equal(cl->u.dd.records_in_partial, 1);
	near(cl->rate_bytes_per_s, 512 * 1024);
	static const char inf[] = "0+0 records in\n0+0 records out\n"
	                          "0 bytes copied, 0 s, Infinity B/s\n";
	assert_int_equal(parse_buf("x", inf, strlen(inf)), 0);
	assert_true(cl->rate_bytes_per_s < 0);
	static const char notime[] = "2+0 records in\n2+0 records out\n"
	                             "2048 bytes (2.0 kB, 2.0 KiB) copied\n";
	assert_int_equal(parse_buf("x", notime, strlen(notime)), 0);
	assert_int_equal(cl->bytes, 2048);
	assert_true(cl->seconds < 0 && cl->rate_bytes_per_s < 0);
}

static void test_seed000_dd(void **state)
{
	(void)state;
	parse_ok("seed000-domu-file-dd.txt");
	assert_int_equal(cl->tool, CLAIM_TOOL_DD);
	assert_int_equal(cl->bytes, 10737418240ull);
	near(cl->seconds, 192.556);
	near(cl->rate_bytes_per_s, 55.8e6);
	parse_ok("seed000-dom0-dd.txt");
	near(cl->seconds, 72.0743);
	near(cl->rate_bytes_per_s, 149e6);
	parse_ok("seed000-domu-lvm-dd.txt");
	near(cl->seconds, 123.34);
	near(cl->rate_bytes_per_s, 87.1e6);
}

/* --- busybox and BSD dd ---------------------------------------------------------------- */

static void test_busybox_dd(void **state)
{
	(void)state;
	parse_ok("busybox-dd-summary-constructed.txt");
	assert_int_equal(cl->tool, CLAIM_TOOL_DD_BUSYBOX);
	assert_int_equal(cl->bytes, 67108864);
	near(cl->seconds, 0.021472);
	near(cl->rate_bytes_per_s, 2.9 * 1024 * 1024 * 1024);
	/* Debian's busybox prints no third status line: refused with the reason */
	assert_int_equal(parse_file("busybox-dd-records-only.txt"), -1);
	assert_one_clean_line("busybox-dd-records-only.txt");
	assert_non_null(strstr(err.msg, "no \"N bytes ... copied\" summary"));
	assert_int_equal(parse_file("gnu-dd-noxfer.txt"), -1);
}

static void test_bsd_dd(void **state)
{
	(void)state;
	parse_ok("seed003-dom0-bsd-dd-write.txt");
	assert_int_equal(cl->tool, CLAIM_TOOL_DD_BSD);
	assert_int_equal(cl->bytes, 4294967296ull);
	near(cl->seconds, 18.033);
	near(cl->rate_bytes_per_s, 238172644);
	parse_ok("seed003-dom0-bsd-dd-read.txt");
	near(cl->rate_bytes_per_s, 324221883);
	parse_ok("seed003-domu-bsd-dd-write.txt");
	near(cl->seconds, 14.750);
	parse_ok("seed003-domu-bsd-dd-read.txt");
	near(cl->seconds, 13.381);
}

/* --- bonnie++ --------------------------------------------------------------------------- */

static void test_bonnie_200(void **state)
{
	(void)state;
	parse_ok("bonnie-2.00a-default.txt");
	const struct claim_bonnie *b = &cl->u.bonnie;
	assert_int_equal(cl->tool, CLAIM_TOOL_BONNIE);
	assert_string_equal(b->format_version, "1.98");
	assert_string_equal(b->version, "2.00a");
	assert_string_equal(b->machine, "xiotop-test");
	assert_int_equal(b->file_size_bytes, 256ull << 20);
	near(b->rate_bytes_per_s[CLAIM_BONNIE_PUTC], 655 * 1024.0);
	near(b->rate_bytes_per_s[CLAIM_BONNIE_GETC], 676 * 1024.0);
	assert_true(b->too_fast[CLAIM_BONNIE_BLOCK_WRITE]);
	assert_true(b->too_fast[CLAIM_BONNIE_REWRITE]);
	assert_true(b->too_fast[CLAIM_BONNIE_BLOCK_READ]);
	assert_true(cl->rate_bytes_per_s < 0); /* all block tests "+++++" */
	assert_int_equal(cl->written_bytes, 2 * (256ull << 20));

	parse_ok("bonnie-2.00a-q-x2.csv");  /* header two columns short, -f, -x 2 */
	assert_int_equal(post.nresults, 2); /* each CSV line a result */
	assert_int_equal(cl->u.bonnie.file_size_bytes, 128ull << 20);
	assert_true(cl->u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_PUTC] < 0);
	assert_false(cl->u.bonnie.too_fast[CLAIM_BONNIE_PUTC]);
	assert_true(cl->u.bonnie.too_fast[CLAIM_BONNIE_BLOCK_WRITE]);
}

static void test_bonnie_seed000(void **state)
{
	(void)state;
	parse_ok("seed000-dom0-bonnie.txt");
	const struct claim_bonnie *b = &cl->u.bonnie;
	assert_string_equal(b->format_version, "1.96");
	assert_int_equal(b->file_size_bytes, 2ull << 30);
	near(b->rate_bytes_per_s[CLAIM_BONNIE_BLOCK_WRITE], 144092 * 1024.0);
	near(b->rate_bytes_per_s[CLAIM_BONNIE_REWRITE], 68102 * 1024.0);
	near(b->rate_bytes_per_s[CLAIM_BONNIE_BLOCK_READ], 183977 * 1024.0);
	near(cl->rate_bytes_per_s, 144092 * 1024.0);
	near(cl->seconds, (2.0 * 1024 * 1024 * 1024) / (144092 * 1024.0));
	assert_int_equal(cl->directions, CLAIM_DIR_READ | CLAIM_DIR_WRITE);
	parse_ok("seed000-domu-file-bonnie.txt");
	near(cl->u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_BLOCK_WRITE], 94601 * 1024.0);
	parse_ok("seed000-domu-lvm-bonnie.txt");
	near(cl->u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_BLOCK_READ], 190338 * 1024.0);
}

/* bonnie++ 1.0x/1.9x's text table without its CSV line, read column by column at the
 * header's widths (CONSTRUCTED rows in bonnie++'s layout: "%5d %3d" columns one blank
 * apart, -f leaving the per-char columns blank, a 6-digit figure pushing the rest right,
 * the size with its chunk "1G:32k"). */
static void test_bonnie_table_alone(void **state)
{
	(void)state;
	static const char table[] =
	    "Version 1.03       ------Sequential Output------ --Sequential Input- --Random-\n"
	    "                   -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n"
	    "Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\n"
	    "Gaia         1G:32k           26895  41 10177   1           30211   4  99.1   0\n"
	    "fast             2G   419  98 144092  21 68102   2   882  97 183977   2 699.3   0\n"
	    "cached           2G           +++++ +++ +++++ +++           +++++ +++ +++++ +++\n";
	assert_int_equal(parse_buf("t.txt", table, strlen(table)), 0);
	assert_int_equal(post.nresults, 3);
	const struct claim_bonnie *b = &post.results[0].u.bonnie;
	assert_string_equal(b->machine, "Gaia");
	assert_int_equal(b->file_size_bytes, 1ull << 30);
	assert_int_equal(b->chunk_bytes, 32u << 10);
	assert_true(b->rate_bytes_per_s[CLAIM_BONNIE_PUTC] < 0); /* -f: not run */
	near(b->rate_bytes_per_s[CLAIM_BONNIE_BLOCK_WRITE], 26895 * 1024.0);
	near(b->rate_bytes_per_s[CLAIM_BONNIE_REWRITE], 10177 * 1024.0);
	assert_true(b->rate_bytes_per_s[CLAIM_BONNIE_GETC] < 0);
	near(b->rate_bytes_per_s[CLAIM_BONNIE_BLOCK_READ], 30211 * 1024.0);
	assert_int_equal(post.results[0].said.block_bytes.value, 32u << 10);
	b = &post.results[1].u.bonnie; /* 144092 is a column wider than its header */
	near(b->rate_bytes_per_s[CLAIM_BONNIE_PUTC], 419 * 1024.0);
	near(b->rate_bytes_per_s[CLAIM_BONNIE_BLOCK_WRITE], 144092 * 1024.0);
	near(b->rate_bytes_per_s[CLAIM_BONNIE_REWRITE], 68102 * 1024.0);
	near(b->rate_bytes_per_s[CLAIM_BONNIE_BLOCK_READ], 183977 * 1024.0);
	b = &post.results[2].u.bonnie;
	assert_true(b->too_fast[CLAIM_BONNIE_BLOCK_WRITE] && b->too_fast[CLAIM_BONNIE_BLOCK_READ]);
	assert_int_equal(post.results[2].nruns, 4); /* too fast: phases with no rate */
	/* a figure out of its column: refused, naming the line */
	parse_bad(
	    "Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\n"
	    "m                2G  12x4  98 144092  21 68102   2   882  97 183977   2 699.3   0\n",
	    "bad.txt:2: bonnie++ table row");
}

static void test_bonnie_classic(void **state)
{
	(void)state;
	parse_ok("seed004-domu-bonnie-classic.txt");
	const struct claim_bonnie *b = &cl->u.bonnie;
	assert_int_equal(cl->tool, CLAIM_TOOL_BONNIE_CLASSIC);
	assert_string_equal(claim_tool_name(cl->tool), "bonnie");
	assert_string_equal(b->format_version, "classic");
	assert_string_equal(b->machine, "");
	assert_int_equal(b->file_size_bytes, 2048ull << 20);
	static const double want[] = {15999, 9930, 27065, 30324, 49356};
	for (int t = 0; t < CLAIM_BONNIE_NTESTS; t++)
		near(b->rate_bytes_per_s[t], want[t] * 1024);
	near(cl->rate_bytes_per_s, 9930 * 1024.0);
	near(cl->seconds, 2048.0 * 1024 * 1024 / (9930 * 1024.0));
	parse_ok("seed004-dom0-bonnie-classic.txt"); /* last %CPU wrapped to the next line */
	assert_int_equal(cl->u.bonnie.file_size_bytes, 256ull << 20);
	near(cl->u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_BLOCK_WRITE], 106710 * 1024.0);
	near(cl->u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_BLOCK_READ], 116068 * 1024.0);
	parse_ok("seed003-bonnie-classic-wrapped.txt"); /* header and rows wrapped by a mail */
	assert_int_equal(post.nresults, 3);             /* each row a result */
	assert_string_equal(cl->u.bonnie.machine, "dom0-raw");
	assert_int_equal(cl->u.bonnie.file_size_bytes, 4000ull << 20);
	near(cl->u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_BLOCK_WRITE], 268640 * 1024.0);
	near(cl->u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_BLOCK_READ], 265574 * 1024.0);
	/* before: "bad.txt:3: bonnie result line"; a line that is no row ends the table */
	parse_bad("-Per Char- --Block---\nMachine MB K/sec %CPU\n 2048 15999 1x.4 9930\n",
	          "bad.txt:2: bonnie table without a result line");
	parse_bad("-Per Char- --Block---\nMachine MB K/sec %CPU\n", "without a result line");
}

/* --- iozone ------------------------------------------------------------------------------ */

static void test_iozone_seed002(void **state)
{
	(void)state;
	parse_ok("seed002-dom0-iozone.txt");
	const struct claim_iozone *z = &cl->u.iozone;
	assert_int_equal(cl->tool, CLAIM_TOOL_IOZONE);
	assert_int_equal(z->nrows, 1);
	assert_false(z->from_report);
	assert_int_equal(z->rows[0].file_kib, 921600);
	assert_int_equal(z->rows[0].record_kib, 256);
	static const double want[] = {11854, 18220, 23382, 25178, 10965, 11992};
	for (int k = 0; k < CLAIM_IOZONE_NTESTS; k++)
		near(z->rows[0].kib_per_s[k], want[k]);
	assert_int_equal(cl->bytes, 921600ull * 1024);
	near(cl->rate_bytes_per_s, 11854 * 1024.0);
	assert_int_equal(cl->written_bytes, 3 * 921600ull * 1024);
	parse_ok("seed002-domu-loop-iozone.txt");
	near(cl->u.iozone.rows[0].kib_per_s[CLAIM_IOZONE_RANDOM_READ], 7280);
	parse_ok("seed002-domu-lvm-iozone.txt");
	near(cl->u.iozone.rows[0].kib_per_s[CLAIM_IOZONE_RANDOM_WRITE], 8815);
}

static char *slurp(const char *name, size_t *len)
{
	FILE *f = fopen(fixture(name), "rb");
	assert_non_null(f);
	char *buf = malloc(1 << 20);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

/* iozone 3.414 built from source (not packaged here): see the fixtures' README */
static void test_iozone_real(void **state)
{
	(void)state;
	parse_ok("iozone-R-i012.txt"); /* table and -R report: the table is read */
	const struct claim_iozone *z = &cl->u.iozone;
	assert_false(z->from_report);
	assert_int_equal(z->nrows, 2);
	static const double r0[] = {1320304, 3606999, 4452199, 4772450, 4680142, 5258928};
	static const double r1[] = {1717397, 3703959, 3833995, 4132700, 3677768, 3732958};
	for (int k = 0; k < CLAIM_IOZONE_NTESTS; k++) {
		near(z->rows[0].kib_per_s[k], r0[k]);
		near(z->rows[1].kib_per_s[k], r1[k]);
	}
	assert_int_equal(z->rows[1].file_kib, 131072);
	assert_int_equal(z->rows[1].record_kib, 256);
	assert_int_equal(cl->bytes, 65536ull * 1024);
	near(cl->rate_bytes_per_s, 1320304 * 1024.0);
	assert_int_equal(cl->written_bytes, 3 * (65536ull + 131072) * 1024);

	parse_ok("iozone-i0-i2.txt"); /* read/reread columns left blank by -i */
	const struct claim_iozone_row *r = &cl->u.iozone.rows[0];
	near(r->kib_per_s[CLAIM_IOZONE_WRITE], 2750737);
	near(r->kib_per_s[CLAIM_IOZONE_REWRITE], 3836997);
	assert_true(r->kib_per_s[CLAIM_IOZONE_READ] < 0);
	assert_true(r->kib_per_s[CLAIM_IOZONE_REREAD] < 0);
	near(r->kib_per_s[CLAIM_IOZONE_RANDOM_READ], 4311350);
	near(r->kib_per_s[CLAIM_IOZONE_RANDOM_WRITE], 6520368);
	assert_int_equal(cl->directions, CLAIM_DIR_READ | CLAIM_DIR_WRITE);

	/* -a on tmpfs: table figures run together ("93922312310336"), the report is read */
	parse_ok("iozone-a-R.txt");
	z = &cl->u.iozone;
	assert_true(z->from_report);
	/* iozone's own echo of its command: what it says, where it was read */
	assert_string_equal(cl->command, "iozone -a -R -n 64k -g 512k -y 4k -q 64k -f iozone.tmp");
	assert_int_equal(cl->said.direct.from, CLAIM_FROM_OUTPUT);
	assert_int_equal(cl->said.direct.value, 0);
	assert_int_equal(cl->said.block_bytes.from, CLAIM_FROM_NONE); /* -a: each row its own */
	assert_int_equal(cl->runs[0].block_bytes.value, 4u << 10);
	assert_int_equal(z->nrows, 20);
	r = &z->rows[4];
	assert_int_equal(r->file_kib, 64);
	assert_int_equal(r->record_kib, 64);
	near(r->kib_per_s[CLAIM_IOZONE_WRITE], 939223);
	near(r->kib_per_s[CLAIM_IOZONE_REWRITE], 12310336);
	near(r->kib_per_s[CLAIM_IOZONE_REREAD], 34389688);
	near(z->rows[19].kib_per_s[CLAIM_IOZONE_READ], 12797441);
	for (unsigned i = 0; i < z->nrows; i++)
		for (int k = 0; k < CLAIM_IOZONE_NTESTS; k++)
			assert_true(z->rows[i].kib_per_s[k] > 0);
	/* the same table without its report cannot be read */
	size_t len;
	char *buf = slurp("iozone-a-R.txt", &len);
	char *cut = strstr(buf, "Excel output is below");
	assert_non_null(cut);
	assert_int_equal(parse_buf("a.txt", buf, (size_t)(cut - buf)), -1);
	assert_one_clean_line("a.txt:");
	assert_non_null(strstr(err.msg, "run together"));
	free(buf);

	assert_int_equal(parse_file("iozone-ops.txt"), -1);
	assert_non_null(strstr(err.msg, "ops/s"));
}

static void test_iozone_constructed(void **state)
{
	(void)state;
	parse_ok("iozone-constructed-table-and-R.txt"); /* the table wins over -R */
	assert_false(cl->u.iozone.from_report);
	assert_int_equal(cl->u.iozone.nrows, 2);
	near(cl->u.iozone.rows[1].kib_per_s[CLAIM_IOZONE_REREAD], 3300000);
	parse_ok("iozone-constructed-i0-i2-gap.txt"); /* -i 0 -i 2: read columns blank */
	const struct claim_iozone_row *r = &cl->u.iozone.rows[0];
	near(r->kib_per_s[CLAIM_IOZONE_WRITE], 700001);
	assert_true(r->kib_per_s[CLAIM_IOZONE_READ] < 0);
	assert_true(r->kib_per_s[CLAIM_IOZONE_REREAD] < 0);
	near(r->kib_per_s[CLAIM_IOZONE_RANDOM_READ], 2500003);
	near(r->kib_per_s[CLAIM_IOZONE_RANDOM_WRITE], 800004);
	parse_ok("iozone-constructed-R-only.txt");
	assert_true(cl->u.iozone.from_report);
	assert_int_equal(cl->u.iozone.nrows, 8); /* 3 + 5 (file, record) pairs */
	r = &cl->u.iozone.rows[2];
	assert_int_equal(r->file_kib, 16);
	assert_int_equal(r->record_kib, 16);
	near(r->kib_per_s[CLAIM_IOZONE_WRITE], 300);
	near(r->kib_per_s[CLAIM_IOZONE_READ], 1300);
}

/* --- fio ----------------------------------------------------------------------------------- */

static void test_fio(void **state)
{
	(void)state;
	parse_ok("fio-write.json");
	const struct claim_fio *f = &cl->u.fio;
	assert_int_equal(cl->tool, CLAIM_TOOL_FIO);
	assert_string_equal(f->version, "fio-3.33");
	assert_int_equal(f->njobs, 1);
	assert_string_equal(f->jobs[0].name, "seqw");
	assert_true(f->jobs[0].write.present);
	assert_false(f->jobs[0].read.present);
	assert_int_equal(f->jobs[0].write.io_bytes, 64ull << 20);
	assert_true(f->jobs[0].write.has_clat);
	assert_true(f->jobs[0].write.clat_p99_ns >= f->jobs[0].write.clat_p50_ns);
	assert_int_equal(cl->bytes, 64ull << 20);
	assert_int_equal(cl->directions, CLAIM_DIR_WRITE);
	near(cl->rate_bytes_per_s, (double)f->jobs[0].write.bw_bytes);

	parse_ok("fio-read.json");
	assert_int_equal(cl->directions, CLAIM_DIR_READ);
	assert_int_equal(cl->read_bytes, 64ull << 20);

	parse_ok("fio-randrw-2jobs.json");
	assert_int_equal(cl->u.fio.njobs, 2);
	assert_int_equal(cl->written_bytes + cl->read_bytes, 2 * (16ull << 20));
	assert_int_equal(cl->directions, CLAIM_DIR_READ | CLAIM_DIR_WRITE);

	parse_ok("fio-group-reporting.json");
	assert_int_equal(cl->u.fio.njobs, 1);
	assert_int_equal(cl->written_bytes, 16ull << 20);
	parse_ok("fio-no-percentiles.json");
	assert_false(cl->u.fio.jobs[0].write.has_clat);
	parse_ok("fio-jsonplus.json");
	assert_true(cl->u.fio.jobs[0].write.has_clat);
}

/* --- the test file's size, for the benchmark's own size rule --------------------------- */

/* Every run carries the file the tool names: bonnie's "Size" (-s), iozone's -s (its KB
 * column), dd's bytes copied (bs x count), fio's size= (each job's own file, added up) or
 * in its text output the files it laid out, one per job started; a file fio did not lay
 * out (it existed) leaves the size not given: 0, not a guess. */
static void test_file_bytes(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		uint64_t file_bytes;
	} cases[] = {
	    {"bonnie-2.00a-64M.txt", 64ull << 20},             /* "guest-64M 64M" */
	    {"seed004-dom0-bonnie-classic.txt", 256ull << 20}, /* classic bonnie's MB column */
	    {"seed002-dom0-iozone.txt", 921600ull << 10},      /* iozone -s900m */
	    {"gnu-dd-64MiB.txt", 67108864},                    /* 64 x 1 MiB copied */
	    {"fio-write.json", 64ull << 20},                   /* size=64M */
	    {"fio-randrw-2jobs.json", 32ull << 20},            /* 2 jobs, size=16M each */
	    {"fio-text-write.txt", 64ull << 20},        /* "Laying out IO file (1 file / 64MiB)" */
	    {"fio-text-randrw-2jobs.txt", 32ull << 20}, /* two jobs laid out 16MiB each */
	    {"fio-text-read.txt", 0},                   /* its file existed: no layout line */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_ok(cases[i].name);
		assert_true(cl->nruns > 0);
		for (unsigned r = 0; r < cl->nruns; r++) {
			if (cl->runs[r].file_bytes != cases[i].file_bytes)
				print_error("%s run %u: file %llu want %llu\n", cases[i].name, r,
				            (unsigned long long)cl->runs[r].file_bytes,
				            (unsigned long long)cases[i].file_bytes);
			assert_true(cl->runs[r].file_bytes == cases[i].file_bytes);
		}
	}
	/* fio's options in % or in IEC units (fio's default kb_base takes KiB as 1000) or
	 * with kb_base=1000: not taken */
	static const char *const unsure[] = {"50%", "1GiB", "10G-20G"};
	for (size_t i = 0; i < sizeof(unsure) / sizeof(unsure[0]); i++) {
		char json[512];
		int n = snprintf(json, sizeof(json),
		                 "{\"fio version\" : \"fio-3.33\", \"jobs\" : [{\"jobname\" : "
		                 "\"j\", \"job options\" : {\"size\" : \"%s\"}, \"read\" : "
		                 "{\"io_bytes\" : 0, \"bw_bytes\" : 0, \"runtime\" : 0}, "
		                 "\"write\" : {\"io_bytes\" : 1048576, \"bw_bytes\" : "
		                 "1048576, \"runtime\" : 1000}}]}\n",
		                 unsure[i]);
		assert_int_equal(parse_buf("x", json, (size_t)n), 0);
		assert_int_equal(cl->nruns, 1);
		assert_true(cl->runs[0].file_bytes == 0);
	}
	const char *kb1000 = "{\"fio version\" : \"fio-3.33\", \"global options\" : "
	                     "{\"kb_base\" : \"1000\", \"size\" : \"1G\"}, \"jobs\" : "
	                     "[{\"jobname\" : \"j\", \"read\" : {\"io_bytes\" : 0, "
	                     "\"bw_bytes\" : 0, \"runtime\" : 0}, \"write\" : "
	                     "{\"io_bytes\" : 1048576, \"bw_bytes\" : 1048576, \"runtime\" "
	                     ": 1000}}]}\n";
	assert_int_equal(parse_buf("x", kb1000, strlen(kb1000)), 0);
	assert_true(cl->runs[0].file_bytes == 0);
	/* a global size=1g applies to a job that sets none */
	const char *global = "{\"fio version\" : \"fio-3.33\", \"global options\" : "
	                     "{\"size\" : \"1g\"}, \"jobs\" : [{\"jobname\" : \"j\", "
	                     "\"read\" : {\"io_bytes\" : 0, \"bw_bytes\" : 0, \"runtime\" "
	                     ": 0}, \"write\" : {\"io_bytes\" : 1048576, \"bw_bytes\" : "
	                     "1048576, \"runtime\" : 1000}}]}\n";
	assert_int_equal(parse_buf("x", global, strlen(global)), 0);
	assert_true(cl->runs[0].file_bytes == 1ull << 30);
}

/* --- bad input ------------------------------------------------------------------------------ */

static void test_truncated(void **state)
{
	(void)state;
	static const char *files[] = {"gnu-dd-64MiB.txt", "fio-write.json",
	                              "bonnie-2.00a-default.txt", "seed003-dom0-bsd-dd-write.txt"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		char *buf = slurp(files[i], &len);
		/* cut in the last line: the summary, the JSON's end, the CSV line */
		size_t cut = len - 20;
		int rc = parse_buf("cut.txt", buf, cut);
		if (rc == 0)
			print_error("%s cut at %zu parsed\n", files[i], cut);
		assert_int_equal(rc, -1);
		assert_one_clean_line("cut.txt");
		free(buf);
	}
	parse_bad("64+0 records in\n64+0 records out\n", "summary");
	parse_bad("64+0 records in\n", "truncated dd output");
	/* an -R section pasted twice: which figure holds is unknown (found by fuzz_claims) */
	parse_bad("\"Writer report\"\n        \"256\"\n\"65536\"   5258 \n\n\"Writer report\"\n"
	          "        \"256\"\n\"65536\"   5258928 \n",
	          "bad.txt:7: iozone report gives file 65536 KiB, record 256 KiB twice");
	parse_bad("    KB  reclen   write rewrite\n921600     256   11854   18220\n"
	          "921600     256   11854   18221\n",
	          "bad.txt:3: iozone row of file 921600 KiB, record 256 KiB twice");
	/* a table whose rows give no figure: no claim at all, not an empty one (found by
	 * fuzz_claims: it parsed with no run) */
	parse_bad("    KB  reclen   write rewrite\n921600     256\n",
	          "line 1: an iozone table that holds no run with figures");
	/* a whole-looking last line without its newline may be cut inside a figure */
	parse_bad("64+0 records in\n64+0 records out\n67108864 bytes (67 MB, 64 MiB) copied",
	          "bad.txt:3: the last line \"67108864 bytes (67 MB, 64 MiB) copied\" has no "
	          "newline, as in a file cut short");
	parse_bad("# sync; time (dd if=/dev/zero of=t bs=4096 count=16384; sync)\n16384+0 records "
	          "in\n16384+0 records out\n67108864 bytes (67 MB, 64 MiB) copied, 0.223773 s, 300 "
	          "MB/s\n\nreal\t0m0.25",
	          "bad.txt:6: the last line");
	/* a blank last line without a newline is no figure */
	static const char blank[] = "64+0 records in\n64+0 records out\n"
	                            "67108864 bytes (67 MB, 64 MiB) copied, 1 s, 67.1 MB/s\n  ";
	assert_int_equal(parse_buf("x", blank, strlen(blank)), 0);
	parse_bad("{\"fio version\" : \"fio-3.33\", \"jobs\" : [", "truncated fio JSON");
	parse_bad("    KB  reclen   write rewrite\n921600     256   11854   182",
	          "bad.txt:2: the last line \"921600     256   11854   182\" has no newline");
}

static void test_foreign(void **state)
{
	(void)state;
	static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
	parse_bad_buf(png, sizeof(png) - 1, "binary");
	parse_bad("", "empty");
	parse_buf("bad.txt", NULL, 0);
	assert_non_null(strstr(err.msg, "empty"));
	parse_bad("/local/domain/1/name = \"guest\"\n/local/domain/1/device/vbd/51712/state = "
	          "\"4\"\n",
	          "bad.txt: no benchmark output in it; expected");
	size_t len;
	char *xs = slurp("../xenstore/full.txt", &len);
	assert_int_equal(parse_buf("bad.txt", xs, len), -1);
	assert_one_clean_line("bad.txt");
	free(xs);
	/* before: "data after the fio JSON object"; now prose may follow it, its jobs may not
	 * be missing */
	parse_bad("{\"fio version\": 3}\n{\"x\":1}", "non-empty \"jobs\"");
	parse_bad("[\"fio version\"]\n", "no benchmark output");
	parse_bad("{\"fio version\": \"x\", \"jobs\": []}", "non-empty \"jobs\"");
	parse_bad("1.95,1.95,host,1,1,2G,,1,1\n", "CSV format 1.95; expected 1.96");
	parse_bad("1.97,1.97,host,1,1,2G,,1,1\n", "has 9 fields; expected 48");
}

static void test_garbled_numbers(void **state)
{
	(void)state;
	parse_bad("1+0 records in\n1+0 records out\n512 bytes copied, 0.x01 s, 512 kB/s\n",
	          "bad.txt:3: garbled dd summary");
	parse_bad("1+0 records in\n1+0 records out\n512 bytes copied, 0.001 s, 512 QB/s\n",
	          "garbled dd summary");
	/* before: "garbled records line"; a lone line like one is prose in a post */
	parse_bad("1+x records in\n", "bad.txt: no benchmark output");
	parse_bad("1.98,2.00a,h,1,1,256M,,8192,5,abc,99,+++++,+++,+++++,+++,676,97,+++++,+++,"
	          "+++++,+++,1,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n",
	          "putc field \"abc\"");
	parse_bad("1.96,1.96,h,1,1,2Q,,1,1,1,1,1,1,1,1,1,1,1,1,16,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n",
	          "file size field \"2Q\"");
	parse_bad("  KB  reclen   write\n 64       4    12x4\n", "not a whole number");
	parse_bad(
	    "{\"fio version\": \"x\", \"jobs\": [{\"jobname\": \"j\", \"read\": {\"io_bytes\": "
	    "-5, \"bw_bytes\": 0, \"runtime\": 0}, \"write\": {}}]}",
	    "jobs[0].read.io_bytes: out of range");
	parse_bad(
	    "{\"fio version\": \"x\", \"jobs\": [{\"jobname\": \"j\", \"read\": {\"io_bytes\": "
	    "1.5, \"bw_bytes\": 0, \"runtime\": 0}, \"write\": {}}]}",
	    "not an integer");
	parse_bad("{\"fio version\": \"x\",, \"jobs\": []}", "fio JSON:");
	parse_bad("Iozone\n\tOPS Mode. Output is in operations per second.\n  KB  reclen   write\n"
	          " 64       4    1234\n",
	          "ops/s");
}

static void test_huge_numbers(void **state)
{
	(void)state;
	parse_bad("1+0 records in\n1+0 records out\n"
	          "99999999999999999999999 bytes copied, 1 s, 1 kB/s\n",
	          "garbled dd summary");
	parse_bad("99999999999999999999+0 records in\n", "no benchmark output");
	parse_bad("1+0 records in\n1+0 records out\n"
	          "1 byte copied, 1234567890123456789012.5 s, 1 kB/s\n",
	          "garbled dd summary");
	parse_bad("1.96,1.96,h,1,1,99999999999999999G,,1,1,1,1,1,1,1,1,1,1,1,1,16,,,,,,,,,,,,,,,,"
	          ",,,,,,,,,,,,\n",
	          "file size field");
	parse_bad("                      KB  reclen   write\n"
	          "99999999999999999999999       4    124\n",
	          "not a whole number");
	parse_bad(
	    "{\"fio version\": \"x\", \"jobs\": [{\"jobname\": \"j\", \"read\": {\"io_bytes\": "
	    "99999999999999999999999999, \"bw_bytes\": 0, \"runtime\": 0}, \"write\": {}}]}",
	    "fio jobs[0].read.io_bytes");
	/* the largest uint64 is a valid byte count */
	static const char max[] = "1+0 records in\n1+0 records out\n"
	                          "18446744073709551615 bytes copied, 1 s, 1 kB/s\n";
	assert_int_equal(parse_buf("x", max, strlen(max)), 0);
	assert_int_equal(cl->bytes, UINT64_MAX);
}

static void test_escape_bytes(void **state)
{
	(void)state;
	parse_bad("1+0 records in\n1+0 records out\n1 byte copied, \x1b]0;owned\x07 s, 1 kB/s\n",
	          "\\x1b]0;owned\\x07");
	parse_bad("1+0 records \x1b[2J\n1+0 records out\n5 bytes (\xff\xfe) copied, x\n",
	          "garbled dd summary");
	/* the file name itself is escaped too */
	assert_int_equal(parse_buf("evil\x1b[31m.txt", "", 0), -1);
	assert_non_null(strstr(err.msg, "evil\\x1b[31m.txt"));
	for (const unsigned char *p = (const unsigned char *)err.msg; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
	/* a name longer than the sentence is cut, still one line */
	char name[1000];
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(parse_buf(name, "", 0), -1);
	assert_true(strlen(err.msg) < sizeof(err.msg));
}

/* Every prefix of every fixture, and each with one byte flipped: parses or gives one
 * clean line naming the buffer; never a crash, never a raw byte in the error. */
static void test_every_prefix(void **state)
{
	(void)state;
	static const char *files[] = {"gnu-dd-progress.txt",
	                              "gnu-dd-lang-de.txt",
	                              "busybox-dd-summary-constructed.txt",
	                              "seed003-dom0-bsd-dd-write.txt",
	                              "bonnie-2.00a-default.txt",
	                              "bonnie-2.00a-q-x2.csv",
	                              "seed000-dom0-bonnie.txt",
	                              "iozone-R-i012.txt",
	                              "iozone-a-R.txt",
	                              "seed002-dom0-iozone.txt",
	                              "fio-randrw-2jobs.json",
	                              "fio-jsonplus.json"};
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t len;
		char *buf = slurp(files[f], &len);
		char *copy = malloc(len ? len : 1);
		assert_non_null(copy);
		/* large files: every 13th prefix keeps the test short */
		size_t step = len > 4096 ? 13 : 1;
		for (size_t cut = 0; cut <= len; cut += step) {
			memcpy(copy, buf, cut);
			if (cut)
				copy[cut / 2] ^= 0x5a;
			for (int flip = 0; flip < 2; flip++) {
				int rc = parse_buf("cut.txt", flip ? copy : buf, cut);
				assert_true(rc == 0 || rc == -1);
				if (rc == -1)
					assert_one_clean_line("cut.txt");
			}
		}
		free(copy);
		free(buf);
	}
}

/* A run of a prefix that parses is one of the whole file's runs, figure for figure: a
 * number cut short ("0.0500984 s" read as "0.05"), a table row missing its last columns,
 * a `time` line cut mid-figure is an error, never a result with other figures. Only whole
 * results or runs may be missing (the file ends before them), and a `time` real line that
 * is not there yet leaves dd's own seconds and rate. */
static struct claim_post whole;

static void same_run(const char *name, size_t cut, size_t i, const struct claim_run *got,
                     const struct claim_run *want)
{
	bool time_missing = want->seconds_from_time && !got->seconds_from_time;
	/* iozone labels a run with its row ("65536K/256K write") only when several rows are
	 * there: the prefix's label ends the whole file's */
	size_t gl = strlen(got->label), wl = strlen(want->label);
	bool label = gl <= wl && !strcmp(want->label + wl - gl, got->label);
	/* a bonnie++ table row's machine is cut to its column ("razer.justynshul") until its
	 * CSV line, after the table, gives it whole */
	size_t gr = strlen(got->row), wr = strlen(want->row);
	bool row = gr <= wr && !strncmp(got->row, want->row, gr);
	label |= row && !strcmp(got->label + gr, want->label + wr);
	bool same = label && row && got->direction == want->direction &&
	            got->bytes == want->bytes && (time_missing || got->seconds == want->seconds) &&
	            (time_missing || got->rate_bytes_per_s == want->rate_bytes_per_s) &&
	            got->file_bytes == want->file_bytes;
	if (!same)
		print_error(
		    "%s cut at %zu: run %zu \"%s\" %llu B %.9g s %.9g B/s dir %u; the whole "
		    "file's \"%s\" %llu B %.9g s %.9g B/s dir %u\n",
		    name, cut, i, got->label, (unsigned long long)got->bytes, got->seconds,
		    got->rate_bytes_per_s, got->direction, want->label,
		    (unsigned long long)want->bytes, want->seconds, want->rate_bytes_per_s,
		    want->direction);
	assert_true(same);
}

/* The prefix's results are the whole file's first ones, tool for tool, their runs the
 * first runs of each. */
static void same_results(const char *name, size_t cut)
{
	if (post.nresults == 0 || post.nresults > whole.nresults)
		print_error("%s cut at %zu: %zu results; the whole file %zu\n", name, cut,
		            post.nresults, whole.nresults);
	assert_true(post.nresults > 0 && post.nresults <= whole.nresults);
	for (size_t r = 0; r < post.nresults; r++) {
		const struct claim_result *got = &post.results[r], *want = &whole.results[r];
		assert_int_equal(got->tool, want->tool);
		assert_true(got->nruns > 0 && got->nruns <= want->nruns);
		for (size_t i = 0; i < got->nruns; i++)
			same_run(name, cut, i, &got->runs[i], &want->runs[i]);
	}
}

static void test_truncated_every_byte(void **state)
{
	(void)state;
	/* one real sample per format */
	static const char *files[] = {"gnu-dd-write-then-read.txt", /* GNU dd, two runs */
	                              "gnu-dd-time-sync.txt",       /* dd; sync under `time` */
	                              "busybox-dd-summary-constructed.txt",
	                              "seed003-dom0-bsd-dd-write.txt", /* BSD dd */
	                              "fio-write.json",
	                              "fio-text-randrw-2jobs.txt",
	                              "bonnie-2.00a-default.txt",        /* bonnie++ CSV */
	                              "seed000-dom0-bonnie.txt",         /* bonnie++ 1.96 table */
	                              "seed004-domu-bonnie-classic.txt", /* classic table */
	                              "seed003-bonnie-classic-wrapped.txt",
	                              "seed002-dom0-iozone.txt", /* iozone table */
	                              "iozone-R-i012.txt"};      /* table and -R */
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t len;
		char *buf = slurp(files[f], &len);
		int rc = claim_post_parse_buffer("whole.txt", buf, len, &whole, &err);
		if (rc)
			print_error("%s: %s\n", files[f], err.msg);
		assert_int_equal(rc, 0);
		for (size_t cut = 0; cut < len; cut++) {
			/* the cut is the whole input: a copy of exactly cut bytes, so a read past
			 * it is caught under ASan (the sanitized unit run) */
			char *part = malloc(cut ? cut : 1);
			assert_non_null(part);
			memcpy(part, buf, cut);
			rc = parse_buf("cut.txt", part, cut);
			free(part);
			assert_true(rc == 0 || rc == -1);
			if (rc == -1) {
				assert_one_clean_line("cut.txt");
				assert_int_equal(post.nresults, 0); /* nothing partial kept */
				continue;
			}
			same_results(files[f], cut);
		}
		claim_post_free(&whole);
		free(buf);
	}
}

static void test_missing_file(void **state)
{
	(void)state;
	assert_int_equal(parse_file("no-such-file"), -1);
	assert_one_clean_line("no-such-file");
	assert_non_null(strstr(err.msg, "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gnu_dd),
	    cmocka_unit_test(test_gnu_dd_progress),
	    cmocka_unit_test(test_gnu_dd_decimal_comma),
	    cmocka_unit_test(test_gnu_dd_inline_forms),
	    cmocka_unit_test(test_seed000_dd),
	    cmocka_unit_test(test_busybox_dd),
	    cmocka_unit_test(test_bsd_dd),
	    cmocka_unit_test(test_bonnie_200),
	    cmocka_unit_test(test_bonnie_seed000),
	    cmocka_unit_test(test_bonnie_table_alone),
	    cmocka_unit_test(test_bonnie_classic),
	    cmocka_unit_test(test_iozone_seed002),
	    cmocka_unit_test(test_iozone_real),
	    cmocka_unit_test(test_iozone_constructed),
	    cmocka_unit_test(test_fio),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_foreign),
	    cmocka_unit_test(test_garbled_numbers),
	    cmocka_unit_test(test_huge_numbers),
	    cmocka_unit_test(test_escape_bytes),
	    cmocka_unit_test(test_every_prefix),
	    cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_file_bytes),
	    cmocka_unit_test(test_truncated_every_byte),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	claim_post_free(&post);
	return failed;
}
