/* rec_oplog.c - rows waiting for their commit; see rec_oplog.h. */
#include "record/rec_oplog.h"

#include <stdlib.h>
#include <string.h>

enum param_type { P_NULL, P_INT, P_TEXT, P_BLOB };

struct rec_op {
	unsigned stmt;
	size_t first, n; /* its parameters */
};

struct rec_param {
	enum param_type type;
	int64_t i;       /* P_INT */
	size_t off, len; /* P_TEXT, P_BLOB: in bytes */
};

struct rec_unit_end {
	size_t ops;
	uint64_t bytes; /* the log's bytes at its end */
	size_t samples; /* the samples of the log up to its end */
};

void rec_oplog_init(struct rec_oplog *log)
{
	memset(log, 0, sizeof(*log));
}

void rec_oplog_free(struct rec_oplog *log)
{
	free(log->ops);
	free(log->params);
	free(log->bytes);
	free(log->ends);
	rec_oplog_init(log);
}

/* Room for one more of *arr (n held, *cap allocated, size bytes each). */
static bool grow(struct rec_oplog *log, void *arr, size_t n, size_t *cap, size_t size, size_t more)
{
	if (n + more <= *cap)
		return true;
	size_t c = *cap ? *cap : 64;
	while (c < n + more)
		c *= 2;
	void **p = arr;
	void *q = realloc(*p, c * size);
	if (!q) {
		log->failed = true;
		return false;
	}
	*p = q;
	*cap = c;
	return true;
}

void rec_oplog_add(struct rec_oplog *log, unsigned stmt)
{
	if (!grow(log, &log->ops, log->n_ops, &log->cap_ops, sizeof(*log->ops), 1))
		return;
	log->ops[log->n_ops++] = (struct rec_op){stmt, log->n_params, 0};
}

static struct rec_param *param(struct rec_oplog *log)
{
	if (!log->n_ops ||
	    !grow(log, &log->params, log->n_params, &log->cap_params, sizeof(*log->params), 1))
		return NULL;
	log->ops[log->n_ops - 1].n++;
	return &log->params[log->n_params++];
}

void rec_oplog_null(struct rec_oplog *log)
{
	struct rec_param *p = param(log);
	if (p)
		*p = (struct rec_param){.type = P_NULL};
}

void rec_oplog_int(struct rec_oplog *log, int64_t v)
{
	struct rec_param *p = param(log);
	if (p)
		*p = (struct rec_param){.type = P_INT, .i = v};
}

static void copy(struct rec_oplog *log, enum param_type type, const void *data, size_t len)
{
	if (!grow(log, &log->bytes, log->n_bytes, &log->cap_bytes, 1, len ? len : 1))
		return;
	struct rec_param *p = param(log);
	if (!p)
		return;
	*p = (struct rec_param){.type = type, .off = log->n_bytes, .len = len};
	if (len)
		memcpy(log->bytes + log->n_bytes, data, len);
	log->n_bytes += len;
}

void rec_oplog_text(struct rec_oplog *log, const char *s, size_t len)
{
	copy(log, P_TEXT, s, len);
}

void rec_oplog_blob(struct rec_oplog *log, const void *p, size_t len)
{
	copy(log, P_BLOB, p, len);
}

uint64_t rec_oplog_bytes(const struct rec_oplog *log)
{
	return log->n_bytes + 8 * (uint64_t)log->n_params;
}

void rec_oplog_end_unit(struct rec_oplog *log, unsigned samples)
{
	size_t before = log->n_ends ? log->ends[log->n_ends - 1].ops : 0;
	if (log->n_ops == before)
		return; /* an empty unit */
	if (!grow(log, &log->ends, log->n_ends, &log->cap_ends, sizeof(*log->ends), 1))
		return;
	size_t had = log->n_ends ? log->ends[log->n_ends - 1].samples : 0;
	log->ends[log->n_ends++] =
	    (struct rec_unit_end){log->n_ops, rec_oplog_bytes(log), had + samples};
}

size_t rec_oplog_units(const struct rec_oplog *log)
{
	return log->n_ends;
}

size_t rec_oplog_samples(const struct rec_oplog *log)
{
	return log->n_ends ? log->ends[log->n_ends - 1].samples : 0;
}

size_t rec_oplog_cut(const struct rec_oplog *log, uint64_t max_bytes, size_t *samples)
{
	size_t u = 0;
	while (u < log->n_ends && (u == 0 || log->ends[u].bytes <= max_bytes))
		u++;
	*samples = u ? log->ends[u - 1].samples : 0;
	return u ? log->ends[u - 1].ops : 0;
}

static int bind(sqlite3_stmt *st, int col, const struct rec_oplog *log, const struct rec_param *p)
{
	switch (p->type) {
	case P_INT:
		return sqlite3_bind_int64(st, col, p->i);
	case P_TEXT:
		return sqlite3_bind_text(st, col, (const char *)log->bytes + p->off, (int)p->len,
		                         SQLITE_STATIC);
	case P_BLOB:
		return sqlite3_bind_blob(st, col, log->bytes + p->off, (int)p->len, SQLITE_STATIC);
	default:
		return sqlite3_bind_null(st, col);
	}
}

int rec_oplog_run(const struct rec_oplog *log, sqlite3_stmt *const *st, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct rec_op *op = &log->ops[i];
		sqlite3_stmt *s = st[op->stmt];
		int rc = SQLITE_OK;
		for (size_t k = 0; rc == SQLITE_OK && k < op->n; k++)
			rc = bind(s, (int)k + 1, log, &log->params[op->first + k]);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(s);
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		if (rc != SQLITE_DONE)
			return rc == SQLITE_OK ? SQLITE_ERROR : rc;
	}
	return SQLITE_OK;
}

void rec_oplog_drop(struct rec_oplog *log, size_t n)
{
	if (!n)
		return;
	size_t units = 0;
	while (units < log->n_ends && log->ends[units].ops <= n)
		units++;
	size_t params = n < log->n_ops ? log->ops[n].first : log->n_params;
	size_t bytes = log->n_bytes;
	for (size_t i = params; i < log->n_params; i++)
		if (log->params[i].type == P_TEXT || log->params[i].type == P_BLOB) {
			bytes = log->params[i].off;
			break;
		}
	uint64_t dropped = units ? log->ends[units - 1].bytes : 0;
	size_t samples = units ? log->ends[units - 1].samples : 0;
	memmove(log->ops, log->ops + n, (log->n_ops - n) * sizeof(*log->ops));
	log->n_ops -= n;
	for (size_t i = 0; i < log->n_ops; i++)
		log->ops[i].first -= params;
	memmove(log->params, log->params + params, (log->n_params - params) * sizeof(*log->params));
	log->n_params -= params;
	for (size_t i = 0; i < log->n_params; i++)
		if (log->params[i].type == P_TEXT || log->params[i].type == P_BLOB)
			log->params[i].off -= bytes;
	memmove(log->bytes, log->bytes + bytes, log->n_bytes - bytes);
	log->n_bytes -= bytes;
	memmove(log->ends, log->ends + units, (log->n_ends - units) * sizeof(*log->ends));
	log->n_ends -= units;
	for (size_t i = 0; i < log->n_ends; i++) {
		log->ends[i].ops -= n;
		log->ends[i].bytes -= dropped;
		log->ends[i].samples -= samples;
	}
}
