/* tracer.c - BPF load (tp_btf, else raw_tp), attach, counter reads; the topology into
 * the lookup maps is tracer_topology.c. */
#include "sources/tracer.h"

#include "core/error.h"

#include <errno.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/latency.h"
#include "sources/hostinfo.h"
#include "sources/kallsyms.h"
#include "sources/tracer_internal.h"
#include "xiotop.skel.h"

#define KALLSYMS "/proc/kallsyms"

/* Work-function addresses and page size the programs need before load. */
static void hook_config_init(struct hook_config *cfg)
{
	cfg->loop_rootcg_workfn = kallsyms_addr(KALLSYMS, "loop_rootcg_workfn");
	cfg->loop_workfn = kallsyms_addr(KALLSYMS, "loop_workfn");
	cfg->wb_workfn = kallsyms_addr(KALLSYMS, "wb_workfn");
	cfg->bio_chain_endio = kallsyms_addr(KALLSYMS, "bio_chain_endio");
	cfg->page_size = (unsigned int)sysconf(_SC_PAGESIZE);
	if (!cfg->loop_rootcg_workfn && !cfg->loop_workfn)
		xnote("loop work functions not in /proc/kallsyms: loop "
		      "direct I/O is attributed by inode only, loop CPU not at all");
	if (!cfg->wb_workfn)
		xnote("wb_workfn not in /proc/kallsyms: flusher CPU is "
		      "unattributed");
}

/* tp_btf first, raw_tp when tp_btf will not load even block_bio_queue. */
static int load_hooks(struct tracer *t, bool latency, struct xerr *err)
{
	struct hook_config cfg;
	hook_config_init(&cfg);
	cfg.latency = latency;
	struct xerr btf_err = {.msg = "not tried (XIOTOP_FORCE_RAW_TP=1)"};
	/* XIOTOP_FORCE_RAW_TP=1 exercises the fallback on kernels where tp_btf works */
	const char *force_raw = getenv("XIOTOP_FORCE_RAW_TP");
	t->mode = "tp_btf";
	if ((!force_raw || strcmp(force_raw, "1")) && !hooks_load(&t->hooks, true, &cfg, &btf_err))
		return 0;
	t->mode = "raw_tp";
	struct xerr raw_err;
	if (!hooks_load(&t->hooks, false, &cfg, &raw_err))
		return 0;
	xerr_set(err, XERR_PREREQ, "BPF programs cannot load: %.250s; %.250s", btf_err.msg,
	         raw_err.msg);
	return -1;
}

/* One pass of the task iterator: it charges every thread its runtime growth since the
 * last pass (cpu.bpf.h). It prints nothing; reading to the end runs it. */
static int run_task_pass(struct tracer *t)
{
	int fd = bpf_iter_create(bpf_link__fd(t->hooks.links[HOOK_TASK_PASS]));
	if (fd < 0) {
		if (!t->pass_failed)
			xnote("cannot run the task pass: %s", strerror(errno));
		t->pass_failed = true;
		return -1;
	}
	char buf[64];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		;
	int saved = errno;
	close(fd);
	if (n < 0) {
		if (!t->pass_failed)
			xnote("task pass failed: %s", strerror(saved));
		t->pass_failed = true;
		return -1;
	}
	return 0;
}

/* An mmapable array map, mapped read-only: read each interval without a system call.
 * Its length in *len (0 when not mapped). */
static const void *map_array(const struct bpf_map *m, size_t elem, size_t *len, const char *what,
                             struct xerr *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	*len = (bpf_map__max_entries(m) * elem + page - 1) / page * page;
	void *p = mmap(NULL, *len, PROT_READ, MAP_SHARED, bpf_map__fd(m), 0);
	if (p == MAP_FAILED) {
		xerr_set(err, XERR_RUNTIME, "cannot map the %s: %s", what, strerror(errno));
		*len = 0;
		return NULL;
	}
	return p;
}

/* The layer slots, and the latency slots when latency is timed. */
static int map_slots(struct tracer *t, struct xerr *err)
{
	t->n_slots = bpf_map__max_entries(t->skel->maps.layer_slots);
	t->slots = map_array(t->skel->maps.layer_slots, sizeof(*t->slots), &t->slots_len,
	                     "layer counters", err);
	if (!t->slots)
		return -1;
	if (!t->has_latency)
		return 0;
	t->n_lat_slots = bpf_map__max_entries(t->skel->maps.lat_slots);
	struct xerr why;
	t->lat_slots = map_array(t->skel->maps.lat_slots, sizeof(*t->lat_slots), &t->lat_slots_len,
	                         "latency histograms", &why);
	if (!t->lat_slots) { /* latency is not worth a failed start: on without it */
		hooks_drop_latency(&t->hooks, why.msg);
		hooks_describe(&t->hooks, t->hooks_line, sizeof(t->hooks_line));
		t->has_latency = false;
	}
	return 0;
}

int tracer_can_load(struct xerr *err)
{
	if (geteuid() != 0) {
		xerr_set(err, XERR_PREREQ, "live tracing needs root (CAP_BPF and CAP_PERFMON)");
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		xerr_set(err, XERR_PREREQ,
		         "kernel BTF (/sys/kernel/btf/vmlinux) is missing: "
		         "CONFIG_DEBUG_INFO_BTF=y is needed");
		return -1;
	}
	return 0;
}

int tracer_open(struct tracer **out, bool latency, struct xerr *err)
{
	*out = NULL;
	if (tracer_can_load(err))
		return -1;
	struct tracer *t = calloc(1, sizeof(*t));
	if (!t) {
		xerr_set(err, XERR_NOMEM, "out of memory");
		return -1;
	}
	if (load_hooks(t, latency, err)) {
		free(t);
		return -1;
	}
	t->skel = t->hooks.skel;
	if (hooks_attach(&t->hooks, err))
		goto fail;
	hooks_report_missing(&t->hooks);
	hooks_describe(&t->hooks, t->hooks_line, sizeof(t->hooks_line));
	t->has_cpu = t->hooks.attached[HOOK_TASK_PASS];
	if (t->has_cpu && run_task_pass(t)) /* the baseline: runtime before now is no one's */
		t->has_cpu = false;
	t->has_dirty = t->hooks.attached[HOOK_DIRTY_FOLIO];
	t->has_latency = hooks_latency(&t->hooks);
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		xerr_set(err, XERR_RUNTIME, "cannot count possible CPUs");
		goto fail;
	}
	t->percpu_io = calloc((size_t)t->ncpus, sizeof(*t->percpu_io));
	t->percpu_u64 = calloc((size_t)t->ncpus, sizeof(*t->percpu_u64));
	t->percpu_lat = calloc((size_t)t->ncpus, sizeof(*t->percpu_lat));
	t->percpu_lat_again = calloc((size_t)t->ncpus, sizeof(*t->percpu_lat_again));
	if (!t->percpu_io || !t->percpu_u64 || !t->percpu_lat || !t->percpu_lat_again) {
		xerr_set(err, XERR_NOMEM, "out of memory");
		goto fail;
	}
	if (map_slots(t, err))
		goto fail;
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
	return t->hooks_line;
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

static struct xio_dom_counters *counters_for(struct xio_sample *s, uint32_t domid)
{
	struct xio_dom_counters *c = (struct xio_dom_counters *)sample_counters(s, domid);
	if (c)
		return c;
	struct xio_dom_counters fresh = {.domid = domid, .guest_cpu_ns = -1};
	if (sample_add_counters(s, &fresh))
		return NULL;
	return &s->counters[s->n_counters - 1];
}

#define SAME_ROLE(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME_ROLE(XIOTOP_CPU_BACKEND, XIO_CPU_BACKEND) &&
                   SAME_ROLE(XIOTOP_CPU_DEVICE_MODEL, XIO_CPU_DEVICE_MODEL) &&
                   SAME_ROLE(XIOTOP_CPU_LOOP, XIO_CPU_LOOP) &&
                   SAME_ROLE(XIOTOP_CPU_WRITEBACK, XIO_CPU_WRITEBACK) &&
                   SAME_ROLE(XIOTOP_CPU_ROLES, XIO_CPU_ROLES),
               "BPF CPU roles index the sample's cpu_ns[] directly");

/* Steps key to the map's next key (to its first while *started is false); false at the
 * end. The kernel reads the key before it writes the next one, so one buffer is both. */
static bool map_next_key(int fd, void *key, bool *started)
{
	if (bpf_map_get_next_key(fd, *started ? key : NULL, key))
		return false;
	*started = true;
	return true;
}

size_t tracer_extras(struct tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.dev_extras);
	uint32_t dev;
	bool started = false;
	size_t n = 0;
	while (n < XIOTOP_DEV_SLOTS && map_next_key(fd, &dev, &started)) {
		t->extras[n].dev = dev;
		if (!bpf_map_lookup_elem(fd, &dev, &t->extras[n].io))
			n++; /* else deleted meanwhile (never: entries stay) */
	}
	return n;
}

/* Per-domain on-CPU time by role into the sample's domain counters; *kworker_ns gets
 * what kworkers gave domains (loop and writeback), which the shared runtime holds too. */
static int read_cpu(struct tracer *t, struct xio_sample *s, uint64_t *kworker_ns)
{
	int fd = bpf_map__fd(t->skel->maps.cpu_ns);
	struct xiotop_cpu_key key;
	bool started = false;
	s->has_cpu = true;
	while (map_next_key(fd, &key, &started)) {
		if (bpf_map_lookup_elem(fd, &key, t->percpu_u64) || key.role >= XIOTOP_CPU_ROLES)
			continue;
		uint64_t ns = 0;
		for (int c = 0; c < t->ncpus; c++)
			ns += t->percpu_u64[c];
		struct xio_dom_counters *c = counters_for(s, key.domid);
		if (!c)
			return -1;
		c->cpu_ns[key.role] += ns;
		if (key.role == XIOTOP_CPU_LOOP || key.role == XIOTOP_CPU_WRITEBACK)
			*kworker_ns += ns;
	}
	return 0;
}

/* Unattributed CPU: the runtime of tasks serving no one domain less what kworkers among
 * them gave domains. A kworker's item can be charged before its runtime reaches the pass
 * (a running task's runtime lags by up to a tick), so the difference may dip: the value
 * given never decreases, the dip is absorbed by the next growth. */
static void read_unattributed(struct tracer *t, struct xio_sample *s, uint64_t kworker_ns)
{
	uint64_t shared = read_stat(t, XIOTOP_STAT_SHARED_RUNTIME_NS);
	uint64_t unattributed = shared > kworker_ns ? shared - kworker_ns : 0;
	if (unattributed > t->unattributed_ns)
		t->unattributed_ns = unattributed;
	s->cpu_unattributed_ns = t->unattributed_ns;
}

/* Page-cache bytes dirtied and written back per domain. */
static int read_dirty(struct tracer *t, struct xio_sample *s)
{
	int fd = bpf_map__fd(t->skel->maps.dirty);
	uint32_t key;
	bool started = false;
	s->has_dirty = true;
	while (map_next_key(fd, &key, &started)) {
		struct xiotop_dirty d;
		if (bpf_map_lookup_elem(fd, &key, &d))
			continue;
		struct xio_dom_counters *c = counters_for(s, key);
		if (!c)
			return -1;
		c->dirtied_bytes = d.dirtied_bytes;
		c->written_back_bytes = d.written_back_bytes;
	}
	return 0;
}

/* The sample's entry of (domid, op), added empty if it has none yet; NULL when out of
 * memory. */
static struct xio_latency *latency_entry(struct xio_sample *s, uint32_t domid, uint32_t op)
{
	for (size_t i = 0; i < s->n_latency; i++)
		if (s->latency[i].domid == domid && s->latency[i].op == op)
			return &s->latency[i];
	struct xio_latency l = {.domid = domid, .op = op};
	if (sample_add_latency(s, &l))
		return NULL;
	return &s->latency[s->n_latency - 1];
}

static struct xiotop_lat *latency_of(struct xio_sample *s, uint32_t domid, uint32_t op)
{
	struct xio_latency *l = latency_entry(s, domid, op);
	return l ? &l->hist : NULL;
}

/* One spilled histogram's per-CPU values, whole: copied by the kernel seq first, so a
 * value whose seq is even and unchanged in a second copy is whole. */
static int lat_lookup(struct tracer *t, int fd, const struct xiotop_lat_key *key)
{
	for (int i = 0; i < LATENCY_COPY_TRIES; i++) {
		if (bpf_map_lookup_elem(fd, key, t->percpu_lat))
			return -1;
		bool whole = true;
		for (int c = 0; c < t->ncpus && whole; c++)
			whole = !(t->percpu_lat[c].seq & 1);
		if (whole && !bpf_map_lookup_elem(fd, key, t->percpu_lat_again))
			for (int c = 0; c < t->ncpus && whole; c++)
				whole = t->percpu_lat_again[c].seq == t->percpu_lat[c].seq;
		if (whole)
			break;
		if (i >= 8)
			sched_yield();
	}
	for (int c = 0; c < t->ncpus; c++)
		latency_count_buckets(&t->percpu_lat[c]);
	return 0;
}

/* The latency histograms per (domain, op), summed over CPUs: the slots, then the hash. */
static int read_latency(struct tracer *t, struct xio_sample *s)
{
	s->has_latency = true;
	for (size_t i = 0; i < t->n_lat_slots; i++) {
		const struct xiotop_lat_slot *slot = &t->lat_slots[i];
		unsigned long long owner = __atomic_load_n(&slot->owner, __ATOMIC_ACQUIRE);
		if (!owner)
			continue; /* free */
		for (uint32_t op = 0; op < XIOTOP_LAT_OPS; op++) {
			struct xiotop_lat *h = latency_of(s, (uint32_t)(owner - 1), op), whole;
			if (!h)
				return -1;
			latency_copy_whole(&slot->lat[op], &whole);
			latency_merge(h, &whole);
		}
	}
	int fd = bpf_map__fd(t->skel->maps.lat_hist);
	struct xiotop_lat_key key;
	bool started = false;
	while (map_next_key(fd, &key, &started)) {
		if (lat_lookup(t, fd, &key))
			continue;
		struct xiotop_lat *h = latency_of(s, key.domid, key.op);
		if (!h)
			return -1;
		for (int c = 0; c < t->ncpus; c++)
			latency_merge(h, &t->percpu_lat[c]);
	}
	/* a domain a kind of whose backends no attached hook times: its histograms (of the
	 * other kinds, or none) are not its latency, said so per op, never 0 requests */
	for (size_t i = 0; i < t->n_untimed; i++)
		for (uint32_t op = 0; op < XIOTOP_LAT_OPS; op++) {
			struct xio_latency *l = latency_entry(s, t->untimed[i].domid, op);
			if (!l)
				return -1;
			l->untimed = t->untimed[i].untimed;
		}
	return 0;
}

static int push_layer(struct tracer *t, const struct xio_layer *l)
{
	if (t->n_layers_buf == t->layer_cap) {
		size_t cap = t->layer_cap ? 2 * t->layer_cap : 64;
		struct xio_layer *b = realloc(t->layer_buf, cap * sizeof(*b));
		if (!b)
			return -1;
		t->layer_buf = b;
		t->layer_cap = cap;
	}
	t->layer_buf[t->n_layers_buf++] = *l;
	return 0;
}

static void io_add(struct xiotop_io *sum, const struct xiotop_io *io)
{
	sum->rd_bytes += io->rd_bytes;
	sum->wr_bytes += io->wr_bytes;
	sum->rd_ios += io->rd_ios;
	sum->wr_ios += io->wr_ios;
}

/* The layers of the devices the kernel counts (dev_counts.h): the device's, and a
 * partition's stacked one on its whole disk. */
static int push_counted(struct tracer *t)
{
	for (size_t i = 0; i < t->dev_counts.n; i++) {
		const struct dev_count *e = &t->dev_counts.v[i];
		struct xio_layer l = {
		    .domid = e->src.domid, .dev = e->src.dev, .via = XIOTOP_VIA_DEV};
		l.io = dev_count_io(e);
		if (push_layer(t, &l))
			return -1;
		if (!e->src.whole)
			continue;
		l.dev = e->src.whole;
		l.via = XIOTOP_VIA_PART;
		if (push_layer(t, &l))
			return -1;
	}
	return 0;
}

/* Layer counters from the slots, the hash and diskstats, one entry per key in the sample. */
static int read_layers(struct tracer *t, struct xio_sample *s)
{
	t->n_layers_buf = 0;
	if (push_counted(t))
		return -1;
	for (size_t i = 0; i < t->n_slots; i++) {
		const struct xiotop_layer_slot *slot = &t->slots[i];
		unsigned long long via = __atomic_load_n(&slot->via, __ATOMIC_ACQUIRE);
		if (!via || via == XIOTOP_LAYER_CLAIMING)
			continue; /* free, or being claimed: nothing counted in it yet */
		struct xio_layer l = {.domid = slot->domid, .dev = slot->dev, .via = (uint32_t)via};
		l.io.rd_bytes = slot->io.rd_bytes;
		l.io.wr_bytes = slot->io.wr_bytes;
		l.io.rd_ios = slot->io.rd_ios;
		l.io.wr_ios = slot->io.wr_ios;
		if (push_layer(t, &l))
			return -1;
	}
	int fd = bpf_map__fd(t->skel->maps.layer_io);
	struct xiotop_layer_key key;
	bool started = false;
	while (map_next_key(fd, &key, &started)) {
		if (bpf_map_lookup_elem(fd, &key, t->percpu_io))
			continue; /* deleted meanwhile */
		struct xio_layer l = {.domid = key.domid, .dev = key.dev, .via = key.via};
		for (int c = 0; c < t->ncpus; c++)
			io_add(&l.io, &t->percpu_io[c]);
		if (push_layer(t, &l))
			return -1;
	}
	qsort(t->layer_buf, t->n_layers_buf, sizeof(*t->layer_buf), xio_layer_key_cmp);
	for (size_t i = 0; i < t->n_layers_buf;) {
		struct xio_layer l = t->layer_buf[i++];
		for (; i < t->n_layers_buf && !xio_layer_key_cmp(&l, &t->layer_buf[i]); i++)
			io_add(&l.io, &t->layer_buf[i].io);
		if (sample_add_layer(s, &l))
			return -1;
	}
	return 0;
}

uint64_t tracer_in_flight(const struct tracer *t, uint32_t dev)
{
	return dev_counts_in_flight(&t->dev_counts, dev);
}

const struct tracer_lost *tracer_lost(const struct tracer *t)
{
	return &t->lost;
}

int tracer_read(struct tracer *t, struct xio_sample *s)
{
	/* the pass first: the collector stamps the sample and reads /proc/stat just around
	 * this call, and the CPU figures are the ones held to that instant */
	if (t->has_cpu)
		run_task_pass(t); /* failing, it says so once; CPU then lags, it is not lost */
	uint64_t rq_missed = t->rq_watch.lost;
	if (t->proc_root[0]) {
		/* before the programs' counts: they see each request before diskstats counts it
		 * (rq_watch), and the devices the kernel counts are read here too */
		struct host_diskstat *ds = NULL;
		size_t n_ds = 0;
		if (!host_read_diskstats(t->proc_root, &ds, &n_ds)) {
			rq_missed = rq_watch_lost(&t->rq_watch, ds, n_ds,
			                          read_stat(t, XIOTOP_STAT_LATENCY_RQ_SEEN));
			/* the extras after diskstats: none missing for what it counted */
			dev_counts_read(&t->dev_counts, ds, n_ds, t->extras, tracer_extras(t));
		}
		free(ds);
	}
	if (read_layers(t, s))
		return -1;
	uint64_t kworker_ns = 0;
	if (t->has_cpu && read_cpu(t, s, &kworker_ns))
		return -1;
	struct tracer_lost *l = &t->lost;
	l->layer_map = read_stat(t, XIOTOP_STAT_LOST_LAYER);
	l->remap_map = read_stat(t, XIOTOP_STAT_LOST_REMAP);
	l->cpu_map = read_stat(t, XIOTOP_STAT_LOST_CPU);
	l->latency_map = read_stat(t, XIOTOP_STAT_LOST_LATENCY);
	l->latency_nested = t->has_latency ? hooks_latency_misses(&t->hooks) : 0;
	l->latency_displaced =
	    hooks_stamping(&t->hooks) ? read_stat(t, XIOTOP_STAT_LATENCY_DISPLACED) : 0;
	l->latency_unstamped = read_stat(t, XIOTOP_STAT_LATENCY_UNSTAMPED);
	l->latency_unseen = rq_missed;
	l->map_refused = map_updates_lost(&t->updates); /* topology entries the maps refused */
	s->lost_events = l->layer_map + l->remap_map + l->cpu_map + l->latency_map +
	                 l->latency_nested + l->latency_displaced + l->latency_unstamped +
	                 l->latency_unseen + l->map_refused;
	if (t->has_cpu)
		read_unattributed(t, s, kworker_ns);
	if (t->has_dirty && read_dirty(t, s))
		return -1;
	if (t->has_latency && read_latency(t, s))
		return -1;
	return 0;
}

void tracer_close(struct tracer *t)
{
	if (!t)
		return;
	hooks_close(&t->hooks);
	if (t->slots)
		munmap((void *)t->slots, t->slots_len);
	if (t->lat_slots)
		munmap((void *)t->lat_slots, t->lat_slots_len);
	free(t->layer_buf);
	free(t->percpu_io);
	free(t->percpu_u64);
	free(t->percpu_lat);
	free(t->percpu_lat_again);
	rq_watch_free(&t->rq_watch);
	dev_counts_free(&t->dev_counts);
	free(t->untimed);
	free(t);
}
