/* fuzz_qemu.c - libFuzzer harness for qemu command lines (sources/topology/qemu.c): the
 * input is one /proc/PID/cmdline (NUL-separated arguments), parsed directly and then
 * found by topo_add_qemu_processes() in a scratch /proc and merged into a topology,
 * whose text and JSON prints must hold no control or bidi byte. */
#include "fuzz/fuzz_util.h"
#include "sources/topology/topology.h"

#define CMDLINE_MAX 65536

static void check_print(const struct xt_topology *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	topo_print_text(f, t);
	topo_print_json(f, t);
	fclose(f);
	fuzz_check_output("qemu topology", buf, len, true);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= CMDLINE_MAX)
		return 0;
	/* as the reader gives it: NUL terminated after the bytes read */
	char *buf = fuzz_cstr(data, size);
	struct qemu_proc q = {.pid = 4242};
	topo_parse_qemu_cmdline(buf, size, &q);
	topo_qemu_proc_free(&q);
	free(buf);

	fuzz_write("proc/4242/cmdline", data, size);
	char proc[128];
	snprintf(proc, sizeof(proc), "%s/proc", fuzz_dir());
	struct xt_roots roots = {.sysfs = fuzz_dir(), .proc = proc, .dev = fuzz_dir()};
	struct xt_topology t = {0};
	if (topo_add_qemu_processes(&roots, &t) > 0)
		check_print(&t);
	topo_free(&t);
	return 0;
}
