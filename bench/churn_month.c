/* churn_month.c - a month of 10-second samples through the recorder in minutes: the
 * samples carry a synthetic clock (10 s apart), cut into daily files named and pruned as
 * `xiotop record --dir --period 1d --retain` does (record/rec_dir.h), while domains are
 * created and destroyed: SLOTS domains live at a time and one of them is replaced every
 * SAMPLES / CHURN samples, CHURN in all, each new one with a new domid, name, uuid and vbd
 * instance and its counters from zero, on its slot's loop device (Xen reuses them). Each
 * sample is built afresh and goes through model_compute() with the one before, as the
 * recorder's interval loop does.
 *
 * It reads its own RSS (VmRSS) and open file descriptors (/proc/self/fd) every simulated
 * hour and prints them after the first hour, at their highest and at the end; exit 1 when
 * either ends more than 10 % above the first hour's. bench/churn_month.sh runs it.
 *
 *   churn_month DIR [DAYS] [SLOTS] [CHURN]        (30 days, 20 slots, 10,000 domains)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/model.h"
#include "record/rec_dir.h"
#include "record/record.h"

#define STEP_NS   10000000000ll /* one sample every 10 s */
#define HOUR      360           /* samples */
#define DAY_NS    86400000000000ll
#define RETAIN_NS (3 * DAY_NS)
#define HOST_DISK ((8u << 20) | 0)
#define LOOP(i)   ((7u << 20) | (i))

struct slot {
	uint32_t domid;
	uint64_t wr, rd, cpu, guest_cpu, instance;
};

struct world {
	struct slot *slots;
	unsigned n_slots;
	uint32_t next_domid;
	unsigned created;
	uint64_t disk_wr, vmstat_out, busy, unattributed;
	uint64_t rng;
};

static uint64_t rnd(struct world *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static void new_domain(struct world *w, struct slot *s)
{
	memset(s, 0, sizeof(*s));
	s->domid = w->next_domid++;
	s->instance = 1000000ull + s->domid;
	w->created++;
}

static int add_slot(struct xio_sample *out, struct world *w, unsigned i)
{
	struct slot *s = &w->slots[i];
	uint64_t wr = (rnd(w) % 8000000) & ~4095ull, rd = wr / 4;
	s->wr += wr;
	s->rd += rd;
	s->cpu += wr / 4;
	s->guest_cpu += rnd(w) % 10000000000ull;
	w->disk_wr += wr;
	w->vmstat_out += 2 * wr;
	w->busy += wr / 4;
	struct xio_domain dom = {.domid = s->domid, .generation = 1, .mem_bytes = 1ull << 31};
	snprintf(dom.name, sizeof(dom.name), "guest-%u", s->domid);
	snprintf(dom.kind, sizeof(dom.kind), "vbd");
	snprintf(dom.file, sizeof(dom.file), "/srv/xen/guest-%u.img", s->domid);
	snprintf(dom.uuid, sizeof(dom.uuid), "%08x-5d1b-4c36-9a4e-6c2f0e1d0000", s->domid);
	struct xio_dev dev = {.dev = LOOP(i)};
	snprintf(dev.name, sizeof(dev.name), "loop%u", i);
	int rc = sample_add_domain(out, &dom) | sample_add_dev(out, &dev);
	const uint32_t via[3] = {XIOTOP_VIA_DEV, XIOTOP_VIA_INODE, XIOTOP_VIA_LOOPWORK};
	for (int l = 0; l < 3; l++) {
		struct xio_layer layer = {
		    .domid = s->domid, .dev = l ? HOST_DISK : LOOP(i), .via = via[l]};
		layer.io.wr_bytes = l == 2 ? s->wr / 8 : s->wr;
		layer.io.rd_bytes = s->rd;
		layer.io.wr_ios = s->wr / 65536;
		layer.io.rd_ios = s->rd / 65536;
		rc |= sample_add_layer(out, &layer);
	}
	struct xio_dom_counters c = {.domid = s->domid, .guest_cpu_ns = (int64_t)s->guest_cpu};
	c.cpu_ns[XIO_CPU_BACKEND] = s->cpu;
	c.dirtied_bytes = s->wr;
	c.written_back_bytes = s->wr;
	struct xio_vbd_stat v = {.domid = s->domid,
	                         .devid = 51712,
	                         .backend_dev = LOOP(i),
	                         .instance = s->instance,
	                         .wr_bytes = s->wr,
	                         .rd_bytes = s->rd};
	return rc | sample_add_counters(out, &c) | sample_add_vbd_stat(out, &v);
}

/* Sample i, built afresh as the live collector builds each one. */
static int build(struct xio_sample *out, struct world *w, unsigned long i)
{
	memset(out, 0, sizeof(*out));
	out->realtime_ns = 1767225600000000000ll + (int64_t)i * STEP_NS; /* 2026-01-01 */
	out->monotonic_ns = 1000000000ull + (uint64_t)i * STEP_NS;
	out->has_cpu = out->has_dirty = out->domains_live = out->has_vbd_stats = true;
	snprintf(out->hooks, sizeof(out->hooks), "block_bio_queue block_bio_remap");
	struct xio_domain dom0 = {.domid = 0};
	snprintf(dom0.name, sizeof(dom0.name), "Domain-0");
	struct xio_dev sda = {.dev = HOST_DISK, .is_leaf = true};
	snprintf(sda.name, sizeof(sda.name), "sda");
	int rc = sample_add_domain(out, &dom0) | sample_add_dev(out, &sda);
	for (unsigned s = 0; s < w->n_slots; s++)
		rc |= add_slot(out, w, s);
	w->unattributed += rnd(w) % 100000000;
	out->cpu_unattributed_ns = w->unattributed;
	out->host_busy_ns = w->busy + w->unattributed;
	out->vmstat_pgpgout_kb = w->vmstat_out / 1024;
	struct xio_disk disk = {.dev = HOST_DISK, .wr_bytes = w->disk_wr};
	snprintf(disk.name, sizeof(disk.name), "sda");
	return rc | sample_add_disk(out, &disk);
}

struct usage {
	long rss_kib, fds;
	long long sqlite_bytes; /* SQLite's own heap (page cache included) */
};

static struct usage usage_now(void)
{
	struct usage u = {0, 0, sqlite3_memory_used()};
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			u.rss_kib = atol(line + 6);
	if (f)
		fclose(f);
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));)
		u.fds += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return u; /* the opendir's own descriptor counted, the same in every reading */
}

struct recorder {
	const char *dir;
	struct rec_writer *w;
	char path[4096];
	int64_t period_end_ns;
	unsigned files;
};

/* As `record --dir`: the sample crossing a period's end closes its file and opens the
 * next; the oldest files past the retention go. 0, or -1 (said). */
static int store(struct recorder *r, const struct xio_sample *s)
{
	struct xerr err;
	if (!r->w || s->realtime_ns >= r->period_end_ns) {
		if (r->w && (rec_append(r->w, s, &err) || rec_close(r->w, &err))) {
			fprintf(stderr, "churn_month: %s\n", err.msg);
			return -1;
		}
		r->period_end_ns = rec_dir_period_start(s->realtime_ns, DAY_NS) + DAY_NS;
		if (rec_dir_file_name(r->dir, s->realtime_ns, r->path, sizeof(r->path)) ||
		    !(r->w = rec_create(r->path, NULL, &err))) {
			fprintf(stderr, "churn_month: cannot create a file in %s: %s\n", r->dir,
			        r->w ? "" : err.msg);
			return -1;
		}
		r->files++;
		rec_dir_prune(r->dir, s->realtime_ns, RETAIN_NS, 0, r->path);
	}
	if (rec_append(r->w, s, &err)) {
		fprintf(stderr, "churn_month: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* One sample: built, stored, its interval computed. 0 or -1. */
static int step(struct recorder *r, struct world *w, struct xio_sample *prev, unsigned long i)
{
	struct xio_sample cur;
	if (build(&cur, w, i) || store(r, &cur)) {
		sample_free(&cur);
		return -1;
	}
	if (i) {
		struct model_interval m;
		if (model_compute(prev, &cur, &m))
			return -1;
		model_free(&m);
	}
	sample_free(prev);
	*prev = cur;
	return 0;
}

static void say(const char *when, struct usage u)
{
	printf("  %-26s RSS %6.1f MiB (SQLite's heap %4.1f MiB), %ld file descriptors\n", when,
	       u.rss_kib / 1024.0, u.sqlite_bytes / 1048576.0, u.fds);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: %s DIR [DAYS] [SLOTS] [CHURN]\n", argv[0]);
		return 2;
	}
	unsigned days = argc > 2 ? (unsigned)atoi(argv[2]) : 30;
	struct world w = {.n_slots = argc > 3 ? (unsigned)atoi(argv[3]) : 20,
	                  .rng = 88172645463325252ull};
	unsigned churn = argc > 4 ? (unsigned)atoi(argv[4]) : 10000;
	unsigned long samples = days * 24ul * HOUR;
	if (!days || !w.n_slots || w.n_slots > 1000 || churn > samples) {
		fprintf(stderr, "churn_month: DAYS > 0, SLOTS 1..1000, CHURN <= samples\n");
		return 2;
	}
	w.slots = calloc(w.n_slots, sizeof(*w.slots));
	w.next_domid = 1;
	for (unsigned i = 0; w.slots && i < w.n_slots; i++)
		new_domain(&w, &w.slots[i]);
	w.created = 0; /* the first ones are not churn */
	struct recorder r = {.dir = argv[1]};
	struct xio_sample prev = {0};
	struct usage first = {0, 0, 0}, day1 = {0, 0, 0}, peak = {0, 0, 0}, u = {0, 0, 0};
	unsigned long every = churn ? samples / churn : 0;
	for (unsigned long i = 0; w.slots && i < samples; i++) {
		if (every && i && i % every == 0 && w.created < churn)
			new_domain(&w, &w.slots[(i / every) % w.n_slots]);
		if (step(&r, &w, &prev, i))
			return 1;
		if ((i + 1) % HOUR)
			continue;
		u = usage_now();
		if (i + 1 == HOUR)
			first = u;
		if (i + 1 == 24 * HOUR)
			day1 = u;
		if ((i + 1) % (24 * HOUR) == 0 && getenv("CHURN_DAILY"))
			say("day:", u);
		peak.rss_kib = u.rss_kib > peak.rss_kib ? u.rss_kib : peak.rss_kib;
		peak.fds = u.fds > peak.fds ? u.fds : peak.fds;
		if (u.sqlite_bytes > peak.sqlite_bytes)
			peak.sqlite_bytes = u.sqlite_bytes;
	}
	struct xerr err;
	rec_close(r.w, &err);
	sample_free(&prev);
	char **left;
	long n_left = rec_dir_list(r.dir, &left);
	rec_dir_free_list(left, n_left);
	printf("%u days of 10 s samples (%lu), %u domains live at a time, %u created and "
	       "destroyed (domids up to %u); %u daily files made, %ld kept (retention 3 d)\n",
	       days, samples, w.n_slots, w.created, w.next_domid - 1, r.files, n_left);
	say("after the first hour:", first);
	say("after the first day:", day1);
	say("highest (hourly readings):", peak);
	say("at the end:", u);
	double rss = 100.0 * (u.rss_kib - first.rss_kib) / first.rss_kib;
	double fds = 100.0 * (u.fds - first.fds) / first.fds;
	printf(
	    "  end against the first hour: RSS %+.1f %%, fds %+.1f %% (limit +10 %%); against the "
	    "first day: RSS %+.1f %%\n",
	    rss, fds, 100.0 * (u.rss_kib - day1.rss_kib) / day1.rss_kib);
	free(w.slots);
	return rss <= 10 && fds <= 10 ? 0 : 1;
}
