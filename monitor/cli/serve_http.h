/* serve_http.h - the HTTP side of `xiotop serve`: libmicrohttpd serving the exporter's
 * latest exposition.
 *
 * Contract: http_serve_start() binds ADDR:PORT itself (so a bad or busy address is one
 * clear message) and runs libmicrohttpd's own polling threads (a small pool): `/metrics`
 * is the exporter's latest exposition, OpenMetrics or Prometheus 0.0.4 as the Accept
 * header asks; `/` a small HTML page linking it; any other path 404, a method other than
 * GET or HEAD 405. A scrape only copies the published buffer (exporter.h): it never
 * samples. Connections are limited in number and time out when idle, and a client that
 * connects and sends nothing holds one connection slot, never a thread. The threads
 * block SIGINT and SIGTERM: the caller's thread gets them.
 * With a web configuration (export/web_config.h): TLS through libmicrohttpd's GnuTLS
 * (certificate, key and client CA checked with GnuTLS first: a bad one is one line
 * naming the file and the key, 2); a connection without the client certificate
 * client_auth_type wants is closed before any reply; with basic_auth_users, every path
 * asks for a user and password and a wrong or missing one gets 401 and no data.
 */
#ifndef XIOTOP_SERVE_HTTP_H
#define XIOTOP_SERVE_HTTP_H

#include "export/exporter.h"
#include "export/web_config.h"

#define HTTP_MAX_CONNECTIONS 512
#define HTTP_IDLE_TIMEOUT_S  10
#define HTTP_THREADS         2

struct http_server;

/* 0 with *out running, or 2 after one message naming listen (bad, or cannot bind) or
 * the web configuration's file. web: NULL, or kept until http_serve_stop(). */
int http_serve_start(const char *listen, struct exporter *ex, const struct web_config *web,
                     struct http_server **out);
void http_serve_stop(struct http_server *h); /* NULL: nothing */

#endif
