/* fuzz_procsys.c - libFuzzer harness for the /proc and /sys readers: sources/hostinfo.c
 * (diskstats, vmstat, stat), sources/topology/resolve.c + blkback.c (sysfs `dev`
 * attributes, a loop device's backing_file, mountinfo, blkback thread names) and
 * sources/xen/blkback_stats.c (a vbd's statistics/ and physical_device), over a
 * scratch tree whose files hold the parts of the input (separated by 0x1e). The stack
 * resolved from them is printed; the print must hold no control or bidi byte. */
#include "fuzz/fuzz_util.h"
#include "sources/hostinfo.h"
#include "sources/topology/topology.h"
#include "sources/xen/blkback_stats.h"

enum {
	P_DISKSTATS,
	P_VMSTAT,
	P_STAT,
	P_LOOP_DEV,
	P_BACKING,
	P_MOUNTINFO,
	P_VDA_DEV,
	P_COMM,
	P_VBD_STATS, /* the 7 statistics/ files, separated by spaces */
	P_VBD_PHYSDEV,
	P_VBD_NAME, /* parsed as a vbd-<domid>-<devid> directory name */
	P_N
};

#define VBD_DIR "sys/bus/xen-backend/devices/vbd-3-51712"

static const char *const part_file[P_N] = {
    [P_DISKSTATS] = "proc/diskstats",
    [P_VMSTAT] = "proc/vmstat",
    [P_STAT] = "proc/stat",
    [P_LOOP_DEV] = "sys/devices/virtual/block/loop0/dev",
    [P_BACKING] = "sys/devices/virtual/block/loop0/loop/backing_file",
    [P_MOUNTINFO] = "proc/self/mountinfo",
    [P_VDA_DEV] = "sys/class/block/vda/dev",
    [P_VBD_PHYSDEV] = VBD_DIR "/physical_device",
};

static void write_vbd_stats(const uint8_t *p, size_t len)
{
	static const char *const names[] = {"rd_sect", "wr_sect", "rd_req", "wr_req",
	                                    "oo_req",  "f_req",   "ds_req"};
	const uint8_t *end = p + len;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const uint8_t *sp = memchr(p, ' ', (size_t)(end - p));
		size_t n = (size_t)((sp ? sp : end) - p);
		char name[128];
		snprintf(name, sizeof(name), VBD_DIR "/statistics/%s", names[i]);
		fuzz_write(name, p, n);
		p = sp ? sp + 1 : end;
	}
}

static void setup(char *sys, char *proc, size_t len)
{
	snprintf(sys, len, "%s/sys", fuzz_dir());
	snprintf(proc, len, "%s/proc", fuzz_dir());
	fuzz_write("sys/dev/block/.keep", "", 0);
	fuzz_write("image.img", "x", 1);
	char link[4096];
	snprintf(link, sizeof(link), "%s/dev/block/7:0", sys);
	if (symlink("../../devices/virtual/block/loop0", link))
		abort();
}

static void check_backend(struct xt_backend *b)
{
	struct xt_domain d = {.domid = 1, .backends = b, .n_backends = 1};
	struct xt_topology t = {.domains = &d, .n_domains = 1};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	topo_print_text(f, &t);
	topo_print_json(f, &t);
	fclose(f);
	fuzz_check_output("resolved stack", buf, len, true);
	free(buf);
}

static void free_backend(struct xt_backend *b)
{
	for (size_t i = 0; i < b->n_layers; i++) {
		free(b->layers[i].name);
		free(b->layers[i].path);
	}
	free(b->layers);
	free(b->error);
	memset(b, 0, sizeof(*b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char sys[256], proc[256];
	if (!sys[0])
		setup(sys, proc, sizeof(sys));
	const uint8_t *parts[P_N] = {0};
	size_t lens[P_N] = {0};
	const uint8_t *p = data, *end = data + size;
	for (int i = 0; i < P_N; i++) {
		const uint8_t *sep = memchr(p, 0x1e, (size_t)(end - p));
		parts[i] = p;
		lens[i] = (size_t)((sep ? sep : end) - p);
		p = sep ? sep + 1 : end;
	}
	for (int i = 0; i < P_N; i++)
		if (part_file[i])
			fuzz_write(part_file[i], parts[i], lens[i]);
	write_vbd_stats(parts[P_VBD_STATS], lens[P_VBD_STATS]);

	struct host_diskstat *ds = NULL;
	size_t n_ds = 0;
	uint64_t a, b;
	struct host_cpu_times cpu;
	host_read_diskstats(proc, &ds, &n_ds);
	free(ds);
	host_read_vmstat(proc, &a, &b);
	host_read_cpu(proc, &cpu);

	struct xt_roots roots = {.sysfs = sys, .proc = proc, .dev = fuzz_dir()};
	struct xt_backend be = {0};
	topo_resolve_dev(&roots, XT_KDEV(7, 0), &be);
	check_backend(&be);
	free_backend(&be);
	char img[512];
	snprintf(img, sizeof(img), "%s/image.img", fuzz_dir());
	topo_resolve_file(&roots, img, &be);
	check_backend(&be);
	free_backend(&be);
	topo_dev_by_name(&roots, "vda");
	struct xt_devinfo info;
	topo_devinfo(&roots, XT_KDEV(7, 0), &info);

	/* P_COMM: blkback thread names are told apart in BPF now (no user-space parser) */
	uint32_t domid;
	char *vbd_name = fuzz_cstr(parts[P_VBD_NAME], lens[P_VBD_NAME]);
	uint32_t devid;
	blkback_parse_vbd_name(vbd_name, &domid, &devid);
	free(vbd_name);
	struct xio_sample sample;
	memset(&sample, 0, sizeof(sample));
	blkback_read_stats(&roots, &sample);
	sample_free(&sample);
	return 0;
}
