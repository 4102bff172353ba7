/* test_web_config.c - serve --web-config: the exporters' web configuration read as YAML
 * (libyaml: flow mappings, block scalars, anchors and the rest of the forms the exporter
 * toolkit takes) and strictly (each bad file is one message naming the file, the line
 * and the key), paths relative to the file, and bcrypt users checked with crypt(3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/web_config.h"

/* bcrypt (cost 10) of "s3cret", made with crypt(3) */
#define HASH "$2y$10$jfs/d/sT9IX4L6uUQ3DRMuyQTRM7uoEFWW7lu.5MjPQjW2CSECRKi"
#define PEM  "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

static char dir[256], cfg_path[320];

static void write_file(const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/xiotop-web-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(cfg_path, sizeof(cfg_path), "%s/web.yml", dir);
	write_file("server.crt", PEM);
	write_file("server.key", "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n");
	write_file("ca.crt", PEM);
	write_file("notpem.crt", "hello\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	const char *names[] = {"server.crt", "server.key", "ca.crt", "notpem.crt", "web.yml"};
	char p[512];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	return rmdir(dir);
}

/* text as the config; 0 or -1 with err */
static int load(const char *text, struct web_config *cfg, char *err, size_t len)
{
	write_file("web.yml", text);
	struct xerr e = {0};
	int rc = web_config_load(cfg_path, cfg, &e);
	snprintf(err, len, "%s", e.msg);
	if (rc)
		assert_int_equal(e.kind, XERR_INPUT);
	return rc;
}

static void test_full_config(void **state)
{
	(void)state;
	struct web_config cfg;
	char err[1024];
	int rc = load("---\n# the exporter's\ntls_server_config:\n"
	              "  cert_file: server.crt   # relative to this file\n"
	              "  key_file: \"server.key\"\n"
	              "  client_auth_type: 'RequireAndVerifyClientCert'\n"
	              "  client_ca_file: ca.crt\n  min_version: TLS13\n\n"
	              "basic_auth_users:\n    prom: " HASH "\n    'other user': '" HASH "'\n",
	              &cfg, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_true(cfg.tls);
	assert_string_equal(cfg.cert_pem, PEM);
	assert_non_null(strstr(cfg.key_pem, "PRIVATE KEY"));
	assert_non_null(cfg.client_ca_pem);
	assert_int_equal(cfg.client_auth, WEB_REQUIRE_AND_VERIFY_CLIENT_CERT);
	assert_int_equal(cfg.min_version, 13);
	assert_int_equal(cfg.n_users, 2);
	assert_string_equal(cfg.users[1].name, "other user");
	assert_true(web_config_check_user(&cfg, "prom", "s3cret"));
	assert_true(web_config_check_user(&cfg, "other user", "s3cret"));
	assert_false(web_config_check_user(&cfg, "prom", "s3cret "));
	assert_false(web_config_check_user(&cfg, "prom", ""));
	assert_false(web_config_check_user(&cfg, "prom", NULL));
	assert_false(web_config_check_user(&cfg, "nobody", "s3cret"));
	assert_false(web_config_check_user(&cfg, NULL, "s3cret"));
	web_config_free(&cfg);
}

static void test_empty_and_auth_only(void **state)
{
	(void)state;
	struct web_config cfg;
	char err[1024];
	assert_int_equal(load("# nothing: plain HTTP, no auth\n", &cfg, err, sizeof(err)), 0);
	assert_false(cfg.tls);
	assert_true(web_config_open_access(&cfg));
	web_config_free(&cfg);
	assert_int_equal(load("basic_auth_users:\n  prom: " HASH "\n", &cfg, err, sizeof(err)), 0);
	assert_false(cfg.tls);
	assert_false(web_config_open_access(&cfg));
	assert_int_equal(cfg.min_version, 12);
	web_config_free(&cfg);
}

/* Each bad file: -1, and the message names the file, the line and the key. */
static void test_bad_files(void **state)
{
	(void)state;
	static const struct {
		const char *text, *where; /* where: "LINE: KEY" expected in the message */
	} bad[] = {
	    {"tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	     "  keyfile: x\n",
	     ":4: keyfile: unknown key"},
	    {"tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	     "  cipher_suites: x\n",
	     ":4: cipher_suites: not implemented"},
	    {"http_server_config:\n  http2: false\n", ":1: http_server_config: not implemented"},
	    {"tls_config:\n  cert_file: a\n", ":1: tls_config: unknown key"},
	    {"tls_server_config:\n  cert_file: missing.crt\n", ":2: cert_file: cannot read"},
	    {"tls_server_config:\n  cert_file: notpem.crt\n", ":2: cert_file: "},
	    {"tls_server_config:\n  cert_file: server.crt\n",
	     ":1: key_file: tls_server_config needs"},
	    {"tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	     "  min_version: TLS14\n",
	     ":4: min_version: wants"},
	    {"tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	     "  client_auth_type: Require\n",
	     ":4: client_auth_type: wants"},
	    {"tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	     "  client_auth_type: RequireAndVerifyClientCert\n",
	     ":1: client_ca_file: client_auth_type other"},
	    {"tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	     "  client_ca_file: ca.crt\n",
	     ":1: client_ca_file: given with"},
	    {"tls_server_config:\n  cert_file: server.crt\n  cert_file: server.crt\n",
	     ":3: cert_file: given twice"},
	    {"basic_auth_users:\n  prom: plaintext\n", ":2: prom: wants a bcrypt hash"},
	    {"basic_auth_users:\n  prom: $1$abc$def\n", ":2: prom: wants a bcrypt hash"},
	    {"basic_auth_users:\n  prom:\n", ":2: prom: wants a bcrypt hash"},
	    {"basic_auth_users:\n  prom: " HASH "\n  prom: " HASH "\n", ":3: prom: given twice"},
	    /* what YAML itself refuses: libyaml's reason and line */
	    {"basic_auth_users:\n  a: " HASH "\n    b: " HASH "\n",
	     ":3: (yaml): mapping values are not allowed"},
	    {"basic_auth_users:\n\tprom: x\n", ":2: (yaml): found character that cannot start"},
	    {"basic_auth_users:\n  prom: 'unclosed\n", ": (yaml): found unexpected end of stream"},
	    {"basic_auth_users: {prom: x\n", ": (yaml): did not find expected ',' or '}'"},
	    {"basic_auth_users:\n  prom: " HASH "\n---\nbasic_auth_users: {}\n",
	     ":3: (yaml): a second document"},
	    /* YAML, but not the format's */
	    {"  prom: x\n", ":1: prom: unknown key"},
	    {"- tls_server_config\n", ":1: (top): wants a mapping"},
	    {"basic_auth_users:\n  just a line\n", ":2: basic_auth_users: wants its keys"},
	    {"tls_server_config:\n  cert_file: [a, b]\n", ":2: cert_file: wants one value"},
	    {"tls_server_config: {cert_file: {a: b}}\n", ":1: cert_file: wants one value"},
	    {"basic_auth_users: {? [a]: " HASH "}\n", ":1: basic_auth_users: a key that is not"},
	    {"{tls_server_config: {cert_file: server.crt, cert_file: server.crt}}\n",
	     ":1: cert_file: given twice"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct web_config cfg;
		char err[1024];
		int rc = load(bad[i].text, &cfg, err, sizeof(err));
		if (rc != -1 || strncmp(err, cfg_path, strlen(cfg_path)) ||
		    !strstr(err, bad[i].where) || strchr(err, '\n'))
			fail_msg("case %zu: rc %d, message \"%s\", wanted the file and \"%s\"", i,
			         rc, err, bad[i].where);
	}
	struct web_config cfg;
	struct xerr err;
	assert_int_equal(web_config_load("/nonexistent/web.yml", &cfg, &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/web.yml: No such file"));
}

/* The forms YAML has for the same configuration (as the exporter toolkit's Go YAML reads
 * them): flow mappings, quoted keys, folded and literal scalars, anchors, explicit document
 * markers; each loads to the same users and TLS files. */
static void test_yaml_forms(void **state)
{
	(void)state;
	static const char *const forms[] = {
	    "{tls_server_config: {cert_file: server.crt, key_file: server.key}, "
	    "basic_auth_users: {prom: '" HASH "', \"other user\": \"" HASH "\"}}\n",
	    "---\ntls_server_config: {cert_file: server.crt,\n  key_file: server.key}\n"
	    "basic_auth_users:\n  prom: &h " HASH "\n  other user: *h\n...\n",
	    "\"tls_server_config\":\n    \"cert_file\": >-\n        server.crt\n"
	    "    key_file: |-\n        server.key\nbasic_auth_users:\n"
	    "  ? prom\n  : " HASH "\n  'other user': " HASH "   # a comment\n",
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++) {
		struct web_config cfg;
		char err[1024];
		if (load(forms[i], &cfg, err, sizeof(err)))
			fail_msg("form %zu: %s", i, err);
		assert_true(cfg.tls);
		assert_string_equal(cfg.cert_pem, PEM);
		assert_non_null(strstr(cfg.key_pem, "PRIVATE KEY"));
		assert_int_equal(cfg.n_users, 2);
		assert_string_equal(cfg.users[0].name, "prom");
		assert_string_equal(cfg.users[1].name, "other user");
		assert_true(web_config_check_user(&cfg, "other user", "s3cret"));
		web_config_free(&cfg);
	}
	/* a flow mapping with no users, a document with nothing, a null section: no auth */
	static const char *const open[] = {"basic_auth_users: {}\n", "---\n...\n",
	                                   "basic_auth_users:\n", "basic_auth_users: ~\n"};
	for (size_t i = 0; i < sizeof(open) / sizeof(*open); i++) {
		struct web_config cfg;
		char err[1024];
		if (load(open[i], &cfg, err, sizeof(err)))
			fail_msg("open %zu: %s", i, err);
		assert_true(web_config_open_access(&cfg));
		assert_false(cfg.tls);
		web_config_free(&cfg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_config),
	    cmocka_unit_test(test_empty_and_auth_only),
	    cmocka_unit_test(test_yaml_forms),
	    cmocka_unit_test(test_bad_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
