/* qmp.c - a QMP question answered however late it comes; see qmp.h. */
#include "sources/xen/qmp.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/clock.h"

#define ID_CAPABILITIES "xiotop-capabilities"
#define ID_COMMAND      "xiotop-command"
#define READ_CHUNK      4096

enum qmp_state { WAIT_GREETING, WAIT_CAPABILITIES, WAIT_REPLY, DONE };

struct qmp_conv {
	int fd;
	char command[64];
	enum qmp_state state;
	char *buf; /* bytes received, not yet taken as lines */
	size_t len, cap;
	char *reply;
	char *why;
	size_t whylen;
};

static int fail(struct qmp_conv *c, const char *what)
{
	snprintf(c->why, c->whylen, "%s", what);
	return -1;
}

/* A command line is a few dozen bytes: a UNIX socket takes it whole, or it is refused. */
static int send_line(struct qmp_conv *c, const char *id, const char *command)
{
	char line[160];
	int n =
	    snprintf(line, sizeof(line), "{\"execute\": \"%s\", \"id\": \"%s\"}\r\n", command, id);
	if (n < 0 || (size_t)n >= sizeof(line))
		return fail(c, "QMP command too long");
	ssize_t w = send(c->fd, line, (size_t)n, MSG_NOSIGNAL);
	if (w != n) {
		snprintf(c->why, c->whylen, "QMP: cannot send %s: %s", command,
		         w < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

static bool has_id(json_object *o, const char *id)
{
	json_object *v;
	return json_object_object_get_ex(o, "id", &v) && json_object_is_type(v, json_type_string) &&
	       strcmp(json_object_get_string(v), id) == 0;
}

/* QEMU's error reply: {"error": {"class": ..., "desc": ...}, "id": ...}. */
static int refused(struct qmp_conv *c, json_object *o, const char *what)
{
	json_object *err, *desc;
	const char *text = "no reason given";
	if (json_object_object_get_ex(o, "error", &err) &&
	    json_object_object_get_ex(err, "desc", &desc) &&
	    json_object_is_type(desc, json_type_string))
		text = json_object_get_string(desc);
	snprintf(c->why, c->whylen, "QMP %s refused: %.200s", what, text);
	return -1;
}

/* One line from QEMU: a greeting, an event, or a reply; moves the conversation on. */
static int take_line(struct qmp_conv *c, const char *line)
{
	json_object *o = json_tokener_parse(line);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return fail(c, "QMP sent a line that is not a JSON object");
	}
	json_object *ret;
	int rc = 0;
	if (c->state == WAIT_GREETING && json_object_object_get_ex(o, "QMP", NULL)) {
		rc = send_line(c, ID_CAPABILITIES, "qmp_capabilities");
		c->state = WAIT_CAPABILITIES;
	} else if (c->state == WAIT_CAPABILITIES && has_id(o, ID_CAPABILITIES)) {
		if (!json_object_object_get_ex(o, "return", NULL))
			rc = refused(c, o, "qmp_capabilities");
		else
			rc = send_line(c, ID_COMMAND, c->command);
		c->state = WAIT_REPLY;
	} else if (c->state == WAIT_REPLY && has_id(o, ID_COMMAND)) {
		if (!json_object_object_get_ex(o, "return", &ret)) {
			rc = refused(c, o, c->command);
		} else {
			c->reply =
			    strdup(json_object_to_json_string_ext(ret, JSON_C_TO_STRING_PLAIN));
			rc = c->reply ? 0 : fail(c, "out of memory");
		}
		c->state = DONE;
	}
	/* anything else is an event or a stranger's reply: not ours, skipped */
	json_object_put(o);
	return rc;
}

/* Take every whole line received; keep the partial one. */
static int take_lines(struct qmp_conv *c)
{
	size_t start = 0;
	for (size_t i = 0; i < c->len && c->state != DONE; i++) {
		if (c->buf[i] != '\n')
			continue;
		c->buf[i] = '\0';
		if (take_line(c, c->buf + start))
			return -1;
		start = i + 1;
	}
	memmove(c->buf, c->buf + start, c->len - start);
	c->len -= start;
	if (c->len >= QMP_LINE_MAX)
		return fail(c, "QMP sent a line longer than 1 MiB");
	return 0;
}

static int receive(struct qmp_conv *c)
{
	if (c->cap - c->len < READ_CHUNK + 1) {
		size_t cap = c->cap ? c->cap * 2 : 2 * READ_CHUNK;
		char *p = realloc(c->buf, cap);
		if (!p)
			return fail(c, "out of memory");
		c->buf = p;
		c->cap = cap;
	}
	ssize_t n = recv(c->fd, c->buf + c->len, READ_CHUNK, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n < 0) {
		snprintf(c->why, c->whylen, "QMP: read failed: %s", strerror(errno));
		return -1;
	}
	if (n == 0)
		return fail(c, "QEMU closed the QMP connection before answering");
	c->len += (size_t)n;
	return take_lines(c);
}

static int connect_to(const char *path, char *why, size_t whylen)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(why, whylen, "QMP socket path too long: %.100s", path);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, whylen, "QMP: socket: %s", strerror(errno));
		return -1;
	}
	/* a UNIX stream connect completes at once, or fails (EAGAIN: QEMU's backlog full) */
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		snprintf(why, whylen, "QMP: cannot connect to %.100s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int qmp_start(struct qmp_conv **out, const char *path, const char *command, char *why,
              size_t whylen)
{
	*out = NULL;
	struct qmp_conv *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	snprintf(c->command, sizeof(c->command), "%s", command);
	c->fd = connect_to(path, why, whylen);
	if (c->fd < 0) {
		free(c);
		return -1;
	}
	*out = c;
	return 0;
}

int qmp_fd(const struct qmp_conv *c)
{
	return c->fd;
}

const char *qmp_waiting_for(const struct qmp_conv *c)
{
	switch (c->state) {
	case WAIT_GREETING:
		return "the QMP greeting";
	case WAIT_CAPABILITIES:
		return "the QMP negotiation";
	default:
		return c->command;
	}
}

int qmp_step(struct qmp_conv *c, int wait_ms, char **reply, char *why, size_t whylen)
{
	*reply = NULL;
	if (c->state == DONE) {
		snprintf(why, whylen, "QMP: the conversation is over");
		return -1;
	}
	c->why = why;
	c->whylen = whylen;
	int64_t end = (clock_mono_ns() / NS_PER_MS) + (wait_ms > 0 ? wait_ms : 0);
	for (;;) {
		int64_t left = end - (clock_mono_ns() / NS_PER_MS);
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		int ready = poll(&p, 1, left > 0 ? (int)left : 0);
		if (ready < 0 && errno != EINTR) {
			snprintf(why, whylen, "QMP: poll: %s", strerror(errno));
			c->state = DONE;
			return -1;
		}
		if (ready > 0 && receive(c)) {
			c->state = DONE;
			free(c->reply);
			c->reply = NULL;
			return -1;
		}
		if (c->state == DONE) {
			*reply = c->reply;
			c->reply = NULL;
			return 1;
		}
		if (ready <= 0 && left <= 0)
			return 0;
	}
}

void qmp_end(struct qmp_conv *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c->buf);
	free(c->reply);
	free(c);
}

int qmp_ask(const char *path, const char *command, int deadline_ms, char **reply, char *why,
            size_t whylen)
{
	*reply = NULL;
	struct qmp_conv *c;
	if (qmp_start(&c, path, command, why, whylen))
		return -1;
	int rc = qmp_step(c, deadline_ms, reply, why, whylen);
	if (rc == 0)
		snprintf(why, whylen, "QEMU did not answer %s within %d ms", qmp_waiting_for(c),
		         deadline_ms);
	qmp_end(c);
	return rc == 1 ? 0 : -1;
}
