/* claim_fio_text.c - fio's normal output (no --output-format, how people paste it).
 *
 * Only the group summaries are read, which fio 3 prints for every run:
 *   Run status group 0 (all jobs):
 *     READ: bw=318MiB/s (334MB/s), 159MiB/s-200MiB/s (167MB/s-210MB/s), io=15.6MiB
 *           (16.3MB), run=39-49msec       (one line)
 *    WRITE: bw=...
 * The first figure of bw= and io= is in fio's kb_base (IEC "MiB" by default, "MB" with
 * kb_base=1000, both as printed); the second, in parentheses, is the other base. io= is
 * rounded to three significant figures (fio's num2str): bytes are within 0.5 % of what
 * the jobs moved. run= is the shortest and longest job's runtime; the run's seconds are the
 * longest. Each group is a result, its READ and WRITE line its runs; of the jobs' own
 * lines only their first line is read ("(g=0): rw=..., bs=(R) ..., ioengine=psync,
 * iodepth=1": request size, engine, queue depth). The test files' size is the "Laying out
 * IO file" lines' when there is one for each job "Starting N processes" started (fio
 * prints none for a file that existed). The output runs from its first job line (or its
 * first group line) to its last group line or disk stats line.
 */
#include "explain/claims/claim_lex.h"

#include <stdio.h>
#include <string.h>

#include "core/arrays.h"

#define FIO_GROUP_PREFIX "Run status group "

/* "64.0MiB" | "4096B" | "386MB/s" (with_per_s): bytes or bytes/s. */
static bool fio_size(struct text_cur *c, bool with_per_s, double *out)
{
	double v;
	if (!text_decimal(c, false, &v))
		return false;
	const char *u = c->p;
	while (!text_at_end(c) &&
	       ((*c->p >= 'A' && *c->p <= 'Z') || (*c->p >= 'a' && *c->p <= 'z')))
		c->p++;
	double f = claim_unit_factor(u, (size_t)(c->p - u), true);
	if (f == 0 || (with_per_s && !text_lit(c, "/s")))
		return false;
	*out = v * f;
	return true;
}

/* Skips to just past `key` ("io=") at a field's start; false if absent. */
static bool seek_field(struct text_cur *c, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = c->p; p + n <= c->end; p++)
		if ((p == c->p || p[-1] == ' ') && memcmp(p, key, n) == 0) {
			c->p = p + n;
			return true;
		}
	return false;
}

/* "READ: bw=..., io=..., run=A-Bmsec": 1 read, 0 not such a line, -1 garbled. */
static int group_line(const struct claim_line *l, unsigned *dir, double *bw, double *io,
                      uint64_t *ms)
{
	struct text_cur c = {l->s, l->s + l->len};
	text_skip_blanks(&c);
	if (text_lit(&c, "READ: "))
		*dir = CLAIM_DIR_READ;
	else if (text_lit(&c, "WRITE: "))
		*dir = CLAIM_DIR_WRITE;
	else
		return 0;
	uint64_t lo;
	if (!text_lit(&c, "bw=") || !fio_size(&c, true, bw) || !seek_field(&c, "io=") ||
	    !fio_size(&c, false, io) || !seek_field(&c, "run=") || !text_u64(&c, &lo) ||
	    !text_lit(&c, "-") || !text_u64(&c, ms) || !text_lit(&c, "msec"))
		return -1;
	while (!text_at_end(&c) && (*c.p == ' ' || *c.p == '\r'))
		c.p++;
	return text_at_end(&c) && lo <= *ms ? 1 : -1;
}

/* "Starting 2 processes" / "Starting 1 thread", and "JOB: Laying out IO file (1 file /
 * 64MiB)" or "(2 files / total 128MiB)": fio prints the size in whole MiB. */
static void layout_line(const struct claim_line *l, struct claim_fio *f)
{
	struct text_cur c = {l->s, l->s + l->len};
	uint64_t n;
	if (text_lit(&c, "Starting ") && text_u64(&c, &n) && n < 100000 && text_lit(&c, " ")) {
		f->started_jobs += (unsigned)n;
		return;
	}
	static const char key[] = ": Laying out IO file";
	const char *at = NULL;
	for (const char *p = l->s; p + sizeof(key) - 1 <= c.end && !at; p++)
		if (!memcmp(p, key, sizeof(key) - 1))
			at = p;
	const char *slash = at ? memchr(at, '/', (size_t)(c.end - at)) : NULL;
	if (!slash)
		return;
	c.p = slash + 1;
	uint64_t mib;
	text_skip_blanks(&c);
	text_lit(&c, "total ");
	if (!text_u64(&c, &mib) || !text_lit(&c, "MiB)") || mib > (UINT64_MAX >> 21))
		return;
	f->laid_out_jobs++;
	f->laid_out_bytes += mib << 20;
	if (f->laid_out_bytes > (UINT64_MAX >> 1))
		f->laid_out_jobs = UINT32_MAX; /* not a size: never matches started_jobs */
}

/* A job's line "NAME: (g=0): rw=write, bs=(R) 1024KiB-1024KiB, (W) 1024KiB-1024KiB, (T)
 * ..., ioengine=psync, iodepth=1": its request size (when one for reads and writes),
 * engine and queue depth. */
static bool job_line(const struct claim_line *l, struct claim_said *said)
{
	struct text_cur c = {l->s, l->s + l->len};
	if (!seek_field(&c, "(g=") || !seek_field(&c, "rw="))
		return false;
	double lo, hi, wlo, whi;
	struct text_cur b = c;
	if (seek_field(&b, "bs=(R)") && (text_skip_blanks(&b), fio_size(&b, false, &lo)) &&
	    text_lit(&b, "-") && fio_size(&b, false, &hi) && text_lit(&b, ", (W) ") &&
	    fio_size(&b, false, &wlo) && text_lit(&b, "-") && fio_size(&b, false, &whi) &&
	    lo == hi && wlo == whi && lo == wlo && lo > 0)
		claim_say(&said->block_bytes, CLAIM_FROM_OUTPUT, (uint64_t)lo);
	struct text_cur e = c;
	if (seek_field(&e, "ioengine=")) {
		size_t n = 0;
		while (e.p + n < e.end && e.p[n] != ',' && e.p[n] != ' ' && e.p[n] != '\r')
			n++;
		snprintf(said->ioengine, sizeof(said->ioengine), "%.*s", (int)n, e.p);
	}
	uint64_t depth;
	struct text_cur d = c;
	if (seek_field(&d, "iodepth=") && text_u64(&d, &depth) && depth && depth < 1000000)
		claim_say(&said->queue_depth, CLAIM_FROM_OUTPUT, depth);
	return true;
}

static bool group_header(const struct claim_line *l, unsigned *group)
{
	struct text_cur c = {l->s, l->s + l->len};
	uint64_t g;
	if (!text_lit(&c, FIO_GROUP_PREFIX) || !text_u64(&c, &g) || g > 1000000)
		return false;
	*group = (unsigned)g;
	return true;
}

/* The lines of fio's output after its group summaries: "Disk stats (read/write):" and its
 * devices' lines. */
static bool disk_stats_line(const struct claim_line *l)
{
	struct text_cur c = {l->s, l->s + l->len};
	if (text_lit(&c, "Disk stats (read/write):"))
		return true;
	return l->len && (l->s[0] == ' ' || l->s[0] == '\t') && seek_field(&c, "ios=");
}

int claim_find_fio_text(const struct claim_src *file, size_t pos, unsigned lineno,
                        struct claim_extent *out)
{
	struct claim_line l;
	struct claim_said said = {0};
	unsigned group;
	out->start = pos;
	if (!claim_next_line(file, &pos, &lineno, false, &l))
		return 0;
	out->first_line = l.no;
	bool in_groups = group_header(&l, &group);
	if (!in_groups && !job_line(&l, &said))
		return 0;
	out->end = pos;
	out->last_line = l.no;
	while (!in_groups && claim_next_line(file, &pos, &lineno, false, &l))
		in_groups = group_header(&l, &group); /* the jobs' own lines before */
	if (!in_groups)
		return claim_fail(file, out->first_line,
		                  "fio output without its \"Run status group N (all jobs):\" "
		                  "lines after its job line (cut short?)");
	for (;;) {
		unsigned dir;
		double bw, io;
		uint64_t ms;
		bool blank = true;
		for (size_t i = 0; i < l.len && blank; i++)
			blank = l.s[i] == ' ' || l.s[i] == '\t' || l.s[i] == '\r';
		if (!blank && !group_header(&l, &group) && !disk_stats_line(&l) &&
		    group_line(&l, &dir, &bw, &io, &ms) == 0)
			break;
		if (!blank) {
			out->end = pos;
			out->last_line = l.no;
		}
		if (!claim_next_line(file, &pos, &lineno, false, &l))
			break;
	}
	return 1;
}

/* A group line ends with "msec"; fio's other lines carry no figure read. */
bool claim_whole_fio_text(const struct claim_src *src, const struct claim_line *last)
{
	(void)src;
	unsigned dir;
	double bw, io;
	uint64_t ms;
	return group_line(last, &dir, &bw, &io, &ms) != -1;
}

struct fio_text {
	struct claim_fio fio;   /* the output's version and layout, then each group's job */
	struct claim_said said; /* its job lines' */
	int group;              /* the group being read, -1 none yet */
	unsigned lines_in_group;
	struct claim_fio_job job; /* that group's READ and WRITE lines */
	unsigned first_line, last_line;
};

/* The group read so far as a result. */
static int end_group(const struct claim_src *src, struct claim_build *b, struct fio_text *t)
{
	if (t->group < 0)
		return 0;
	if (t->lines_in_group == 0)
		return claim_fail(src, t->first_line, "fio group %d has no READ: or WRITE: line",
		                  t->group);
	bool first = b->post->nresults == 0 ||
	             b->post->results[b->post->nresults - 1].tool != CLAIM_TOOL_FIO ||
	             b->post->results[b->post->nresults - 1].first_line < src->first_line;
	struct claim_result *r = claim_new_result(
	    b, src, CLAIM_TOOL_FIO, first ? src->first_line : t->first_line, t->last_line);
	if (!r)
		return -1;
	r->u.fio = t->fio;
	r->u.fio.group = (unsigned)t->group;
	r->u.fio.jobs = NULL;
	r->u.fio.njobs = 0;
	claim_said_merge(&r->said, &t->said);
	if (arrays_append((void **)&r->u.fio.jobs, &r->u.fio.njobs, &t->job, sizeof(t->job)))
		return claim_no_memory(src);
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "group %d ", t->group);
	if (claim_fio_result(src, r, prefix))
		return -1;
	/* the test files' size only when every job started laid its file out */
	const struct claim_fio *f = &t->fio;
	if (f->started_jobs && f->laid_out_jobs == f->started_jobs) {
		claim_say(&r->said.file_bytes, CLAIM_FROM_OUTPUT, f->laid_out_bytes);
		for (size_t i = 0; i < r->nruns; i++)
			r->runs[i].file_bytes = f->laid_out_bytes;
	}
	return 0;
}

static int text_line(const struct claim_src *src, struct claim_build *b, const struct claim_line *l,
                     struct fio_text *t)
{
	unsigned group;
	if (group_header(l, &group)) {
		if (end_group(src, b, t))
			return -1;
		t->group = (int)group;
		t->lines_in_group = 0;
		t->first_line = l->no;
		memset(&t->job, 0, sizeof(t->job));
		snprintf(t->job.name, sizeof(t->job.name), "group %u", group);
		return 0;
	}
	if (t->group < 0) {
		layout_line(l, &t->fio);
		if (t->said.block_bytes.from == CLAIM_FROM_NONE && !t->said.ioengine[0])
			job_line(l, &t->said); /* the first job's line */
		if (l->len > 3 && !memcmp(l->s, "fio-", 4) && !t->fio.version[0])
			snprintf(t->fio.version, sizeof(t->fio.version), "%.*s",
			         (int)(l->len < 32 ? l->len : 32), l->s);
		return 0;
	}
	unsigned dir;
	double bw, io;
	uint64_t ms;
	int r = group_line(l, &dir, &bw, &io, &ms);
	if (r < 0) {
		char ex[48];
		claim_excerpt(l, ex, sizeof(ex));
		return claim_fail(src, l->no,
		                  "garbled fio group line \"%s\"; expected \"READ|WRITE: "
		                  "bw=R/s (...), ..., io=N (...), run=A-Bmsec\"",
		                  ex);
	}
	if (r == 0)
		return 0;
	if (io > (double)(UINT64_MAX / 4) || bw > (double)(UINT64_MAX / 4))
		return claim_fail(src, l->no, "fio figure out of range");
	t->lines_in_group++;
	t->last_line = l->no;
	struct claim_fio_dir *d = dir == CLAIM_DIR_WRITE ? &t->job.write : &t->job.read;
	d->present = io > 0;
	d->io_bytes = (uint64_t)io;
	d->bw_bytes = (uint64_t)bw;
	d->runtime_ms = ms;
	return 0;
}

int claim_parse_fio_text(const struct claim_src *src, struct claim_build *b)
{
	size_t pos = 0;
	unsigned no = src->first_line;
	struct claim_line l;
	struct fio_text t = {.group = -1};
	while (claim_next_line(src, &pos, &no, false, &l))
		if (text_line(src, b, &l, &t) != 0)
			return -1;
	if (t.group < 0 || t.lines_in_group == 0)
		return claim_fail(src, t.group < 0 ? src->first_line : t.first_line,
		                  "truncated fio output: expected \"Run status group N (all "
		                  "jobs):\" and its READ: or WRITE: line");
	return end_group(src, b, &t);
}
