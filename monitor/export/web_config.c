/* web_config.c - the exporters' web configuration, strictly; see web_config.h. */
#include "export/web_config.h"

#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_PEM (1 << 20)

/* A key of the file and its value (a scalar; "" none), where the key was. */
struct entry {
	int lineno;
	const char *key;
	const char *value;
	bool has_value; /* a scalar value (null and an empty value are none) */
};

struct parser {
	const char *path;
	struct xerr *err;
	struct web_config *cfg;
	yaml_document_t *doc;
	char dir[4096]; /* the file's directory: relative paths start there */
	int section_line;
	bool seen_tls_key[5];
	bool seen_tls, seen_users;
};

static int fail(struct parser *p, int lineno, const char *key, const char *what)
{
	xerr_set(p->err, XERR_INPUT, "%s:%d: %s: %s", p->path, lineno, key, what);
	return -1;
}

static int line_of(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

/* A scalar's text (NUL-terminated by libyaml); NULL for any other node. */
static const char *scalar_of(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* null, ~ or nothing at all after the colon: no value (YAML's null, plain only). */
static bool is_null(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = scalar_of(n);
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

/* A file named by the config, read whole (NUL-terminated) into *out. */
static int read_pem(struct parser *p, const struct entry *e, char **out)
{
	char path[8192];
	if (e->value[0] == '/' || !p->dir[0])
		snprintf(path, sizeof(path), "%s", e->value);
	else
		snprintf(path, sizeof(path), "%s/%s", p->dir, e->value);
	char what[8400];
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(what, sizeof(what), "cannot read %s: %s", path, strerror(errno));
		return fail(p, e->lineno, e->key, what);
	}
	char *buf = malloc(MAX_PEM + 1);
	size_t n = buf ? fread(buf, 1, MAX_PEM + 1, f) : 0;
	bool bad = !buf || ferror(f) || n > MAX_PEM;
	fclose(f);
	if (bad || !n) {
		free(buf);
		snprintf(what, sizeof(what), "%s: %s", path,
		         !n ? "empty" : "unreadable or larger than 1 MiB");
		return fail(p, e->lineno, e->key, what);
	}
	buf[n] = '\0';
	if (!strstr(buf, "-----BEGIN ")) {
		free(buf);
		snprintf(what, sizeof(what), "%s is not PEM (no -----BEGIN line)", path);
		return fail(p, e->lineno, e->key, what);
	}
	free(*out);
	*out = buf;
	return 0;
}

static const char *const tls_keys[] = {"cert_file", "key_file", "client_auth_type",
                                       "client_ca_file", "min_version"};
static const char *const client_auth_names[] = {"NoClientCert", "RequestClientCert",
                                                "RequireAnyClientCert", "VerifyClientCertIfGiven",
                                                "RequireAndVerifyClientCert"};
/* Keys of the format that xiotop does not implement: said so, not "unknown". */
static const char *const unimplemented[] = {"cert",
                                            "key",
                                            "client_ca",
                                            "max_version",
                                            "cipher_suites",
                                            "curve_preferences",
                                            "prefer_server_cipher_suites",
                                            "client_allowed_sans",
                                            "http_server_config",
                                            NULL};

static bool listed(const char *const *names, const char *key)
{
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], key))
			return true;
	return false;
}

/* One key of tls_server_config. */
static int tls_entry(struct parser *p, const struct entry *e)
{
	struct web_config *c = p->cfg;
	size_t k = 0;
	while (k < 5 && strcmp(tls_keys[k], e->key))
		k++;
	if (k == 5)
		return fail(p, e->lineno, e->key,
		            listed(unimplemented, e->key)
		                ? "not implemented by xiotop (tls_server_config takes cert_file, "
		                  "key_file, client_auth_type, client_ca_file, min_version)"
		                : "unknown key of tls_server_config");
	if (p->seen_tls_key[k])
		return fail(p, e->lineno, e->key, "given twice");
	p->seen_tls_key[k] = true;
	if (!e->value[0])
		return fail(p, e->lineno, e->key, "wants a value");
	if (k == 0)
		return read_pem(p, e, &c->cert_pem);
	if (k == 1)
		return read_pem(p, e, &c->key_pem);
	if (k == 3)
		return read_pem(p, e, &c->client_ca_pem);
	if (k == 2) {
		for (size_t i = 0; i < 5; i++)
			if (!strcmp(client_auth_names[i], e->value)) {
				c->client_auth = (enum web_client_auth)i;
				return 0;
			}
		return fail(p, e->lineno, e->key,
		            "wants NoClientCert, RequestClientCert, RequireAnyClientCert, "
		            "VerifyClientCertIfGiven or RequireAndVerifyClientCert");
	}
	static const char *const versions[] = {"TLS10", "TLS11", "TLS12", "TLS13"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(versions[i], e->value)) {
			c->min_version = 10 + i;
			return 0;
		}
	return fail(p, e->lineno, e->key, "wants TLS10, TLS11, TLS12 or TLS13");
}

/* A bcrypt hash as crypt(3) takes it. */
static bool is_bcrypt(const char *h)
{
	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$')
		return false;
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *out = cd ? crypt_r("", h, cd) : NULL;
	bool ok = out && !strncmp(out, h, 7);
	free(cd);
	return ok;
}

/* One user of basic_auth_users. */
static int user_entry(struct parser *p, const struct entry *e)
{
	struct web_config *c = p->cfg;
	if (!e->key[0] || strchr(e->key, ':'))
		return fail(p, e->lineno, e->key, "a user name is not empty and has no ':'");
	for (size_t i = 0; i < c->n_users; i++)
		if (!strcmp(c->users[i].name, e->key))
			return fail(p, e->lineno, e->key, "given twice");
	if (c->n_users == WEB_MAX_USERS)
		return fail(p, e->lineno, e->key, "more than 64 users");
	if (!is_bcrypt(e->value))
		return fail(p, e->lineno, e->key,
		            "wants a bcrypt hash ($2y$10$ and 53 characters)");
	struct web_user *u = &c->users[c->n_users];
	u->name = strdup(e->key);
	u->hash = strdup(e->value);
	if (!u->name || !u->hash)
		return fail(p, e->lineno, e->key, "out of memory");
	c->n_users++;
	return 0;
}

/* Each key of a section's mapping through fn (a key given twice said here). */
static int each_key(struct parser *p, const yaml_node_t *map, const char *section,
                    int (*fn)(struct parser *p, const struct entry *e))
{
	if (is_null(map))
		return 0; /* a section with no keys */
	if (map->type != YAML_MAPPING_NODE)
		return fail(p, line_of(map), section, "wants its keys (a mapping)");
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		const char *key = scalar_of(k);
		if (!key)
			return fail(p, line_of(k), section, "a key that is not a plain name");
		for (yaml_node_pair_t *before = map->data.mapping.pairs.start; before < pair;
		     before++)
			if (!strcmp(scalar_of(yaml_document_get_node(p->doc, before->key)), key))
				return fail(p, line_of(k), key, "given twice");
		if (v && v->type != YAML_SCALAR_NODE)
			return fail(p, line_of(v), key, "wants one value, not a list or a mapping");
		struct entry e = {line_of(k), key, is_null(v) ? "" : scalar_of(v), !is_null(v)};
		int rc = fn(p, &e);
		if (rc)
			return rc;
	}
	return 0;
}

/* A top-level key and its section. */
static int section(struct parser *p, const yaml_node_t *k, const yaml_node_t *v)
{
	const char *key = scalar_of(k);
	if (!key)
		return fail(p, line_of(k), "(key)", "a key that is not a plain name");
	bool tls = !strcmp(key, "tls_server_config");
	if (!tls && strcmp(key, "basic_auth_users"))
		return fail(p, line_of(k), key,
		            listed(unimplemented, key)
		                ? "not implemented by xiotop (it takes tls_server_config and "
		                  "basic_auth_users)"
		                : "unknown key (tls_server_config or basic_auth_users)");
	bool *seen = tls ? &p->seen_tls : &p->seen_users;
	if (*seen)
		return fail(p, line_of(k), key, "given twice");
	*seen = true;
	p->section_line = line_of(k);
	p->cfg->tls |= tls;
	return each_key(p, v, key, tls ? tls_entry : user_entry);
}

/* What the keys say together. */
static int check_whole(struct parser *p)
{
	struct web_config *c = p->cfg;
	if (!c->tls)
		return 0;
	if (!c->cert_pem || !c->key_pem)
		return fail(p, p->section_line, c->cert_pem ? "key_file" : "cert_file",
		            "tls_server_config needs both cert_file and key_file");
	if (c->client_auth == WEB_NO_CLIENT_CERT && c->client_ca_pem)
		return fail(
		    p, p->section_line, "client_ca_file",
		    "given with client_auth_type NoClientCert: say which client certificates "
		    "to ask for");
	if (c->client_auth != WEB_NO_CLIENT_CERT && !c->client_ca_pem)
		return fail(p, p->section_line, "client_ca_file",
		            "client_auth_type other than NoClientCert needs the client CA");
	return 0;
}

/* The document's top: a mapping of sections, or nothing (plain HTTP, no auth). */
static int top(struct parser *p)
{
	yaml_node_t *root = yaml_document_get_root_node(p->doc);
	if (!root || is_null(root))
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return fail(p, line_of(root), "(top)",
		            "wants a mapping: tls_server_config and basic_auth_users");
	for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
	     pair < root->data.mapping.pairs.top; pair++) {
		int rc = section(p, yaml_document_get_node(p->doc, pair->key),
		                 yaml_document_get_node(p->doc, pair->value));
		if (rc)
			return rc;
	}
	return check_whole(p);
}

/* The file as one YAML document (libyaml): any form YAML takes, flow mappings and quoted
 * keys included; a second document is refused, as the exporters' strict reading does. */
static int load_document(struct parser *p, FILE *f, yaml_document_t *doc)
{
	yaml_parser_t yp;
	if (!yaml_parser_initialize(&yp))
		return fail(p, 0, "(file)", "out of memory");
	yaml_parser_set_input_file(&yp, f);
	int rc = 0;
	if (!yaml_parser_load(&yp, doc)) {
		char what[256];
		snprintf(what, sizeof(what), "%s%s%s", yp.problem ? yp.problem : "not YAML",
		         yp.context ? " " : "", yp.context ? yp.context : "");
		rc = fail(p, (int)yp.problem_mark.line + 1, "(yaml)", what);
		yaml_parser_delete(&yp);
		return rc;
	}
	yaml_document_t next;
	if (yaml_parser_load(&yp, &next)) {
		if (yaml_document_get_root_node(&next))
			rc = fail(p, (int)next.start_mark.line + 1, "(yaml)",
			          "a second document: the file holds one");
		yaml_document_delete(&next);
	}
	yaml_parser_delete(&yp);
	if (rc)
		yaml_document_delete(doc);
	return rc;
}

int web_config_load(const char *path, struct web_config *cfg, struct xerr *err)
{
	*cfg = (struct web_config){.min_version = 12};
	struct parser p = {.path = path, .err = err, .cfg = cfg};
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(p.dir, sizeof(p.dir), "%.*s", (int)(slash - path), path);
	if (slash == path)
		snprintf(p.dir, sizeof(p.dir), "/");
	FILE *f = fopen(path, "re");
	if (!f) {
		xerr_set(err, XERR_INPUT, "%s: %s", path, strerror(errno));
		return -1;
	}
	cfg->path = strdup(path);
	yaml_document_t doc;
	int rc = load_document(&p, f, &doc);
	fclose(f);
	if (!rc) {
		p.doc = &doc;
		rc = top(&p);
		yaml_document_delete(&doc);
	}
	if (rc)
		web_config_free(cfg);
	return rc ? -1 : 0;
}

void web_config_free(struct web_config *cfg)
{
	free(cfg->path);
	free(cfg->cert_pem);
	free(cfg->key_pem);
	free(cfg->client_ca_pem);
	for (size_t i = 0; i < cfg->n_users; i++) {
		free(cfg->users[i].name);
		free(cfg->users[i].hash);
	}
	*cfg = (struct web_config){.min_version = 12};
}

bool web_config_check_user(const struct web_config *cfg, const char *user, const char *password)
{
	/* An unknown user costs one bcrypt too (the hash of a random password, never kept;
	 * and a match on it is refused anyway). */
	static const char decoy[] = "$2y$10$cHSdg3GP8kFcRR9SDDRUY.qnlNVqMBC/WsRuyD25950bCYKhP/6xe";
	const char *hash = decoy;
	for (size_t i = 0; user && i < cfg->n_users; i++)
		if (!strcmp(cfg->users[i].name, user))
			hash = cfg->users[i].hash;
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	const char *out = crypt_r(password ? password : "", hash, cd);
	size_t len = strlen(hash);
	bool same_len = out && strlen(out) == len;
	unsigned char diff = same_len ? 0 : 1;
	for (size_t i = 0; same_len && i < len; i++) /* every byte: no early exit */
		diff |= (unsigned char)(out[i] ^ hash[i]);
	free(cd);
	return !diff && hash != decoy && user && password;
}
