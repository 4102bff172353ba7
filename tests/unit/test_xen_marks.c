/* test_xen_marks.c - marks a guest writes into its own xenstore node
 * (/local/domain/N/data/xiotop/mark), through the xenstore double (xen_double.h): a watch
 * event on the node becomes one mark of the path's domain with its label sanitized; a
 * hostile label (escapes, 4 KiB) is escaped and cut; a node another domain created under
 * this path, or one whose owner cannot be read, is refused; look-alike paths are topology
 * events, not marks. Then explain's default window from such marks, stored as the
 * recorder stores them (origin "domain N"): every guest's first to last, or one guest's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "sources/xen/xenlive.h"
#include "unit/explain_scenario.h"
#include "unit/test_files.h"
#include "unit/xen_double.h"

TEST_SCRATCH_DIR("xen-marks")

#define MARK1 "/local/domain/1/data/xiotop/mark"
#define MARK2 "/local/domain/2/data/xiotop/mark"

static const char tree[] = "/local/domain/0/name = \"Domain-0\"\n"
                           "/local/domain/1/name = \"guest-file\"\n"
                           "/local/domain/1/data/xiotop/mark = \"start fio\"\n"
                           "/local/domain/2/name = \"guest-lv\"\n"
                           "/local/domain/2/data/xiotop/mark = \"end dd\"\n";

static struct xenlive *open_marks(void)
{
	xd_reset();
	xd_set_tree(tree);
	struct xenlive *x = NULL;
	char why[256] = "";
	assert_int_equal(xenlive_open(&x, &xd_api, why, sizeof(why)), 0);
	return x;
}

static void set_value(const char *path, const char *value, size_t len)
{
	for (size_t i = 0; i < xd.tree.n; i++)
		if (!strcmp(xd.tree.entries[i].path, path)) {
			free(xd.tree.entries[i].value);
			xd.tree.entries[i].value = malloc(len + 1);
			memcpy(xd.tree.entries[i].value, value, len);
			xd.tree.entries[i].value[len] = '\0';
			xd.tree.entries[i].value_len = len;
			return;
		}
	fail_msg("no node %s in the tree", path);
}

static void a_guest_mark_is_a_mark_of_its_domain(void **state)
{
	(void)state;
	struct xenlive *x = open_marks();
	int64_t before = clock_real_ns();
	xd.event_paths[xd.n_event_paths++] = MARK1;
	xd.event_paths[xd.n_event_paths++] = MARK1; /* written twice: the node holds one value */
	assert_false(xenlive_changed(x));           /* a label, not a topology change */
	int64_t after = clock_real_ns();
	struct xenlive_mark m[4];
	assert_int_equal(xenlive_take_marks(x, m, 4), 1);
	assert_int_equal(m[0].domid, 1);
	assert_string_equal(m[0].label, "start fio");
	assert_true(m[0].realtime_ns >= before && m[0].realtime_ns <= after);
	assert_int_equal(xenlive_take_marks(x, m, 4), 0); /* taken */
	/* a later check: a new write, a new mark, even with the same label */
	set_value(MARK1, "end fio", 7);
	xd.event_paths[xd.n_event_paths++] = MARK1;
	xd.event_paths[xd.n_event_paths++] = MARK2;
	xd.pending_events = 1; /* and a real topology event beside them */
	assert_true(xenlive_changed(x));
	assert_int_equal(xenlive_take_marks(x, m, 4), 2);
	assert_string_equal(m[0].label, "end fio");
	assert_int_equal(m[1].domid, 2);
	assert_string_equal(m[1].label, "end dd");
	assert_int_equal(xenlive_marks_refused(x), 0);
	xenlive_close(x);
}

/* Escapes, a bidi override and 4 KiB: escaped, cut at the label's size, never raw. */
static void a_hostile_label_is_escaped_and_cut(void **state)
{
	(void)state;
	struct xenlive *x = open_marks();
	char big[4097];
	memset(big, 'A', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	static const char evil[] = "\x1b]0;pwned\x07\x1b[2J\xe2\x80\xae"
	                           "fio\n";
	memcpy(big, evil, sizeof(evil) - 1);
	set_value(MARK1, big, sizeof(big) - 1);
	xd.event_paths[xd.n_event_paths++] = MARK1;
	xenlive_changed(x);
	struct xenlive_mark m;
	assert_int_equal(xenlive_take_marks(x, &m, 1), 1);
	assert_true(strlen(m.label) <= XENLIVE_MARK_LABEL_MAX);
	for (const unsigned char *p = (const unsigned char *)m.label; *p; p++)
		assert_true(*p >= 0x20 && *p != 0x7f && *p < 0x80); /* escaped, all ASCII here */
	assert_non_null(strstr(m.label, "\\e]0;pwned\\x07\\e[2J\\u202efio\\nAAA"));
	/* a value with a NUL: the label stops there */
	set_value(MARK1, "start\0\x1b[31m", 10);
	xd.event_paths[xd.n_event_paths++] = MARK1;
	xenlive_changed(x);
	assert_int_equal(xenlive_take_marks(x, &m, 1), 1);
	assert_string_equal(m.label, "start");
	xenlive_close(x);
}

/* Domain 1 created a node under domain 2's path (xenstored made 1 its owner): refused. So
 * is a node whose owner cannot be read, an empty or removed value, and paths that only
 * look like a mark node. */
static void only_a_domains_own_node_counts(void **state)
{
	(void)state;
	struct xenlive *x = open_marks();
	xd.owners[xd.n_owners].path = MARK2;
	xd.owners[xd.n_owners++].owner = 1;
	xd.event_paths[xd.n_event_paths++] = MARK2;
	xenlive_changed(x);
	struct xenlive_mark m[4];
	assert_int_equal(xenlive_take_marks(x, m, 4), 0);
	assert_int_equal(xenlive_marks_refused(x), 1);
	xd.fail_owner = true;
	xd.event_paths[xd.n_event_paths++] = MARK1;
	xenlive_changed(x);
	assert_int_equal(xenlive_take_marks(x, m, 4), 0);
	assert_int_equal(xenlive_marks_refused(x), 2);
	xd.fail_owner = false;
	set_value(MARK1, "", 0);
	xd.event_paths[xd.n_event_paths++] = MARK1;
	xd.event_paths[xd.n_event_paths++] = "/local/domain/3/data/xiotop/mark"; /* no node */
	assert_false(xenlive_changed(x));
	assert_int_equal(xenlive_take_marks(x, m, 4), 0);
	assert_int_equal(xenlive_marks_refused(x), 2); /* nothing to refuse: no label */
	static const char *const lookalikes[] = {
	    "/local/domain/01/data/xiotop/mark",     "/local/domain/1/data/xiotop/mark/x",
	    "/local/domain/1/data/xiotop/marks",     "/local/domain//data/xiotop/mark",
	    "/local/domain/123456/data/xiotop/mark", "local/domain/1/data/xiotop/mark"};
	for (size_t i = 0; i < sizeof(lookalikes) / sizeof(lookalikes[0]); i++) {
		xd.event_paths[xd.n_event_paths++] = lookalikes[i];
		assert_true(xenlive_changed(x)); /* a topology event */
		assert_int_equal(xenlive_take_marks(x, m, 4), 0);
	}
	xenlive_close(x);
}

static void marks_wait_up_to_a_bound(void **state)
{
	(void)state;
	struct xenlive *x = open_marks();
	for (int i = 0; i < XENLIVE_MARKS_MAX + 3; i++) {
		xd.event_paths[xd.n_event_paths++] = MARK1;
		xenlive_changed(x); /* one check each: each a mark */
	}
	assert_int_equal(xenlive_marks_refused(x), 3);
	struct xenlive_mark m[XENLIVE_MARKS_MAX];
	assert_int_equal(xenlive_take_marks(x, m, 10), 10);
	assert_int_equal(xenlive_take_marks(x, m, XENLIVE_MARKS_MAX), XENLIVE_MARKS_MAX - 10);
	xenlive_close(x);
}

/* Two guests, each with its own marks ("start fio" in both): guest 1 runs 2-5 s, guest 2
 * 8-12 s. Guest 1 writes 64 MiB a second from 2 to 5 s, guest 2 32 MiB from 8 to 12. */
static void two_guests(const char *path)
{
	struct scenario sc;
	sc_open(&sc, path, 1536 * 1024);
	struct sc_dom *a = sc_add_dom(&sc, 1, "guest-file", SC_FILE, "/srv/a.img", 512 * MiB);
	struct sc_dom *b = sc_add_dom(&sc, 2, "guest-lv", SC_PHY, NULL, 512 * MiB);
	for (unsigned i = 0; i <= 16; i++) {
		struct sc_step sa = {0}, sb = {0};
		if (i >= 3 && i <= 5)
			sa.guest_wr = sa.phys_wr = 64 * MiB;
		if (i >= 9 && i <= 12)
			sb.guest_wr = sb.phys_wr = 32 * MiB;
		if (i) {
			sc_step(&sc, a, &sa);
			sc_step(&sc, b, &sb);
		}
		sc_append(&sc);
	}
	sc_mark(&sc, "start fio", 2.0, "domain 1", -1);
	sc_mark(&sc, "end fio", 5.0, "domain 1", -1);
	sc_mark(&sc, "start fio", 8.0, "domain 2", -1);
	sc_mark(&sc, "end fio", 12.0, "domain 2", -1);
	sc_mark(&sc, "someone else", 14.0, "cli", -1);
	sc_close(&sc);
}

static void explain_window_from_guest_marks(void **state)
{
	(void)state;
	const char *p = path_of("two-guests.xiotop");
	two_guests(p);
	static struct explain ex;
	struct xerr err;
	struct rec_reader *r = rec_open(p, &err);
	assert_non_null(r);
	assert_true(explain_has_guest_marks(r, 1));
	assert_true(explain_has_guest_marks(r, 2));
	assert_false(explain_has_guest_marks(r, 3));
	/* default: every guest's marks, first to last */
	struct rec_reader *r0;
	assert_int_equal(sc_explain(p, NULL, NULL, &ex, &r0, &err), 0);
	assert_string_equal(ex.win.marks_of, "domains");
	assert_true(ex.win.seconds > 9.99 && ex.win.seconds < 10.01);
	explain_free(&ex);
	rec_reader_close(r0);
	/* guest 2's own: its "start fio", not guest 1's of the same label */
	assert_int_equal(explain_collect_marked(r, NULL, NULL, 2, &ex, &err), 0);
	assert_string_equal(ex.win.marks_of, "domain 2");
	assert_string_equal(ex.win.from_label, "start fio");
	assert_string_equal(ex.win.to_label, "end fio");
	assert_true(ex.win.seconds > 3.99 && ex.win.seconds < 4.01);
	const struct ex_domain *d = explain_find_domain(&ex, "guest-lv");
	assert_non_null(d);
	assert_int_equal(d->io.guest_wr_bytes, 128 * MiB);
	d = explain_find_domain(&ex, "guest-file");
	assert_true(!d || d->io.guest_wr_bytes == 0); /* it wrote before guest 2's window */
	explain_free(&ex);
	assert_int_equal(explain_collect_marked(r, NULL, NULL, 1, &ex, &err), 0);
	assert_true(ex.win.seconds > 2.99 && ex.win.seconds < 3.01);
	assert_int_equal(explain_find_domain(&ex, "guest-file")->io.guest_wr_bytes, 192 * MiB);
	explain_free(&ex);
	/* bounds given win over the marks */
	assert_int_equal(explain_collect_marked(r, "+0", "+16", 2, &ex, &err), 0);
	assert_string_equal(ex.win.marks_of, "");
	explain_free(&ex);
	rec_reader_close(r);
}

int main(void)
{
	(void)sc_verdict; /* explain_scenario.h's, for the tests that judge verdicts */
	(void)sc_fig;
	(void)sc_fig_str;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_guest_mark_is_a_mark_of_its_domain),
	    cmocka_unit_test(a_hostile_label_is_escaped_and_cut),
	    cmocka_unit_test(only_a_domains_own_node_counts),
	    cmocka_unit_test(marks_wait_up_to_a_bound),
	    cmocka_unit_test(explain_window_from_guest_marks),
	};
	int rc = cmocka_run_group_tests(tests, make_dir, remove_dir);
	xd_reset();
	xs_free(&xd.tree);
	return rc;
}
