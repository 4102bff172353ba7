/* xiotop-emu: emulated Xen backends for live tests and the demo.
 *
 *   xiotop-emu blkback --domid N --target DEV ...   a thread named like a blkback kthread
 *                                                   ("<domid>.<vdev>-0") doing O_DIRECT I/O
 *   xiotop-emu qemu -xen-domid N --image FILE ...   a process posing as qemu writing an image
 *
 * Output (stdout): one start line "tid=<worker tid> pid=<pid>" once the worker thread has its
 * name (before any I/O), then one JSON line at the end. Exit codes: 0 done (also after
 * SIGINT/SIGTERM), 1 usage, 2 open or I/O failure. See tests/emu/README.md.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MIB             ((uint64_t)1024 * 1024)
#define ALIGN           ((uint64_t)4096)
#define QEMU_ARGV0      "qemu-system-i386"
#define EXIT_USAGE      1
#define EXIT_FAILURE_IO 2

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void die_usage(const char *fmt, ...)
{
	va_list ap;
	fputs("xiotop-emu: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(run 'xiotop-emu --help' for usage)\n", stderr);
	exit(EXIT_USAGE);
}

static void usage(FILE *out)
{
	fputs("usage:\n"
	      "  xiotop-emu blkback --domid N --target DEV [--vdev xvda] [--write-mib M]\n"
	      "      [--read-mib R] [--bs BYTES] [--pattern seq|rand] [--offset-mib O]\n"
	      "      [--old-name] [--repeat] [--pause SEC] [--rate-mib-s X] [--hold-after SEC]\n"
	      "      [--fsync] [--zero-data] [--aio]\n"
	      "  xiotop-emu qemu -xen-domid N --image FILE [--buffered-mib M] [--direct-mib D]\n"
	      "      [--pipe-mib P] [--bs BYTES] [--name NAME] [--fsync] [--wait-for FILE]\n"
	      "      [--hold-until FILE]\n"
	      "BYTES accepts a K or M suffix. The qemu mode re-executes itself as\n"
	      "'" QEMU_ARGV0 " -xen-domid N [-name guest=NAME] -drive file=FILE,...'.\n",
	      out);
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Until `path` exists (a test made it: it saw what it waits for), every 10 ms, at most
 * FILE_WAIT_S; a stop request ends the wait too. 0, or EXIT_FAILURE_IO said at the
 * timeout: a test that never made it is broken, not slow. */
#define FILE_WAIT_S 300
static int wait_for_file(const char *path, const char *what)
{
	double until = now_s() + FILE_WAIT_S;
	while (access(path, F_OK) != 0 && !stop_requested) {
		if (now_s() > until) {
			fprintf(stderr, "xiotop-emu: %s: %s did not appear in %d s\n", what, path,
			        FILE_WAIT_S);
			return EXIT_FAILURE_IO;
		}
		nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = 10000000}, NULL);
	}
	return 0;
}

/* Sleep until the monotonic time `until`, in short slices so a stop request is seen. */
static void sleep_until(double until)
{
	for (;;) {
		double left = until - now_s();
		if (left <= 0 || stop_requested)
			return;
		if (left > 0.1)
			left = 0.1;
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(left * 1e9)};
		nanosleep(&ts, NULL);
	}
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Block SIGINT/SIGTERM in the calling thread (threads created afterwards inherit it). */
static void block_signals(bool block)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* --- argument parsing helpers ---------------------------------------------------------- */

struct argcur {
	int argc;
	char **argv;
	int i;
	const char *inline_val; /* value after '=' in --opt=value */
};

/* Match argv[i] against an option name given without dashes; accepts -name, --name and
 * --name=value. */
static bool opt_is(struct argcur *c, const char *name)
{
	const char *a = c->argv[c->i];
	if (a[0] != '-')
		return false;
	a += (a[1] == '-') ? 2 : 1;
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return false;
	if (a[n] == '\0') {
		c->inline_val = NULL;
		return true;
	}
	if (a[n] == '=') {
		c->inline_val = a + n + 1;
		return true;
	}
	return false;
}

static const char *opt_val(struct argcur *c)
{
	if (c->inline_val)
		return c->inline_val;
	if (c->i + 1 >= c->argc)
		die_usage("option %s needs a value", c->argv[c->i]);
	return c->argv[++c->i];
}

static uint64_t parse_u64(const char *opt, const char *s, bool allow_suffix)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		die_usage("bad number '%s' for %s", s, opt);
	if (allow_suffix && *end) {
		uint64_t mul = 1;
		switch (*end) {
		case 'k':
		case 'K':
			mul = 1024;
			break;
		case 'm':
		case 'M':
			mul = MIB;
			break;
		default:
			die_usage("bad size suffix in '%s' for %s", s, opt);
		}
		if (end[1] != '\0')
			die_usage("bad size '%s' for %s", s, opt);
		if (v > UINT64_MAX / mul)
			die_usage("size '%s' too large for %s", s, opt);
		return v * mul;
	}
	if (*end)
		die_usage("bad number '%s' for %s", s, opt);
	return v;
}

static double parse_double(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v < 0)
		die_usage("bad value '%s' for %s", s, opt);
	return v;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* utime and stime (fields 14 and 15) from a /proc stat file; false on failure. */
static bool read_ticks(const char *path, unsigned long long *ut, unsigned long long *st)
{
	char buf[1024];
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	if (!p)
		return false;
	/* after ") " come field 3 (state) .. ; utime is field 14, i.e. the 12th after ')' */
	return sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", ut, st) == 2;
}

/* xorshift64*: fast non-cryptographic generator for data and offsets */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static uint64_t rng_seed(uint64_t extra)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t s = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
	             ((uint64_t)getpid() << 32) ^ (extra * 0x9E3779B97F4A7C15ULL);
	return s ? s : 0x1234567ULL;
}

/* Fill with pseudo-random bytes, none of them zero (zram stores zero/same-filled pages
 * specially; random data keeps every page a real one). */
static void fill_random(unsigned char *buf, size_t len, uint64_t *seed)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = rng_next(seed);
		for (size_t j = 0; j < 8 && i + j < len; j++) {
			unsigned char b = (unsigned char)(v >> (8 * j));
			buf[i + j] = b ? b : 0xa5;
		}
	}
}

/* Stamp each 4 KiB block of a write buffer with its offset and pass so blocks differ. */
static void stamp_blocks(unsigned char *buf, size_t len, uint64_t offset, uint64_t pass)
{
	for (size_t i = 0; i + 16 <= len; i += ALIGN) {
		uint64_t o = offset + i;
		memcpy(buf + i, &o, sizeof(o));
		memcpy(buf + i + 8, &pass, sizeof(pass));
	}
}

static void *aligned_buf(size_t len)
{
	void *p = NULL;
	if (posix_memalign(&p, ALIGN, len) != 0)
		return NULL;
	return p;
}

/* --- blkback ---------------------------------------------------------------------------- */

struct blk_opts {
	long domid;
	const char *vdev;
	const char *target;
	uint64_t write_bytes;
	uint64_t read_bytes;
	uint64_t bs;
	bool rand;
	uint64_t offset;
	bool old_name;
	bool repeat;
	double pause_s;
	double rate_mib_s;
	double hold_s;
	bool fsync;
	bool zero_data; /* write zeros: zram stores them without compressing */
	bool aio;       /* native AIO, completion polled: timed as blkback is completed */
};

/* Every request's own latency (clock_gettime around the syscall), for its quantiles. */
struct lat_log {
	uint64_t *ns;
	size_t n, cap;
	bool full; /* LAT_LOG_MAX reached: later requests not kept */
};
#define LAT_LOG_MAX (16u << 20)

static void lat_log_add(struct lat_log *l, uint64_t ns)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		uint64_t *p = cap <= LAT_LOG_MAX ? realloc(l->ns, cap * sizeof(*p)) : NULL;
		if (!p) {
			l->full = true;
			return;
		}
		l->ns = p;
		l->cap = cap;
	}
	l->ns[l->n++] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* "key":{"count":N,"p50_ns":..,"p99_ns":..,"mean_ns":..} (nearest-rank quantiles). */
static void lat_log_print(const char *key, struct lat_log *l)
{
	printf(",\"%s\":", key);
	if (!l->n) {
		printf("null");
		return;
	}
	qsort(l->ns, l->n, sizeof(*l->ns), cmp_u64);
	long double sum = 0;
	for (size_t i = 0; i < l->n; i++)
		sum += l->ns[i];
	size_t p50 = (l->n * 50 + 99) / 100, p99 = (l->n * 99 + 99) / 100;
	printf("{\"count\":%zu,\"p50_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64
	       ",\"mean_ns\":%.0Lf,\"complete\":%s}",
	       l->n, l->ns[p50 ? p50 - 1 : 0], l->ns[p99 ? p99 - 1 : 0], sum / l->n,
	       l->full ? "false" : "true");
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct blk_state {
	struct blk_opts o;
	int fd;
	char comm[32];
	/* results */
	pid_t tid;
	uint64_t wr_bytes, rd_bytes, wr_ios, rd_ios, passes;
	unsigned long long utime, stime;
	bool ticks_ok;
	long long runtime_ns; /* the worker's own CLOCK_THREAD_CPUTIME_ID as it ends; -1 unread */
	double elapsed;
	struct lat_log wr_lat, rd_lat;
	aio_context_t aio_ctx; /* --aio */
	int failed;            /* 0 ok, else exit code */
	/* pacing and slot order */
	double pace_t0;
	uint64_t pace_bytes;
	uint64_t seed;
	uint64_t region; /* bytes */
	uint64_t nslots;
	uint32_t *order;
};

static void pace(struct blk_state *s, uint64_t bytes)
{
	if (s->o.rate_mib_s <= 0)
		return;
	s->pace_bytes += bytes;
	sleep_until(s->pace_t0 + (double)s->pace_bytes / (s->o.rate_mib_s * (double)MIB));
}

static void make_order(struct blk_state *s)
{
	for (uint64_t i = 0; i < s->nslots; i++)
		s->order[i] = (uint32_t)i;
	if (!s->o.rand)
		return;
	for (uint64_t i = s->nslots; i > 1; i--) { /* Fisher-Yates: each slot exactly once */
		uint64_t j = rng_next(&s->seed) % i;
		uint32_t t = s->order[i - 1];
		s->order[i - 1] = s->order[j];
		s->order[j] = t;
	}
}

/* One request through native AIO (--aio), its completion polled rather than slept on:
 * blkback is completed by a callback in the bio's completion, and never waits for a
 * wakeup of its own thread, so neither does this measure one. Returns the bytes or -1. */
static ssize_t aio_rw(struct blk_state *s, bool is_write, void *buf, uint64_t len, off_t off)
{
	struct iocb cb;
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = (uint32_t)s->fd;
	cb.aio_lio_opcode = is_write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	cb.aio_nbytes = len;
	cb.aio_offset = off;
	struct iocb *list[1] = {&cb};
	if (syscall(SYS_io_submit, s->aio_ctx, 1, list) != 1)
		return -1;
	struct io_event ev;
	struct timespec zero = {0, 0};
	long got;
	while ((got = syscall(SYS_io_getevents, s->aio_ctx, 1, 1, &ev, &zero)) == 0)
		sched_yield(); /* a loop worker sharing this CPU runs now */
	if (got < 0)
		return -1;
	if (ev.res < 0) {
		errno = (int)-ev.res;
		return -1;
	}
	return (ssize_t)ev.res;
}

/* One phase: `total` bytes of writes or reads over the region, slot by slot in the current
 * order (a new order each time the region is exhausted). Returns false on failure. */
static bool blk_phase(struct blk_state *s, bool is_write, uint64_t total, unsigned char *buf)
{
	uint64_t done = 0, k = 0;
	while (done < total && !stop_requested) {
		if (k == s->nslots) {
			make_order(s);
			k = 0;
		}
		uint64_t slot = s->order[k++];
		uint64_t rel = slot * s->o.bs;
		uint64_t len = s->region - rel < s->o.bs ? s->region - rel : s->o.bs;
		if (len > total - done)
			len = total - done;
		off_t off = (off_t)(s->o.offset + rel);
		ssize_t r;
		uint64_t t0;
		if (is_write) {
			stamp_blocks(buf, len, (uint64_t)off, s->passes);
			t0 = mono_ns();
			r = s->o.aio ? aio_rw(s, true, buf, len, off)
			             : pwrite(s->fd, buf, len, off);
		} else {
			t0 = mono_ns();
			r = s->o.aio ? aio_rw(s, false, buf, len, off)
			             : pread(s->fd, buf, len, off);
		}
		lat_log_add(is_write ? &s->wr_lat : &s->rd_lat, mono_ns() - t0);
		if (r < 0 && errno == EINTR)
			r = 0; /* not expected for block devices; treat as short */
		if (r != (ssize_t)len) {
			if (r < 0)
				fprintf(stderr,
				        "xiotop-emu: %s of %" PRIu64
				        " bytes at offset %lld on %s: %s\n",
				        is_write ? "write" : "read", len, (long long)off,
				        s->o.target, strerror(errno));
			else
				fprintf(stderr,
				        "xiotop-emu: short %s on %s at offset %lld: %zd of %" PRIu64
				        " bytes\n",
				        is_write ? "write" : "read", s->o.target, (long long)off, r,
				        len);
			s->failed = EXIT_FAILURE_IO;
			return false;
		}
		if (is_write) {
			s->wr_bytes += len;
			s->wr_ios++;
		} else {
			s->rd_bytes += len;
			s->rd_ios++;
		}
		done += len;
		pace(s, len);
	}
	return true;
}

static void *blk_worker(void *arg)
{
	struct blk_state *s = arg;
	s->tid = my_tid();
	/* Name first: the tracer must see the blkback-like name on the very first bio. */
	if (prctl(PR_SET_NAME, s->comm, 0, 0, 0) != 0)
		fprintf(stderr, "xiotop-emu: prctl(PR_SET_NAME): %s\n", strerror(errno));
	printf("tid=%d pid=%d\n", (int)s->tid, (int)getpid());
	fflush(stdout);

	unsigned char *wbuf = aligned_buf(s->o.bs);
	unsigned char *rbuf = aligned_buf(s->o.bs);
	if (!wbuf || !rbuf) {
		fprintf(stderr, "xiotop-emu: out of memory for %" PRIu64 "-byte buffers\n",
		        s->o.bs);
		s->failed = EXIT_FAILURE_IO;
		free(wbuf);
		free(rbuf);
		return NULL;
	}
	if (s->o.zero_data)
		memset(wbuf, 0, s->o.bs);
	else
		fill_random(wbuf, s->o.bs, &s->seed);
	memset(rbuf, 0, s->o.bs);

	double t0 = now_s();
	s->pace_t0 = t0;
	for (;;) {
		make_order(s);
		if (!blk_phase(s, true, s->o.write_bytes, wbuf))
			break;
		if (s->o.fsync && s->o.write_bytes && !stop_requested && fsync(s->fd) != 0) {
			fprintf(stderr, "xiotop-emu: fsync %s: %s\n", s->o.target, strerror(errno));
			s->failed = EXIT_FAILURE_IO;
			break;
		}
		make_order(s);
		if (!blk_phase(s, false, s->o.read_bytes, rbuf))
			break;
		if (stop_requested)
			break;
		s->passes++;
		if (!s->o.repeat)
			break;
		if (s->o.pause_s > 0) {
			sleep_until(now_s() + s->o.pause_s);
			s->pace_t0 = now_s(); /* a burst after a pause is not a catch-up */
			s->pace_bytes = 0;
		}
	}
	s->elapsed = now_s() - t0;
	if (!s->failed && s->o.hold_s > 0 && !stop_requested) {
		fprintf(stderr, "xiotop-emu: %s: workload done, holding %s open for %.1f s\n",
		        s->comm, s->o.target, s->o.hold_s);
		sleep_until(now_s() + s->o.hold_s);
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)s->tid);
	s->ticks_ok = read_ticks(path, &s->utime, &s->stime);
	/* the kernel's runtime of this thread in ns (se.sum_exec_runtime, what schedstat and
	 * xiotop's task pass read), not cut down to ticks as utime and stime are */
	struct timespec cpu;
	s->runtime_ns = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0
	                    ? (long long)cpu.tv_sec * 1000000000LL + cpu.tv_nsec
	                    : -1;
	free(wbuf);
	free(rbuf);
	return NULL;
}

static int cmd_blkback(int argc, char **argv)
{
	struct blk_state s;
	memset(&s, 0, sizeof(s));
	s.fd = -1;
	s.o.domid = -1;
	s.o.vdev = "xvda";
	s.o.bs = MIB;
	const char *pattern = "seq";

	struct argcur c = {.argc = argc, .argv = argv, .i = 0, .inline_val = NULL};
	for (c.i = 0; c.i < argc; c.i++) {
		if (opt_is(&c, "domid"))
			s.o.domid = (long)parse_u64("--domid", opt_val(&c), false);
		else if (opt_is(&c, "vdev"))
			s.o.vdev = opt_val(&c);
		else if (opt_is(&c, "target"))
			s.o.target = opt_val(&c);
		else if (opt_is(&c, "write-mib"))
			s.o.write_bytes = parse_u64("--write-mib", opt_val(&c), false) * MIB;
		else if (opt_is(&c, "read-mib"))
			s.o.read_bytes = parse_u64("--read-mib", opt_val(&c), false) * MIB;
		else if (opt_is(&c, "bs"))
			s.o.bs = parse_u64("--bs", opt_val(&c), true);
		else if (opt_is(&c, "pattern"))
			pattern = opt_val(&c);
		else if (opt_is(&c, "offset-mib"))
			s.o.offset = parse_u64("--offset-mib", opt_val(&c), false) * MIB;
		else if (opt_is(&c, "old-name"))
			s.o.old_name = true;
		else if (opt_is(&c, "repeat"))
			s.o.repeat = true;
		else if (opt_is(&c, "pause"))
			s.o.pause_s = parse_double("--pause", opt_val(&c));
		else if (opt_is(&c, "rate-mib-s"))
			s.o.rate_mib_s = parse_double("--rate-mib-s", opt_val(&c));
		else if (opt_is(&c, "hold-after"))
			s.o.hold_s = parse_double("--hold-after", opt_val(&c));
		else if (opt_is(&c, "fsync"))
			s.o.fsync = true;
		else if (opt_is(&c, "zero-data"))
			s.o.zero_data = true;
		else if (opt_is(&c, "aio"))
			s.o.aio = true;
		else if (opt_is(&c, "help") || opt_is(&c, "h")) {
			usage(stdout);
			return 0;
		} else
			die_usage("blkback: unknown argument '%s'", argv[c.i]);
	}
	if (s.o.domid < 0 || s.o.domid > 0x7fef)
		die_usage("blkback: --domid N (0..32751) is required");
	if (!s.o.target)
		die_usage("blkback: --target PATH is required");
	if (!s.o.vdev[0] || strchr(s.o.vdev, '/'))
		die_usage("blkback: bad --vdev '%s'", s.o.vdev);
	if (strcmp(pattern, "seq") == 0)
		s.o.rand = false;
	else if (strcmp(pattern, "rand") == 0)
		s.o.rand = true;
	else
		die_usage("blkback: --pattern must be seq or rand, not '%s'", pattern);
	if (s.o.bs == 0 || s.o.bs % 512 != 0 || s.o.bs > 64 * MIB)
		die_usage("blkback: --bs must be a multiple of 512 bytes, at most 64M");
	if (s.o.write_bytes == 0 && s.o.read_bytes == 0)
		die_usage("blkback: nothing to do (give --write-mib and/or --read-mib)");
	if (s.o.repeat && s.o.write_bytes == 0 && s.o.rate_mib_s <= 0 && s.o.pause_s <= 0)
		fprintf(stderr, "xiotop-emu: warning: --repeat of reads only, without throttle\n");

	if (s.o.old_name)
		snprintf(s.comm, sizeof(s.comm), "blkback.%ld.%s", s.o.domid, s.o.vdev);
	else
		snprintf(s.comm, sizeof(s.comm), "%ld.%s-0", s.o.domid, s.o.vdev);

	/* Region: the range written (reads re-read it); a read-only run reads R MiB. */
	s.region = s.o.write_bytes ? s.o.write_bytes : s.o.read_bytes;
	s.nslots = (s.region + s.o.bs - 1) / s.o.bs;
	if (s.nslots > UINT32_MAX)
		die_usage("blkback: too many blocks; use a larger --bs");

	s.fd = open(s.o.target, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (s.fd < 0) {
		fprintf(stderr, "xiotop-emu: cannot open %s (O_RDWR|O_DIRECT): %s\n", s.o.target,
		        strerror(errno));
		return EXIT_FAILURE_IO;
	}
	struct stat st;
	if (fstat(s.fd, &st) != 0) {
		fprintf(stderr, "xiotop-emu: fstat %s: %s\n", s.o.target, strerror(errno));
		return EXIT_FAILURE_IO;
	}
	if (S_ISBLK(st.st_mode)) {
		uint64_t size = 0;
		int lbs = 512;
		if (ioctl(s.fd, BLKGETSIZE64, &size) != 0 || ioctl(s.fd, BLKSSZGET, &lbs) != 0) {
			fprintf(stderr, "xiotop-emu: cannot query size of %s: %s\n", s.o.target,
			        strerror(errno));
			return EXIT_FAILURE_IO;
		}
		if (lbs <= 0 || s.o.bs % (uint64_t)lbs != 0) {
			fprintf(stderr,
			        "xiotop-emu: --bs %" PRIu64
			        " is not a multiple of the logical block size %d of %s\n",
			        s.o.bs, lbs, s.o.target);
			return EXIT_FAILURE_IO;
		}
		if (s.o.offset + s.region > size) {
			fprintf(stderr,
			        "xiotop-emu: %s has %" PRIu64 " MiB; the workload needs %" PRIu64
			        " MiB from offset %" PRIu64 " MiB\n",
			        s.o.target, size / MIB, s.region / MIB, s.o.offset / MIB);
			return EXIT_FAILURE_IO;
		}
	} else if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "xiotop-emu: %s is neither a block device nor a file\n",
		        s.o.target);
		return EXIT_FAILURE_IO;
	}
	s.order = calloc(s.nslots, sizeof(*s.order));
	if (!s.order) {
		fprintf(stderr, "xiotop-emu: out of memory\n");
		return EXIT_FAILURE_IO;
	}
	s.seed = rng_seed((uint64_t)s.o.domid);
	if (s.o.aio && syscall(SYS_io_setup, 1, &s.aio_ctx) != 0) {
		fprintf(stderr, "xiotop-emu: io_setup: %s\n", strerror(errno));
		return EXIT_FAILURE_IO;
	}

	install_signals();
	block_signals(true); /* the worker inherits the mask; the main thread takes signals */
	pthread_t th;
	int err = pthread_create(&th, NULL, blk_worker, &s);
	block_signals(false);
	if (err) {
		fprintf(stderr, "xiotop-emu: pthread_create: %s\n", strerror(err));
		return EXIT_FAILURE_IO;
	}
	pthread_join(th, NULL);
	free(s.order);
	if (s.failed) {
		close(s.fd);
		return s.failed;
	}
	printf("{\"domid\":%ld,\"wr_bytes\":%" PRIu64 ",\"rd_bytes\":%" PRIu64
	       ",\"wr_ios\":%" PRIu64 ",\"rd_ios\":%" PRIu64 ",\"tid\":%d,\"pid\":%d,\"comm\":",
	       s.o.domid, s.wr_bytes, s.rd_bytes, s.wr_ios, s.rd_ios, (int)s.tid, (int)getpid());
	json_str(stdout, s.comm);
	if (s.ticks_ok)
		printf(",\"utime_ticks\":%llu,\"stime_ticks\":%llu", s.utime, s.stime);
	else
		printf(",\"utime_ticks\":null,\"stime_ticks\":null");
	if (s.runtime_ns >= 0)
		printf(",\"runtime_ns\":%lld", s.runtime_ns);
	else
		printf(",\"runtime_ns\":null");
	lat_log_print("wr_lat", &s.wr_lat);
	lat_log_print("rd_lat", &s.rd_lat);
	free(s.wr_lat.ns);
	free(s.rd_lat.ns);
	printf(",\"clk_tck\":%ld,\"passes\":%" PRIu64 ",\"elapsed_s\":%.3f,\"stopped\":%s}\n",
	       sysconf(_SC_CLK_TCK), s.passes, s.elapsed, stop_requested ? "true" : "false");
	fflush(stdout);
	/* Close last, after the summary, as blkback closes when the vbd is torn down. */
	close(s.fd);
	return 0;
}

/* --- qemu ------------------------------------------------------------------------------- */

struct qemu_state {
	long domid;
	char *image;
	const char *name;
	uint64_t buffered_bytes, direct_bytes, pipe_bytes_req, bs;
	bool fsync;
	const char *wait_path; /* before any I/O, after the re-exec: until it exists */
	const char *hold_path; /* after the workload: until it exists */
	/* results */
	pid_t tid;
	uint64_t wr_buffered, wr_direct, wr_ios, pipe_bytes;
	struct lat_log wr_lat; /* every image write's own latency */
	double elapsed;
	int failed;
};

/* qemu escapes ',' in option values by doubling it. */
static char *qemu_escape(const char *s)
{
	size_t n = strlen(s), extra = 0;
	for (size_t i = 0; i < n; i++)
		extra += s[i] == ',';
	char *out = malloc(n + extra + 1), *p = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		*p++ = s[i];
		if (s[i] == ',')
			*p++ = ',';
	}
	*p = '\0';
	return out;
}

/* Value of key `key` in a qemu option string "a=b,key=value,..." (",," is a literal comma);
 * a leading value without '=' counts as `implied`. Returns malloc'd or NULL. */
static char *qemu_optval(const char *s, const char *key, const char *implied)
{
	size_t klen = strlen(key);
	bool first = true;
	while (*s) {
		char *val = malloc(strlen(s) + 1), *v = val;
		if (!val)
			return NULL;
		while (*s) {
			if (*s == ',') {
				if (s[1] == ',') {
					*v++ = ',';
					s += 2;
					continue;
				}
				break;
			}
			*v++ = *s++;
		}
		*v = '\0';
		if (*s == ',')
			s++;
		if (strncmp(val, key, klen) == 0 && val[klen] == '=') {
			memmove(val, val + klen + 1, strlen(val + klen + 1) + 1);
			return val;
		}
		if (first && implied && strcmp(implied, key) == 0 && !strchr(val, '='))
			return val;
		free(val);
		first = false;
	}
	return NULL;
}

static bool write_all(int fd, const unsigned char *buf, uint64_t len, off_t off, const char *what,
                      const char *path, struct qemu_state *q)
{
	uint64_t t0 = mono_ns();
	ssize_t r = pwrite(fd, buf, len, off);
	lat_log_add(&q->wr_lat, mono_ns() - t0);
	if (r == (ssize_t)len)
		return true;
	if (r < 0)
		fprintf(stderr, "xiotop-emu: %s write at offset %lld on %s: %s\n", what,
		        (long long)off, path, strerror(errno));
	else
		fprintf(stderr,
		        "xiotop-emu: short %s write on %s at offset %lld: %zd of %" PRIu64 "\n",
		        what, path, (long long)off, r, len);
	q->failed = EXIT_FAILURE_IO;
	return false;
}

static void *qemu_worker(void *arg)
{
	struct qemu_state *q = arg;
	q->tid = my_tid();
	prctl(PR_SET_NAME, "worker", 0, 0, 0); /* qemu's thread-pool threads are "worker" */
	printf("tid=%d pid=%d\n", (int)q->tid, (int)getpid());
	fflush(stdout);

	static unsigned char sink[64 * 1024];
	uint64_t seed = rng_seed((uint64_t)q->domid);
	unsigned char *buf = aligned_buf(q->bs);
	int fd = -1, dfd = -1, pfd[2] = {-1, -1};
	double t0 = now_s();
	if (!buf) {
		fprintf(stderr, "xiotop-emu: out of memory\n");
		q->failed = EXIT_FAILURE_IO;
		goto out;
	}
	fill_random(buf, q->bs, &seed);

	fd = open(q->image, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "xiotop-emu: cannot open %s: %s\n", q->image, strerror(errno));
		q->failed = EXIT_FAILURE_IO;
		goto out;
	}
	for (uint64_t off = 0; off < q->buffered_bytes && !stop_requested; off += q->bs) {
		uint64_t len = q->buffered_bytes - off < q->bs ? q->buffered_bytes - off : q->bs;
		stamp_blocks(buf, len, off, 0);
		if (!write_all(fd, buf, len, (off_t)off, "buffered", q->image, q))
			goto out;
		q->wr_buffered += len;
		q->wr_ios++;
	}
	if (q->fsync && q->wr_buffered && fdatasync(fd) != 0) {
		fprintf(stderr, "xiotop-emu: fdatasync %s: %s\n", q->image, strerror(errno));
		q->failed = EXIT_FAILURE_IO;
		goto out;
	}
	if (q->direct_bytes && !stop_requested) {
		dfd = open(q->image, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (dfd < 0) {
			fprintf(stderr, "xiotop-emu: cannot open %s with O_DIRECT: %s\n", q->image,
			        strerror(errno));
			q->failed = EXIT_FAILURE_IO;
			goto out;
		}
		/* the direct region starts after the buffered one, MiB-aligned */
		uint64_t base = (q->buffered_bytes + MIB - 1) / MIB * MIB;
		for (uint64_t off = 0; off < q->direct_bytes && !stop_requested; off += q->bs) {
			uint64_t len =
			    q->direct_bytes - off < q->bs ? q->direct_bytes - off : q->bs;
			stamp_blocks(buf, len, base + off, 0);
			if (!write_all(dfd, buf, len, (off_t)(base + off), "O_DIRECT", q->image, q))
				goto out;
			q->wr_direct += len;
			q->wr_ios++;
		}
		if (q->fsync && fdatasync(dfd) != 0) {
			fprintf(stderr, "xiotop-emu: fdatasync %s: %s\n", q->image,
			        strerror(errno));
			q->failed = EXIT_FAILURE_IO;
			goto out;
		}
	}
	if (q->pipe_bytes_req && !stop_requested) {
		/* bytes through a pipe the process drains itself: I/O that is not disk I/O */
		if (pipe2(pfd, O_CLOEXEC) != 0) {
			fprintf(stderr, "xiotop-emu: pipe: %s\n", strerror(errno));
			q->failed = EXIT_FAILURE_IO;
			goto out;
		}
		const uint64_t chunk = sizeof(sink) < q->bs ? sizeof(sink) : q->bs;
		while (q->pipe_bytes < q->pipe_bytes_req && !stop_requested) {
			uint64_t len = q->pipe_bytes_req - q->pipe_bytes;
			if (len > chunk)
				len = chunk;
			ssize_t w = write(pfd[1], buf, len);
			if (w <= 0) {
				if (w < 0 && errno == EINTR)
					continue;
				fprintf(stderr, "xiotop-emu: pipe write: %s\n", strerror(errno));
				q->failed = EXIT_FAILURE_IO;
				goto out;
			}
			for (ssize_t got = 0; got < w;) {
				ssize_t r = read(pfd[0], sink, sizeof(sink));
				if (r <= 0) {
					if (r < 0 && errno == EINTR)
						continue;
					fprintf(stderr, "xiotop-emu: pipe read: %s\n",
					        r < 0 ? strerror(errno) : "unexpected EOF");
					q->failed = EXIT_FAILURE_IO;
					goto out;
				}
				got += r;
			}
			q->pipe_bytes += (uint64_t)w;
		}
	}
	q->elapsed = now_s() - t0;
	if (q->hold_path && !stop_requested) {
		fprintf(stderr, "xiotop-emu: qemu dom%ld: workload done, holding until %s\n",
		        q->domid, q->hold_path);
		q->failed = wait_for_file(q->hold_path, "--hold-until");
	}
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (dfd >= 0)
		close(dfd);
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static int cmd_qemu(int argc, char **argv, bool canonical)
{
	struct qemu_state q;
	memset(&q, 0, sizeof(q));
	q.domid = -1;
	q.bs = MIB;
	const char *image_opt = NULL, *drive_opt = NULL, *name_opt = NULL;
	bool name_is_qemu_form = false;

	struct argcur c = {.argc = argc, .argv = argv, .i = 0, .inline_val = NULL};
	for (c.i = 0; c.i < argc; c.i++) {
		if (opt_is(&c, "xen-domid"))
			q.domid = (long)parse_u64("-xen-domid", opt_val(&c), false);
		else if (opt_is(&c, "image"))
			image_opt = opt_val(&c);
		else if (opt_is(&c, "drive"))
			drive_opt = opt_val(&c);
		else if (opt_is(&c, "name")) {
			name_is_qemu_form = c.argv[c.i][1] != '-';
			name_opt = opt_val(&c);
		} else if (opt_is(&c, "buffered-mib"))
			q.buffered_bytes = parse_u64("--buffered-mib", opt_val(&c), false) * MIB;
		else if (opt_is(&c, "direct-mib"))
			q.direct_bytes = parse_u64("--direct-mib", opt_val(&c), false) * MIB;
		else if (opt_is(&c, "pipe-mib"))
			q.pipe_bytes_req = parse_u64("--pipe-mib", opt_val(&c), false) * MIB;
		else if (opt_is(&c, "bs"))
			q.bs = parse_u64("--bs", opt_val(&c), true);
		else if (opt_is(&c, "fsync"))
			q.fsync = true;
		else if (opt_is(&c, "wait-for"))
			q.wait_path = opt_val(&c);
		else if (opt_is(&c, "hold-until"))
			q.hold_path = opt_val(&c);
		else if (opt_is(&c, "help") || opt_is(&c, "h")) {
			usage(stdout);
			return 0;
		} else
			die_usage("qemu: unknown argument '%s'", argv[c.i]);
	}
	/* without -xen-domid: a KVM-style qemu, found by its -name alone */
	if (q.domid > 0x7fef)
		die_usage("qemu: -xen-domid N must be 0..32751");
	if (image_opt)
		q.image = strdup(image_opt);
	else if (drive_opt)
		q.image = qemu_optval(drive_opt, "file", NULL);
	if (!q.image || !q.image[0])
		die_usage("qemu: --image FILE (or -drive file=FILE) is required");
	char *name = NULL;
	if (name_opt)
		name =
		    name_is_qemu_form ? qemu_optval(name_opt, "guest", "guest") : strdup(name_opt);
	if (q.bs == 0 || q.bs % ALIGN != 0 || q.bs > 64 * MIB)
		die_usage("qemu: --bs must be a multiple of 4096, at most 64M");

	if (!canonical) {
		/* Re-execute as "qemu-system-i386 -xen-domid N [-name guest=X] -drive file=F,..."
		 * so /proc/<pid>/cmdline looks like a device model's (same pid). */
		char num[32][32];
		char *nargv[40];
		int n = 0, k = 0;
		char *esc_img = qemu_escape(q.image);
		char *drive = NULL, *nm = NULL;
		if (!esc_img ||
		    asprintf(&drive, "file=%s,if=none,format=raw,cache=writeback", esc_img) < 0)
			die_usage("out of memory");
		nargv[n++] = q.domid >= 0 ? QEMU_ARGV0 : "qemu-system-x86_64";
		if (q.domid >= 0) {
			nargv[n++] = "-xen-domid";
			snprintf(num[k], sizeof(num[k]), "%ld", q.domid);
			nargv[n++] = num[k++];
		}
		if (name) {
			char *esc = qemu_escape(name);
			if (!esc || asprintf(&nm, "guest=%s,debug-threads=on", esc) < 0)
				die_usage("out of memory");
			nargv[n++] = "-name";
			nargv[n++] = nm;
		}
		nargv[n++] = "-drive";
		nargv[n++] = drive;
#define ADD_NUM(opt, v)                                                                            \
	do {                                                                                       \
		nargv[n++] = opt;                                                                  \
		snprintf(num[k], sizeof(num[k]), "%" PRIu64, (uint64_t)(v));                       \
		nargv[n++] = num[k++];                                                             \
	} while (0)
		ADD_NUM("--buffered-mib", q.buffered_bytes / MIB);
		ADD_NUM("--direct-mib", q.direct_bytes / MIB);
		ADD_NUM("--pipe-mib", q.pipe_bytes_req / MIB);
		ADD_NUM("--bs", q.bs);
#undef ADD_NUM
		if (q.fsync)
			nargv[n++] = "--fsync";
		if (q.hold_path) {
			nargv[n++] = "--hold-until";
			nargv[n++] = (char *)q.hold_path;
		}
		if (q.wait_path) {
			nargv[n++] = "--wait-for";
			nargv[n++] = (char *)q.wait_path;
		}
		nargv[n] = NULL;
		execv("/proc/self/exe", nargv);
		fprintf(stderr, "xiotop-emu: re-exec as %s failed: %s\n", QEMU_ARGV0,
		        strerror(errno));
		return EXIT_FAILURE_IO;
	}
	q.name = name;
	prctl(PR_SET_NAME, QEMU_ARGV0, 0, 0, 0); /* comm "qemu-system-i38", as the real one */
	/* a real device model lives long before its guest writes: a test lets a monitor find
	 * it first (it makes the file once the monitor lists the domain) */
	if (q.wait_path && wait_for_file(q.wait_path, "--wait-for"))
		return EXIT_FAILURE_IO;

	install_signals();
	block_signals(true);
	pthread_t th;
	int err = pthread_create(&th, NULL, qemu_worker, &q);
	block_signals(false);
	if (err) {
		fprintf(stderr, "xiotop-emu: pthread_create: %s\n", strerror(err));
		return EXIT_FAILURE_IO;
	}
	pthread_join(th, NULL);
	if (q.failed)
		return q.failed;
	/* process-wide CPU (all threads, exited ones included): qemu is charged per process */
	unsigned long long ut = 0, stt = 0;
	bool ok = read_ticks("/proc/self/stat", &ut, &stt);
	printf("{\"domid\":%ld,\"pid\":%d,\"tid\":%d,\"name\":", q.domid, (int)getpid(),
	       (int)q.tid);
	if (q.name)
		json_str(stdout, q.name);
	else
		fputs("null", stdout);
	printf(",\"image\":");
	json_str(stdout, q.image);
	printf(",\"image_wr_bytes\":%" PRIu64 ",\"image_wr_buffered_bytes\":%" PRIu64
	       ",\"image_wr_direct_bytes\":%" PRIu64 ",\"image_wr_ios\":%" PRIu64
	       ",\"pipe_bytes\":%" PRIu64,
	       q.wr_buffered + q.wr_direct, q.wr_buffered, q.wr_direct, q.wr_ios, q.pipe_bytes);
	lat_log_print("wr_lat", &q.wr_lat);
	free(q.wr_lat.ns);
	if (ok)
		printf(",\"utime_ticks\":%llu,\"stime_ticks\":%llu", ut, stt);
	else
		printf(",\"utime_ticks\":null,\"stime_ticks\":null");
	printf(",\"clk_tck\":%ld,\"elapsed_s\":%.3f,\"stopped\":%s}\n", sysconf(_SC_CLK_TCK),
	       q.elapsed, stop_requested ? "true" : "false");
	fflush(stdout);
	free(q.image);
	free(name);
	return 0;
}

int main(int argc, char **argv)
{
	const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
	base = base ? base + 1 : (argc > 0 ? argv[0] : "");
	if (strncmp(base, "qemu", 4) == 0) /* re-executed as qemu-system-i386 */
		return cmd_qemu(argc - 1, argv + 1, true);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "blkback") == 0)
		return cmd_blkback(argc - 2, argv + 2);
	if (strcmp(argv[1], "qemu") == 0)
		return cmd_qemu(argc - 2, argv + 2, false);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return EXIT_USAGE;
}
