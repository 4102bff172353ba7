/* record_size.c - writes DOMAINS synthetic domains over SAMPLES one-second samples through
 * the recorder (record.h) into a new file and prints its size; bench/record_size.sh turns
 * that into bytes per domain-sample.
 *
 * Each domain looks like a file-backed guest (the costliest common case): three layers
 * (its loop device as backend, the loop device's writes charged by inode at the host
 * disk, its reads via loop work), CPU on two roles, dirty and written-back bytes, guest
 * CPU, blkback's own counters for its vbd (a Xen dom0 reads them), and (unless LATENCY is 0,
 * the fourth argument) a read and a write latency histogram of its backend's requests, as
 * latency is timed by default: eight adjacent log2 buckets around ~150 us, the requests
 * of each second spread over them as the live tests' loop backends show; rates drawn per
 * domain between 1 and 40 MB/s and jittered each second, so the cumulative counters grow as
 * they would in an hour of benchmarks. With IDLE (the fifth argument 1) the domains did
 * that I/O before the recording and now rest, as most of a fleet's guests do most of the
 * time: nothing moves but each guest's vCPU time (0.5 to 5 ms a second) and its blkback
 * thread's CPU (10 to 50 us a second: it wakes every 100 ms for grant cleanup); with 2,
 * not even that (paused guests).
 * Deterministic. The samples are one second apart, so what waits is committed every
 * REC_COMMIT_AGE_NS / 1 s samples, as the recorder's commit rule does at -d 1 (or at 64
 * KiB, whichever comes first). Prints the file's size and what the program wrote to the
 * disk (write_bytes of /proc/self/io: every page it dirtied, its journal's included).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record/record.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t between(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

#define LAYERS_PER_DOMAIN 3
#define LAT_FIRST_BUCKET  14 /* 16 us: the shape's first bucket (median 2^17 ns) */

/* per cent of a second's requests in each of the eight buckets from LAT_FIRST_BUCKET */
static const unsigned lat_shape[8] = {2, 8, 30, 35, 15, 6, 3, 1};

/* n more requests into h, spread by lat_shape (what the per cents round off, to the
 * median), so that the buckets add up to the count */
static void lat_add(struct xiotop_lat *h, uint64_t n)
{
	uint64_t left = n;
	for (int i = 0; i < 8; i++) {
		uint64_t k = n * lat_shape[i] / 100;
		h->buckets[LAT_FIRST_BUCKET + i] += k;
		h->sum_ns += k * (3ull << (LAT_FIRST_BUCKET + i - 1));
		left -= k;
	}
	h->buckets[LAT_FIRST_BUCKET + 3] += left;
	h->sum_ns += left * (3ull << (LAT_FIRST_BUCKET + 2));
	h->count += n;
}
#define HOST_DISK ((8u << 20) | 0)

/* This process's write_bytes (/proc/self/io); 0 unknown. */
static uint64_t written_bytes(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	uint64_t v = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "write_bytes: %" SCNu64, &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* One second of domain d's I/O (busy) or rest (idle) into s. */
static void one_second(struct xio_sample *s, unsigned d, uint64_t rate, int idle, bool latency)
{
	struct xio_dom_counters *c = &s->counters[d];
	if (idle) {
		if (idle == 1) { /* 2: not even that (a paused guest) */
			c->cpu_ns[XIO_CPU_BACKEND] += between(10000, 50000);
			c->guest_cpu_ns += (int64_t)between(500000, 5000000);
		}
		return;
	}
	uint64_t wr = rate / 2 + between(0, rate);
	wr -= wr % 4096;
	uint64_t rd = wr / 4;
	rd -= rd % 4096;
	for (int l = 0; l < LAYERS_PER_DOMAIN; l++) {
		struct xiotop_io *io = &s->layers[d * LAYERS_PER_DOMAIN + l].io;
		io->wr_bytes += l == 2 ? wr / 8 : wr;
		io->rd_bytes += rd;
		io->wr_ios += wr / 65536 + 1;
		io->rd_ios += rd / 65536 + 1;
	}
	c->cpu_ns[XIO_CPU_BACKEND] += between(1000000, 100000000);
	c->cpu_ns[XIO_CPU_LOOP] += between(1000000, 50000000);
	c->dirtied_bytes += wr;
	c->written_back_bytes += wr - wr % 65536;
	c->guest_cpu_ns += (int64_t)between(100000000, 1000000000);
	struct xio_vbd_stat *v = &s->vbd_stats[d];
	v->wr_bytes += wr;
	v->rd_bytes += rd;
	v->wr_req += wr / 65536 + 1;
	v->rd_req += rd / 65536 + 1;
	v->f_req += between(0, 3);
	if (latency) {
		lat_add(&s->latency[2 * d + XIOTOP_LAT_READ].hist, rd / 65536 + 1);
		lat_add(&s->latency[2 * d + XIOTOP_LAT_WRITE].hist, wr / 65536 + 1);
	}
	s->vmstat_pgpgout_kb += 2 * wr / 1024;
	s->vmstat_pgpgin_kb += 2 * wr / 4096;
	s->disks[0].wr_bytes += wr;
	s->disks[0].wr_ios += wr / 65536;
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 6) {
		fprintf(stderr, "usage: %s OUT DOMAINS SAMPLES [LATENCY [IDLE]]\n", argv[0]);
		return 2;
	}
	bool latency = argc < 5 || atoi(argv[4]) != 0;
	int idle = argc > 5 ? atoi(argv[5]) : 0;
	unsigned n_dom = (unsigned)atoi(argv[2]);
	unsigned n_samples = (unsigned)atoi(argv[3]);
	if (!n_dom || !n_samples || n_dom > 4000) {
		fprintf(stderr, "record_size: DOMAINS 1..4000, SAMPLES > 0\n");
		return 2;
	}
	struct rec_host_facts facts;
	rec_host_facts_read("/proc", &facts);
	struct xerr err;
	struct rec_writer *w = rec_create(argv[1], &facts, &err);
	if (!w) {
		fprintf(stderr, "record_size: %s\n", err.msg);
		return 2;
	}
	struct xio_sample s;
	memset(&s, 0, sizeof(s));
	snprintf(s.hooks, sizeof(s.hooks), "block_bio_queue block_bio_remap sched_switch");
	s.has_cpu = s.has_dirty = s.domains_live = s.has_vbd_stats = true;
	s.has_latency = latency;
	uint64_t *rate = calloc(n_dom, sizeof(*rate));
	for (unsigned d = 0; d < n_dom; d++) {
		rate[d] = between(1000000, 40000000);
		uint32_t domid = d + 1, loop = (7u << 20) | d;
		struct xio_domain dom = {.domid = domid};
		snprintf(dom.name, sizeof(dom.name), "guest-%03u", domid);
		snprintf(dom.kind, sizeof(dom.kind), "vbd");
		snprintf(dom.file, sizeof(dom.file), "/var/lib/xen/images/guest-%03u.img", domid);
		snprintf(dom.uuid, sizeof(dom.uuid), "%08x-5d1b-4c36-9a4e-6c2f0e1d%04x", domid, d);
		dom.generation = 1;
		dom.mem_bytes = 2048ull << 20;
		sample_add_domain(&s, &dom);
		struct xio_dev dev = {.dev = loop};
		snprintf(dev.name, sizeof(dev.name), "loop%u", d);
		sample_add_dev(&s, &dev);
		uint32_t via[LAYERS_PER_DOMAIN] = {XIOTOP_VIA_DEV, XIOTOP_VIA_INODE,
		                                   XIOTOP_VIA_LOOPWORK};
		for (int l = 0; l < LAYERS_PER_DOMAIN; l++) {
			struct xio_layer layer = {
			    .domid = domid, .dev = l ? HOST_DISK : loop, .via = via[l]};
			sample_add_layer(&s, &layer);
		}
		struct xio_dom_counters c = {.domid = domid};
		sample_add_counters(&s, &c);
		struct xio_vbd_stat v = {
		    .domid = domid, .devid = 51712, .backend_dev = loop, .instance = 1000 + d};
		sample_add_vbd_stat(&s, &v);
		for (uint32_t op = 0; latency && op < XIOTOP_LAT_OPS; op++) {
			struct xio_latency l = {.domid = domid, .op = op};
			sample_add_latency(&s, &l);
		}
	}
	struct xio_dev sda = {.dev = HOST_DISK, .is_leaf = true};
	snprintf(sda.name, sizeof(sda.name), "sda");
	sample_add_dev(&s, &sda);
	struct xio_disk disk = {.dev = HOST_DISK};
	snprintf(disk.name, sizeof(disk.name), "sda");
	sample_add_disk(&s, &disk);

	/* idle: the hour of I/O before the recording */
	for (unsigned k = 0; idle && k < 3600; k++)
		for (unsigned d = 0; d < n_dom; d++)
			one_second(&s, d, rate[d], false, latency);
	const unsigned commit_every = (unsigned)(REC_COMMIT_AGE_NS / 1000000000);
	for (unsigned i = 0; i < n_samples; i++) {
		s.realtime_ns = 1700000000000000000ll + (int64_t)i * 1000000000;
		s.monotonic_ns = 5000000000000ull + (uint64_t)i * 1000000000;
		s.host_busy_ns += between(100000000, 4000000000);
		s.cpu_unattributed_ns += between(1000000, 100000000);
		for (unsigned d = 0; d < n_dom; d++)
			one_second(&s, d, rate[d], idle, latency);
		if (rec_append(w, &s, &err) ||
		    ((i + 1) % commit_every == 0 && rec_flush(w, &err))) {
			fprintf(stderr, "record_size: %s\n", err.msg);
			return 1;
		}
	}
	if (rec_close(w, &err)) {
		fprintf(stderr, "record_size: %s\n", err.msg);
		return 1;
	}
	free(rate);
	sample_free(&s);
	struct stat st;
	if (stat(argv[1], &st))
		return 1;
	uint64_t written = written_bytes();
	printf("%lld bytes, %u %s domains x %u samples%s: %.1f bytes per domain-sample; "
	       "%" PRIu64 " bytes written to the disk (%.2f x the file)\n",
	       (long long)st.st_size, n_dom,
	       idle == 2 ? "still"
	       : idle    ? "idle"
	                 : "busy",
	       n_samples, latency ? ", latency histograms" : ", no latency",
	       (double)st.st_size / ((double)n_dom * n_samples), written,
	       (double)written / (double)st.st_size);
	return 0;
}
