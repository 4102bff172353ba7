/* fuzz_xsdump.c - libFuzzer harness for a xenstore dump (sources/topology/xsdump.c) and
 * the topology built from it (xstopo.c, resolve.c over an empty sysfs, pathpolicy.c,
 * generation.c, print.c): no memory error or leak, and neither the text nor the JSON
 * print nor the parse error holds a control or bidi byte (newlines between lines). */
#include "fuzz/fuzz_util.h"
#include "sources/topology/topology.h"

static void check_print(const char *what, const struct xt_topology *t,
                        void (*print)(FILE *, const struct xt_topology *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	print(f, t);
	fclose(f);
	fuzz_check_output(what, buf, len, true);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xt_roots roots;
	static const char *image_dirs[] = {"/var/lib/xen/images"};
	if (!roots.sysfs) {
		roots.sysfs = roots.proc = roots.dev = fuzz_dir();
		roots.image_dirs = image_dirs;
	}
	FILE *in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	struct xs_store store;
	struct xerr err = {0};
	int rc = xs_parse_stream(in, "dump", &store, &err);
	fclose(in);
	if (rc) {
		fuzz_check_output("parse error", err.msg, strlen(err.msg), false);
		return 0;
	}
	/* half the inputs with --image-dir, half without */
	roots.n_image_dirs = size & 1;
	struct xt_topology t;
	if (topo_from_xenstore(&store, &roots, &t) == 0) {
		struct topo_generations gens = {0};
		topo_generations_apply(&gens, &t);
		topo_generations_apply(&gens, &t);
		check_print("topology text", &t, topo_print_text);
		check_print("topology json", &t, topo_print_json);
		topo_generations_free(&gens);
		topo_free(&t);
	}
	xs_free(&store);
	return 0;
}
