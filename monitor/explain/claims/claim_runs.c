/* claim_runs.c - a parsed benchmark output as runs (claim.h's struct claim_run): one per
 * phase and direction, in the order the tool ran them, and the pick of one table row.
 *
 * bonnie++ prints per-char figures of a test of its own size (-f SIZE, 20 MiB by
 * default) that its output does not give, so its putc and getc phases are no runs; classic
 * bonnie's per-char tests use the file size. A rewrite reads and writes the whole file:
 * two runs over the same seconds. iozone's tests each move the file size once.
 */
#include "explain/claims/claim_lex.h"

#include <stdio.h>
#include <string.h>

void claim_add_run(struct claim *out, const struct claim_run *run)
{
	if (out->nruns == CLAIM_MAX_RUNS) {
		out->runs_dropped++;
		return;
	}
	out->runs[out->nruns++] = *run;
}

/* A phase known only by its rate over `bytes`: seconds = bytes / rate. */
static void add_rate_run(struct claim *out, const char *row, const char *label, unsigned dir,
                         uint64_t bytes, double rate)
{
	struct claim_run r = {.direction = dir, .bytes = bytes, .seconds = -1, .file_bytes = bytes};
	snprintf(r.label, sizeof(r.label), "%s%s%s", row, row[0] ? " " : "", label);
	snprintf(r.row, sizeof(r.row), "%s", row);
	r.rate_bytes_per_s = rate > 0 ? rate : -1;
	if (rate > 0) {
		r.seconds = (double)bytes / rate;
		r.seconds_from_rate = true;
	}
	claim_add_run(out, &r);
}

void claim_add_bonnie_runs(struct claim *out, const struct claim_bonnie *b, const char *row,
                           bool per_char_sized)
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
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
		enum claim_bonnie_test t = phases[i].test;
		if (phases[i].per_char && !per_char_sized)
			continue;
		if (b->rate_bytes_per_s[t] < 0 && !b->too_fast[t])
			continue; /* not run (-f) */
		add_rate_run(out, row, phases[i].label, phases[i].dir, b->file_size_bytes,
		             b->rate_bytes_per_s[t]);
	}
}

void claim_take_bonnie_row(struct claim *out, const struct claim_bonnie *row, bool per_char_sized)
{
	claim_add_bonnie_runs(out, row, row->machine, per_char_sized);
	unsigned rows = out->u.bonnie.runs + 1;
	if (rows == 1)
		out->u.bonnie = *row;
	out->u.bonnie.runs = rows;
}

void claim_add_iozone_runs(struct claim *out)
{
	static const char *const names[CLAIM_IOZONE_NTESTS] = {
	    "write", "rewrite", "read", "reread", "random read", "random write"};
	static const unsigned dirs[CLAIM_IOZONE_NTESTS] = {CLAIM_DIR_WRITE, CLAIM_DIR_WRITE,
	                                                   CLAIM_DIR_READ,  CLAIM_DIR_READ,
	                                                   CLAIM_DIR_READ,  CLAIM_DIR_WRITE};
	const struct claim_iozone *z = &out->u.iozone;
	for (unsigned i = 0; i < z->nrows; i++) {
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
			add_rate_run(out, "", label, dirs[k], row->file_kib * 1024,
			             row->kib_per_s[k] * 1024);
		}
	}
}

/* The jobs' test files: each job lays out its own file of its size= unless filename=
 * names one (then jobs may share it: the largest). 0 when a job's size is not given. */
static uint64_t fio_file_bytes(const struct claim_fio *f)
{
	uint64_t sum = 0, largest = 0;
	bool named = false;
	for (unsigned j = 0; j < f->njobs; j++) {
		uint64_t size = f->jobs[j].size_bytes;
		if (!size)
			return 0;
		named |= f->jobs[j].named_file;
		sum = sum > UINT64_MAX - size ? UINT64_MAX : sum + size;
		largest = size > largest ? size : largest;
	}
	return named ? largest : sum;
}

/* fio's jobs run together: one run per direction, summed over the jobs (as fio's own
 * "Run status group" line does), seconds the longest job's. */
void claim_add_fio_runs(struct claim *out, const char *prefix)
{
	const struct claim_fio *f = &out->u.fio;
	uint64_t file = fio_file_bytes(f);
	for (int w = 0; w < 2; w++) {
		struct claim_run r = {.direction = w ? CLAIM_DIR_WRITE : CLAIM_DIR_READ,
		                      .file_bytes = file};
		uint64_t ms = 0;
		double bw = 0;
		bool any = false;
		for (unsigned j = 0; j < f->njobs; j++) {
			const struct claim_fio_dir *d = w ? &f->jobs[j].write : &f->jobs[j].read;
			if (!d->present)
				continue;
			any = true;
			r.bytes =
			    r.bytes > UINT64_MAX - d->io_bytes ? UINT64_MAX : r.bytes + d->io_bytes;
			bw += (double)d->bw_bytes;
			ms = d->runtime_ms > ms ? d->runtime_ms : ms;
		}
		if (!any)
			continue;
		snprintf(r.label, sizeof(r.label), "%s%s", prefix, w ? "write" : "read");
		r.seconds = ms ? (double)ms / 1e3 : -1;
		r.rate_bytes_per_s = bw > 0 ? bw : -1;
		claim_add_run(out, &r);
	}
}

bool claim_has_row(const struct claim *c, const char *label)
{
	for (unsigned i = 0; i < c->nruns; i++)
		if (c->runs[i].row[0] && !strcmp(c->runs[i].row, label))
			return true;
	return false;
}

/* "a, b, c" of the distinct row labels; the count. */
static unsigned row_list(const struct claim *c, char *out, size_t outlen)
{
	unsigned n = 0;
	size_t o = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < c->nruns; i++) {
		const char *row = c->runs[i].row;
		bool seen = !row[0];
		for (unsigned j = 0; j < i && !seen; j++)
			seen = !strcmp(c->runs[j].row, row);
		if (seen)
			continue;
		int k = snprintf(out + o, outlen - o, "%s%s", n ? ", " : "", row);
		if (k > 0 && (size_t)k < outlen - o)
			o += (size_t)k;
		n++;
	}
	return n;
}

int claim_pick_row(struct claim *c, const char *name, const char *row, char *err, size_t errlen)
{
	struct claim_src src = {.name = name ? name : "(claim)", .err = err, .errlen = errlen};
	char rows[512];
	unsigned n = row_list(c, rows, sizeof(rows));
	if (!row || !row[0]) {
		if (n <= 1)
			return 0;
		return claim_fail(&src, 0,
		                  "the %s table holds %u rows (%s); pick one with "
		                  "FILE@DOMAIN:ROW or FILE@ROW",
		                  claim_tool_name(c->tool), n, rows);
	}
	if (!claim_has_row(c, row))
		return claim_fail(&src, 0, "no row \"%.64s\" in the %s table; its rows: %s", row,
		                  claim_tool_name(c->tool), n ? rows : "none labelled");
	unsigned kept = 0;
	for (unsigned i = 0; i < c->nruns; i++)
		if (!strcmp(c->runs[i].row, row))
			c->runs[kept++] = c->runs[i];
	c->nruns = kept;
	return 0;
}
