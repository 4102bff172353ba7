/* claim_fio.c - fio --output-format=json (or json+), read with json-c in strict mode.
 *
 * The JSON object starts at the first line beginning with '{' (fio may print notes
 * before it) and nothing but white space may follow it. Per job: read/write io_bytes,
 * bw_bytes (bytes/s), runtime (ms), clat_ns.percentile "50.000000" and "99.000000".
 */
#include "explain/claims/claim_lex.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define FIO_JSON_DEPTH 32

static unsigned line_of(const struct claim_src *src, size_t offset)
{
	unsigned no = 1;
	for (size_t i = 0; i < offset && i < src->len; i++)
		no += src->buf[i] == '\n';
	return no;
}

static size_t json_start(const struct claim_src *src)
{
	for (size_t i = 0; i < src->len; i++)
		if (src->buf[i] == '{' && (i == 0 || src->buf[i - 1] == '\n'))
			return i;
	return src->len;
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

/* The options fio echoes ("global options", a job's "job options"): size=, filename=;
 * a kb_base of 1000 makes the size's units decimal: not taken. */
static void get_options(struct json_object *holder, const char *key, uint64_t *size,
                        bool *named_file, bool *decimal)
{
	struct json_object *opts, *v;
	if (!json_object_object_get_ex(holder, key, &opts) ||
	    !json_object_is_type(opts, json_type_object))
		return;
	if (json_object_object_get_ex(opts, "size", &v) && json_object_is_type(v, json_type_string))
		*size = fio_size_option(json_object_get_string(v));
	if (json_object_object_get_ex(opts, "kb_base", &v) &&
	    json_object_is_type(v, json_type_string) && strcmp(json_object_get_string(v), "1024"))
		*decimal = true;
	if (*decimal)
		*size = 0;
	if (json_object_object_get_ex(opts, "filename", &v))
		*named_file = true;
}

static int get_jobs(const struct claim_src *src, struct json_object *root, struct claim_fio *f)
{
	struct json_object *v, *jobs;
	uint64_t global_size = 0;
	bool global_named = false, global_decimal = false;
	get_options(root, "global options", &global_size, &global_named, &global_decimal);
	if (json_object_object_get_ex(root, "fio version", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(f->version, sizeof(f->version), "%s", json_object_get_string(v));
	if (!json_object_object_get_ex(root, "jobs", &jobs) ||
	    !json_object_is_type(jobs, json_type_array) || json_object_array_length(jobs) == 0)
		return claim_fail(src, 0, "fio JSON without a non-empty \"jobs\" array");
	size_t n = json_object_array_length(jobs);
	if (n > CLAIM_FIO_MAX_JOBS)
		return claim_fail(src, 0,
		                  "fio JSON has %zu jobs; at most %d are read (use "
		                  "group_reporting)",
		                  n, CLAIM_FIO_MAX_JOBS);
	for (size_t j = 0; j < n; j++) {
		struct json_object *job = json_object_array_get_idx(jobs, j);
		struct claim_fio_job *fj = &f->jobs[j];
		if (!json_object_is_type(job, json_type_object))
			return claim_fail(src, 0, "fio jobs[%zu] is not an object", j);
		if (json_object_object_get_ex(job, "jobname", &v) &&
		    json_object_is_type(v, json_type_string))
			snprintf(fj->name, sizeof(fj->name), "%s", json_object_get_string(v));
		fj->size_bytes = global_size;
		fj->named_file = global_named;
		bool decimal = global_decimal;
		get_options(job, "job options", &fj->size_bytes, &fj->named_file, &decimal);
		if (get_dir(src, job, (unsigned)j, "read", &fj->read) != 0 ||
		    get_dir(src, job, (unsigned)j, "write", &fj->write) != 0)
			return -1;
	}
	f->njobs = (unsigned)n;
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void claim_fio_headline(struct claim *out)
{
	const struct claim_fio *f = &out->u.fio;
	uint64_t bw_w = 0, bw_r = 0, ms_w = 0, ms_r = 0;
	for (unsigned j = 0; j < f->njobs; j++) {
		const struct claim_fio_job *fj = &f->jobs[j];
		/* each figure is below INT64_MAX, but 64 of them could wrap: saturate */
		out->written_bytes = sat_add(out->written_bytes, fj->write.io_bytes);
		out->read_bytes = sat_add(out->read_bytes, fj->read.io_bytes);
		bw_w = sat_add(bw_w, fj->write.bw_bytes);
		bw_r = sat_add(bw_r, fj->read.bw_bytes);
		ms_w = fj->write.runtime_ms > ms_w ? fj->write.runtime_ms : ms_w;
		ms_r = fj->read.runtime_ms > ms_r ? fj->read.runtime_ms : ms_r;
	}
	out->directions =
	    (out->written_bytes ? CLAIM_DIR_WRITE : 0) | (out->read_bytes ? CLAIM_DIR_READ : 0);
	bool w = out->written_bytes > 0;
	out->bytes = w ? out->written_bytes : out->read_bytes;
	out->rate_bytes_per_s = (double)(w ? bw_w : bw_r);
	out->seconds = (double)(w ? ms_w : ms_r) / 1000.0;
}

static int parse_root(const struct claim_src *src, size_t start, struct json_object **root)
{
	struct json_tokener *tok = json_tokener_new_ex(FIO_JSON_DEPTH);
	if (!tok)
		return claim_fail(src, 0, "out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	size_t len = src->len - start;
	*root = json_tokener_parse_ex(tok, src->buf + start, (int)len);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t end = start + json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (jerr == json_tokener_continue)
		return claim_fail(src, line_of(src, src->len),
		                  "truncated fio JSON; expected the "
		                  "rest of the object");
	if (jerr != json_tokener_success || !*root)
		return claim_fail(src, line_of(src, end), "fio JSON: %s",
		                  json_tokener_error_desc(jerr));
	for (size_t i = end; i < src->len; i++)
		if (src->buf[i] != ' ' && src->buf[i] != '\n' && src->buf[i] != '\t' &&
		    src->buf[i] != '\r') {
			json_object_put(*root);
			return claim_fail(src, line_of(src, i), "data after the fio JSON object");
		}
	if (!json_object_is_type(*root, json_type_object)) {
		json_object_put(*root);
		return claim_fail(src, line_of(src, start), "fio JSON is not an object");
	}
	return 0;
}

int claim_parse_fio(const struct claim_src *src, struct claim *out)
{
	out->tool = CLAIM_TOOL_FIO;
	size_t start = json_start(src);
	if (start == src->len)
		return claim_fail(src, 0,
		                  "mentions \"fio version\" but no line starts a JSON "
		                  "object; expected fio --output-format=json");
	if (src->len - start > INT_MAX)
		return claim_fail(src, 0, "fio JSON too large");
	struct json_object *root = NULL;
	if (parse_root(src, start, &root) != 0)
		return -1;
	int rc = get_jobs(src, root, &out->u.fio);
	json_object_put(root);
	if (rc != 0)
		return -1;
	claim_fio_headline(out);
	claim_add_fio_runs(out, "");
	return 0;
}
