/* cmd_serve.c - `xiotop serve`: the live tracer (or --synthetic domains) through the
 * interval loop into the exporter (export/exporter.h), served over HTTP (serve_http.h)
 * until SIGINT or SIGTERM. One tracer for every scrape: a scrape reads the exposition
 * rendered at the end of the latest interval. */
#include <signal.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/fail.h"
#include "cli/privdrop.h"
#include "cli/serve_http.h"
#include "cli/stop.h"
#include "core/loop.h"
#include "export/exporter.h"
#include "record/record.h"
#include "sources/synthetic.h"

static const char *scheme = "http"; /* https with a web configuration's TLS */

struct serving {
	const struct cli_opts *o;
	const struct priv_user *user;
	struct exporter *ex;
};

/* The loop over src into the exporter, until a signal or a failure; --user: the drop
 * once the source is open. */
static int serve(void *ctx, struct sample_source src)
{
	const struct serving *s = ctx;
	int rc = priv_drop("serve", s->user, NULL, 0);
	if (rc)
		return rc;
	fprintf(stderr, "xiotop serve: %s://%s/metrics, a sample every %g s\n", scheme,
	        s->o->listen, s->o->delay_s);
	return cli_run_paced(s->o, src, exporter_sink(s->ex), 0);
}

int cmd_serve(struct cli_opts *o)
{
	int rc;
	struct priv_user user;
	rc = priv_lookup("serve", o->user, &user);
	if (rc)
		return rc;
	cli_catch_stop();
	struct web_config web;
	struct xerr err;
	if (o->web_config && web_config_load(o->web_config, &web, &err)) {
		fprintf(stderr, "xiotop serve: --web-config %s\n", err.msg);
		return 2;
	}
	scheme = o->web_config && web.tls ? "https" : "http";
	struct exporter *ex = exporter_open(XIOTOP_VERSION);
	if (!ex) {
		fprintf(stderr, "xiotop serve: out of memory\n");
		if (o->web_config)
			web_config_free(&web);
		return 1;
	}
	/* bound before the tracer loads: a bad or busy address fails fast, without root */
	struct http_server *http;
	rc = http_serve_start(o->listen, ex, o->web_config ? &web : NULL, &http);
	if (!rc) {
		struct serving serving = {.o = o, .user = &user, .ex = ex};
		rc = cli_with_source(o, "xiotop serve", serve, &serving);
		http_serve_stop(http);
	}
	exporter_close(ex);
	if (o->web_config)
		web_config_free(&web);
	return rc;
}
