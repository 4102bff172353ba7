/* test_claim_posts.c - the seed posts (tests/fixtures/claims/seedNNN-post.txt: the user
 * stories' posts as they are, seeds 000, 001, 002 and 004 without a final newline as a
 * browser copies them) read whole, each result a reader counts in them written here by
 * hand from the post, not from xiotop: 000 three dd runs and three bonnie++ rows, 002
 * three iozone tables, 003 four dd runs and three bonnie rows, 004 two bonnie tables; 001
 * (a dd command line and two rates in prose) refused, saying so. No result is dropped
 * without a note saying so. Then posts set against recordings built through the
 * recorder: which results are judged, which not and why, the listing in text and JSON,
 * the errors that say what was found and what is missing, and an `iozone -a` table of
 * more runs than can be judged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <unistd.h>

#include "test_files.h"
#include "explain/claim_list.h"
#include "explain/claims/claim_post.h"
#include "explain/report/report.h"
#include "explain_scenario.h"

TEST_SCRATCH_DIR("claim-posts")

static struct claim_post post;
static struct xerr err;

static const char *fixture(const char *name)
{
	static char buf[1024];
	const char *dir = getenv("XIOTOP_FIXTURES");
	snprintf(buf, sizeof(buf), "%s/claims/%s", dir ? dir : "tests/fixtures", name);
	return buf;
}

static void read_post(const char *name)
{
	claim_post_free(&post);
	int rc = claim_post_parse_file(fixture(name), &post, &err);
	if (rc)
		print_error("%s: %s\n", name, err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(post.nnotes, 0); /* nothing in it left unread without a note */
}

static void near(double got, double want)
{
	if (fabs(got - want) > fabs(want) * 1e-9)
		print_error("got %.12g want %.12g\n", got, want);
	assert_true(fabs(got - want) <= fabs(want) * 1e-9);
}

static void found(const char *want)
{
	char s[200];
	claim_post_summary(&post, NULL, s, sizeof(s));
	assert_string_equal(s, want);
}

/* A dd run: its bytes, seconds and rate as its summary line prints them, its direction
 * from the command pasted before it. */
static void dd_run(const struct claim_result *r, enum claim_tool tool, uint64_t bytes,
                   double seconds, double rate, unsigned dir)
{
	assert_int_equal(r->tool, tool);
	assert_int_equal(r->nruns, 1);
	assert_int_equal(r->runs[0].bytes, bytes);
	near(r->runs[0].seconds, seconds);
	near(r->runs[0].rate_bytes_per_s, rate);
	assert_int_equal(r->runs[0].direction, dir);
}

/* A bonnie row's block write, rewrite and block read in K/sec, its file size. */
static void bonnie_row(const struct claim_result *r, enum claim_tool tool, const char *machine,
                       uint64_t file, double bw_k, double rw_k, double br_k)
{
	assert_int_equal(r->tool, tool);
	assert_string_equal(r->machine, machine);
	assert_int_equal(r->u.bonnie.file_size_bytes, file);
	near(r->u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_BLOCK_WRITE], bw_k * 1024);
	near(r->u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_REWRITE], rw_k * 1024);
	near(r->u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_BLOCK_READ], br_k * 1024);
	assert_int_equal(r->said.file_bytes.value, file);
}

/* Seed 000: DomU's dd on a file image, Dom0's dd, bonnie++ on Dom0 and on DomU (each its
 * table and its CSV line), then DomU on LVM: dd and bonnie++ again. */
static void seed000(void **state)
{
	(void)state;
	read_post("seed000-post.txt");
	assert_int_equal(post.nresults, 6);
	found("3 dd runs and 3 bonnie++ rows");
	const struct claim_result *r = post.results;
	dd_run(&r[0], CLAIM_TOOL_DD, 10737418240ull, 192.556, 55.8e6, CLAIM_DIR_WRITE);
	dd_run(&r[1], CLAIM_TOOL_DD, 10737418240ull, 72.0743, 149e6, CLAIM_DIR_WRITE);
	dd_run(&r[4], CLAIM_TOOL_DD, 10737418240ull, 123.34, 87.1e6, CLAIM_DIR_WRITE);
	bonnie_row(&r[2], CLAIM_TOOL_BONNIE, "razer.justynshull.com", 2ull << 30, 144092, 68102,
	           183977);
	bonnie_row(&r[3], CLAIM_TOOL_BONNIE, "razer2.justynshull.com", 2ull << 30, 94601, 62259,
	           130897);
	bonnie_row(&r[5], CLAIM_TOOL_BONNIE, "CentOS", 2ull << 30, 78784, 48588, 190338);
	/* the table row and the CSV line of the same run: one result over both */
	assert_int_equal(r[2].first_line, 27);
	assert_int_equal(r[2].last_line, 34);
	assert_int_equal(r[3].first_line, 41);
	assert_int_equal(r[3].last_line, 48);
	assert_int_equal(r[5].first_line, 64);
	assert_int_equal(r[5].last_line, 71);
	/* bonnie++'s seed field: the clock at its start (1304536826: 2011-05-04) */
	assert_int_equal(r[2].clock.kind, CLAIM_CLOCK_SEED);
	assert_int_equal(r[2].clock.unix_ms, 1304536826000ll);
	/* what names them: "[root@DomU]#", "[root@Dom0]#", "Dom0:", "DomU:" */
	assert_string_equal(r[0].prompt, "[root@DomU]#");
	assert_string_equal(r[0].host, "DomU");
	assert_string_equal(r[1].host, "Dom0");
	assert_string_equal(r[2].heading, "Dom0:");
	assert_string_equal(r[3].heading, "DomU:");
	assert_string_equal(r[5].heading, "Bonnie++ test:");
	assert_string_equal(r[0].command, "dd if=/dev/zero of=tmpfile.bin bs=1024k count=10k");
	/* dd's command: 1 MiB requests through the page cache, no sync, no flush */
	assert_int_equal(r[0].said.block_bytes.from, CLAIM_FROM_COMMAND);
	assert_int_equal(r[0].said.block_bytes.value, 1u << 20);
	assert_int_equal(r[0].said.direct.from, CLAIM_FROM_COMMAND);
	assert_int_equal(r[0].said.direct.value, 0);
	assert_int_equal(r[0].said.flush_end.value, 0);
	assert_int_equal(r[0].said.queue_depth.value, 1);
	/* bonnie++'s output says nothing of O_DIRECT: unknown, not "off" */
	assert_int_equal(r[2].said.direct.from, CLAIM_FROM_NONE);
	/* labels: DomU's are the first dd, the second bonnie++ row and the LVM dd */
	bool domu[] = {true, false, false, true, true, false};
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(claim_result_answers(&r[i], "DomU"), domu[i]);
	assert_true(claim_result_answers(&r[5], "CentOS"));
}

/* Seed 001 holds a dd command line (no output after it) and two rates in prose. */
static void seed001(void **state)
{
	(void)state;
	claim_post_free(&post);
	assert_int_equal(claim_post_parse_file(fixture("seed001-post.txt"), &post, &err), -1);
	assert_int_equal(err.kind, XERR_INPUT);
	assert_int_equal(post.nresults, 0);
	assert_non_null(strstr(err.msg, "seed001-post.txt: no benchmark output in it"));
	assert_non_null(strstr(err.msg, "line 52: a dd command line with no dd output after it"));
	assert_non_null(
	    strstr(err.msg, "line 63: a rate in prose, \"block device based: 150 MB/s"));
	assert_non_null(strstr(err.msg, "line 64: a rate in prose, \"file based: >450 MB/s"));
}

/* Seed 002: the same iozone -KoMe -s900m -r256k -i0 -i1 -i2 in dom0, in a domU on a loop
 * file, in a domU on LVM: three tables of one row each. */
static void seed002(void **state)
{
	(void)state;
	read_post("seed002-post.txt");
	assert_int_equal(post.nresults, 3);
	found("3 iozone tables");
	static const double kps[3][CLAIM_IOZONE_NTESTS] = {
	    {11854, 18220, 23382, 25178, 10965, 11992},
	    {11478, 14609, 15998, 18539, 7280, 14882},
	    {10382, 15908, 18942, 18639, 7267, 8815},
	};
	static const char *const headings[] = {
	    "==== Dom0 speed on physical harddisk ====", "==== DomU speed on loopback file ====",
	    "==== DomU speed on LVM volume ===="};
	static const char *const hosts[] = {"Dom0", "DomU", "DomU"};
	static const unsigned rows_at[] = {27, 36, 47};
	for (size_t i = 0; i < 3; i++) {
		const struct claim_result *r = &post.results[i];
		assert_int_equal(r->tool, CLAIM_TOOL_IOZONE);
		assert_int_equal(r->u.iozone.nrows, 1);
		assert_int_equal(r->u.iozone.rows[0].file_kib, 921600);
		assert_int_equal(r->u.iozone.rows[0].record_kib, 256);
		assert_int_equal(r->last_line, rows_at[i]);
		assert_int_equal(r->nruns, 6);
		for (int k = 0; k < CLAIM_IOZONE_NTESTS; k++)
			near(r->runs[k].rate_bytes_per_s, kps[i][k] * 1024);
		assert_string_equal(r->heading, headings[i]);
		assert_string_equal(r->host, hosts[i]);
		/* -o: synchronous writes; -e: the flush in the timing; no -I: no O_DIRECT */
		assert_int_equal(r->said.sync.value, 1);
		assert_int_equal(r->said.flush_end.value, 1);
		assert_int_equal(r->said.direct.from, CLAIM_FROM_COMMAND);
		assert_int_equal(r->said.direct.value, 0);
		assert_int_equal(r->said.block_bytes.value, 256u << 10);
	}
	assert_true(claim_result_answers(&post.results[2], "LVM"));
	assert_false(claim_result_answers(&post.results[1], "LVM"));
	assert_true(claim_result_answers(&post.results[1], "loopback"));
}

/* Seed 003: NetBSD's dd, a write and a read in dom0 and in a domU, then classic bonnie's
 * table of three machines, its lines wrapped by the mail archive. */
static void seed003(void **state)
{
	(void)state;
	read_post("seed003-post.txt");
	assert_int_equal(post.nresults, 7);
	found("4 dd runs and 3 bonnie rows");
	const struct claim_result *r = post.results;
	dd_run(&r[0], CLAIM_TOOL_DD_BSD, 4294967296ull, 18.033, 238172644, CLAIM_DIR_WRITE);
	dd_run(&r[1], CLAIM_TOOL_DD_BSD, 4294967296ull, 13.247, 324221883, CLAIM_DIR_READ);
	dd_run(&r[2], CLAIM_TOOL_DD_BSD, 4294967296ull, 14.750, 291184223, CLAIM_DIR_WRITE);
	dd_run(&r[3], CLAIM_TOOL_DD_BSD, 4294967296ull, 13.381, 320975061, CLAIM_DIR_READ);
	bonnie_row(&r[4], CLAIM_TOOL_BONNIE_CLASSIC, "dom0-raw", 4000ull << 20, 268640, 90492,
	           265574);
	bonnie_row(&r[5], CLAIM_TOOL_BONNIE_CLASSIC, "dom0-lvm", 4000ull << 20, 269226, 87670,
	           258751);
	bonnie_row(&r[6], CLAIM_TOOL_BONNIE_CLASSIC, "domU", 4000ull << 20, 352908, 95027, 315754);
	assert_string_equal(r[0].heading, "Simple file I/O performance test from dom0");
	assert_string_equal(r[1].heading, "Simple file I/O performance test from dom0");
	assert_string_equal(r[2].heading, "and from a domU with LVM LV back-end storage:");
	/* "domU": the domU's two dd runs and its bonnie row */
	bool domu[] = {false, false, true, true, false, false, true};
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(claim_result_answers(&r[i], "domU"), domu[i]);
}

/* Seed 004: classic bonnie in the HVM domU (-s 2048) and in dom0 (-s 256), each after its
 * command; the post ends inside dom0's wrapped row ("4.9", no newline). */
static void seed004(void **state)
{
	(void)state;
	read_post("seed004-post.txt");
	assert_int_equal(post.nresults, 2);
	found("2 bonnie rows");
	const struct claim_result *r = post.results;
	bonnie_row(&r[0], CLAIM_TOOL_BONNIE_CLASSIC, "", 2048ull << 20, 9930, 27065, 49356);
	bonnie_row(&r[1], CLAIM_TOOL_BONNIE_CLASSIC, "", 256ull << 20, 106710, 26210, 116068);
	near(r[0].u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_PUTC], 15999 * 1024.0);
	near(r[1].u.bonnie.rate_bytes_per_s[CLAIM_BONNIE_GETC], 99043 * 1024.0);
	assert_int_equal(r[0].nruns, 6); /* per-char, block, rewrite both ways, per-char, block */
	assert_int_equal(r[1].first_line, 91);
	assert_int_equal(r[1].last_line, 92);
	assert_string_equal(r[0].heading, "bonnie in hvm domU");
	assert_string_equal(r[1].heading, "bonnie in dom0");
	assert_string_equal(r[0].command, "bonnie -s 2048");
	assert_string_equal(r[0].host, "banksy");
	assert_string_equal(r[1].prompt, "-bash-4.0#");
	assert_string_equal(r[1].host, ""); /* a shell's name, no host */
	assert_true(claim_result_answers(&r[0], "domU"));
	assert_true(claim_result_answers(&r[1], "dom0"));
	/* the same post cut inside its last figure is refused */
	size_t len;
	FILE *f = fopen(fixture("seed004-post.txt"), "rb");
	assert_non_null(f);
	static char buf[8192];
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	claim_post_free(&post);
	assert_int_equal(claim_post_parse_buffer("cut.txt", buf, len - 2, &post, &err), -1);
	assert_non_null(strstr(err.msg, "cut.txt:92: the last line \"4\" has no newline"));
}

/* --- set against a recording ----------------------------------------------------------- */

/* Domain 5 "DomU" writes 64 MiB a second for 8 s; domain 3 "guest" nothing. */
static void recording(const char *path)
{
	struct scenario sc;
	sc_open(&sc, path, 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 5, "DomU", SC_PHY, NULL, GiB);
	sc_add_dom(&sc, 3, "guest", SC_PHY, NULL, GiB);
	sc_append(&sc);
	for (int i = 0; i < 8; i++) {
		struct sc_step st = {.guest_wr = 64 * MiB, .phys_wr = 64 * MiB};
		st.cpu_ns[XIO_CPU_BACKEND] = 10000000;
		sc_step(&sc, d, &st);
		sc_append(&sc);
	}
	sc_append(&sc);
	sc_close(&sc);
}

static const struct ex_listed_run *listed(const struct ex_claim_file *cf, size_t result, size_t run)
{
	for (size_t i = 0; i < cf->nruns; i++)
		if (cf->runs[i].result == result && cf->runs[i].run == run)
			return &cf->runs[i];
	fail_msg("no run %zu of result %zu", run, result);
	return NULL;
}

/* The report; text with its lines joined (a newline and the indent after it: one blank),
 * so that a sentence is found wherever it was wrapped. */
static char *report(const struct explain *ex, bool json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(json ? report_json(f, ex) : report_text(f, ex), 0);
	fclose(f);
	size_t o = 0;
	for (size_t i = 0; !json && i < len; i++) {
		if (text[i] != '\n') {
			text[o++] = text[i];
			continue;
		}
		text[o++] = ' ';
		while (i + 1 < len && text[i + 1] == ' ')
			i++;
	}
	if (!json)
		text[o] = '\0';
	return text;
}

/* @DomU names the domain; its name labels 3 of the post's 6 results: those are judged,
 * the others listed as another machine's. Before: bonnie++'s CSV lines were the file's
 * only claim and the dd runs were dropped silently, or the table refused until a row. */
static void seed000_against_domu(void **state)
{
	(void)state;
	const char *rec = path_of("000.xiotop");
	recording(rec);
	static struct explain ex;
	struct rec_reader *r;
	assert_int_equal(sc_explain(rec, NULL, NULL, &ex, &r, &err), 0);
	char arg[1200];
	snprintf(arg, sizeof(arg), "%s@DomU", fixture("seed000-post.txt"));
	assert_int_equal(explain_add_claim_file(&ex, arg, &err), 0);
	assert_int_equal(ex.n_claim_files, 1);
	const struct ex_claim_file *cf = &ex.claim_files[0];
	assert_int_equal(cf->domid, 5);
	assert_int_equal(cf->label_from, EX_LABEL_DOMAIN);
	assert_int_equal(cf->post.nresults, 6);
	assert_int_equal(cf->nruns, 3 + 3 * 4); /* 3 dd runs, 3 rows of 4 block phases */
	assert_int_equal(listed(cf, 0, 0)->status, EX_RUN_JUDGED);
	assert_int_equal(listed(cf, 1, 0)->status, EX_RUN_NOT_LABELLED); /* Dom0's */
	assert_int_equal(listed(cf, 2, 3)->status, EX_RUN_NOT_LABELLED);
	assert_int_equal(listed(cf, 3, 1)->status, EX_RUN_JUDGED); /* "DomU:" bonnie++ */
	assert_int_equal(listed(cf, 4, 0)->status, EX_RUN_JUDGED); /* [root@DomU]# on LVM */
	assert_int_equal(listed(cf, 5, 0)->status, EX_RUN_NOT_LABELLED);
	assert_int_equal(ex.n_claims, 1 + 4 + 1);
	assert_int_equal(ex.claims[listed(cf, 4, 0)->claim_row].domid, 5);
	explain_verdicts(&ex);
	assert_non_null(sc_verdict(&ex, "claim", 5));
	size_t runs_judged = 0;
	for (size_t i = 0; i < ex.n_verdicts; i++) {
		const struct ex_verdict *v = &ex.verdicts[i];
		if (strcmp(ex_verdict_key(v->id), "claim"))
			continue;
		runs_judged++;
		if (!strcmp(sc_fig_str(v, "run"), "run 1")) /* DomU's dd on its file image */
			assert_true(sc_fig(v, "claimed_bytes") == 10737418240.0);
		assert_true(strcmp(sc_fig_str(v, "run"), "run 2")); /* Dom0's: not judged */
	}
	assert_int_equal(runs_judged, 6);
	char *text = report(&ex, false);
	assert_non_null(strstr(text, "Claims of "));
	assert_non_null(strstr(text, ": 3 dd runs and 3 bonnie++ rows; judged: the results "
	                             "answering to 'DomU' (the domain's name: the others are other "
	                             "machines'); set against domain 5 (named)."));
	assert_non_null(strstr(text, "not judged, its result does not answer to 'DomU'"));
	free(text);
	char *json = report(&ex, true);
	assert_non_null(strstr(json, "\"claim_files\":[{\"file\":"));
	assert_non_null(strstr(json,
	                       "\"label\":\"DomU\",\"label_from\":\"domain name\",\"domid\":5,"
	                       "\"found\":\"3 dd runs and 3 bonnie++ rows\""));
	assert_non_null(strstr(json, "\"direct\":{\"value\":false,\"from\":\"command\"}"));
	assert_non_null(strstr(json, "\"judged\":false,\"domid\":null,\"claim\":null,"
	                             "\"not_judged\":\"not labelled so\""));
	free(json);
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
}

/* Seed 003 @domU where no domain is named domU and none moved a byte (the window after
 * DomU's writes): before, "no domain moved any bytes in the window", nothing more. */
static void seed003_at_domu_idle(void **state)
{
	(void)state;
	const char *rec = path_of("idle.xiotop");
	struct scenario sc;
	sc_open(&sc, rec, 1024 * 1024);
	sc_add_dom(&sc, 3, "guest", SC_PHY, NULL, GiB);
	for (int i = 0; i < 4; i++)
		sc_append(&sc);
	sc_mark(&sc, "seed 003's runs were elsewhere", 1.0, "cli", -1); /* a label, no window */
	sc_close(&sc);
	static struct explain ex;
	struct rec_reader *r;
	assert_int_equal(sc_explain(rec, NULL, NULL, &ex, &r, &err), 0);
	char arg[1200];
	snprintf(arg, sizeof(arg), "%s@domU", fixture("seed003-post.txt"));
	assert_int_equal(explain_add_claim_file(&ex, arg, &err), -1);
	assert_int_equal(err.kind, XERR_INPUT);
	assert_non_null(strstr(err.msg, "@domU: 4 dd runs and 3 bonnie rows found; none can be "
	                                "judged: no domain moved any bytes in the window"));
	assert_non_null(strstr(err.msg, "'domU' is no domain of the window but a label of the "
	                                "post"));
	assert_non_null(strstr(err.msg, "its domains: 3 guest"));
	/* a name neither a domain nor a label */
	snprintf(arg, sizeof(arg), "%s@nosuch", fixture("seed003-post.txt"));
	assert_int_equal(explain_add_claim_file(&ex, arg, &err), -1);
	assert_non_null(strstr(err.msg, "no domain 'nosuch' in the window (its domains: 3 guest)"));
	assert_non_null(strstr(err.msg, "dom0-raw, dom0-lvm, domU"));
	assert_int_equal(ex.n_claim_files, 0);
	explain_free(&ex);
	rec_reader_close(r);
}

/* An iozone -a table (CONSTRUCTED: 8 rows, 48 runs, past the 32 claims a window takes):
 * the 1 GiB row's writes (10 s, 5 s, 10 s) are found in the domain's timeline and
 * judged; its reads (1 s) and the small rows are shorter than two of the recording's 1 s
 * intervals: listed, not judged, counted by reason. Before: "48 runs; at most 32 are set
 * against a recording", nothing judged. */
static void iozone_auto_large(void **state)
{
	(void)state;
	const char *rec = path_of("auto.xiotop");
	struct scenario sc;
	sc_open(&sc, rec, 1024 * 1024);
	struct sc_dom *d = sc_add_dom(&sc, 3, "guest", SC_PHY, NULL, 4 * GiB);
	sc_append(&sc);
	static const unsigned seconds[] = {10, 5, 10}; /* write, rewrite, random write */
	for (size_t k = 0; k < 3; k++) {
		for (unsigned i = 0; i < seconds[k]; i++) {
			struct sc_step st = {.guest_wr = GiB / seconds[k],
			                     .phys_wr = GiB / seconds[k]};
			sc_step(&sc, d, &st);
			sc_append(&sc);
		}
		sc_append(&sc);
		sc_append(&sc);
	}
	sc_close(&sc);
	const char *table = "\tAuto Mode\n"
	                    "\tCommand line used: iozone -a -R\n"
	                    "                                                            random  "
	                    "random\n"
	                    "              KB  reclen   write rewrite    read    reread    read   "
	                    "write\n";
	char text[4096];
	size_t o = (size_t)snprintf(text, sizeof(text), "%s", table);
	for (unsigned kib = 64; kib <= 4096; kib *= 2) /* 7 small rows, all fast */
		o += (size_t)snprintf(
		    text + o, sizeof(text) - o,
		    "%16u       4  900000  900000  900000   900000  900000  900000\n", kib);
	o += (size_t)snprintf(text + o, sizeof(text) - o,
	                      "%16u    1024  104858  209715 1048576  1048576 1048576  104858\n",
	                      1048576u);
	const char *path = path_of("auto.txt");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fwrite(text, 1, o, f);
	fclose(f);
	static struct explain ex;
	struct rec_reader *r;
	assert_int_equal(sc_explain(rec, NULL, NULL, &ex, &r, &err), 0);
	char arg[1200];
	snprintf(arg, sizeof(arg), "%s@3", path);
	if (explain_add_claim_file(&ex, arg, &err))
		print_error("%s\n", err.msg);
	const struct ex_claim_file *cf = &ex.claim_files[0];
	assert_int_equal(cf->nruns, 48);
	size_t judged = 0, short_runs = 0;
	for (size_t i = 0; i < cf->nruns; i++) {
		judged += cf->runs[i].status == EX_RUN_JUDGED;
		short_runs += cf->runs[i].status == EX_RUN_TOO_SHORT;
	}
	assert_int_equal(judged, 3);
	assert_int_equal(short_runs, 45);
	assert_int_equal(listed(cf, 0, 42)->status, EX_RUN_JUDGED);    /* the 1 GiB write */
	assert_int_equal(listed(cf, 0, 44)->status, EX_RUN_TOO_SHORT); /* its read, 1 s */
	char *out = report(&ex, false);
	assert_non_null(strstr(out, "45 more runs not judged: 45 shorter than two of the"));
	free(out);
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(seed000),
	    cmocka_unit_test(seed001),
	    cmocka_unit_test(seed002),
	    cmocka_unit_test(seed003),
	    cmocka_unit_test(seed004),
	    cmocka_unit_test(seed000_against_domu),
	    cmocka_unit_test(seed003_at_domu_idle),
	    cmocka_unit_test(iozone_auto_large),
	};
	int failed = cmocka_run_group_tests(tests, make_dir, remove_dir);
	claim_post_free(&post);
	return failed;
}
