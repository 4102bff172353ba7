/* serve_http.c - /metrics over libmicrohttpd; see serve_http.h. */
#include "cli/serve_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
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
	const struct web_config *web; /* NULL: plain HTTP, no authentication */
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

/* The client certificate as client_auth_type asks: true when the connection may go on. */
static bool client_cert_ok(const struct web_config *web, struct MHD_Connection *c)
{
	if (!web || !web->tls || web->client_auth == WEB_NO_CLIENT_CERT ||
	    web->client_auth == WEB_REQUEST_CLIENT_CERT)
		return true;
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!info || !info->tls_session)
		return false;
	gnutls_session_t session = info->tls_session;
	unsigned n_certs = 0;
	bool given = gnutls_certificate_get_peers(session, &n_certs) && n_certs > 0;
	if (!given)
		return web->client_auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN;
	if (web->client_auth == WEB_REQUIRE_ANY_CLIENT_CERT)
		return true;
	unsigned status = 0;
	return gnutls_certificate_verify_peers2(session, &status) == 0 && status == 0;
}

/* Basic auth against the web configuration's users: true when it may go on; else a 401
 * is queued in *rc (or the connection is closed). */
static bool authorized(const struct web_config *web, struct MHD_Connection *c, enum MHD_Result *rc)
{
	static const char denied[] = "401 Unauthorized\n";
	if (!web || web_config_open_access(web))
		return true;
	char *password = NULL;
	char *user = MHD_basic_auth_get_username_password(c, &password);
	bool ok = user && password && web_config_check_user(web, user, password);
	MHD_free(user);
	MHD_free(password);
	if (ok)
		return true;
	struct MHD_Response *r = MHD_create_response_from_buffer(sizeof(denied) - 1, (void *)denied,
	                                                         MHD_RESPMEM_PERSISTENT);
	*rc = r ? MHD_queue_basic_auth_fail_response(c, "xiotop", r) : MHD_NO;
	if (r)
		MHD_destroy_response(r);
	return false;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
	(void)version, (void)upload_data, (void)upload_size, (void)con_cls;
	static const char not_found[] = "not found: try /metrics\n";
	static const char not_allowed[] = "only GET and HEAD\n";
	const struct http_server *h = cls;
	enum MHD_Result rc = MHD_NO;
	if (!client_cert_ok(h->web, c))
		return MHD_NO; /* closed: a client without the certificate asked gets nothing */
	if (!authorized(h->web, c, &rc))
		return rc;
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

/* gnutls on the web configuration's certificate, key and CA, before libmicrohttpd gets
 * them: a bad one is one line naming the file and the key. 0 or -1 (said). */
static int check_tls_files(const struct web_config *web)
{
	gnutls_certificate_credentials_t cred;
	if (gnutls_certificate_allocate_credentials(&cred))
		return -1;
	gnutls_datum_t cert = {(unsigned char *)web->cert_pem, (unsigned)strlen(web->cert_pem)};
	gnutls_datum_t key = {(unsigned char *)web->key_pem, (unsigned)strlen(web->key_pem)};
	int rc = gnutls_certificate_set_x509_key_mem(cred, &cert, &key, GNUTLS_X509_FMT_PEM);
	const char *what = "cert_file, key_file";
	if (rc >= 0 && web->client_ca_pem) {
		gnutls_datum_t ca = {(unsigned char *)web->client_ca_pem,
		                     (unsigned)strlen(web->client_ca_pem)};
		rc = gnutls_certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM);
		rc = rc > 0 ? 0 : rc < 0 ? rc : GNUTLS_E_NO_CERTIFICATE_FOUND;
		what = "client_ca_file";
	}
	gnutls_certificate_free_credentials(cred);
	if (rc >= 0)
		return 0;
	fprintf(stderr, "xiotop serve: --web-config %s: %s: %s\n", web->path, what,
	        gnutls_strerror(rc));
	return -1;
}

/* libmicrohttpd's TLS options from the web configuration into opts (ending it). */
static void tls_options(const struct web_config *web, struct MHD_OptionItem *opts)
{
	static const char *const priorities[] = {
	    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1:+VERS-TLS1.0",
	    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1",
	    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2", "NORMAL:-VERS-ALL:+VERS-TLS1.3"};
	size_t n = 0;
	if (web && web->tls) {
		opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, web->cert_pem};
		opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, web->key_pem};
		opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0,
		                                    (void *)priorities[web->min_version - 10]};
		if (web->client_ca_pem) /* libmicrohttpd then asks clients for a certificate */
			opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0,
			                                    web->client_ca_pem};
	}
	opts[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
}

int http_serve_start(const char *listen_at, struct exporter *ex, const struct web_config *web,
                     struct http_server **out)
{
	*out = NULL;
	if (web && web->tls && (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)) {
		fprintf(stderr, "xiotop serve: --web-config %s: this libmicrohttpd has no TLS\n",
		        web->path);
		return 2;
	}
	if (web && web->tls && check_tls_files(web))
		return 2;
	struct MHD_OptionItem tls[5];
	tls_options(web, tls);
	struct http_server *h = calloc(1, sizeof(*h));
	if (!h || (h->fd = bound_socket(listen_at)) < 0) {
		free(h);
		return 2;
	}
	h->ex = ex;
	h->web = web;
	sigset_t stop_signals, old;
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop_signals, &old); /* the threads inherit the mask */
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	h->daemon =
	    MHD_start_daemon(flags | (web && web->tls ? MHD_USE_TLS : 0), 0, NULL, NULL, on_request,
	                     h, MHD_OPTION_LISTEN_SOCKET, h->fd, MHD_OPTION_THREAD_POOL_SIZE,
	                     (unsigned)HTTP_THREADS, MHD_OPTION_CONNECTION_LIMIT,
	                     (unsigned)HTTP_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
	                     (unsigned)HTTP_IDLE_TIMEOUT_S, MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
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
