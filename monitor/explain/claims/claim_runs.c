/* claim_runs.c - a parsed result as runs (claim.h's struct claim_run): one per phase and
 * direction, in the order the tool ran them, and its headline.
 *
 * bonnie++ prints per-char figures of a test of its own size (-f SIZE, 20 MiB by
 * default) that its output does not give, so its putc and getc phases are no runs; classic
 * bonnie's per-char tests use the file size. A rewrite reads and writes the whole file:
 * two runs over the same seconds. iozone's tests each move the file size once.
 */
#include "explain/claims/claim_lex.h"

#include <stdio.h>
#include <string.h>

/* A phase known only by its rate over `bytes`: seconds = bytes / rate. */
static int add_rate_run(const struct claim_src *src, struct claim_result *r, const char *row,
                        const char *label, unsigned dir, uint64_t bytes, double rate,
                        uint64_t record_bytes)
{
	struct claim_run run = {
	    .direction = dir, .bytes = bytes, .seconds = -1, .file_bytes = bytes};
	snprintf(run.label, sizeof(run.label), "%s%s%s", row, row[0] ? " " : "", label);
	snprintf(run.row, sizeof(run.row), "%s", row);
	run.rate_bytes_per_s = rate > 0 ? rate : -1;
	if (rate > 0) {
		run.seconds = (double)bytes / rate;
		run.seconds_from_rate = true;
	}
	if (record_bytes)
		claim_say(&run.block_bytes, CLAIM_FROM_OUTPUT, record_bytes);
	return claim_add_run(src, r, &run);
}

static bool ran(const struct claim_bonnie *b, enum claim_bonnie_test t)
{
	return b->rate_bytes_per_s[t] >= 0 || b->too_fast[t];
}

/* The headline: the block write (else block read) over the file size; totals of the
 * block tests only (per-char tests use their own size, -f). */
static void bonnie_headline(struct claim_result *r)
{
	const struct claim_bonnie *b = &r->u.bonnie;
	uint64_t size = b->file_size_bytes;
	r->directions = 0;
	if (ran(b, CLAIM_BONNIE_BLOCK_WRITE) || ran(b, CLAIM_BONNIE_REWRITE))
		r->directions |= CLAIM_DIR_WRITE;
	if (ran(b, CLAIM_BONNIE_BLOCK_READ) || ran(b, CLAIM_BONNIE_REWRITE))
		r->directions |= CLAIM_DIR_READ;
	r->written_bytes = size * (ran(b, CLAIM_BONNIE_BLOCK_WRITE) + ran(b, CLAIM_BONNIE_REWRITE));
	r->read_bytes = size * (ran(b, CLAIM_BONNIE_BLOCK_READ) + ran(b, CLAIM_BONNIE_REWRITE));
	r->bytes = size;
	r->seconds = r->rate_bytes_per_s = -1;
	enum claim_bonnie_test t = b->rate_bytes_per_s[CLAIM_BONNIE_BLOCK_WRITE] > 0
	                               ? CLAIM_BONNIE_BLOCK_WRITE
	                               : CLAIM_BONNIE_BLOCK_READ;
	if (b->rate_bytes_per_s[t] > 0) {
		r->rate_bytes_per_s = b->rate_bytes_per_s[t];
		r->seconds = (double)size / r->rate_bytes_per_s;
	}
}

int claim_bonnie_result(const struct claim_src *src, struct claim_result *r, bool per_char_sized)
{
	static const struct {
		enum claim_bonnie_test test;
		const char *label;
		unsigned dir;
		bool per_char;
	} phases[] = {
	    {CLAIM_BONNIE_PUTC, "per-char write", CLAIM_DIR_WRITE, true},
	    {CLAIM_BONNIE_BLOCK_WRITE, "block write", CLAIM_DIR_WRITE, false},
	    {CLAIM_BONNIE_REWRITE, "rewrite (read)", CLAIM_DIR_READ, false},
	    {CLAIM_BONNIE_REWRITE, "rewrite (write)", CLAIM_DIR_WRITE, false},
	    {CLAIM_BONNIE_GETC, "per-char read", CLAIM_DIR_READ, true},
	    {CLAIM_BONNIE_BLOCK_READ, "block read", CLAIM_DIR_READ, false},
	};
	const struct claim_bonnie *b = &r->u.bonnie;
	snprintf(r->machine, sizeof(r->machine), "%s", b->machine);
	claim_say(&r->said.file_bytes, CLAIM_FROM_OUTPUT, b->file_size_bytes);
	if (b->chunk_bytes)
		claim_say(&r->said.block_bytes, CLAIM_FROM_OUTPUT, b->chunk_bytes);
	if (b->concurrency)
		claim_say(&r->said.queue_depth, CLAIM_FROM_OUTPUT, b->concurrency);
	bonnie_headline(r);
	r->nruns = 0; /* a table row's runs, read again from its CSV line */
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
		enum claim_bonnie_test t = phases[i].test;
		if ((phases[i].per_char && !per_char_sized) || !ran(b, t))
			continue; /* not run (-f) */
		if (add_rate_run(src, r, b->machine, phases[i].label, phases[i].dir,
		                 b->file_size_bytes, b->rate_bytes_per_s[t], 0))
			return -1;
	}
	return 0;
}

/* The headline: the first row's write (else read) over its file size; totals: every
 * write-type and read-type test of every row. */
static void iozone_headline(struct claim_result *r)
{
	const struct claim_iozone *z = &r->u.iozone;
	static const int writes[] = {CLAIM_IOZONE_WRITE, CLAIM_IOZONE_REWRITE,
	                             CLAIM_IOZONE_RANDOM_WRITE};
	static const int reads[] = {CLAIM_IOZONE_READ, CLAIM_IOZONE_REREAD,
	                            CLAIM_IOZONE_RANDOM_READ};
	for (size_t i = 0; i < z->nrows; i++) {
		uint64_t bytes = z->rows[i].file_kib * 1024;
		for (int k = 0; k < 3; k++) {
			if (z->rows[i].kib_per_s[writes[k]] >= 0) {
				r->written_bytes += bytes;
				r->directions |= CLAIM_DIR_WRITE;
			}
			if (z->rows[i].kib_per_s[reads[k]] >= 0) {
				r->read_bytes += bytes;
				r->directions |= CLAIM_DIR_READ;
			}
		}
	}
	const struct claim_iozone_row *row = &z->rows[0];
	int k = row->kib_per_s[CLAIM_IOZONE_WRITE] >= 0 ? CLAIM_IOZONE_WRITE : CLAIM_IOZONE_READ;
	r->bytes = row->file_kib * 1024;
	r->rate_bytes_per_s = r->seconds = -1;
	if (row->kib_per_s[k] > 0) {
		r->rate_bytes_per_s = row->kib_per_s[k] * 1024;
		r->seconds = (double)r->bytes / r->rate_bytes_per_s;
	}
}

/* Whether every row has the same record (file) size: then the result says it. */
static void iozone_said(struct claim_result *r)
{
	const struct claim_iozone *z = &r->u.iozone;
	bool one_rec = true, one_file = true;
	for (size_t i = 1; i < z->nrows; i++) {
		one_rec &= z->rows[i].record_kib == z->rows[0].record_kib;
		one_file &= z->rows[i].file_kib == z->rows[0].file_kib;
	}
	if (one_rec)
		claim_say(&r->said.block_bytes, CLAIM_FROM_OUTPUT, z->rows[0].record_kib * 1024);
	else if (r->said.block_bytes.from != CLAIM_FROM_NONE)
		r->said.block_bytes.from = CLAIM_FROM_NONE; /* -a: each run has its own */
	if (one_file)
		claim_say(&r->said.file_bytes, CLAIM_FROM_OUTPUT, z->rows[0].file_kib * 1024);
	else
		r->said.file_bytes.from = CLAIM_FROM_NONE;
}

int claim_add_iozone_runs(const struct claim_src *src, struct claim_result *r)
{
	static const char *const names[CLAIM_IOZONE_NTESTS] = {
	    "write", "rewrite", "read", "reread", "random read", "random write"};
	static const unsigned dirs[CLAIM_IOZONE_NTESTS] = {CLAIM_DIR_WRITE, CLAIM_DIR_WRITE,
	                                                   CLAIM_DIR_READ,  CLAIM_DIR_READ,
	                                                   CLAIM_DIR_READ,  CLAIM_DIR_WRITE};
	const struct claim_iozone *z = &r->u.iozone;
	iozone_headline(r);
	iozone_said(r);
	for (size_t i = 0; i < z->nrows; i++) {
		const struct claim_iozone_row *row = &z->rows[i];
		char label[CLAIM_NAME_MAX];
		for (int k = 0; k < CLAIM_IOZONE_NTESTS; k++) {
			if (row->kib_per_s[k] < 0)
				continue;
			if (z->nrows > 1)
				snprintf(label, sizeof(label), "%lluK/%lluK %s",
				         (unsigned long long)row->file_kib,
				         (unsigned long long)row->record_kib, names[k]);
			else
				snprintf(label, sizeof(label), "%s", names[k]);
			if (add_rate_run(src, r, "", label, dirs[k], row->file_kib * 1024,
			                 row->kib_per_s[k] * 1024, row->record_kib * 1024))
				return -1;
		}
	}
	return 0;
}

/* The jobs' test files: each job lays out its own file of its size= unless filename=
 * names one (then jobs may share it: the largest). 0 when a job's size is not given. */
static uint64_t fio_file_bytes(const struct claim_fio *f)
{
	uint64_t sum = 0, largest = 0;
	bool named = false;
	for (size_t j = 0; j < f->njobs; j++) {
		uint64_t size = f->jobs[j].size_bytes;
		if (!size)
			return 0;
		named |= f->jobs[j].named_file;
		sum = sum > UINT64_MAX - size ? UINT64_MAX : sum + size;
		largest = size > largest ? size : largest;
	}
	return named ? largest : sum;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The headline: all jobs, write if any job wrote, else read. */
static void fio_headline(struct claim_result *r)
{
	const struct claim_fio *f = &r->u.fio;
	uint64_t bw_w = 0, bw_r = 0, ms_w = 0, ms_r = 0;
	for (size_t j = 0; j < f->njobs; j++) {
		const struct claim_fio_job *fj = &f->jobs[j];
		/* each figure is below INT64_MAX, but many of them could wrap: saturate */
		r->written_bytes = sat_add(r->written_bytes, fj->write.io_bytes);
		r->read_bytes = sat_add(r->read_bytes, fj->read.io_bytes);
		bw_w = sat_add(bw_w, fj->write.bw_bytes);
		bw_r = sat_add(bw_r, fj->read.bw_bytes);
		ms_w = fj->write.runtime_ms > ms_w ? fj->write.runtime_ms : ms_w;
		ms_r = fj->read.runtime_ms > ms_r ? fj->read.runtime_ms : ms_r;
	}
	r->directions =
	    (r->written_bytes ? CLAIM_DIR_WRITE : 0) | (r->read_bytes ? CLAIM_DIR_READ : 0);
	bool w = r->written_bytes > 0;
	r->bytes = w ? r->written_bytes : r->read_bytes;
	r->rate_bytes_per_s = (double)(w ? bw_w : bw_r);
	r->seconds = (double)(w ? ms_w : ms_r) / 1000.0;
}

/* fio's jobs run together: one run per direction, summed over the jobs (as fio's own
 * "Run status group" line does), seconds the longest job's. */
int claim_fio_result(const struct claim_src *src, struct claim_result *r, const char *prefix)
{
	const struct claim_fio *f = &r->u.fio;
	uint64_t file = fio_file_bytes(f);
	fio_headline(r);
	if (file && r->said.file_bytes.from == CLAIM_FROM_NONE)
		claim_say(&r->said.file_bytes, CLAIM_FROM_OUTPUT, file);
	for (int w = 0; w < 2; w++) {
		struct claim_run run = {.direction = w ? CLAIM_DIR_WRITE : CLAIM_DIR_READ,
		                        .file_bytes = file};
		uint64_t ms = 0;
		double bw = 0;
		bool any = false;
		for (size_t j = 0; j < f->njobs; j++) {
			const struct claim_fio_dir *d = w ? &f->jobs[j].write : &f->jobs[j].read;
			if (!d->present)
				continue;
			any = true;
			run.bytes = sat_add(run.bytes, d->io_bytes);
			bw += (double)d->bw_bytes;
			ms = d->runtime_ms > ms ? d->runtime_ms : ms;
		}
		if (!any)
			continue;
		snprintf(run.label, sizeof(run.label), "%s%s", prefix, w ? "write" : "read");
		run.seconds = ms ? (double)ms / 1e3 : -1;
		run.rate_bytes_per_s = bw > 0 ? bw : -1;
		if (claim_add_run(src, r, &run))
			return -1;
	}
	return 0;
}
