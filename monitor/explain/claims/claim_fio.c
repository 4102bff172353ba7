/* claim_fio.c - fio --output-format=json (or json+), read with json-c in strict mode.
 *
 * The JSON object starts at a line beginning with '{' that names "fio version" in its
 * first lines (fio may print notes before it; prose may follow it). Per job: read/write
 * io_bytes, bw_bytes (bytes/s), runtime (ms), clat_ns.percentile "50.000000" and
 * "99.000000", its groupid and the options fio echoes. Each group is a result (its jobs
 * summed: claim_runs.c), the report's timestamp_ms its clock. No cap on the jobs.
 */
#include "explain/claims/claim_lex.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrays.h"

#define FIO_JSON_DEPTH 32

static unsigned line_of(const struct claim_src *src, size_t offset)
{
	unsigned no = src->first_line;
	for (size_t i = 0; i < offset && i < src->len; i++)
		no += src->buf[i] == '\n';
	return no;
}

/* A non-negative integer member; false (with *msg) when missing or of another kind. */
static bool get_u64(struct json_object *o, const char *key, uint64_t *out, const char **msg)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, key, &v)) {
		*msg = "missing";
		return false;
	}
	if (!json_object_is_type(v, json_type_int)) {
		*msg = "not an integer";
		return false;
	}
	int64_t i = json_object_get_int64(v);
	if (i < 0 || i == INT64_MAX) {
		*msg = "out of range";
		return false;
	}
	*out = (uint64_t)i;
	return true;
}

static void get_clat(struct json_object *dir, struct claim_fio_dir *d)
{
	struct json_object *clat, *pct;
	const char *msg;
	if (!json_object_object_get_ex(dir, "clat_ns", &clat) ||
	    !json_object_object_get_ex(clat, "percentile", &pct) ||
	    !json_object_is_type(pct, json_type_object))
		return;
	d->has_clat = get_u64(pct, "50.000000", &d->clat_p50_ns, &msg) &&
	              get_u64(pct, "99.000000", &d->clat_p99_ns, &msg);
	if (!d->has_clat)
		d->clat_p50_ns = d->clat_p99_ns = 0;
}

static int get_dir(const struct claim_src *src, struct json_object *job, unsigned j,
                   const char *which, struct claim_fio_dir *d)
{
	struct json_object *dir;
	const char *msg = "", *field = which;
	if (!json_object_object_get_ex(job, which, &dir) ||
	    !json_object_is_type(dir, json_type_object))
		return claim_fail(src, 0, "fio jobs[%u].%s: missing; expected an object", j, which);
	if (!get_u64(dir, field = "io_bytes", &d->io_bytes, &msg) ||
	    !get_u64(dir, field = "bw_bytes", &d->bw_bytes, &msg) ||
	    !get_u64(dir, field = "runtime", &d->runtime_ms, &msg))
		return claim_fail(src, 0, "fio jobs[%u].%s.%s: %s; expected a non-negative integer",
		                  j, which, field, msg);
	d->present = d->io_bytes > 0;
	if (d->present)
		get_clat(dir, d);
	return 0;
}

/* fio's size= in its default units (kb_base=1024: K, M, G, T are powers of 2, with or
 * without a trailing B); 0 for anything else (a %, IEC "KiB" which fio then takes as
 * 1000-based, a range), so no size is guessed. */
static uint64_t fio_size_option(const char *s)
{
	uint64_t v = 0;
	size_t i = 0;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return 0;
	static const char units[] = "kmgt";
	unsigned shift = 0;
	const char *u = s[i] ? strchr(units, s[i] | 0x20) : NULL;
	if (u) {
		shift = 10 * (unsigned)(u - units + 1);
		i++;
		if (s[i] == 'b' || s[i] == 'B')
			i++;
	}
	if (s[i] || v > UINT64_MAX >> shift)
		return 0;
	return v << shift;
}

/* What the options fio echoes ("global options", a job's "job options") say. */
struct fio_opts {
	uint64_t size;
	bool named_file, decimal;
	struct claim_said said;
};

static const char *opt_string(struct json_object *opts, const char *key)
{
	struct json_object *v;
	if (!json_object_object_get_ex(opts, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A boolean option ("1", "0"): said in *s when it is one. */
static void opt_flag(struct json_object *opts, const char *key, struct claim_setting *s)
{
	const char *v = opt_string(opts, key);
	if (v && (!strcmp(v, "1") || !strcmp(v, "0")))
		claim_say(s, CLAIM_FROM_OUTPUT, v[0] == '1');
}

/* size=, filename= (a kb_base of 1000 makes the size's units decimal: not taken), bs=,
 * iodepth=, ioengine=, direct=, sync=, end_fsync= and fsync_on_close=. */
static void get_options(struct json_object *holder, const char *key, struct fio_opts *o)
{
	struct json_object *opts;
	if (!json_object_object_get_ex(holder, key, &opts) ||
	    !json_object_is_type(opts, json_type_object))
		return;
	const char *v;
	if ((v = opt_string(opts, "size")))
		o->size = fio_size_option(v);
	if ((v = opt_string(opts, "kb_base")) && strcmp(v, "1024"))
		o->decimal = true;
	if (o->decimal)
		o->size = 0;
	if (json_object_object_get_ex(opts, "filename", NULL))
		o->named_file = true;
	uint64_t n;
	if ((v = opt_string(opts, "bs")) && !o->decimal && (n = fio_size_option(v)))
		claim_say(&o->said.block_bytes, CLAIM_FROM_OUTPUT, n);
	if ((v = opt_string(opts, "iodepth")) && (n = fio_size_option(v)) && n < 1000000)
		claim_say(&o->said.queue_depth, CLAIM_FROM_OUTPUT, n);
	if ((v = opt_string(opts, "ioengine")))
		snprintf(o->said.ioengine, sizeof(o->said.ioengine), "%s", v);
	opt_flag(opts, "direct", &o->said.direct);
	opt_flag(opts, "sync", &o->said.sync);
	opt_flag(opts, "end_fsync", &o->said.flush_end);
	if (o->said.flush_end.from == CLAIM_FROM_NONE || !o->said.flush_end.value)
		opt_flag(opts, "fsync_on_close", &o->said.flush_end);
}

/* One job of the array into fj (its options over the global ones in *o). */
static int get_job(const struct claim_src *src, struct json_object *job, size_t j,
                   struct claim_fio_job *fj, struct fio_opts *o, unsigned *group)
{
	struct json_object *v;
	if (!json_object_is_type(job, json_type_object))
		return claim_fail(src, src->first_line, "fio jobs[%zu] is not an object", j);
	if (json_object_object_get_ex(job, "jobname", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(fj->name, sizeof(fj->name), "%s", json_object_get_string(v));
	*group = 0;
	if (json_object_object_get_ex(job, "groupid", &v) &&
	    json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0 &&
	    json_object_get_int64(v) < 1000000)
		*group = (unsigned)json_object_get_int64(v);
	get_options(job, "job options", o);
	fj->size_bytes = o->size;
	fj->named_file = o->named_file;
	if (get_dir(src, job, (unsigned)j, "read", &fj->read) != 0 ||
	    get_dir(src, job, (unsigned)j, "write", &fj->write) != 0)
		return -1;
	return 0;
}

/* The group's jobs as one result: its options the first job's. */
static int group_result(const struct claim_src *src, struct claim_build *b,
                        struct json_object *root, const struct claim_fio *all,
                        const unsigned *groups, const struct claim_said *said, unsigned group,
                        bool several)
{
	struct claim_fio f = {.group = group};
	snprintf(f.version, sizeof(f.version), "%s", all->version);
	for (size_t j = 0; j < all->njobs; j++)
		if (groups[j] == group &&
		    arrays_append((void **)&f.jobs, &f.njobs, &all->jobs[j], sizeof(all->jobs[j])))
			return claim_no_memory(src);
	size_t pos = 0;
	unsigned no = src->first_line, last = no;
	struct claim_line l;
	while (claim_next_line(src, &pos, &no, false, &l))
		last = l.no;
	struct claim_result *r = claim_new_result(b, src, CLAIM_TOOL_FIO, src->first_line, last);
	if (!r) {
		free(f.jobs);
		return -1;
	}
	r->u.fio = f;
	claim_said_merge(&r->said, said); /* the job's own settings over the command's */
	struct json_object *v;
	if (json_object_object_get_ex(root, "timestamp_ms", &v) &&
	    json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0) {
		r->clock.kind = CLAIM_CLOCK_REPORTED;
		r->clock.unix_ms = json_object_get_int64(v);
	}
	char prefix[32] = "";
	if (several)
		snprintf(prefix, sizeof(prefix), "group %u ", group);
	return claim_fio_result(src, r, prefix);
}

/* Every job, then one result per group, in the order of their first job. */
static int get_groups(const struct claim_src *src, struct claim_build *b, struct json_object *root)
{
	struct json_object *v, *jobs;
	struct fio_opts global = {0};
	struct claim_fio all = {0};
	get_options(root, "global options", &global);
	if (json_object_object_get_ex(root, "fio version", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(all.version, sizeof(all.version), "%s", json_object_get_string(v));
	if (!json_object_object_get_ex(root, "jobs", &jobs) ||
	    !json_object_is_type(jobs, json_type_array) || json_object_array_length(jobs) == 0)
		return claim_fail(src, src->first_line,
		                  "fio JSON without a non-empty \"jobs\" array");
	size_t n = json_object_array_length(jobs);
	unsigned *groups = calloc(n, sizeof(*groups));
	struct claim_said *said = calloc(n, sizeof(*said));
	all.jobs = calloc(n, sizeof(*all.jobs));
	int rc = groups && said && all.jobs ? 0 : claim_no_memory(src);
	for (size_t j = 0; rc == 0 && j < n; j++) {
		struct fio_opts o = global;
		rc = get_job(src, json_object_array_get_idx(jobs, j), j, &all.jobs[j], &o,
		             &groups[j]);
		said[j] = o.said;
		all.njobs = j + 1;
	}
	bool several = false;
	for (size_t j = 1; rc == 0 && j < n; j++)
		several |= groups[j] != groups[0];
	for (size_t j = 0; rc == 0 && j < n; j++) {
		bool first = true; /* the group's first job starts its result */
		for (size_t k = 0; k < j && first; k++)
			first = groups[k] != groups[j];
		if (first)
			rc = group_result(src, b, root, &all, groups, &said[j], groups[j], several);
	}
	free(groups);
	free(said);
	free(all.jobs);
	return rc;
}

/* The JSON object from `start`, fed to json-c a line at a time so that it stops at the
 * object's end (prose may follow it): *end just past it. */
static int parse_root(const struct claim_src *src, size_t start, struct json_object **root,
                      size_t *end)
{
	struct json_tokener *tok = json_tokener_new_ex(FIO_JSON_DEPTH);
	if (!tok)
		return claim_no_memory(src);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	enum json_tokener_error jerr = json_tokener_continue;
	*root = NULL;
	*end = start;
	while (!*root && jerr == json_tokener_continue && *end < src->len) {
		const char *nl = memchr(src->buf + *end, '\n', src->len - *end);
		size_t chunk = nl ? (size_t)(nl - (src->buf + *end)) + 1 : src->len - *end;
		if (chunk > INT_MAX)
			chunk = INT_MAX;
		*root = json_tokener_parse_ex(tok, src->buf + *end, (int)chunk);
		jerr = json_tokener_get_error(tok);
		*end += *root || jerr != json_tokener_continue ? json_tokener_get_parse_end(tok)
		                                               : chunk;
	}
	json_tokener_free(tok);
	if (jerr == json_tokener_continue && !*root)
		return claim_fail(src, line_of(src, src->len),
		                  "truncated fio JSON; expected the rest of the object");
	if (jerr != json_tokener_success || !*root) {
		json_object_put(*root);
		*root = NULL;
		return claim_fail(src, line_of(src, *end), "fio JSON: %s",
		                  json_tokener_error_desc(jerr));
	}
	if (!json_object_is_type(*root, json_type_object)) {
		json_object_put(*root);
		*root = NULL;
		return claim_fail(src, line_of(src, start), "fio JSON is not an object");
	}
	return 0;
}

/* fio's JSON names its version first: a '{' line whose object says "fio version" soon. */
static bool fio_json_start(const struct claim_src *file, size_t pos)
{
	if (pos >= file->len || file->buf[pos] != '{')
		return false;
	struct claim_src head = *file;
	head.buf += pos;
	head.len = file->len - pos < 512 ? file->len - pos : 512;
	return claim_contains(&head, "\"fio version\"");
}

int claim_find_fio(const struct claim_src *file, size_t pos, unsigned lineno,
                   struct claim_extent *out)
{
	if (!fio_json_start(file, pos))
		return 0;
	struct json_object *root = NULL;
	size_t end;
	if (parse_root(file, pos, &root, &end) != 0)
		return -1;
	json_object_put(root);
	out->start = pos;
	out->first_line = lineno;
	out->last_line = line_of(file, end);
	while (end < file->len && file->buf[end] != '\n') /* the rest of its last line */
		end++;
	out->end = end < file->len ? end + 1 : end;
	return 1;
}

/* Its end is the object's: the JSON parser saw it whole. */
bool claim_whole_fio(const struct claim_src *src, const struct claim_line *last)
{
	(void)src;
	(void)last;
	return true;
}

int claim_parse_fio(const struct claim_src *src, struct claim_build *b)
{
	struct json_object *root = NULL;
	size_t end;
	if (parse_root(src, 0, &root, &end) != 0)
		return -1;
	int rc = get_groups(src, b, root);
	json_object_put(root);
	return rc;
}
