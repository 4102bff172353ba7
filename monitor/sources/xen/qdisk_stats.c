/* qdisk_stats.c - qdisk vbd counters from query-blockstats; see qdisk_stats.h. */
#include "sources/xen/qdisk_stats.h"

#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/error.h"
#include "sources/xen/qmp.h"

static size_t qdisk_backends(const struct xt_domain *d)
{
	size_t n = 0;
	for (size_t j = 0; j < d->n_backends; j++)
		n += d->backends[j].kind == XT_BK_QDISK;
	return n;
}

/* "xvda-raw" names the drive of dev "xvda": the dev, a dash, then the format driver. */
static bool names_dev(json_object *entry, const char *dev)
{
	json_object *v;
	if (!dev || !*dev || !json_object_object_get_ex(entry, "node-name", &v) ||
	    !json_object_is_type(v, json_type_string))
		return false;
	const char *name = json_object_get_string(v);
	size_t len = strlen(dev);
	return strncmp(name, dev, len) == 0 && name[len] == '-' && name[len + 1] != '\0';
}

static bool counter(json_object *stats, const char *key, uint64_t *out)
{
	json_object *v;
	if (!json_object_object_get_ex(stats, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	int64_t x = json_object_get_int64(v);
	if (x < 0)
		return false;
	*out = (uint64_t)x;
	return true;
}

static int add_entry(json_object *entry, uint32_t domid, const struct xt_backend *b,
                     struct xio_sample *s)
{
	json_object *stats;
	struct xio_vbd_stat v = {.domid = domid, .devid = b->devid, .source = XIO_VBD_QMP};
	if (!json_object_object_get_ex(entry, "stats", &stats) ||
	    !counter(stats, "rd_bytes", &v.rd_bytes) || !counter(stats, "wr_bytes", &v.wr_bytes) ||
	    !counter(stats, "rd_operations", &v.rd_req) ||
	    !counter(stats, "wr_operations", &v.wr_req))
		return 0;
	if (sample_vbd_stat(s, domid, b->devid))
		return 0; /* two entries name one vbd: the first stands */
	return sample_add_vbd_stat(s, &v) ? -1 : 1;
}

int qdisk_stats_take(const char *blockstats, const struct xt_domain *d, struct xio_sample *s,
                     const char **problem)
{
	*problem = NULL;
	json_object *all = json_tokener_parse(blockstats);
	if (!all || !json_object_is_type(all, json_type_array)) {
		json_object_put(all);
		*problem = "QEMU's query-blockstats reply is not a list of drives";
		return 0;
	}
	size_t n = json_object_array_length(all);
	bool lone = qdisk_backends(d) == 1 && n == 1;
	int matched = 0;
	for (size_t j = 0; j < d->n_backends && matched >= 0; j++) {
		const struct xt_backend *b = &d->backends[j];
		if (b->kind != XT_BK_QDISK)
			continue;
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(all, i);
			if (!json_object_is_type(e, json_type_object) ||
			    !(lone || names_dev(e, b->dev)))
				continue;
			int rc = add_entry(e, d->domid, b, s);
			matched = rc < 0 ? -1 : matched + rc;
			break;
		}
	}
	json_object_put(all);
	if (matched >= 0 && (size_t)matched < qdisk_backends(d))
		*problem = "QEMU lists no drive named for some of its qdisk vbds";
	return matched < 0 ? -1 : 0;
}

/* One domain's question, kept from one sample to the next. */
struct qdisk_ask {
	uint32_t domid;
	struct qmp_conv *conv;  /* NULL: none in flight */
	unsigned long asked_at; /* the fill that started it */
	int64_t asked_ms;       /* when (monotonic) */
	size_t topo_index;      /* this fill's domain in topo */
	bool in_topo;           /* seen in this fill */
	struct qdisk_tally tally;
};

struct qdisk_asks {
	struct qdisk_ask *asks;
	struct pollfd *polls; /* wait_answers' room, cap of each */
	struct qdisk_ask **polled;
	size_t n, cap;
	unsigned long fills; /* calls of qdisk_stats_fill */
	int give_up_ms;
};

struct qdisk_asks *qdisk_asks_new(int give_up_ms)
{
	struct qdisk_asks *a = calloc(1, sizeof(*a));
	if (a)
		a->give_up_ms = give_up_ms;
	return a;
}

static int64_t now_ms(void)
{
	return clock_mono_ns() / NS_PER_MS;
}

static struct qdisk_ask *ask_of(struct qdisk_asks *a, uint32_t domid)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->asks[i].domid == domid)
			return &a->asks[i];
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 4;
		struct qdisk_ask *p = realloc(a->asks, cap * sizeof(*p));
		if (p)
			a->asks = p;
		struct pollfd *polls = realloc(a->polls, cap * sizeof(*polls));
		if (polls)
			a->polls = polls;
		struct qdisk_ask **polled = realloc(a->polled, cap * sizeof(*polled));
		if (polled)
			a->polled = polled;
		if (!p || !polls || !polled)
			return NULL;
		a->cap = cap;
	}
	a->asks[a->n] = (struct qdisk_ask){.domid = domid};
	return &a->asks[a->n++];
}

/* Each qdisk domain of this sample gets its entry, and a question when it has none. */
static int ask_each(struct qdisk_asks *a, const char *qmp_dir, const struct xt_topology *topo,
                    struct xio_sample *s, char *why, size_t whylen)
{
	for (size_t i = 0; i < a->n; i++)
		a->asks[i].in_topo = false;
	for (size_t i = 0; topo && i < topo->n_domains; i++) {
		const struct xt_domain *d = &topo->domains[i];
		if (!qdisk_backends(d) || !sample_domain(s, d->domid))
			continue;
		s->has_vbd_stats = true;
		struct qdisk_ask *q = ask_of(a, d->domid);
		if (!q)
			return -1;
		q->in_topo = true;
		q->topo_index = i;
		q->tally.samples++;
		if (q->conv)
			continue;
		char path[512], err[256];
		snprintf(path, sizeof(path), "%s/qmp-libxenstat-%u", qmp_dir, d->domid);
		if (qmp_start(&q->conv, path, "query-blockstats", err, sizeof(err))) {
			q->tally.not_connected++;
			snprintf(why, whylen, "qdisk counters of domain %u: %s", d->domid, err);
			continue;
		}
		q->asked_at = a->fills;
		q->asked_ms = now_ms();
	}
	return 0;
}

static void end_question(struct qdisk_ask *q)
{
	qmp_end(q->conv);
	q->conv = NULL;
}

/* What a domain's questions came to, said when it goes and at the end unless each sample
 * took its own answer: how a slow or absent QEMU showed, and what the gaps were. */
static void say_tally(const struct qdisk_ask *q)
{
	const struct qdisk_tally *t = &q->tally;
	if (t->answered == t->samples && !t->late)
		return;
	xnote("qdisk counters of domain %u over %lu samples: %lu answered (%lu of them late, the "
	      "answer to an earlier sample's question), %lu ended waiting for an answer, %lu "
	      "could not connect, %lu failed, %lu questions given up",
	      q->domid, t->samples, t->answered, t->late, t->waiting, t->not_connected, t->failed,
	      t->given_up);
}

/* A domain gone from the topology: its question closed, its entry dropped. */
static void drop_gone(struct qdisk_asks *a)
{
	size_t kept = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (a->asks[i].in_topo) {
			a->asks[kept++] = a->asks[i];
			continue;
		}
		say_tally(&a->asks[i]);
		end_question(&a->asks[i]);
	}
	a->n = kept;
}

/* Moves on the questions whose sockets are ready; takes the answers into s. */
static int take_ready(struct qdisk_asks *a, const struct xt_topology *topo, struct pollfd *p,
                      struct qdisk_ask **of, size_t n, struct xio_sample *s, char *why,
                      size_t whylen)
{
	for (size_t i = 0; i < n; i++) {
		struct qdisk_ask *q = of[i];
		if (!p[i].revents)
			continue;
		char *reply = NULL, err[256];
		int rc = qmp_step(q->conv, 0, &reply, err, sizeof(err));
		if (rc == 0)
			continue;
		const struct xt_domain *d = &topo->domains[q->topo_index];
		if (rc < 0) {
			q->tally.failed++;
			snprintf(why, whylen, "qdisk counters of domain %u: %s", d->domid, err);
		} else {
			const char *problem;
			int taken = qdisk_stats_take(reply, d, s, &problem);
			free(reply);
			if (taken)
				return -1;
			q->tally.answered++;
			q->tally.late += q->asked_at != a->fills;
			if (problem)
				snprintf(why, whylen, "qdisk counters of domain %u: %s", d->domid,
				         problem);
		}
		end_question(q);
	}
	return 0;
}

/* Waits up to QDISK_ASK_MS for every question in flight, all at once. */
static int wait_answers(struct qdisk_asks *a, const struct xt_topology *topo, struct xio_sample *s,
                        char *why, size_t whylen)
{
	struct pollfd *p = a->polls;
	struct qdisk_ask **of = a->polled;
	int64_t end = now_ms() + QDISK_ASK_MS;
	for (;;) {
		size_t n = 0;
		for (size_t i = 0; i < a->n; i++) {
			if (!a->asks[i].conv || !a->asks[i].in_topo)
				continue;
			p[n] = (struct pollfd){.fd = qmp_fd(a->asks[i].conv), .events = POLLIN};
			of[n++] = &a->asks[i];
		}
		int64_t left = end - now_ms();
		if (!n || left <= 0)
			return 0;
		int ready = poll(p, n, (int)left);
		if (ready < 0 && errno != EINTR) {
			snprintf(why, whylen, "qdisk counters: poll: %s", strerror(errno));
			return 0;
		}
		if (ready > 0 && take_ready(a, topo, p, of, n, s, why, whylen))
			return -1;
	}
}

/* A question still in flight: counted, and closed once it is QDISK_GIVE_UP_MS old. */
static void count_waiting(struct qdisk_asks *a, char *why, size_t whylen)
{
	for (size_t i = 0; i < a->n; i++) {
		struct qdisk_ask *q = &a->asks[i];
		if (!q->conv)
			continue;
		q->tally.waiting++;
		int64_t waited_ms = now_ms() - q->asked_ms;
		if (waited_ms < a->give_up_ms) {
			snprintf(why, whylen,
			         "qdisk counters of domain %u: QEMU has not answered %s yet (asked "
			         "%.1f s ago): its answer is taken when it comes",
			         q->domid, qmp_waiting_for(q->conv), (double)waited_ms / 1000);
			continue;
		}
		q->tally.given_up++;
		snprintf(
		    why, whylen,
		    "qdisk counters of domain %u: QEMU did not answer %s in %.1f s: closed, to "
		    "be asked again",
		    q->domid, qmp_waiting_for(q->conv), (double)waited_ms / 1000);
		end_question(q);
	}
}

int qdisk_stats_fill(struct qdisk_asks *a, const char *qmp_dir, const struct xt_topology *topo,
                     struct xio_sample *s, char *why, size_t whylen)
{
	a->fills++;
	if (ask_each(a, qmp_dir, topo, s, why, whylen))
		return -1;
	drop_gone(a);
	if (wait_answers(a, topo, s, why, whylen))
		return -1;
	count_waiting(a, why, whylen);
	return 0;
}

struct qdisk_tally qdisk_asks_tally(const struct qdisk_asks *a, uint32_t domid)
{
	for (size_t i = 0; a && i < a->n; i++)
		if (a->asks[i].domid == domid)
			return a->asks[i].tally;
	return (struct qdisk_tally){0};
}

void qdisk_asks_free(struct qdisk_asks *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		say_tally(&a->asks[i]);
		end_question(&a->asks[i]);
	}
	free(a->asks);
	free(a->polls);
	free(a->polled);
	free(a);
}
