/* qmp_double.h - a QEMU QMP socket for the tests: a thread that greets, negotiates and
 * answers query-blockstats with a canned array, or misbehaves as a QEMU can (answers
 * late, in pieces, between events, with an error, with garbage, closes, stays silent).
 * Included by the tests that need it (one translation unit each). */
#ifndef XIOTOP_TEST_QMP_DOUBLE_H
#define XIOTOP_TEST_QMP_DOUBLE_H

#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum qd_mode {
	QD_ANSWER,  /* as QEMU does */
	QD_CLOSE,   /* accept and close at once */
	QD_SILENT,  /* accept, say nothing until the client goes */
	QD_ERROR,   /* query-blockstats gets {"error": ...} */
	QD_GARBAGE, /* the reply line is not JSON */
};

struct qmp_double {
	char path[320];
	int listen_fd;
	pthread_t thread;
	pthread_mutex_t lock;
	bool stop;
	/* what the next connection gets (read under lock at accept) */
	enum qd_mode mode;
	char blockstats[2048]; /* the "return" array of query-blockstats */
	int delay_ms;          /* before each line sent */
	bool bytewise;         /* each line sent one byte at a time */
	bool events;           /* an event before each reply */
	int served;            /* connections accepted */
};

static void qd_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void qd_send(int fd, const char *line, int delay_ms, bool bytewise)
{
	if (delay_ms)
		qd_sleep_ms(delay_ms);
	size_t len = strlen(line);
	if (!bytewise) {
		(void)!send(fd, line, len, MSG_NOSIGNAL);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		(void)!send(fd, line + i, 1, MSG_NOSIGNAL);
		if (i % 16 == 0)
			qd_sleep_ms(1);
	}
}

static void qd_serve(struct qmp_double *q, int fd)
{
	pthread_mutex_lock(&q->lock);
	struct qmp_double cfg = *q;
	q->served++;
	pthread_mutex_unlock(&q->lock);
	if (cfg.mode == QD_CLOSE)
		return;
	char buf[4096];
	size_t len = 0;
	if (cfg.mode != QD_SILENT)
		qd_send(fd,
		        "{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 0, \"minor\": 2, "
		        "\"major\": 7}},"
		        " \"capabilities\": [\"oob\"]}}\r\n",
		        cfg.delay_ms, cfg.bytewise);
	for (;;) {
		ssize_t n = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);
		if (n <= 0)
			return;
		len += (size_t)n;
		buf[len] = '\0';
		char *nl;
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			json_object *o = json_tokener_parse(buf), *v;
			const char *cmd = "", *id = "";
			if (o && json_object_object_get_ex(o, "execute", &v))
				cmd = json_object_get_string(v);
			if (o && json_object_object_get_ex(o, "id", &v))
				id = json_object_get_string(v);
			static char out[4096];
			if (cfg.mode == QD_SILENT) {
				out[0] = '\0';
			} else if (strcmp(cmd, "qmp_capabilities") == 0) {
				snprintf(out, sizeof(out), "{\"return\": {}, \"id\": \"%s\"}\r\n",
				         id);
			} else if (cfg.mode == QD_ERROR) {
				snprintf(
				    out, sizeof(out),
				    "{\"error\": {\"class\": \"GenericError\", \"desc\": \"no\"},"
				    " \"id\": \"%s\"}\r\n",
				    id);
			} else if (cfg.mode == QD_GARBAGE) {
				snprintf(out, sizeof(out), "{\"return\": [ oops\r\n");
			} else {
				snprintf(out, sizeof(out), "{\"return\": %s, \"id\": \"%s\"}\r\n",
				         cfg.blockstats, id);
			}
			json_object_put(o);
			if (out[0] && cfg.events)
				qd_send(fd,
				        "{\"timestamp\": {\"seconds\": 1, \"microseconds\": 2},"
				        " \"event\": \"RESUME\"}\r\n",
				        0, cfg.bytewise);
			if (out[0])
				qd_send(fd, out, cfg.delay_ms, cfg.bytewise);
			size_t used = (size_t)(nl - buf) + 1;
			memmove(buf, nl + 1, len - used + 1);
			len -= used;
		}
	}
}

static void *qd_thread(void *arg)
{
	struct qmp_double *q = arg;
	for (;;) {
		pthread_mutex_lock(&q->lock);
		bool stop = q->stop;
		pthread_mutex_unlock(&q->lock);
		if (stop)
			return NULL;
		struct pollfd p = {.fd = q->listen_fd, .events = POLLIN};
		if (poll(&p, 1, 20) <= 0)
			continue;
		int fd = accept(q->listen_fd, NULL, NULL);
		if (fd < 0)
			continue;
		qd_serve(q, fd);
		close(fd);
	}
}

/* Listen at DIR/qmp-libxenstat-DOMID, as libxl makes it. */
static int qd_start(struct qmp_double *q, const char *dir, unsigned int domid)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->lock, NULL);
	snprintf(q->path, sizeof(q->path), "%s/qmp-libxenstat-%u", dir, domid);
	snprintf(q->blockstats, sizeof(q->blockstats), "[]");
	unlink(q->path);
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	if (strlen(q->path) >= sizeof(sun.sun_path))
		return -1;
	memcpy(sun.sun_path, q->path, strlen(q->path) + 1);
	q->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (q->listen_fd < 0 || bind(q->listen_fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    listen(q->listen_fd, 4))
		return -1;
	return pthread_create(&q->thread, NULL, qd_thread, q);
}

static void qd_set(struct qmp_double *q, enum qd_mode mode, const char *blockstats)
{
	pthread_mutex_lock(&q->lock);
	q->mode = mode;
	if (blockstats)
		snprintf(q->blockstats, sizeof(q->blockstats), "%s", blockstats);
	pthread_mutex_unlock(&q->lock);
}

static void qd_stop(struct qmp_double *q)
{
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	close(q->listen_fd);
	unlink(q->path);
	pthread_mutex_destroy(&q->lock);
}

#endif
