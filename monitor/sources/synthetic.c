/* synthetic.c - fabricated domains for benchmarks and demos; see synthetic.h. */
#include "sources/synthetic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"

#define MB       1000000.0
#define SDA      ((8u << 20) | 0)  /* leaf under the loop-backed files */
#define SDB      ((8u << 20) | 16) /* leaf under the dm devices */
#define SDC      ((8u << 20) | 32) /* leaf the qdisk device models write */
#define LOOP(i)  ((7u << 20) | (i))
#define DM(i)    ((253u << 20) | (i))
#define WB_LAG_S 5.0 /* loop-backed writes reach the disk this late */

enum stack { STACK_LOOP_FILE, STACK_DM, STACK_QDISK };

struct synthetic {
	unsigned n;
	bool latency;      /* the domains' I/O is timed (latency[]) */
	uint64_t start_ns; /* CLOCK_MONOTONIC at open */
};

static uint64_t monotonic_ns(void)
{
	return (uint64_t)clock_mono_ns();
}

struct synthetic *synthetic_open(unsigned n_domains, bool latency)
{
	if (!n_domains || n_domains > SYNTHETIC_MAX_DOMAINS)
		return NULL;
	struct synthetic *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->n = n_domains;
	s->latency = latency;
	s->start_ns = monotonic_ns();
	return s;
}

void synthetic_close(struct synthetic *s)
{
	free(s);
}

static enum stack stack_of(unsigned domid)
{
	return (enum stack)((domid - 1) % 3);
}

/* Bytes a domain moved by time t at base rate `rate` (bytes/s), varying by +-50 % over a
 * period of its own: the integral of rate * (1 + sin(w t + phase) / 2), so it never
 * decreases and rates differ between intervals. */
static double moved(unsigned domid, double rate, double t)
{
	if (t <= 0 || rate <= 0)
		return 0;
	double w = 2 * M_PI / (20.0 + domid % 40);
	double phase = domid;
	return rate * (t + 0.5 / w * (cos(phase) - cos(w * t + phase)));
}

static double write_rate(unsigned domid)
{
	return domid % 7 == 0 ? 0 : (double)(domid * 37 % 50 + 1) * MB;
}

static double read_rate(unsigned domid)
{
	return domid % 7 == 0 ? 0 : (double)(domid * 13 % 20) * MB;
}

static int add_layer(struct xio_sample *out, uint32_t domid, uint32_t dev, uint32_t via, double rd,
                     double wr, double bs)
{
	struct xio_layer l = {.domid = domid, .dev = dev, .via = via};
	l.io.rd_bytes = (uint64_t)rd;
	l.io.wr_bytes = (uint64_t)wr;
	l.io.rd_ios = (uint64_t)(rd / bs);
	l.io.wr_ios = (uint64_t)(wr / bs);
	return sample_add_layer(out, &l);
}

static int add_dev(struct xio_sample *out, uint32_t dev, const char *name, bool leaf)
{
	struct xio_dev d = {.dev = dev, .is_leaf = leaf};
	snprintf(d.name, sizeof(d.name), "%s", name);
	return sample_add_dev(out, &d);
}

/* A domain's latency histogram of one op after `ios` requests, shaped as the live tests'
 * backends show theirs: eight adjacent log2 buckets around the stack's median (a 64 KiB
 * loop request ~150 us, a dm one ~250 us, a device model's syscall ~400 us; 1 MiB eight
 * times longer), a long tail on the slow side. Each bucket grows with ios, so the
 * histogram is cumulative and never goes back, as the tracer's. */
static int add_latency(struct xio_sample *out, uint32_t domid, uint32_t op, double ios,
                       enum stack st, double bs)
{
	static const unsigned shape[8] = {2, 8, 30, 35, 15, 6, 3, 1}; /* per cent */
	if (ios < 1)
		return 0; /* no request yet: no histogram, as a domain the tracer never timed */
	int median = st == STACK_LOOP_FILE ? 17 : st == STACK_DM ? 18 : 19; /* 2^17 ns ~131 us */
	median += bs > 65536 ? 3 : 0;
	struct xio_latency l = {.domid = domid, .op = op};
	for (int i = 0; i < 8; i++) {
		int b = median - 3 + i;
		uint64_t n = (uint64_t)(ios * shape[i] / 100);
		l.hist.buckets[b] = n;
		l.hist.count += n;
		l.hist.sum_ns += n * (3ull << (b - 1)); /* the bucket's middle, 1.5 * 2^b */
	}
	return sample_add_latency(out, &l);
}

/* Running totals while one sample is built. */
struct totals {
	double disk_rd[3], disk_wr[3]; /* sda, sdb, sdc */
	double vmstat_rd, vmstat_wr;
	uint64_t cpu_ns;
};

static int add_domain(struct xio_sample *out, unsigned domid, double t, struct totals *tot,
                      bool latency)
{
	struct xio_domain dom = {.domid = domid};
	enum stack st = stack_of(domid);
	snprintf(dom.name, sizeof(dom.name), "synth%03u", domid);
	snprintf(dom.kind, sizeof(dom.kind), "%s", st == STACK_QDISK ? "qdisk" : "vbd");
	if (st == STACK_LOOP_FILE)
		snprintf(dom.file, sizeof(dom.file), "/srv/xen/synth%03u.img", domid);
	if (sample_add_domain(out, &dom))
		return -1;

	double rd = moved(domid, read_rate(domid), t), wr = moved(domid, write_rate(domid), t);
	double bs = domid % 2 ? 65536 : 1048576;
	char name[32];
	struct xio_dom_counters c = {.domid = domid};
	c.cpu_ns[XIO_CPU_BACKEND] = (uint64_t)(rd + wr); /* 1 ns a byte */
	c.guest_cpu_ns = (int64_t)(t * (double)NS_PER_S * (0.05 + (domid % 10) / 10.0));
	int rc = 0;
	switch (st) {
	case STACK_LOOP_FILE: {
		/* loopN (counted by vmstat) -> file in dom0's page cache -> sda, late */
		double written_back = moved(domid, write_rate(domid), t - WB_LAG_S);
		snprintf(name, sizeof(name), "loop%u", domid);
		rc |= add_dev(out, LOOP(domid), name, false);
		rc |= add_layer(out, domid, LOOP(domid), XIOTOP_VIA_DEV, rd, wr, bs);
		rc |= add_layer(out, domid, SDA, XIOTOP_VIA_INODE, 0, written_back, 524288);
		tot->disk_wr[0] += written_back;
		tot->vmstat_rd += rd;
		tot->vmstat_wr += wr + written_back;
		c.dirtied_bytes = (uint64_t)wr;
		c.written_back_bytes = (uint64_t)written_back;
		c.cpu_ns[XIO_CPU_LOOP] = (uint64_t)(1.5 * wr);
		c.cpu_ns[XIO_CPU_WRITEBACK] = (uint64_t)(0.5 * written_back);
		break;
	}
	case STACK_DM:
		/* dm-N (counted) -> remapped clone on sdb (not counted again) */
		snprintf(name, sizeof(name), "dm-%u", domid);
		rc |= add_dev(out, DM(domid), name, false);
		rc |= add_layer(out, domid, DM(domid), XIOTOP_VIA_TASK, rd, wr, bs);
		rc |= add_layer(out, domid, SDB, XIOTOP_VIA_REMAP, rd, wr, bs);
		tot->disk_rd[1] += rd;
		tot->disk_wr[1] += wr;
		tot->vmstat_rd += rd;
		tot->vmstat_wr += wr;
		break;
	case STACK_QDISK:
		/* the device model submits to sdc itself */
		rc |= add_layer(out, domid, SDC, XIOTOP_VIA_TASK, rd, wr, bs);
		tot->disk_rd[2] += rd;
		tot->disk_wr[2] += wr;
		tot->vmstat_rd += rd;
		tot->vmstat_wr += wr;
		c.cpu_ns[XIO_CPU_BACKEND] = 0;
		c.cpu_ns[XIO_CPU_DEVICE_MODEL] = (uint64_t)(3 * (rd + wr));
		break;
	}
	if (latency) {
		rc |= add_latency(out, domid, XIOTOP_LAT_READ, rd / bs, st, bs);
		rc |= add_latency(out, domid, XIOTOP_LAT_WRITE, wr / bs, st, bs);
	}
	for (int r = 0; r < XIO_CPU_ROLES; r++)
		tot->cpu_ns += c.cpu_ns[r];
	return rc || sample_add_counters(out, &c) ? -1 : 0;
}

int synthetic_sample_at(const struct synthetic *s, uint64_t elapsed_ns, int64_t realtime_ns,
                        struct xio_sample *out)
{
	memset(out, 0, sizeof(*out));
	double t = (double)elapsed_ns / (double)NS_PER_S;
	out->realtime_ns = realtime_ns;
	out->monotonic_ns = s->start_ns + elapsed_ns;
	out->has_cpu = out->has_dirty = true;
	out->has_latency = s->latency;
	snprintf(out->hooks, sizeof(out->hooks), "synthetic (no tracer)");

	struct totals tot = {0};
	static const char *const leaf_names[3] = {"sda", "sdb", "sdc"};
	static const uint32_t leaves[3] = {SDA, SDB, SDC};
	struct xio_domain dom0 = {.domid = 0};
	snprintf(dom0.name, sizeof(dom0.name), "Domain-0");
	int rc = sample_add_domain(out, &dom0);
	for (int i = 0; i < 3; i++)
		rc |= add_dev(out, leaves[i], leaf_names[i], true);
	for (unsigned d = 1; d <= s->n && !rc; d++)
		rc |= add_domain(out, d, t, &tot, s->latency);

	/* dom0's own writes (logs and the like): shown as unattributed */
	double unattr = 0.5 * MB * t;
	rc |= add_layer(out, XIOTOP_DOM_NONE, SDA, XIOTOP_VIA_NONE, 0, unattr, 4096);
	tot.disk_wr[0] += unattr;
	tot.vmstat_wr += unattr;
	for (int i = 0; i < 3 && !rc; i++) {
		struct xio_disk k = {.dev = leaves[i]};
		snprintf(k.name, sizeof(k.name), "%s", leaf_names[i]);
		k.rd_bytes = (uint64_t)tot.disk_rd[i];
		k.wr_bytes = (uint64_t)tot.disk_wr[i];
		k.rd_ios = k.rd_bytes / 65536;
		k.wr_ios = k.wr_bytes / 65536;
		rc |= sample_add_disk(out, &k);
	}
	out->vmstat_pgpgin_kb = (uint64_t)(tot.vmstat_rd / 1024);
	out->vmstat_pgpgout_kb = (uint64_t)(tot.vmstat_wr / 1024);
	out->cpu_unattributed_ns = (uint64_t)(0.01e9 * t);
	/* dom0 busy: the work for domains, the unattributed share, 5 % of a core of its own */
	out->host_busy_ns = tot.cpu_ns + out->cpu_unattributed_ns + (uint64_t)(0.05e9 * t);
	if (rc) {
		sample_free(out);
		return -1;
	}
	return 0;
}

_Static_assert(SOURCE_FAILED == -1, "synthetic_sample's failure is a source's");

int synthetic_sample(void *ctx, struct xio_sample *out)
{
	const struct synthetic *s = ctx;
	return synthetic_sample_at(s, monotonic_ns() - s->start_ns, clock_real_ns(), out);
}

struct sample_source synthetic_source(struct synthetic *s)
{
	return source_runtime(s, synthetic_sample, "synthetic", "out of memory");
}
