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
 * longest. Each group's READ and WRITE line is a run; the jobs' own lines are not read.
 * The test files' size is the "Laying out IO file" lines' when there is one for each job
 * "Starting N processes" started (fio prints none for a file that existed).
 */
#include "explain/claims/claim_lex.h"

#include <stdio.h>
#include <string.h>

#define FIO_GROUP_PREFIX "Run status group "

bool claim_is_fio_text(const struct claim_src *src)
{
	return claim_contains(src, FIO_GROUP_PREFIX) && claim_contains(src, " (all jobs):");
}

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

/* Keeps one group's direction as a pseudo-job of u.fio (the headline reads those). */
static void keep_job(struct claim_fio *f, unsigned group, unsigned dir, double bw, double io,
                     uint64_t ms)
{
	struct claim_fio_job *j = NULL;
	char name[CLAIM_NAME_MAX];
	snprintf(name, sizeof(name), "group %u", group);
	for (unsigned i = 0; i < f->njobs && !j; i++)
		if (!strcmp(f->jobs[i].name, name))
			j = &f->jobs[i];
	if (!j && f->njobs < CLAIM_FIO_MAX_JOBS) {
		j = &f->jobs[f->njobs++];
		snprintf(j->name, sizeof(j->name), "%s", name);
	}
	if (!j)
		return;
	struct claim_fio_dir *d = dir == CLAIM_DIR_WRITE ? &j->write : &j->read;
	d->present = io > 0;
	d->io_bytes = (uint64_t)io;
	d->bw_bytes = (uint64_t)bw;
	d->runtime_ms = ms;
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

static int text_line(const struct claim_src *src, const struct claim_line *l, int *group,
                     unsigned *lines_in_group, struct claim *out)
{
	struct text_cur c = {l->s, l->s + l->len};
	uint64_t g;
	if (text_lit(&c, FIO_GROUP_PREFIX)) {
		if (*group >= 0 && *lines_in_group == 0)
			return claim_fail(src, l->no, "fio group %d has no READ: or WRITE: line",
			                  *group);
		if (!text_u64(&c, &g) || g > 1000000)
			return claim_fail(src, l->no,
			                  "fio \"Run status group\" without its number");
		*group = (int)g;
		*lines_in_group = 0;
		return 0;
	}
	if (*group < 0)
		layout_line(l, &out->u.fio);
	if (l->len > 3 && !memcmp(l->s, "fio-", 4) && !out->u.fio.version[0])
		snprintf(out->u.fio.version, sizeof(out->u.fio.version), "%.*s",
		         (int)(l->len < 32 ? l->len : 32), l->s);
	unsigned dir;
	double bw, io;
	uint64_t ms;
	int r = *group >= 0 ? group_line(l, &dir, &bw, &io, &ms) : 0;
	if (r < 0) {
		char ex[48];
		claim_excerpt(l, ex, sizeof(ex));
		return claim_fail(src, l->no,
		                  "garbled fio group line \"%s\"; expected \"READ|WRITE: "
		                  "bw=R/s (...), ..., io=N (...), run=A-Bmsec\"",
		                  ex);
	}
	if (r == 0 || io > (double)(UINT64_MAX / 4) || bw > (double)(UINT64_MAX / 4))
		return r == 0 ? 0 : claim_fail(src, l->no, "fio figure out of range");
	(*lines_in_group)++;
	struct claim_run run = {.direction = dir,
	                        .bytes = (uint64_t)io,
	                        .seconds = ms ? (double)ms / 1e3 : -1,
	                        .rate_bytes_per_s = bw > 0 ? bw : -1};
	snprintf(run.label, sizeof(run.label), "group %d %s", *group,
	         dir == CLAIM_DIR_WRITE ? "write" : "read");
	claim_add_run(out, &run);
	keep_job(&out->u.fio, (unsigned)*group, dir, bw, io, ms);
	return 0;
}

int claim_parse_fio_text(const struct claim_src *src, struct claim *out)
{
	size_t pos = 0;
	unsigned no = 1, lines_in_group = 0;
	int group = -1;
	struct claim_line l;
	out->tool = CLAIM_TOOL_FIO;
	while (claim_next_line(src, &pos, &no, false, &l))
		if (text_line(src, &l, &group, &lines_in_group, out) != 0)
			return -1;
	if (group < 0 || lines_in_group == 0 || out->nruns == 0)
		return claim_fail(src, 0,
		                  "truncated fio output: expected \"Run status group N (all "
		                  "jobs):\" and its READ: or WRITE: line");
	claim_fio_headline(out);
	const struct claim_fio *f = &out->u.fio;
	/* the test files' size only when every job started laid its file out */
	if (f->started_jobs && f->laid_out_jobs == f->started_jobs)
		for (unsigned i = 0; i < out->nruns; i++)
			out->runs[i].file_bytes = f->laid_out_bytes;
	return 0;
}
