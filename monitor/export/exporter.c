/* exporter.c - render once per interval, publish under a mutex; see exporter.h. */
#include "export/exporter.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_FORMATS 2

struct rendered {
	char *text;
	size_t len;
};

struct exporter {
	struct metrics_state state; /* the loop's thread only */
	const char *version;
	pthread_mutex_t lock; /* guards published[], intervals and started */
	struct rendered published[N_FORMATS];
	unsigned long intervals;
	bool started; /* the first sample (the source's baseline) was seen */
};

static int render(const struct exporter *ex, enum expo_format f, struct rendered *out)
{
	out->text = NULL;
	out->len = 0;
	FILE *mem = open_memstream(&out->text, &out->len);
	if (!mem)
		return -1;
	int rc = expo_render(mem, &ex->state, f, ex->version);
	if (fclose(mem) || rc) {
		free(out->text);
		out->text = NULL;
		return -1;
	}
	return 0;
}

/* Renders every format, then swaps them in; on failure the last exposition stays. */
static int publish(struct exporter *ex)
{
	struct rendered next[N_FORMATS];
	for (int f = 0; f < N_FORMATS; f++)
		if (render(ex, (enum expo_format)f, &next[f])) {
			while (f--)
				free(next[f].text);
			return -1;
		}
	pthread_mutex_lock(&ex->lock);
	for (int f = 0; f < N_FORMATS; f++) {
		struct rendered old = ex->published[f];
		ex->published[f] = next[f];
		next[f] = old;
	}
	ex->intervals = ex->state.intervals;
	pthread_mutex_unlock(&ex->lock);
	for (int f = 0; f < N_FORMATS; f++)
		free(next[f].text);
	return 0;
}

struct exporter *exporter_open(const char *version)
{
	struct exporter *ex = calloc(1, sizeof(*ex));
	if (!ex)
		return NULL;
	metrics_init(&ex->state);
	ex->version = version;
	pthread_mutex_init(&ex->lock, NULL);
	if (publish(ex)) {
		exporter_close(ex);
		return NULL;
	}
	return ex;
}

/* The first sample says which hooks run: shown before the first interval ends. */
static int on_sample(void *ctx, const struct xio_sample *s, bool first)
{
	struct exporter *ex = ctx;
	if (!first)
		return LOOP_GO_ON;
	snprintf(ex->state.hooks, sizeof(ex->state.hooks), "%s", s->hooks);
	publish(ex); /* failing, the empty exposition stays: the next interval retries */
	pthread_mutex_lock(&ex->lock);
	ex->started = true;
	pthread_mutex_unlock(&ex->lock);
	return LOOP_GO_ON;
}

static int on_interval(void *ctx, struct model_interval *m, unsigned long index)
{
	(void)index;
	struct exporter *ex = ctx;
	if (metrics_add_interval(&ex->state, m) || publish(ex))
		return 1; /* exporter_failure() says why */
	return LOOP_GO_ON;
}

/* The only way on_interval fails. */
static const struct xerr *exporter_failure(void *ctx)
{
	(void)ctx;
	static const struct xerr out_of_memory = {.kind = XERR_NOMEM, .msg = "out of memory"};
	return &out_of_memory;
}

struct interval_sink exporter_sink(struct exporter *ex)
{
	return (struct interval_sink){
	    .ctx = ex, .sample = on_sample, .interval = on_interval, .failure = exporter_failure};
}

int exporter_latest(struct exporter *ex, enum expo_format f,
                    int (*fn)(void *ctx, const char *text, size_t len), void *ctx)
{
	pthread_mutex_lock(&ex->lock);
	const struct rendered *r = &ex->published[f == EXPO_PROMETHEUS];
	int rc = fn(ctx, r->text, r->len);
	pthread_mutex_unlock(&ex->lock);
	return rc;
}

unsigned long exporter_intervals(struct exporter *ex)
{
	pthread_mutex_lock(&ex->lock);
	unsigned long n = ex->intervals;
	pthread_mutex_unlock(&ex->lock);
	return n;
}

bool exporter_started(struct exporter *ex)
{
	pthread_mutex_lock(&ex->lock);
	bool started = ex->started;
	pthread_mutex_unlock(&ex->lock);
	return started;
}

void exporter_close(struct exporter *ex)
{
	if (!ex)
		return;
	for (int f = 0; f < N_FORMATS; f++)
		free(ex->published[f].text);
	metrics_free(&ex->state);
	pthread_mutex_destroy(&ex->lock);
	free(ex);
}
