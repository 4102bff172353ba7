/* test_output.c - sanitizing guest strings, batch formats, host readers on fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ui/batch.h"
#include "sources/hostinfo.h"
#include "core/sanitize.h"

static char *capture_json(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_put_string(f, s);
	fclose(f);
	return buf;
}

static void test_sanitize_text(void **state)
{
	(void)state;
	char out[64];
	sanitize_text("evil\x1b]0;pwned\x07name", out, sizeof(out));
	assert_string_equal(out, "evil\\e]0;pwned\\x07name");
	sanitize_text("tab\there\nnl", out, sizeof(out));
	assert_string_equal(out, "tab\\there\\nnl");
	sanitize_text("caf\xc3\xa9", out, sizeof(out)); /* valid UTF-8 passes */
	assert_string_equal(out, "caf\xc3\xa9");
	sanitize_text("bad\xff\xc3", out, sizeof(out));
	assert_string_equal(out, "bad\\xff\\xc3");
	sanitize_text("c1\xc2\x9b"
	              "31m",
	              out, sizeof(out)); /* C1 CSI */
	assert_string_equal(out, "c1\\xc2\\x9b31m");
	/* a cut never splits an escape */
	sanitize_text("ab\x1b", out, 4);
	assert_string_equal(out, "ab");
	sanitize_text(NULL, out, sizeof(out));
	assert_string_equal(out, "");
}

/* issue 15 (4): bidi and format controls are escaped like C0/C1 controls, and `\` itself
 * is, so that a name spelling a literal "\x1b" cannot pass for an escaped ESC. */
static void test_sanitize_bidi_and_backslash(void **state)
{
	(void)state;
	char out[128];
	sanitize_text("a\xe2\x80\xae"
	              "gpj.exe",
	              out, sizeof(out)); /* U+202E right-to-left override */
	assert_string_equal(out, "a\\u202egpj.exe");
	sanitize_text("\xe2\x80\x8e\xe2\x80\x8f\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9", out,
	              sizeof(out)); /* LRM, RLM, LRE, LRI, PDI */
	assert_string_equal(out, "\\u200e\\u200f\\u202a\\u2066\\u2069");
	sanitize_text("lit\\x1b", out, sizeof(out));
	assert_string_equal(out, "lit\\\\x1b");
	sanitize_text("real\x1b", out, sizeof(out));
	assert_string_equal(out, "real\\e");
	char *j = capture_json("r\xe2\x80\xae"
	                       "b");
	assert_string_equal(j, "\"r\\u202eb\"");
	free(j);
	char *csv = NULL;
	size_t csv_len = 0;
	FILE *f = open_memstream(&csv, &csv_len);
	csv_put_field(f, "x\xe2\x81\xa7y\\");
	fclose(f);
	assert_string_equal(csv, "x\\u2067y\\\\");
	free(csv);
}

static void test_json_string(void **state)
{
	(void)state;
	char *j = capture_json("a\"b\\c\x1b[31m\xff");
	assert_string_equal(j, "\"a\\\"b\\\\c\\u001b[31m\\u00ff\"");
	free(j);
	j = capture_json(NULL);
	assert_string_equal(j, "null");
	free(j);
}

static struct model_interval one_domain(struct xio_domain *info, struct model_layer *layer,
                                        struct xio_disk *disk, struct model_disk *mdisk,
                                        struct model_domain *d)
{
	memset(info, 0, sizeof(*info));
	info->domid = 5;
	strcpy(info->name, "x\x1b[2Jy");
	strcpy(info->kind, "vbd");
	memset(layer, 0, sizeof(*layer));
	layer->role = ROLE_BACKEND;
	strcpy(layer->name, "loop0");
	layer->wr_bytes = 2000000;
	memset(disk, 0, sizeof(*disk));
	strcpy(disk->name, "vda");
	mdisk->disk = disk;
	mdisk->rd_bytes = 0;
	mdisk->wr_bytes = 2000000;
	memset(d, 0, sizeof(*d));
	d->domid = 5;
	d->info = info;
	d->io.guest_wr_bytes = 2000000;
	d->io.guest_wr_ios = 2;
	d->io.phys_wr_bytes = 2000000;
	d->io.double_counted_bytes = 2000000;
	d->layers = layer;
	d->n_layers = 1;
	struct model_interval m = {.interval_s = 2.0,
	                           .realtime_ns = 1764669600123000000,
	                           .pgpgout_bytes = 4000000,
	                           .disks = mdisk,
	                           .n_disks = 1,
	                           .domains = d,
	                           .n_domains = 1};
	return m;
}

static char *capture_batch(const struct model_interval *m, enum batch_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct batch_opts o = {.format = f, .columns = 80}; /* text fitted as on a terminal */
	batch_print(out, m, &o, 0);
	fclose(out);
	return buf;
}

static void test_batch_formats_escape_names(void **state)
{
	(void)state;
	struct xio_domain info;
	struct model_layer layer;
	struct xio_disk disk;
	struct model_disk mdisk;
	struct model_domain d;
	struct model_interval m = one_domain(&info, &layer, &disk, &mdisk, &d);

	char *json = capture_batch(&m, BATCH_JSON);
	assert_non_null(strstr(json, "\"time\":\"2025-12-02T10:00:00.123Z\""));
	assert_non_null(strstr(json, "\"name\":\"x\\u001b[2Jy\""));
	assert_non_null(strstr(json, "\"guest_wr_bytes\":2000000"));
	assert_non_null(strstr(json, "\"double_counted_bytes\":2000000"));
	assert_non_null(strstr(json, "\"layers\":[{\"dev\":\"loop0\",\"role\":\"backend\""));
	assert_non_null(
	    strstr(json, "\"disks\":[{\"dev\":\"vda\",\"rd_bytes\":0,\"wr_bytes\":2000000}]"));
	assert_null(strchr(json, '\x1b'));
	free(json);

	char *csv = capture_batch(&m, BATCH_CSV);
	assert_non_null(strstr(csv, "time,interval_s,domid,name,"));
	assert_non_null(strstr(csv, ",5,x\\e[2Jy,0,2000000,"));
	assert_null(strchr(csv, '\x1b'));
	free(csv);

	char *text = capture_batch(&m, BATCH_TEXT);
	assert_non_null(strstr(text, "x\\e[2Jy"));
	assert_null(strchr(text, '\x1b'));
	/* readable at 80 columns */
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		assert_true(len <= 80);
		line = nl ? nl + 1 : line + len;
	}
	free(text);
}

static void test_hostinfo_fixtures(void **state)
{
	(void)state;
	const char *fx = getenv("XIOTOP_FIXTURES");
	assert_non_null(fx);
	char proc[512];
	snprintf(proc, sizeof(proc), "%s/proc", fx);
	struct host_diskstat *ds;
	size_t n;
	assert_int_equal(host_read_diskstats(proc, &ds, &n), 0);
	assert_int_equal(n, 3); /* the short nvme line is skipped */
	assert_string_equal(ds[1].name, "loop0");
	assert_int_equal(ds[1].dev, 7u << 20);
	assert_int_equal(ds[1].wr_bytes, 524288ull * 512);
	assert_int_equal(ds[1].in_flight, 3); /* the twelfth field: requests in progress */
	assert_int_equal(ds[0].in_flight, 0);
	free(ds);
	uint64_t in = 0, out = 0;
	assert_int_equal(host_read_vmstat(proc, &in, &out), 0);
	assert_int_equal(in, 217091);
	assert_int_equal(out, 1061856);
	assert_int_equal(host_read_vmstat("/nonexistent", &in, &out), -1);
	/* busy is user, nice, system, irq and softirq; steal (the hypervisor's) apart */
	struct host_cpu_times cpu;
	assert_int_equal(host_read_cpu(proc, &cpu), 0);
	uint64_t tick = 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK);
	assert_int_equal(cpu.busy_ns, (574435ull + 66461 + 376629 + 12 + 16696) * tick);
	assert_int_equal(cpu.irq_ns, (12ull + 16696) * tick);
	assert_int_equal(cpu.steal_ns, 2500ull * tick);
	assert_int_equal(host_read_cpu("/nonexistent", &cpu), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sanitize_text),
	    cmocka_unit_test(test_sanitize_bidi_and_backslash),
	    cmocka_unit_test(test_json_string),
	    cmocka_unit_test(test_batch_formats_escape_names),
	    cmocka_unit_test(test_hostinfo_fixtures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
