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
 */
#ifndef XIOTOP_SERVE_HTTP_H
#define XIOTOP_SERVE_HTTP_H

#include "export/exporter.h"

#define HTTP_MAX_CONNECTIONS 512
#define HTTP_IDLE_TIMEOUT_S  10
#define HTTP_THREADS         2

struct http_server;

/* 0 with *out running, or 2 after one message naming listen (bad, or cannot bind). */
int http_serve_start(const char *listen, struct exporter *ex, struct http_server **out);
void http_serve_stop(struct http_server *h); /* NULL: nothing */

#endif
