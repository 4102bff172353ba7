/* tracer.c - BPF load (tp_btf, else raw_tp), attach, lookup maps, counter reads. */
#include "sources/tracer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/xiotop.h"
#include "xiotop.skel.h"

#define DEV_IS_BACKEND 1 /* keep in sync with xiotop.bpf.c */
#define DEV_IS_LOOP    2

struct dev_owner {
	unsigned int domid;
	unsigned int flags;
};

struct tracer {
	struct xiotop_bpf *skel;
	const char *mode;
	char hooks[256];
	bool has_cpu;   /* sched_switch and work hooks attached */
	bool has_dirty; /* writeback_dirty_folio attached */
	struct bpf_link *links[16];
	size_t n_links;
	struct bpf_program *sys_progs[2]; /* sys_enter, sys_exit: attached on demand */
	struct bpf_link *sys_links[2];
	int ncpus;
	struct xiotop_io *percpu_io; /* ncpus values of one layer_io entry */
	unsigned long long *percpu_u64;
};

/* libbpf speaks while probing; keep its last words for the error message only. */
static char libbpf_last_error[256];
static int libbpf_quiet_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_WARN) {
		char line[256];
		vsnprintf(line, sizeof(line), fmt, args);
		line[strcspn(line, "\n")] = '\0';
		if (line[0])
			snprintf(libbpf_last_error, sizeof(libbpf_last_error), "%s", line);
	}
	return 0;
}

static unsigned long long kallsyms_addr(const char *sym)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f)
		return 0;
	char line[256], name[128], type;
	unsigned long long addr, found = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 && !strcmp(name, sym)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

enum prog_set { SET_BTF, SET_RAW };

/* The hooks, as the suffix of their program names (btf_<x>, raw_<x>). The first is
 * required; the others are dropped, last first, when the object will not load with them
 * (a kernel without io_uring, say), and each missing one is reported. */
static const struct hook {
	const char *prog;  /* program name suffix */
	const char *event; /* what to tell the user */
	const char *loss;  /* what is lost without it */
} hooks[] = {
    {"bio_queue", "block_bio_queue", NULL},
    {"bio_remap", "block_bio_remap", "dm/md clones are unattributed"},
    {"work_start", "workqueue_execute_start", "loop direct I/O and loop CPU unattributed"},
    {"work_end", "workqueue_execute_end", "loop direct I/O and loop CPU unattributed"},
    {"switch", "sched_switch", "no dom0 CPU per domain"},
    {"dirty_folio", "writeback_dirty_folio", "no dirty backlog"},
    {"sys_enter", "sys_enter", "device-model file reads/writes not counted"},
    {"sys_exit", "sys_exit", "device-model file reads/writes not counted"},
    {"uring_complete", "io_uring_complete", "device-model io_uring I/O not counted"},
};
#define N_HOOKS        (sizeof(hooks) / sizeof(hooks[0]))
#define HOOK_SYS_ENTER 6 /* index in hooks[]; sys_exit follows */
#define HOOK_SYS_EXIT  7

/* Which hook a program is, or -1. */
static int hook_of(const struct bpf_program *p, bool *is_btf)
{
	const char *name = bpf_program__name(p);
	*is_btf = !strncmp(name, "btf_", 4);
	for (size_t i = 0; i < N_HOOKS; i++)
		if (!strcmp(name + 4, hooks[i].prog))
			return (int)i;
	return -1;
}

static void choose_set(struct xiotop_bpf *s, enum prog_set set, size_t n_hooks)
{
	struct bpf_program *p;
	bpf_object__for_each_program(p, s->obj)
	{
		bool is_btf;
		int h = hook_of(p, &is_btf);
		bpf_program__set_autoload(p, h >= 0 && (size_t)h < n_hooks &&
		                                 is_btf == (set == SET_BTF));
	}
}

struct work_fns {
	unsigned long long loop_rootcg, loop_worker, writeback;
};

static struct xiotop_bpf *open_and_load(enum prog_set set, size_t n_hooks,
                                        const struct work_fns *fns)
{
	struct xiotop_bpf *s = xiotop_bpf__open();
	if (!s)
		return NULL;
	s->rodata->loop_rootcg_workfn_addr = fns->loop_rootcg;
	s->rodata->loop_workfn_addr = fns->loop_worker;
	s->rodata->wb_workfn_addr = fns->writeback;
	s->rodata->track_cpu = n_hooks > 4;
	choose_set(s, set, n_hooks);
	if (xiotop_bpf__load(s)) {
		xiotop_bpf__destroy(s);
		return NULL;
	}
	return s;
}

/* Load the preferred set with as many hooks as the kernel takes. */
static struct xiotop_bpf *load_best(enum prog_set set, const struct work_fns *fns, size_t *n_loaded)
{
	for (size_t n = N_HOOKS; n >= 1; n--) {
		struct xiotop_bpf *s = open_and_load(set, n, fns);
		if (s) {
			*n_loaded = n;
			return s;
		}
	}
	return NULL;
}

static void note_hook(struct tracer *t, const char *event)
{
	size_t len = strlen(t->hooks);
	snprintf(t->hooks + len, sizeof(t->hooks) - len, "%s%s", len ? " " : "", event);
}

/* Attach every loaded program; links stay in the object until tracer_close(). */
static int attach_all(struct tracer *t, bool btf, size_t n_loaded, char *err, size_t errlen)
{
	struct bpf_program *p;
	bool attached[N_HOOKS] = {false};
	bpf_object__for_each_program(p, t->skel->obj)
	{
		bool is_btf;
		int h = hook_of(p, &is_btf);
		if (h < 0 || is_btf != btf || (size_t)h >= n_loaded)
			continue;
		if (h == HOOK_SYS_ENTER || h == HOOK_SYS_EXIT) {
			/* syscall tracepoints put every syscall of every task on the slow path:
			 * attached only while the topology has device models to watch */
			t->sys_progs[h - HOOK_SYS_ENTER] = p;
			attached[h] = true;
			continue;
		}
		struct bpf_link *link = bpf_program__attach(p);
		if (!link) {
			if (h == 0) {
				snprintf(err, errlen, "cannot attach %s: %s", hooks[h].event,
				         strerror(errno));
				return -1;
			}
			continue;
		}
		if (t->n_links < N_HOOKS)
			t->links[t->n_links++] = link;
		attached[h] = true;
		note_hook(t, hooks[h].event);
	}
	for (size_t h = 1; h < N_HOOKS; h++)
		if (!attached[h])
			fprintf(stderr, "xiotop: hook %s not active: %s\n", hooks[h].event,
			        hooks[h].loss);
	if (attached[HOOK_SYS_ENTER] && attached[HOOK_SYS_EXIT])
		note_hook(t, "sys_enter/sys_exit(while device models run)");
	t->has_cpu = attached[4];
	t->has_dirty = attached[5];
	return 0;
}

/* Attach or detach the syscall hooks as device models appear and leave. */
static void want_syscall_hooks(struct tracer *t, bool want)
{
	if (!t->sys_progs[0] || !t->sys_progs[1] || want == (t->sys_links[0] != NULL))
		return;
	for (int i = 0; i < 2; i++) {
		if (want) {
			t->sys_links[i] = bpf_program__attach(t->sys_progs[i]);
			if (!t->sys_links[i])
				fprintf(stderr, "xiotop: cannot attach %s: %s\n",
				        hooks[HOOK_SYS_ENTER + i].event, strerror(errno));
		} else {
			bpf_link__destroy(t->sys_links[i]);
			t->sys_links[i] = NULL;
		}
	}
}

int tracer_open(struct tracer **out, char *err, size_t errlen)
{
	*out = NULL;
	if (geteuid() != 0) {
		snprintf(err, errlen, "live tracing needs root (CAP_BPF and CAP_PERFMON)");
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen,
		         "kernel BTF (/sys/kernel/btf/vmlinux) is missing: "
		         "CONFIG_DEBUG_INFO_BTF=y is needed");
		return -1;
	}
	libbpf_set_print(libbpf_quiet_print);
	struct work_fns fns = {.loop_rootcg = kallsyms_addr("loop_rootcg_workfn"),
	                       .loop_worker = kallsyms_addr("loop_workfn"),
	                       .writeback = kallsyms_addr("wb_workfn")};
	if (!fns.loop_rootcg && !fns.loop_worker)
		fprintf(stderr, "xiotop: loop work functions not in /proc/kallsyms: loop "
		                "direct I/O is attributed by inode only, loop CPU not at all\n");
	if (!fns.writeback)
		fprintf(stderr, "xiotop: wb_workfn not in /proc/kallsyms: flusher CPU is "
		                "unattributed\n");

	struct tracer *t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* XIOTOP_FORCE_RAW_TP=1 exercises the fallback on kernels where tp_btf works */
	const char *force_raw = getenv("XIOTOP_FORCE_RAW_TP");
	size_t n_loaded = 0;
	t->mode = "tp_btf";
	if (!force_raw || strcmp(force_raw, "1"))
		t->skel = load_best(SET_BTF, &fns, &n_loaded);
	if (!t->skel) {
		t->mode = "raw_tp";
		t->skel = load_best(SET_RAW, &fns, &n_loaded);
	}
	if (!t->skel) {
		snprintf(err, errlen, "BPF programs cannot load (tp_btf nor raw_tp): %s",
		         libbpf_last_error[0] ? libbpf_last_error : "unknown libbpf error");
		free(t);
		return -1;
	}
	if (attach_all(t, !strcmp(t->mode, "tp_btf"), n_loaded, err, errlen))
		goto fail;
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		snprintf(err, errlen, "cannot count possible CPUs");
		goto fail;
	}
	t->percpu_io = calloc((size_t)t->ncpus, sizeof(*t->percpu_io));
	t->percpu_u64 = calloc((size_t)t->ncpus, sizeof(*t->percpu_u64));
	if (!t->percpu_io || !t->percpu_u64) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	*out = t;
	return 0;
fail:
	tracer_close(t);
	return -1;
}

const char *tracer_mode(const struct tracer *t)
{
	return t->mode;
}

const char *tracer_hooks(const struct tracer *t)
{
	return t->hooks;
}

static void clear_map(int fd, size_t key_size)
{
	unsigned char key[64], next[64];
	/* deleting while iterating restarts from the first key each time */
	while (key_size <= sizeof(key) && !bpf_map_get_next_key(fd, NULL, next)) {
		memcpy(key, next, key_size);
		if (bpf_map_delete_elem(fd, key))
			break;
	}
}

static void set_dev_owner(int fd, uint32_t dev, uint32_t domid, unsigned int flags)
{
	struct dev_owner o = {0};
	if (!bpf_map_lookup_elem(fd, &dev, &o) && o.domid != domid)
		fprintf(stderr, "xiotop: device %u:%u is claimed by domains %u and %u\n",
		        XT_KDEV_MAJOR(dev), XT_KDEV_MINOR(dev), o.domid, domid);
	o.domid = domid;
	o.flags |= flags;
	bpf_map_update_elem(fd, &dev, &o, BPF_ANY);
}

static void map_backend(struct tracer *t, const struct xt_roots *roots, uint32_t domid,
                        const struct xt_backend *b)
{
	int dev_fd = bpf_map__fd(t->skel->maps.dev_dom);
	int inode_fd = bpf_map__fd(t->skel->maps.inode_dom);
	bool above_file = true; /* only devices above the backing file are the domain's own */

	for (size_t i = 0; i < b->n_layers; i++) {
		const struct xt_layer *l = &b->layers[i];
		if (l->role == XT_ROLE_FILE) {
			above_file = false;
			if (l->ino) {
				struct xiotop_inode_key k = {.ino = l->ino, .fs_dev = l->fs_dev};
				bpf_map_update_elem(inode_fd, &k, &domid, BPF_ANY);
			}
			continue;
		}
		if (!above_file || !l->dev)
			continue;
		struct xt_devinfo info;
		unsigned int flags = l->role == XT_ROLE_BACKEND ? DEV_IS_BACKEND : 0;
		if (!topo_devinfo(roots, l->dev, &info) && info.is_loop)
			flags |= DEV_IS_LOOP;
		if (flags)
			set_dev_owner(dev_fd, l->dev, domid, flags);
	}
}

/* Field 22 of /proc/<pid>/stat: the start time that tells a reused pid apart. */
static int proc_start_ticks(const struct xt_roots *roots, int pid, unsigned long long *ticks)
{
	char path[256], buf[1024];
	snprintf(path, sizeof(path), "%s/%d/stat", roots->proc ? roots->proc : "/proc", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: fields resume after the last ')' */
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	int field = 2;
	for (p++; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	return sscanf(p, "%llu", ticks) == 1 ? 0 : -1;
}

int tracer_set_topology(struct tracer *t, const struct xt_topology *topo,
                        const struct xt_roots *roots)
{
	int dev_fd = bpf_map__fd(t->skel->maps.dev_dom);
	int inode_fd = bpf_map__fd(t->skel->maps.inode_dom);
	int tgid_fd = bpf_map__fd(t->skel->maps.tgid_dom);
	int bits_fd = bpf_map__fd(t->skel->maps.tgid_bits);
	/* zero the bitmap words of the device models being forgotten */
	uint32_t tgid, next_tgid;
	const uint32_t *prev_tgid = NULL;
	while (!bpf_map_get_next_key(tgid_fd, prev_tgid, &next_tgid)) {
		tgid = next_tgid;
		prev_tgid = &tgid;
		uint32_t word = tgid >> 6;
		uint64_t zero = 0;
		bpf_map_update_elem(bits_fd, &word, &zero, BPF_ANY);
	}
	clear_map(dev_fd, sizeof(uint32_t));
	clear_map(inode_fd, sizeof(struct xiotop_inode_key));
	clear_map(tgid_fd, sizeof(uint32_t));
	bool device_models = false;
	for (size_t i = 0; i < topo->n_domains; i++) {
		const struct xt_domain *d = &topo->domains[i];
		device_models |= d->device_model_pid > 0;
		for (size_t j = 0; j < d->n_backends; j++)
			if (!d->backends[j].missing)
				map_backend(t, roots, d->domid, &d->backends[j]);
		if (d->device_model_pid > 0 &&
		    d->device_model_pid < XIOTOP_TGID_BITMAP_WORDS * 64) {
			uint32_t dm_tgid = (uint32_t)d->device_model_pid, word = dm_tgid >> 6;
			uint64_t bits = 0;
			struct xiotop_dm_owner owner = {.domid = d->domid};
			if (proc_start_ticks(roots, d->device_model_pid, &owner.start_ticks)) {
				fprintf(stderr,
				        "xiotop: device model pid %d of domain %u is not running\n",
				        d->device_model_pid, d->domid);
				continue;
			}
			bpf_map_update_elem(tgid_fd, &dm_tgid, &owner, BPF_ANY);
			bpf_map_lookup_elem(bits_fd, &word, &bits);
			bits |= 1ull << (dm_tgid & 63);
			bpf_map_update_elem(bits_fd, &word, &bits, BPF_ANY);
		}
	}
	want_syscall_hooks(t, device_models);
	return 0;
}

static uint64_t read_stat(struct tracer *t, uint32_t idx)
{
	uint64_t sum = 0;
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stats), &idx, t->percpu_u64))
		return 0;
	for (int c = 0; c < t->ncpus; c++)
		sum += t->percpu_u64[c];
	return sum;
}

static struct xs_dom_counters *counters_for(struct xs_sample *s, uint32_t domid)
{
	struct xs_dom_counters *c = (struct xs_dom_counters *)sample_counters(s, domid);
	if (c)
		return c;
	struct xs_dom_counters fresh = {.domid = domid, .guest_cpu_ns = -1};
	if (sample_add_counters(s, &fresh))
		return NULL;
	return &s->counters[s->n_counters - 1];
}

/* Per-domain on-CPU time by role into the sample's domain counters. */
static int read_cpu(struct tracer *t, struct xs_sample *s)
{
	int fd = bpf_map__fd(t->skel->maps.cpu_ns);
	struct xiotop_cpu_key key, next;
	const struct xiotop_cpu_key *prev = NULL;
	s->has_cpu = true;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, t->percpu_u64) || key.role >= XIOTOP_CPU_ROLES)
			continue;
		uint64_t ns = 0;
		for (int c = 0; c < t->ncpus; c++)
			ns += t->percpu_u64[c];
		struct xs_dom_counters *c = counters_for(s, key.domid);
		if (!c)
			return -1;
		c->cpu_ns[key.role] += ns;
	}
	return 0;
}

/* Page-cache bytes dirtied and written back per domain. */
static int read_dirty(struct tracer *t, struct xs_sample *s)
{
	int fd = bpf_map__fd(t->skel->maps.dirty);
	uint32_t key, next;
	const uint32_t *prev = NULL;
	s->has_dirty = true;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		struct xiotop_dirty d;
		if (bpf_map_lookup_elem(fd, &key, &d))
			continue;
		struct xs_dom_counters *c = counters_for(s, key);
		if (!c)
			return -1;
		c->dirtied_bytes = d.dirtied_bytes;
		c->written_back_bytes = d.written_back_bytes;
	}
	return 0;
}

int tracer_read(struct tracer *t, struct xs_sample *s)
{
	int fd = bpf_map__fd(t->skel->maps.layer_io);
	struct xiotop_layer_key key, next;
	const struct xiotop_layer_key *prev = NULL;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, t->percpu_io))
			continue; /* deleted meanwhile */
		struct xs_layer l = {.domid = key.domid, .dev = key.dev, .via = key.via};
		for (int c = 0; c < t->ncpus; c++) {
			l.io.rd_bytes += t->percpu_io[c].rd_bytes;
			l.io.wr_bytes += t->percpu_io[c].wr_bytes;
			l.io.rd_ios += t->percpu_io[c].rd_ios;
			l.io.wr_ios += t->percpu_io[c].wr_ios;
		}
		if (sample_add_layer(s, &l))
			return -1;
	}
	if (t->has_cpu && read_cpu(t, s))
		return -1;
	s->lost_events = read_stat(t, XIOTOP_STAT_LOST_LAYER) +
	                 read_stat(t, XIOTOP_STAT_LOST_REMAP) + read_stat(t, XIOTOP_STAT_LOST_CPU);
	if (t->has_cpu)
		s->cpu_unattributed_ns = read_stat(t, XIOTOP_STAT_UNATTR_CPU_NS);
	if (t->has_dirty && read_dirty(t, s))
		return -1;
	return 0;
}

void tracer_close(struct tracer *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_links; i++)
		bpf_link__destroy(t->links[i]);
	want_syscall_hooks(t, false);
	xiotop_bpf__destroy(t->skel);
	free(t->percpu_io);
	free(t->percpu_u64);
	free(t);
}
