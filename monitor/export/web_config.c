/* web_config.c - the exporters' web configuration, strictly; see web_config.h. */
#include "export/web_config.h"

#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 4096
#define MAX_PEM  (1 << 20)

/* One "key: value" line of the file. */
struct entry {
	int lineno, indent;
	char key[256];
	char value[MAX_LINE];
	bool has_value;
};

struct parser {
	const char *path;
	struct xerr *err;
	struct web_config *cfg;
	char dir[4096]; /* the file's directory: relative paths start there */
	int section_line, child_indent;
	enum { SEC_NONE, SEC_TLS, SEC_USERS } section;
	bool seen_tls_key[5];
	bool seen_tls, seen_users;
};

static int fail(struct parser *p, int lineno, const char *key, const char *what)
{
	xerr_set(p->err, XERR_INPUT, "%s:%d: %s: %s", p->path, lineno, key, what);
	return -1;
}

/* A quoted scalar at s ('...' with '' for a quote, "..." with \" and \\), into out; the
 * rest of the line after it in *rest. NULL when unterminated or a bad escape. */
static const char *quoted(const char *s, char *out, size_t outlen, const char **rest)
{
	char q = *s++;
	size_t n = 0;
	for (;; s++) {
		if (!*s)
			return NULL;
		if (*s == q) {
			if (q == '\'' && s[1] == '\'') {
				s++;
			} else {
				break;
			}
		} else if (q == '"' && *s == '\\') {
			if (s[1] != '"' && s[1] != '\\')
				return NULL;
			s++;
		}
		if (n + 1 >= outlen)
			return NULL;
		out[n++] = *s;
	}
	out[n] = '\0';
	*rest = s + 1;
	return out;
}

/* Nothing but spaces and an optional comment from s on. */
static bool only_comment(const char *s)
{
	s += strspn(s, " ");
	return !*s || *s == '#';
}

/* A scalar (quoted or plain) at s into out; the rest must be blank or a comment. */
static int scalar(struct parser *p, struct entry *e, const char *s, char *out, size_t outlen,
                  const char *key)
{
	const char *rest;
	if (*s == '\'' || *s == '"') {
		if (!quoted(s, out, outlen, &rest) || !only_comment(rest))
			return fail(p, e->lineno, key,
			            "a quoted value not closed, or a bad escape");
		return 0;
	}
	if (strchr("{}[]&*!|>%@`", *s))
		return fail(p, e->lineno, key, "only plain or quoted values (no flow or block)");
	const char *end = strstr(s, " #");
	size_t len = end ? (size_t)(end - s) : strlen(s);
	while (len && s[len - 1] == ' ')
		len--;
	if (len >= outlen)
		return fail(p, e->lineno, key, "value too long");
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

/* One line into e: 1 an entry, 0 blank or a comment, -1 malformed (said). */
static int parse_line(struct parser *p, char *line, int lineno, struct entry *e)
{
	line[strcspn(line, "\r\n")] = '\0';
	*e = (struct entry){.lineno = lineno};
	e->indent = (int)strspn(line, " ");
	char *s = line + e->indent;
	if (*s == '\t')
		return fail(p, lineno, "(indentation)", "tabs are not YAML indentation");
	if (!*s || *s == '#')
		return 0;
	if (lineno == 1 && !strcmp(s, "---"))
		return 0;
	const char *after;
	if (*s == '\'' || *s == '"') {
		if (!quoted(s, e->key, sizeof(e->key), &after) || *after != ':')
			return fail(p, lineno, "(key)", "a quoted key not closed or without ':'");
	} else {
		char *colon = strchr(s, ':');
		if (!colon || colon == s || (size_t)(colon - s) >= sizeof(e->key))
			return fail(p, lineno, "(key)", "not a \"key: value\" line");
		memcpy(e->key, s, (size_t)(colon - s));
		e->key[colon - s] = '\0';
		after = colon;
	}
	after++;
	if (*after && *after != ' ')
		return fail(p, lineno, e->key, "a ':' in a key wants quotes");
	if (only_comment(after))
		return 1;
	e->has_value = true;
	return scalar(p, e, after + strspn(after, " "), e->value, sizeof(e->value), e->key) ? -1
	                                                                                    : 1;
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

/* A top-level key: opens its section. */
static int section_entry(struct parser *p, const struct entry *e)
{
	bool tls = !strcmp(e->key, "tls_server_config");
	if (!tls && strcmp(e->key, "basic_auth_users"))
		return fail(p, e->lineno, e->key,
		            listed(unimplemented, e->key)
		                ? "not implemented by xiotop (it takes tls_server_config and "
		                  "basic_auth_users)"
		                : "unknown key (tls_server_config or basic_auth_users)");
	bool *seen = tls ? &p->seen_tls : &p->seen_users;
	if (*seen)
		return fail(p, e->lineno, e->key, "given twice");
	if (e->has_value)
		return fail(p, e->lineno, e->key, "wants its keys on the lines below, indented");
	*seen = true;
	p->section = tls ? SEC_TLS : SEC_USERS;
	p->section_line = e->lineno;
	p->child_indent = 0;
	p->cfg->tls |= tls;
	return 0;
}

static int entry(struct parser *p, const struct entry *e)
{
	if (e->indent == 0)
		return section_entry(p, e);
	if (p->section == SEC_NONE)
		return fail(p, e->lineno, e->key, "indented, under no section");
	if (!p->child_indent)
		p->child_indent = e->indent;
	if (e->indent != p->child_indent)
		return fail(p, e->lineno, e->key, "indented unlike the keys before it");
	if (!e->has_value && p->section == SEC_USERS)
		return fail(p, e->lineno, e->key, "wants a bcrypt hash");
	return p->section == SEC_TLS ? tls_entry(p, e) : user_entry(p, e);
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
	char line[MAX_LINE + 2];
	int lineno = 0, rc = 0;
	struct entry e;
	while (!rc && fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f))
			rc = fail(&p, lineno, "(line)", "longer than 4096 bytes");
		else if ((rc = parse_line(&p, line, lineno, &e)) == 1)
			rc = entry(&p, &e);
	}
	fclose(f);
	if (!rc)
		rc = check_whole(&p);
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
