/* serve_http.c - /metrics over libmicrohttpd; see serve_http.h. */
#include "cli/serve_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct http_server {
	struct MHD_Daemon *daemon;
	struct exporter *ex;
	int fd;
};

static const char index_page[] = "<!DOCTYPE html>\n<html><head><title>xiotop</title></head><body>\n"
                                 "<h1>xiotop</h1>\n<p>Per-domain I/O accounting of this dom0: "
                                 "<a href=\"/metrics\">/metrics</a></p>\n</body></html>\n";

/* "ADDR:PORT" or "[ADDR6]:PORT" into ss; false if malformed. */
static bool parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host))
		return false;
	char *end;
	long port = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || port < 1 || port > 65535)
		return false;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	memset(ss, 0, sizeof(*ss));
	size_t hl = strlen(host);
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
		host[hl - 1] = '\0';
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return inet_pton(AF_INET6, host + 1, &a6->sin6_addr) == 1;
	}
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	a4->sin_family = AF_INET;
	a4->sin_port = htons((uint16_t)port);
	*len = sizeof(*a4);
	return inet_pton(AF_INET, host, &a4->sin_addr) == 1;
}

static int bound_socket(const char *listen_at)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (!parse_listen(listen_at, &ss, &len)) {
		fprintf(stderr,
		        "xiotop serve: --listen wants ADDR:PORT (127.0.0.1:9717, [::1]:9717), "
		        "not \"%s\"\n",
		        listen_at);
		return -1;
	}
	int one = 1, fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
	    bind(fd, (struct sockaddr *)&ss, len) == 0 && listen(fd, 64) == 0)
		return fd;
	fprintf(stderr, "xiotop serve: cannot listen on %s: %s\n", listen_at, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             const char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, mode);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* Under the exporter's lock: a response holding a copy of the exposition. */
static int copy_exposition(void *ctx, const char *text, size_t len)
{
	struct MHD_Response **r = ctx;
	*r = MHD_create_response_from_buffer(len, (void *)text, MHD_RESPMEM_MUST_COPY);
	return *r ? 0 : -1;
}

static enum MHD_Result metrics(struct http_server *h, struct MHD_Connection *c)
{
	const char *accept =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	enum expo_format f = expo_negotiate(accept);
	static const char not_ready[] = "xiotop serve: the tracer is not attached yet; its "
	                                "counters count from its attach\n";
	if (!exporter_started(h->ex))
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
		             not_ready, sizeof(not_ready) - 1, MHD_RESPMEM_PERSISTENT);
	struct MHD_Response *r = NULL;
	if (exporter_latest(h->ex, f, copy_exposition, &r))
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, expo_content_type(f));
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept");
	enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
	(void)version, (void)upload_data, (void)upload_size, (void)con_cls;
	static const char not_found[] = "not found: try /metrics\n";
	static const char not_allowed[] = "only GET and HEAD\n";
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
		             not_allowed, sizeof(not_allowed) - 1, MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/metrics"))
		return metrics(cls, c);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", index_page,
		             sizeof(index_page) - 1, MHD_RESPMEM_PERSISTENT);
	return reply(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", not_found,
	             sizeof(not_found) - 1, MHD_RESPMEM_PERSISTENT);
}

int http_serve_start(const char *listen_at, struct exporter *ex, struct http_server **out)
{
	*out = NULL;
	struct http_server *h = calloc(1, sizeof(*h));
	if (!h || (h->fd = bound_socket(listen_at)) < 0) {
		free(h);
		return 2;
	}
	h->ex = ex;
	sigset_t stop_signals, old;
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop_signals, &old); /* the threads inherit the mask */
	h->daemon = MHD_start_daemon(
	    MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, h,
	    MHD_OPTION_LISTEN_SOCKET, h->fd, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)HTTP_THREADS,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONNECTIONS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_IDLE_TIMEOUT_S, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->daemon) {
		fprintf(stderr, "xiotop serve: cannot start the HTTP server on %s\n", listen_at);
		close(h->fd);
		free(h);
		return 2;
	}
	*out = h;
	return 0;
}

void http_serve_stop(struct http_server *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->daemon); /* closes the listen socket too */
	free(h);
}
