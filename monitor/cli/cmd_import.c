/* cmd_import.c - `xiotop import`: logs of xentop -b, vmstat and iostat -dx captured on a
 * dom0 without the tracer (NetBSD, no BPF) -> a recording that replay, export and explain
 * read like any other, marked as imported with the counters it has (import/).
 *
 *   xiotop import -o FILE [--xentop LOG] [--vmstat LOG] [--iostat LOG] [--interval S]
 *                 [--start TIME] [--cpus N]
 *
 * Exit status 2, with one line FILE:LINE: what was expected, for an unreadable, garbled,
 * truncated, unknown-layout or mixed-interval log; a partial last block is ignored with
 * a note on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/clock.h"
#include "core/sanitize.h"
#include "core/when.h"
#include "import/import_build.h"

#define LOG_MAX_BYTES (256u << 20)

/* The whole file, NUL terminated; NULL with a message on stderr. */
static char *slurp(const char *path, size_t *len)
{
	char safe[300];
	sanitize_text(path, safe, sizeof(safe));
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "xiotop import: %s: %s\n", safe, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		char *bigger = cap >= LOG_MAX_BYTES ? NULL : realloc(buf, cap * 2 + 1);
		if (!bigger) {
			fprintf(stderr, "xiotop import: %s: larger than %u MiB\n", safe,
			        LOG_MAX_BYTES >> 20);
			free(buf);
			buf = NULL;
			break;
		}
		buf = bigger;
		cap *= 2;
	}
	bool failed = ferror(f);
	fclose(f);
	if (buf && failed) {
		fprintf(stderr, "xiotop import: %s: read error\n", safe);
		free(buf);
		return NULL;
	}
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

struct parsed {
	struct imp_xentop xentop;
	struct imp_vmstat vmstat;
	struct imp_iostat iostat;
	char *text[3];
};

static int parse_logs(const struct cli_opts *o, struct parsed *p, struct imp_logs *in)
{
	struct xerr err;
	size_t len;
	const char *files[3] = {o->import_xentop, o->import_vmstat, o->import_iostat};
	for (int k = 0; k < 3; k++) {
		if (!files[k])
			continue;
		if (!(p->text[k] = slurp(files[k], &len)))
			return 2;
		int rc = k == 0   ? imp_xentop_parse(files[k], p->text[k], len, &p->xentop, &err)
		         : k == 1 ? imp_vmstat_parse(files[k], p->text[k], len, &p->vmstat, &err)
		                  : imp_iostat_parse(files[k], p->text[k], len, &p->iostat, &err);
		if (rc) {
			fprintf(stderr, "xiotop import: %s\n", err.msg);
			return 2;
		}
	}
	in->xentop = files[0] ? &p->xentop : NULL;
	in->vmstat = files[1] ? &p->vmstat : NULL;
	in->iostat = files[2] ? &p->iostat : NULL;
	in->xentop_file = files[0], in->vmstat_file = files[1], in->iostat_file = files[2];
	const char *notes[3] = {p->xentop.note, p->vmstat.note, p->iostat.note};
	for (int k = 0; k < 3; k++)
		if (files[k] && notes[k][0])
			fprintf(stderr, "xiotop import: note: %s\n", notes[k]);
	return 0;
}

static void free_parsed(struct parsed *p)
{
	imp_xentop_free(&p->xentop);
	imp_vmstat_free(&p->vmstat);
	imp_iostat_free(&p->iostat);
	for (int k = 0; k < 3; k++)
		free(p->text[k]);
}

int cmd_import(struct cli_opts *o)
{
	int rc;
	if (!o->output)
		return cli_bad_usage(CMD_IMPORT, "where to? give -o FILE");
	if (o->n_args)
		return cli_bad_usage(CMD_IMPORT, "unexpected argument (logs go after --xentop, "
		                                 "--vmstat, --iostat)");
	if (!o->import_xentop && !o->import_vmstat && !o->import_iostat)
		return cli_bad_usage(CMD_IMPORT, "which logs? give --xentop, --vmstat or --iostat");
	struct imp_logs in = {.interval_s = o->import_interval_s, .cpus = o->import_cpus};
	if (o->import_start) {
		if (when_parse(o->import_start, clock_real_ns(), &in.start_ns))
			return cli_bad_usage(CMD_IMPORT, "--start wants a time: " WHEN_FORMS);
		in.has_start = true;
	}
	struct parsed p;
	memset(&p, 0, sizeof(p));
	struct imp_result r;
	memset(&r, 0, sizeof(r));
	struct xerr err;
	rc = parse_logs(o, &p, &in);
	if (!rc && imp_build(&in, &r, &err)) {
		fprintf(stderr, "xiotop import: %s\n", err.msg);
		rc = 2;
	}
	struct xerr rerr;
	if (!rc && imp_write(o->output, &r, &rerr)) {
		fprintf(stderr, "xiotop import: %s\n", rerr.msg);
		rc = 2;
	}
	if (!rc && r.note[0])
		fprintf(stderr, "xiotop import: note: %s\n", r.note);
	if (!rc) {
		char safe[300];
		sanitize_text(o->output, safe, sizeof(safe));
		fprintf(stderr, "xiotop import: %zu samples into %s\n", r.n, safe);
	}
	imp_result_free(&r);
	free_parsed(&p);
	return rc;
}
