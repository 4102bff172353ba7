/* test_explain_json_absent.c - absent is never 0, over every key of explain's JSON of an
 * import (xiotop import: xentop, vmstat and iostat logs, no tracer). Expected from what
 * each log holds, written before the change (issue 43: "host: kernel ?, 0 CPUs"; JSON
 * "cpus": 0, "path": "phy" for an unknown path, "dom0_cpu_s": 0.0, claims'
 * "observed_guest_bytes": 0 where nothing could be observed):
 *   - the kernel, the hostname, dom0's CPUs and dirty sysctls are in no log: null (CPUs
 *     given by iostat's header or --cpus are known);
 *   - dom0 CPU per domain, the path below a guest, its layers, physical bytes: only a
 *     tracer charges them: null;
 *   - a guest's bytes and rates: null where xentop has no VBD sectors (NetBSD's);
 *   - a claim's observed bytes: null where the logs hold them for no domain;
 *   - every other 0 or "" is one of the keys a log measures, and held in this import.
 * A claim not placed in the timeline has no observed bytes either (null).
 * The walk goes over every key: a new key whose value is 0 or "" fails until it is
 * classified here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "test_files.h"
#include "explain/claim_list.h"
#include "explain/report/report.h"
#include "explain/verdicts/verdicts.h"
#include "import/import_build.h"
#include "record/record.h"

#define START_NS (1780000000ll * 1000000000ll)

TEST_SCRATCH_DIR("explain-json-absent")

/* The logs named (fixtures; NULL: not given) -> dir/name, as `xiotop import` (with --cpus
 * when cpus > 0). */
static void import_cpus(const char *name, const char *xentop, const char *vmstat,
                        const char *iostat, long cpus, char *path, size_t path_len)
{
	struct imp_xentop x;
	struct imp_vmstat v;
	struct imp_iostat io;
	struct xerr err;
	struct imp_logs in = {
	    .interval_s = 2, .has_start = true, .start_ns = START_NS, .cpus = cpus};
	char *bufs[3] = {NULL, NULL, NULL};
	size_t len;
	if (xentop) {
		bufs[0] = test_import_fixture(xentop, &len);
		assert_int_equal(imp_xentop_parse(xentop, bufs[0], len, &x, &err), 0);
		in.xentop = &x, in.xentop_file = xentop;
	}
	if (vmstat) {
		bufs[1] = test_import_fixture(vmstat, &len);
		assert_int_equal(imp_vmstat_parse(vmstat, bufs[1], len, &v, &err), 0);
		in.vmstat = &v, in.vmstat_file = vmstat;
	}
	if (iostat) {
		bufs[2] = test_import_fixture(iostat, &len);
		assert_int_equal(imp_iostat_parse(iostat, bufs[2], len, &io, &err), 0);
		in.iostat = &io, in.iostat_file = iostat;
	}
	struct imp_result r;
	if (imp_build(&in, &r, &err))
		fail_msg("%s", err.msg);
	snprintf(path, path_len, "%s/%s", dir, name);
	assert_int_equal(imp_write(path, &r, &err), 0);
	imp_result_free(&r);
	if (xentop)
		imp_xentop_free(&x);
	if (vmstat)
		imp_vmstat_free(&v);
	if (iostat)
		imp_iostat_free(&io);
	for (int i = 0; i < 3; i++)
		free(bufs[i]);
}

static void import_logs(const char *name, const char *xentop, const char *vmstat,
                        const char *iostat, char *path, size_t path_len)
{
	import_cpus(name, xentop, vmstat, iostat, 0, path, path_len);
}

/* What a key is, when its value is 0 or "": measured (by the log its absent flag names:
 * "guest_io", "stack", "vmstat", "disks"; "" any import), or never. */
struct zero_rule {
	const char *key;
	const char *held_unless; /* the imported "absent" name that makes it unknown */
};

static const struct zero_rule zeros[] = {
    /* positions and ids: 0 is a place, not a count */
    {"first_sample", ""},
    {"domid", ""},
    {"index", ""},            /* claim_files: a result's place in its post */
    {"claim", ""},            /* claim_files: the row of "claims" a run was judged as */
    {"recorded_after_s", ""}, /* the logs end with the window */
    {"share", ""},
    /* xentop's VBD sectors */
    {"guest_wr_bytes", "guest_io"},
    {"guest_rd_bytes", "guest_io"},
    {"guest_wr_rate_bytes_per_s", "guest_io"},
    {"end_to_end_wr_rate_bytes_per_s", "guest_io"},
    {"observed_guest_bytes", "guest_io"},
    /* vmstat bi/bo */
    {"vmstat_pgpgout_bytes", "vmstat"},
    /* iostat's disks */
    {"host_disk_wr_bytes", "disks"},
    {"host_disk_rd_bytes", "disks"},
};

static bool held(json_object *absent, const char *name)
{
	for (size_t i = 0; absent && i < json_object_array_length(absent); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(absent, i)), name))
			return false;
	return true;
}

/* Every scalar under o: a 0 or "" only where a rule says the logs measured it. */
static void walk(json_object *o, const char *key, json_object *absent, const char *where)
{
	char at[512];
	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v)
		{
			snprintf(at, sizeof(at), "%s.%s", where, k);
			walk(v, k, absent, at);
		}
		return;
	}
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			snprintf(at, sizeof(at), "%s[%zu]", where, i);
			walk(json_object_array_get_idx(o, i), key, absent, at);
		}
		return;
	}
	bool zero = (json_object_is_type(o, json_type_int) && json_object_get_int64(o) == 0) ||
	            (json_object_is_type(o, json_type_double) && json_object_get_double(o) == 0) ||
	            (json_object_is_type(o, json_type_string) && !json_object_get_string(o)[0]);
	if (!zero)
		return;
	for (size_t i = 0; i < sizeof(zeros) / sizeof(zeros[0]); i++)
		if (!strcmp(zeros[i].key, key)) {
			if (zeros[i].held_unless[0] && !held(absent, zeros[i].held_unless))
				fail_msg("%s is 0 but the import lacks %s: null expected", where,
				         zeros[i].held_unless);
			return;
		}
	fail_msg("%s is %s: a figure the logs do not hold is null (or classify it here)", where,
	         json_object_to_json_string(o));
}

/* The import's explain JSON (with a claim file, "" none), walked, into *json. */
static void explained_json(const char *path, const char *claim, json_object **json)
{
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	static struct explain ex;
	assert_int_equal(explain_collect(r, NULL, NULL, &ex, &err), 0);
	if (claim[0] && explain_add_claim_file(&ex, claim, &err))
		fail_msg("%s", err.msg);
	explain_verdicts(&ex);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(report_json(out, &ex), 0);
	fclose(out);
	ex_claim_files_free(&ex);
	explain_free(&ex);
	rec_reader_close(r);
	json_object *o = json_tokener_parse(text);
	if (!o)
		fail_msg("not JSON: %s", text);
	free(text);
	json_object *imported, *absent = NULL;
	assert_true(json_object_object_get_ex(o, "imported", &imported));
	json_object_object_get_ex(imported, "absent", &absent);
	walk(o, "", absent, "");
	*json = o;
}

/* The value at path (keys and array indices joined by "."; a JSON null is NULL) into
 * *out; a missing key fails. */
static void value_at(struct json_object *o, const char *path, struct json_object **out)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && o;
	     k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array)) {
			size_t i = strtoul(k, NULL, 10);
			if (i >= json_object_array_length(o))
				fail_msg("no item %s in %s", k, path);
			o = json_object_array_get_idx(o, i);
		} else if (!json_object_object_get_ex(o, k, &o)) {
			fail_msg("no key %s in %s", k, path);
		}
	}
	*out = o;
}

static bool null_at(struct json_object *o, const char *path)
{
	struct json_object *v;
	value_at(o, path, &v);
	return v == NULL;
}

/* NetBSD's three logs (seed 003): no VBD sectors, no bi/bo, iostat's disks. */
static void test_netbsd_every_key(void **state)
{
	(void)state;
	char path[128];
	import_logs("netbsd.xiotop", "xentop-seed003-netbsd.txt", "vmstat-seed003-netbsd.txt",
	            "iostat-seed003-netbsd.txt", path, sizeof(path));
	json_object *o;
	explained_json(path, "", &o);
	assert_true(null_at(o, "host.kernel"));
	assert_true(null_at(o, "host.hostname"));
	assert_true(null_at(o, "host.cpus"));
	assert_true(null_at(o, "host.lost_events"));
	static const char *const unknown[] = {"path", "dom0_cpu_s", "layers",
	                                      "guest_wr_rate_bytes_per_s"};
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < sizeof(unknown) / sizeof(unknown[0]); k++) {
			char at[64];
			snprintf(at, sizeof(at), "domains.%d.%s", i, unknown[k]);
			assert_true(null_at(o, at));
		}
	json_object_put(o);
}

/* A Linux dom0's three logs with VBD sectors, and a claim set against its busiest guest:
 * what the claim's run did at a disk is not in these logs. */
static void test_linux_claim_every_key(void **state)
{
	(void)state;
	char path[128], claim[1100];
	import_logs("linux.xiotop", "xentop-stacked-linux.txt", "vmstat-stacked-linux.txt",
	            "iostat-dx-stacked-linux.txt", path, sizeof(path));
	const char *fx = getenv("XIOTOP_FIXTURES");
	snprintf(claim, sizeof(claim), "%s/claims/gnu-dd-64MiB.txt", fx ? fx : "tests/fixtures");
	json_object *o;
	explained_json(path, claim, &o);
	assert_true(null_at(o, "claims.0.observed_phys_bytes"));
	/* dd's 64 MiB in 0.08 s ties to no one stretch of these 2 s intervals (both guests
	 * wrote 64 MiB): not placed, so nothing observed is its */
	struct json_object *placed;
	value_at(o, "claims.0.placed", &placed);
	assert_string_equal(json_object_get_string(placed), "not placed");
	assert_true(null_at(o, "claims.0.observed_guest_bytes"));
	assert_true(null_at(o, "host.kernel"));
	assert_false(null_at(o, "host.cpus")); /* iostat's header: (2 CPU) */
	json_object_put(o);
}

/* The report of a recording given, as text (fn report_text) or HTML. */
static char *report_of(const char *path, int (*fn)(FILE *, const struct explain *))
{
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	assert_non_null(r);
	static struct explain ex;
	assert_int_equal(explain_collect(r, NULL, NULL, &ex, &err), 0);
	explain_verdicts(&ex);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(fn(out, &ex), 0);
	fclose(out);
	explain_free(&ex);
	rec_reader_close(r);
	return text;
}

/* text (its lines joined: the text report wraps) holds want, or not */
static void assert_has(char *text, const char *want, bool has)
{
	for (char *p = text; *p; p++)
		if (*p == '\n')
			*p = ' ';
	if ((strstr(text, want) != NULL) != has)
		fail_msg("%s \"%s\" in:\n%s", has ? "no" : "unwanted", want, text);
}

/* The text and HTML of the NetBSD import: "host: kernel ?, 0 CPUs" and an HTML domain
 * table with no row were the defects; the domains xentop lists (their CPU and memory are
 * known) are rows, their bytes "-". */
static void test_netbsd_text_and_html(void **state)
{
	(void)state;
	char path[128];
	import_logs("netbsd-text.xiotop", "xentop-seed003-netbsd.txt", "vmstat-seed003-netbsd.txt",
	            "iostat-seed003-netbsd.txt", path, sizeof(path));
	char *text = report_of(path, report_text);
	assert_has(text, "kernel not recorded", true);
	assert_has(text, " 0 CPUs", false);
	assert_has(text, "kernel ?", false);
	assert_has(text, "no log holds the kernel", true);
	free(text);
	char *html = report_of(path, report_html);
	assert_has(html, "<td class=\"l\">domU</td>", true);
	assert_has(html, "<td class=\"l\">Domain-0</td>", true);
	assert_has(html, "0 CPUs", false);
	free(html);
}

/* vmstat alone: dom0's busy time, and the guests' vCPU time is in no log (null, not 0:
 * dom0's "part of the CPU the run cost" is then unknown, not 100 %). */
static void test_vmstat_only_guests_unknown(void **state)
{
	(void)state;
	char path[128];
	import_cpus("vmstat-only.xiotop", NULL, "vmstat-stacked-linux.txt", NULL, 2, path,
	            sizeof(path));
	json_object *o;
	explained_json(path, "", &o);
	struct json_object *id;
	value_at(o, "verdicts.0.id", &id);
	assert_string_equal(json_object_get_string(id), "dom0_cpu_cost");
	assert_true(null_at(o, "verdicts.0.figures.guests_vcpu_s"));
	assert_true(null_at(o, "verdicts.0.figures.dom0_share_of_cpu"));
	json_object_put(o);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_netbsd_every_key),
	    cmocka_unit_test(test_linux_claim_every_key),
	    cmocka_unit_test(test_netbsd_text_and_html),
	    cmocka_unit_test(test_vmstat_only_guests_unknown),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
