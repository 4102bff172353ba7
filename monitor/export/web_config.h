/* web_config.h - `serve --web-config FILE`: TLS and basic auth for the exporter, in the
 * web configuration format Prometheus exporters share.
 *
 *   tls_server_config:
 *     cert_file: server.crt         # PEM; with key_file, both or neither
 *     key_file: server.key          # PEM, unencrypted
 *     client_auth_type: RequireAndVerifyClientCert
 *     client_ca_file: ca.crt        # the CA client certificates are checked against
 *     min_version: TLS12            # TLS10, TLS11, TLS12 (default), TLS13
 *   basic_auth_users:
 *     alice: $2y$10$...             # bcrypt ($2y$, $2b$, $2a$)
 *
 * Contract: web_config_load() reads the file as one YAML document with libyaml, so every
 * form the Prometheus exporter toolkit takes works (block and flow mappings, quoted,
 * folded and literal scalars, anchors and aliases, comments, --- and ...), strictly as
 * the toolkit reads it: invalid YAML, a second document, an unknown or repeated key, a
 * key of the format that xiotop does not implement (cipher_suites, http_server_config,
 * ...), a list where a value is wanted, a bad value, or a file it names that cannot be
 * read is one message naming the file, the line and the key ("(yaml)" for the file's
 * syntax, with libyaml's reason). Relative
 * paths are relative to the file's directory, as exporters take them. The certificate,
 * key and CA are read into memory at load (before privileges are dropped). An empty file
 * is plain HTTP without authentication. web_config_check_user() checks a user and
 * password with crypt(3) (libxcrypt's bcrypt), taking as long for an unknown user.
 */
#ifndef XIOTOP_EXPORT_WEB_CONFIG_H
#define XIOTOP_EXPORT_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

#define WEB_MAX_USERS 64

enum web_client_auth {
	WEB_NO_CLIENT_CERT,              /* NoClientCert (default) */
	WEB_REQUEST_CLIENT_CERT,         /* RequestClientCert: asked, neither needed nor checked */
	WEB_REQUIRE_ANY_CLIENT_CERT,     /* RequireAnyClientCert: needed, not checked */
	WEB_VERIFY_CLIENT_CERT_IF_GIVEN, /* VerifyClientCertIfGiven */
	WEB_REQUIRE_AND_VERIFY_CLIENT_CERT /* RequireAndVerifyClientCert */
};

struct web_user {
	char *name;
	char *hash; /* bcrypt */
};

struct web_config {
	char *path; /* the file, for messages */
	bool tls;
	char *cert_pem, *key_pem, *client_ca_pem; /* NUL-terminated file contents */
	enum web_client_auth client_auth;
	int min_version; /* 10, 11, 12, 13: TLS 1.x */
	struct web_user users[WEB_MAX_USERS];
	size_t n_users;
};

/* 0 with *cfg filled, or -1 with err (XERR_INPUT, "FILE:LINE: KEY: what"). */
int web_config_load(const char *path, struct web_config *cfg, struct xerr *err);
void web_config_free(struct web_config *cfg);
/* true when the config asks for no authentication (no users). */
static inline bool web_config_open_access(const struct web_config *cfg)
{
	return cfg->n_users == 0;
}
/* user and password (either NULL: none given) against the users' hashes. */
bool web_config_check_user(const struct web_config *cfg, const char *user, const char *password);

#endif
