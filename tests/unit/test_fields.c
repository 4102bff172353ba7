/* test_fields.c - the column table where its users meet: a KVM-style domid (1000000 +
 * pid, 7 digits) shown whole by the console and batch text, a Xen-only host keeping
 * its 5-wide column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/console_render.h"
#include "ui/console_state.h"
#include "ui/fields.h"
#include "ui/grid.h"

#define KVM_DOMID 1005732u /* XT_KVM_DOMID_BASE + pid 5732 */

struct world {
	struct xs_domain info[2];
	struct model_domain doms[2];
	struct model_interval m;
};

/* Two guests, 2 s: Xen domain 3 and, when kvm, a qemu-only domain 1005732. */
static void make_world(struct world *w, bool kvm)
{
	memset(w, 0, sizeof(*w));
	uint32_t ids[2] = {3, kvm ? KVM_DOMID : 4};
	const char *names[2] = {"xen-guest", "kvm-guest"};
	for (int i = 0; i < 2; i++) {
		w->info[i].domid = ids[i];
		snprintf(w->info[i].name, sizeof(w->info[i].name), "%s", names[i]);
		snprintf(w->info[i].kind, sizeof(w->info[i].kind), "%s", i ? "qdisk" : "vbd");
		w->doms[i].domid = ids[i];
		w->doms[i].info = &w->info[i];
		w->doms[i].guest_wr_bytes = 4000000;
		w->doms[i].guest_cpu_ns = -1;
	}
	w->m = (struct model_interval){.interval_s = 2.0,
	                               .realtime_ns = 1764669600000000000,
	                               .domains = w->doms,
	                               .n_domains = 2,
	                               .has_cpu = true};
}

/* The console's table line of the row named name, rendered at width x 24. */
static void console_line(const struct world *w, int width, const char *name, char *out, size_t len)
{
	struct console_state st;
	struct console_state_opts o = {.delay_s = 2.0, .title = "test"};
	console_state_init(&st, &o);
	assert_true(console_state_interval(&st, &w->m));
	struct grid g;
	assert_int_equal(grid_init(&g, width, 24), 0);
	console_render(&st, &g);
	out[0] = '\0';
	for (int y = 0; y < g.h; y++)
		if (!strncmp(g.lines[y], name, strlen(name)))
			snprintf(out, len, "%s", g.lines[y]);
	grid_free(&g);
	console_state_free(&st);
}

static void test_console_kvm_domid_whole(void **state)
{
	(void)state;
	struct world w;
	make_world(&w, true);
	char line[1024];
	console_line(&w, 80, "kvm-guest", line, sizeof(line));
	assert_non_null(strstr(line, " 1005732 "));
	assert_true(strlen(line) <= 80);
	console_line(&w, 200, "kvm-guest", line, sizeof(line));
	assert_non_null(strstr(line, " 1005732 "));
	/* the Xen guest beside it lines up under the same, wider column */
	console_line(&w, 200, "xen-guest", line, sizeof(line));
	assert_non_null(strstr(line, "       3 "));
}

static void test_domid_width(void **state)
{
	(void)state;
	struct field_row xen = {.kind = ROW_DOMAIN, .domid = 32767};
	struct field_row kvm = {.kind = ROW_DOMAIN, .domid = KVM_DOMID};
	struct field_row none = {.kind = ROW_UNATTRIBUTED, .domid = 0xffffffffu};
	const struct field_row *rows[3] = {&xen, &none, &kvm};
	assert_int_equal(fields_domid_width(rows, 2), 5); /* a Xen-only host: as before */
	assert_int_equal(fields_domid_width(rows, 3), 7);

	struct field_layout l;
	fields_layout_sized(200, FIELD_NAME_WIDTH, 7, false, &l);
	char buf[1024];
	fields_row(&l, &kvm, buf, sizeof(buf));
	assert_non_null(strstr(buf, " 1005732 "));
	fields_header(&l, buf, sizeof(buf));
	assert_non_null(strstr(buf, "   DOMID "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_domid_width),
	    cmocka_unit_test(test_console_kvm_domid_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
