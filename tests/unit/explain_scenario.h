/* explain_scenario.h - builds recordings for explain's tests: domains on a path (phy,
 * file via loop, qemu) whose per-second guest, physical, dirty and CPU figures a test
 * gives, turned into cumulative samples written through the recorder (rec_create /
 * rec_append), with wrap or labelled marks. Header-only: included by test_explain*.c. */
#ifndef XIOTOP_TEST_EXPLAIN_SCENARIO_H
#define XIOTOP_TEST_EXPLAIN_SCENARIO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"
#include "explain/report/prose.h"
#include "explain/verdicts/verdicts.h"
#include "record/record.h"

#define MiB       (1024ull * 1024)
#define GiB       (1024ull * MiB)
#define LEAF      ((8u << 20) | 0) /* sda: the host disk */
#define T0        1714560000000000000ll
#define ROOT_DISK ((252u << 20) | 0) /* vda: dom0's root disk, when a scenario writes to it */

enum sc_path { SC_PHY, SC_FILE, SC_QEMU, SC_PART };

struct sc_dom {
	uint32_t domid;
	const char *name, *file;
	enum sc_path path;
	uint64_t mem_bytes;
	/* cumulative */
	uint64_t guest_wr, guest_rd, phys_wr, phys_rd, dirtied, written_back;
	uint64_t cpu_ns[XIO_CPU_ROLES];
	uint64_t guest_wr_ios, disk_wr_ios; /* 0: bytes / 64 KiB */
	uint64_t guest_rd_ios;              /* 0: bytes / 64 KiB */
	/* its guest layer's latency by op (XIOTOP_LAT_READ/WRITE), when the scenario times it */
	uint64_t lat_count[XIOTOP_LAT_OPS], lat_sum_ns[XIOTOP_LAT_OPS];
};

/* What one domain did in one second. guest_wr_ios: the requests it issued, disk_wr_ios:
 * the ones its disk took (0: one per 64 KiB). */
struct sc_step {
	uint64_t guest_wr, guest_rd, phys_wr, phys_rd, dirtied, written_back;
	uint64_t cpu_ns[XIO_CPU_ROLES];
	uint64_t guest_wr_ios, disk_wr_ios, guest_rd_ios;
	uint64_t lat_count[XIOTOP_LAT_OPS], lat_sum_ns[XIOTOP_LAT_OPS];
};

struct scenario {
	struct rec_writer *w;
	struct sc_dom doms[4];
	size_t n_doms;
	unsigned n;                                /* samples written */
	uint64_t pgpgout_kb, unattr_wr, unattr_rd; /* unattr_*: dom0's own bios (cumulative) */
	uint64_t root_wr; /* dom0's own writes to its root disk (vda, ROOT_DISK): other programs' */
	bool latency;     /* the samples hold latency histograms (has_latency) */
};

static inline uint32_t sc_backend_dev(const struct sc_dom *d)
{
	return d->path == SC_PHY ? ((252u << 20) | d->domid) : ((7u << 20) | d->domid);
}

static inline void sc_layer(struct xio_sample *s, uint32_t domid, uint32_t dev, uint32_t via,
                            uint64_t wr, uint64_t rd)
{
	struct xio_layer l = {.domid = domid, .dev = dev, .via = via};
	l.io.wr_bytes = wr;
	l.io.rd_bytes = rd;
	l.io.wr_ios = wr / 65536;
	l.io.rd_ios = rd / 65536;
	sample_add_layer(s, &l);
}

/* The guest's own layer, with its requests when the test gave them. */
static inline void sc_guest_layer(struct xio_sample *s, const struct sc_dom *d, uint32_t dev,
                                  uint32_t via)
{
	struct xio_layer l = {.domid = d->domid, .dev = dev, .via = via};
	l.io.wr_bytes = d->guest_wr;
	l.io.rd_bytes = d->guest_rd;
	l.io.wr_ios = d->guest_wr_ios ? d->guest_wr_ios : d->guest_wr / 65536;
	l.io.rd_ios = d->guest_rd_ios ? d->guest_rd_ios : d->guest_rd / 65536;
	sample_add_layer(s, &l);
}

/* The domain's latency histograms (count and sum; no buckets), both ops. */
static inline void sc_latency(struct xio_sample *s, const struct sc_dom *d)
{
	for (uint32_t op = 0; op < XIOTOP_LAT_OPS; op++) {
		struct xio_latency l = {.domid = d->domid, .op = op};
		l.hist.count = d->lat_count[op];
		l.hist.sum_ns = d->lat_sum_ns[op];
		sample_add_latency(s, &l);
	}
}

static inline void sc_dev(struct xio_sample *s, uint32_t dev, const char *name, bool leaf)
{
	struct xio_dev d = {.dev = dev, .is_leaf = leaf};
	snprintf(d.name, sizeof(d.name), "%s", name);
	sample_add_dev(s, &d);
}

/* The domain's bytes at the host disk below its file, with the bios the test gave. */
static inline void sc_leaf_layer(struct xio_sample *s, const struct sc_dom *d, uint32_t via)
{
	struct xio_layer l = {.domid = d->domid, .dev = LEAF, .via = via};
	l.io.wr_bytes = d->phys_wr;
	l.io.rd_bytes = d->phys_rd;
	l.io.wr_ios = d->disk_wr_ios;
	l.io.rd_ios = d->phys_rd / 65536;
	sample_add_layer(s, &l);
}

/* The domain's layers as the tracer would charge them. */
static inline void sc_dom_layers(struct xio_sample *s, const struct sc_dom *d)
{
	uint32_t be = sc_backend_dev(d);
	char name[32];
	switch (d->path) {
	case SC_PHY: /* the backend device is the leaf: guest bytes are physical bytes */
		snprintf(name, sizeof(name), "zram%u", d->domid);
		sc_dev(s, be, name, true);
		sc_guest_layer(s, d, be, XIOTOP_VIA_DEV);
		break;
	case SC_FILE:
	case SC_PART:
		snprintf(name, sizeof(name), d->path == SC_PART ? "loop%up1" : "loop%u", d->domid);
		sc_dev(s, be, name, false);
		sc_guest_layer(s, d, be, XIOTOP_VIA_DEV);
		if (d->path == SC_PART) {
			snprintf(name, sizeof(name), "loop%u", d->domid);
			sc_dev(s, be + 100, name, false);
			sc_layer(s, d->domid, be + 100, XIOTOP_VIA_PART, d->guest_wr, d->guest_rd);
		}
		sc_leaf_layer(s, d, XIOTOP_VIA_INODE);
		break;
	case SC_QEMU: /* qemu's reads and writes of the image, then its bios below the file */
		sc_guest_layer(s, d, 0, XIOTOP_VIA_FILEIO);
		sc_leaf_layer(s, d, XIOTOP_VIA_DMTASK);
		break;
	}
}

static inline void sc_append(struct scenario *sc)
{
	struct xio_sample s;
	memset(&s, 0, sizeof(s));
	s.realtime_ns = T0 + (int64_t)sc->n * 1000000000;
	s.monotonic_ns = 9000000000ull + sc->n * 1000000000ull;
	s.has_cpu = s.has_dirty = true;
	s.has_latency = sc->latency;
	snprintf(s.hooks, sizeof(s.hooks), "block_bio_queue writeback_dirty_folio sched_switch");
	sc_dev(&s, LEAF, "sda", true);
	uint64_t leaf_wr = sc->unattr_wr, leaf_rd = sc->unattr_rd;
	uint64_t leaf_wr_ios = sc->unattr_wr / 65536;
	for (size_t i = 0; i < sc->n_doms; i++) {
		const struct sc_dom *d = &sc->doms[i];
		struct xio_domain info = {
		    .domid = d->domid, .generation = 1, .mem_bytes = d->mem_bytes};
		snprintf(info.name, sizeof(info.name), "%s", d->name);
		snprintf(info.kind, sizeof(info.kind), d->path == SC_QEMU ? "qdisk" : "vbd");
		snprintf(info.file, sizeof(info.file), "%s", d->file ? d->file : "");
		sample_add_domain(&s, &info);
		sc_dom_layers(&s, d);
		if (sc->latency)
			sc_latency(&s, d);
		struct xio_dom_counters c = {.domid = d->domid, .guest_cpu_ns = -1};
		memcpy(c.cpu_ns, d->cpu_ns, sizeof(c.cpu_ns));
		c.dirtied_bytes = d->dirtied;
		c.written_back_bytes = d->written_back;
		sample_add_counters(&s, &c);
		if (d->path != SC_PHY) {
			leaf_wr += d->phys_wr;
			leaf_rd += d->phys_rd;
			leaf_wr_ios += d->disk_wr_ios;
		} else { /* its backend device is its disk (diskstats lists it) */
			struct xio_disk own = {.dev = sc_backend_dev(d),
			                       .wr_bytes = d->guest_wr,
			                       .rd_bytes = d->guest_rd,
			                       .wr_ios = d->disk_wr_ios,
			                       .rd_ios = d->guest_rd / 65536};
			snprintf(own.name, sizeof(own.name), "zram%u", d->domid);
			sample_add_disk(&s, &own);
		}
	}
	sc_layer(&s, XIOTOP_DOM_NONE, LEAF, XIOTOP_VIA_NONE, sc->unattr_wr, sc->unattr_rd);
	if (sc->root_wr) {
		sc_dev(&s, ROOT_DISK, "vda", true);
		sc_layer(&s, XIOTOP_DOM_NONE, ROOT_DISK, XIOTOP_VIA_NONE, sc->root_wr, 0);
		struct xio_disk root = {
		    .dev = ROOT_DISK, .wr_bytes = sc->root_wr, .wr_ios = sc->root_wr / 65536};
		snprintf(root.name, sizeof(root.name), "vda");
		sample_add_disk(&s, &root);
	}
	s.vmstat_pgpgout_kb = sc->pgpgout_kb;
	struct xio_disk disk = {.dev = LEAF,
	                        .rd_bytes = leaf_rd,
	                        .wr_bytes = leaf_wr,
	                        .wr_ios = leaf_wr_ios,
	                        .rd_ios = leaf_rd / 65536};
	snprintf(disk.name, sizeof(disk.name), "sda");
	sample_add_disk(&s, &disk);
	struct xerr err;
	if (rec_append(sc->w, &s, &err)) {
		fprintf(stderr, "rec_append: %s\n", err.msg);
		abort();
	}
	sample_free(&s);
	sc->n++;
}

static inline void sc_open(struct scenario *sc, const char *path, uint64_t dom0_mem_kb)
{
	memset(sc, 0, sizeof(*sc));
	struct rec_host_facts f;
	memset(&f, 0, sizeof(f));
	snprintf(f.kernel_release, sizeof(f.kernel_release), "6.1.0-test");
	snprintf(f.hostname, sizeof(f.hostname), "dom0");
	f.cpu_count = 4;
	f.mem_total_kb = dom0_mem_kb;
	static const char *const names[REC_DIRTY_SYSCTLS] = {"vm.dirty_ratio",
	                                                     "vm.dirty_background_ratio",
	                                                     "vm.dirty_bytes",
	                                                     "vm.dirty_background_bytes",
	                                                     "vm.dirty_expire_centisecs",
	                                                     "vm.dirty_writeback_centisecs"};
	static const char *const values[REC_DIRTY_SYSCTLS] = {"20", "10", "0", "0", "3000", "500"};
	for (int i = 0; i < REC_DIRTY_SYSCTLS; i++) {
		f.dirty[i].name = names[i];
		snprintf(f.dirty[i].value, sizeof(f.dirty[i].value), "%s", values[i]);
	}
	struct xerr err;
	sc->w = rec_create(path, &f, &err);
	if (!sc->w) {
		fprintf(stderr, "rec_create: %s\n", err.msg);
		abort();
	}
}

static inline struct sc_dom *sc_add_dom(struct scenario *sc, uint32_t domid, const char *name,
                                        enum sc_path path, const char *file, uint64_t mem)
{
	struct sc_dom *d = &sc->doms[sc->n_doms++];
	memset(d, 0, sizeof(*d));
	d->domid = domid;
	d->name = name;
	d->path = path;
	d->file = file;
	d->mem_bytes = mem;
	return d;
}

/* One second of d's activity (before sc_append). vmstat counts what was submitted. */
static inline void sc_step(struct scenario *sc, struct sc_dom *d, const struct sc_step *st)
{
	d->guest_wr += st->guest_wr;
	d->guest_rd += st->guest_rd;
	d->phys_wr += d->path == SC_PHY ? st->guest_wr : st->phys_wr;
	d->phys_rd += d->path == SC_PHY ? st->guest_rd : st->phys_rd;
	d->dirtied += st->dirtied;
	d->written_back += st->written_back;
	d->guest_wr_ios += st->guest_wr_ios ? st->guest_wr_ios : st->guest_wr / 65536;
	d->guest_rd_ios += st->guest_rd_ios ? st->guest_rd_ios : st->guest_rd / 65536;
	for (int op = 0; op < XIOTOP_LAT_OPS; op++) {
		d->lat_count[op] += st->lat_count[op];
		d->lat_sum_ns[op] += st->lat_sum_ns[op];
	}
	d->disk_wr_ios += st->disk_wr_ios     ? st->disk_wr_ios
	                  : d->path == SC_PHY ? st->guest_wr / 65536
	                                      : st->phys_wr / 65536;
	for (int r = 0; r < XIO_CPU_ROLES; r++)
		d->cpu_ns[r] += st->cpu_ns[r];
	uint64_t vm = d->path == SC_PHY    ? st->guest_wr
	              : d->path == SC_QEMU ? st->phys_wr
	                                   : st->guest_wr + st->phys_wr;
	sc->pgpgout_kb += vm / 1024;
}

/* A mark at sample time + offset_s. */
static inline void sc_mark(struct scenario *sc, const char *label, double at_s, const char *origin,
                           int exit_status)
{
	struct xerr err;
	if (rec_add_mark_from(sc->w, label, T0 + (int64_t)(at_s * 1e9), origin, exit_status, &err))
		abort();
}

static inline void sc_close(struct scenario *sc)
{
	struct xerr err;
	if (rec_close(sc->w, &err))
		abort();
}

static inline const struct ex_verdict *sc_verdict(const struct explain *ex, const char *id,
                                                  uint32_t domid)
{
	for (size_t i = 0; i < ex->n_verdicts; i++)
		if (!strcmp(ex_verdict_key(ex->verdicts[i].id), id) &&
		    ex->verdicts[i].domid == domid)
			return &ex->verdicts[i];
	return NULL;
}

static inline double sc_fig(const struct ex_verdict *v, const char *key)
{
	for (size_t i = 0; v && i < v->n_figures; i++)
		if (!strcmp(ex_key_name(v->figures[i].key), key))
			return v->figures[i].null ? -1 : v->figures[i].value;
	return -2;
}

static inline const char *sc_fig_str(const struct ex_verdict *v, const char *key)
{
	for (size_t i = 0; v && i < v->n_figures; i++)
		if (!strcmp(ex_key_name(v->figures[i].key), key))
			return v->figures[i].str;
	return "";
}

/* The words of v, as the reports write them (one of 4 rotating buffers); "" for NULL. */
static inline const char *sc_text(const struct explain *ex, const struct ex_verdict *v)
{
	static char buf[4][PROSE_MAX];
	static int next;
	char *t = buf[next++ % 4];
	t[0] = '\0';
	if (v)
		prose_verdict(ex, v, t, PROSE_MAX);
	return t;
}

/* A comparison's summary and a cause's words. */
static inline const char *sc_compare_text(const struct ex_compare *c)
{
	static char buf[PROSE_MAX];
	prose_compare(c, buf, sizeof(buf));
	return buf;
}

static inline const char *sc_cause_text(const struct ex_compare *c, size_t i)
{
	static char buf[512];
	prose_cause(c, &c->causes[i], buf, sizeof(buf));
	return buf;
}

/* A recording explained: open, collect (from/to NULL: default window), verdicts. */
static inline int sc_explain(const char *path, const char *from, const char *to, struct explain *ex,
                             struct rec_reader **r, struct xerr *err)
{
	*r = rec_open(path, err);
	if (!*r)
		return -1;
	if (explain_collect(*r, from, to, ex, err)) {
		rec_reader_close(*r);
		*r = NULL;
		return -1;
	}
	explain_verdicts(ex);
	return 0;
}

#endif
