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

/* The loop over src into ex, until a signal or a failure. */
static int serve(const struct cli_opts *o, struct exporter *ex, struct sample_source src)
{
	fprintf(stderr, "xiotop serve: %s://%s/metrics, a sample every %g s\n", scheme, o->listen,
	        o->delay_s);
	struct interval_sink sink = exporter_sink(ex);
	struct pace_every pace = {.delay_s = &o->delay_s, .stop = &cli_stop_signal};
	struct xerr err = {0};
	struct loop l = {.src = &src,
	                 .sinks = &sink,
	                 .n_sinks = 1,
	                 .pacer = {.ctx = &pace, .wait = pace_every_wait},
	                 .err = &err};
	int rc = interval_loop(&l);
	cli_say(&err);
	return rc;
}

/* The source, synthetic or live, through serve(); --user: the drop once it is open. */
static int open_and_serve(const struct cli_opts *o, const struct priv_user *user,
                          struct exporter *ex)
{
	if (o->synthetic) {
		struct synthetic *syn = synthetic_open(o->synthetic);
		if (!syn) {
			fprintf(stderr, "xiotop serve: out of memory\n");
			return 1;
		}
		int rc = priv_drop("serve", user, NULL, 0);
		rc = rc ? rc : serve(o, ex, synthetic_source(syn));
		synthetic_close(syn);
		return rc;
	}
	struct live *live;
	int rc = open_live(&live, &o->src);
	if (rc)
		return rc;
	rc = priv_drop("serve", user, NULL, 0);
	rc = rc ? rc : serve(o, ex, live_source(live));
	live_close(live);
	return rc;
}

int cmd_serve(int argc, char **argv)
{
	struct cli_opts o;
	int rc = cli_begin_no_args(CMD_SERVE, argc, argv, &o);
	if (rc >= 0)
		return rc;
	struct priv_user user;
	rc = priv_lookup("serve", o.user, &user);
	if (rc)
		return rc;
	cli_catch_stop();
	struct web_config web;
	char err[8600];
	if (o.web_config && web_config_load(o.web_config, &web, err, sizeof(err))) {
		fprintf(stderr, "xiotop serve: --web-config %s\n", err);
		return 2;
	}
	scheme = o.web_config && web.tls ? "https" : "http";
	struct exporter *ex = exporter_open(XIOTOP_VERSION);
	if (!ex) {
		fprintf(stderr, "xiotop serve: out of memory\n");
		if (o.web_config)
			web_config_free(&web);
		return 1;
	}
	/* bound before the tracer loads: a bad or busy address fails fast, without root */
	struct http_server *http;
	rc = http_serve_start(o.listen, ex, o.web_config ? &web : NULL, &http);
	if (!rc) {
		rc = open_and_serve(&o, &user, ex);
		http_serve_stop(http);
	}
	exporter_close(ex);
	if (o.web_config)
		web_config_free(&web);
	return rc;
}
