/* xsdump.c - read a text dump of xenstore into a sorted list of (path, value).
 *
 * Two forms exist and are told apart by the first non-blank line:
 *   `xenstore-ls -f`:  /local/domain/1/name = "guest2"
 *   `xenstore-ls`:     one space of indent per level, names relative to the parent
 *                      (local = "" / " domain = "" / "  1 = "" / "   name = "guest2"")
 * Values are printed by xenstore-ls with printable ASCII as is (even '"') and
 * \\ \t \n \r, \NNN (octal, bytes below 8) and \xNN for the rest; hand-written dumps
 * may also use \". `-p` appends permissions ("  (n0,r1)"), after dot padding in the
 * tree form. Plain xenstore-ls writing to a file cuts values at 80 columns and ends
 * them with "\..."; such values are kept and flagged `truncated`.
 */
#include "sources/topology/topology.h"

#include "core/text_scan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum dump_form { FORM_UNKNOWN, FORM_FULL_PATHS, FORM_TREE };

struct parser {
	const char *name;
	size_t lineno;
	enum dump_form form;
	struct xerr *err;
	/* tree form: the absolute path of the last node, and where each level ends in it */
	char *path;
	size_t path_cap;
	size_t *level_end;
	size_t level_cap;
	size_t levels;
};

/* A bad line (XERR_INPUT): "FILE:LINE: reason". */
static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *p, const char *fmt, ...)
{
	char reason[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	xerr_set(p->err, XERR_INPUT, "%.300s:%zu: %s", p->name, p->lineno, reason);
	return -1;
}

static int no_memory(struct parser *p)
{
	xerr_set(p->err, XERR_NOMEM, "%.300s:%zu: out of memory", p->name, p->lineno);
	return -1;
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* Does the quoted text end with the "\..." xenstore-ls appends when it cuts a value?
 * The marker's backslash is a lone one: escaped backslashes in the value come in
 * pairs, so an odd run of backslashes before "..." means a cut. */
static bool ends_with_cut_marker(const char *s, size_t n)
{
	if (n < 4 || memcmp(s + n - 3, "...", 3) != 0)
		return false;
	size_t run = 0;
	while (run < n - 3 && s[n - 4 - run] == '\\')
		run++;
	return run % 2 == 1;
}

/* Undo xenstore-ls escapes of s[0..n) into out (at least n+1 bytes). In a cut value
 * an escape sequence may itself be cut at the end: it is dropped. */
static int unescape(struct parser *p, const char *s, size_t n, bool cut, char *out, size_t *outlen)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		if (i + 1 >= n) {
			if (cut)
				break;
			return fail(p, "backslash at the end of the value");
		}
		char e = s[++i];
		int byte = text_escape_byte(e, "\\\"ntr");
		if (byte >= 0) {
			out[o++] = (char)byte;
		} else if (e == 'x') {
			int v = 0, digits = 0;
			while (digits < 2 && i + 1 < n && text_hex_digit(s[i + 1]) >= 0) {
				v = v * 16 + text_hex_digit(s[++i]);
				digits++;
			}
			if (!digits) {
				if (cut && i + 1 >= n)
					break;
				return fail(p, "\\x without hex digits");
			}
			out[o++] = (char)v;
		} else if (is_octal(e)) {
			int v = e - '0', digits = 1;
			while (digits < 3 && i + 1 < n && is_octal(s[i + 1])) {
				v = v * 8 + (s[++i] - '0');
				digits++;
			}
			if (v > 255)
				return fail(p, "octal escape above \\377");
			out[o++] = (char)v;
		} else if ((unsigned char)e >= 0x20 && (unsigned char)e < 0x7f) {
			return fail(p, "unknown escape \\%c", e);
		} else {
			return fail(p, "unknown escape \\ followed by byte 0x%02x",
			            (unsigned char)e);
		}
	}
	out[o] = '\0';
	*outlen = o;
	return 0;
}

/* After the closing quote only `-p` output may follow: dot padding, "(n0,r1)". */
static bool tail_is_permissions(const char *s)
{
	while (*s == ' ' || *s == '.' || *s == '\t')
		s++;
	if (!*s)
		return true;
	if (*s++ != '(')
		return false;
	while (*s && *s != ')') {
		if (!strchr("nrwb0123456789,-", *s))
			return false;
		s++;
	}
	if (*s++ != ')')
		return false;
	while (*s == ' ' || *s == '\t')
		s++;
	return !*s;
}

static bool has_space_or_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return true;
	return false;
}

/* Tree form: make p->path the parent at `depth` plus /key. */
static int tree_path(struct parser *p, size_t depth, const char *key, size_t keylen)
{
	if (depth > p->levels)
		return fail(p, "indent of %zu spaces under a node at depth %zu", depth,
		            p->levels ? p->levels - 1 : 0);
	size_t base = depth ? p->level_end[depth - 1] : 0;
	size_t need = base + 1 + keylen + 1;
	if (need > p->path_cap) {
		char *np = realloc(p->path, need * 2);
		if (!np)
			return no_memory(p);
		p->path = np;
		p->path_cap = need * 2;
	}
	if (depth + 1 > p->level_cap) {
		size_t cap = (depth + 1) * 2;
		size_t *nl = realloc(p->level_end, cap * sizeof(*nl));
		if (!nl)
			return no_memory(p);
		p->level_end = nl;
		p->level_cap = cap;
	}
	p->path[base] = '/';
	memcpy(p->path + base + 1, key, keylen);
	p->path[base + 1 + keylen] = '\0';
	p->level_end[depth] = base + 1 + keylen;
	p->levels = depth + 1;
	return 0;
}

static int parse_line(struct parser *p, char *line, size_t len, struct xs_store *out)
{
	if (memchr(line, '\0', len))
		return fail(p, "NUL byte in the line");
	while (len && strchr(" \t\r\n", line[len - 1]))
		line[--len] = '\0';
	if (!len)
		return 0;
	if (p->form == FORM_UNKNOWN)
		p->form = line[0] == '/' ? FORM_FULL_PATHS : FORM_TREE;

	size_t indent = 0;
	if (p->form == FORM_TREE) {
		while (line[indent] == ' ')
			indent++;
		if (line[indent] == '/')
			return fail(p, "absolute path in a tree (plain xenstore-ls) dump");
	} else if (line[0] != '/') {
		return fail(p, "expected an absolute path, as in the rest of this "
		               "`xenstore-ls -f` dump");
	}

	char *key = line + indent;
	char *sep = strstr(key, " = \"");
	if (!sep)
		return fail(p, "expected `name = \"value\"`");
	size_t keylen = (size_t)(sep - key);
	if (!keylen)
		return fail(p, "empty node name");
	if (has_space_or_control(key, keylen))
		return fail(p, "space or control character in the node name");
	if (p->form == FORM_TREE && memchr(key, '/', keylen))
		return fail(p, "'/' in a node name of a tree dump");

	char *open = sep + 4;
	char *close = strrchr(open - 1, '"');
	if (close == open - 1)
		return fail(p, "value without a closing quote");
	if (!tail_is_permissions(close + 1))
		return fail(p, "unexpected text after the value");

	size_t rawlen = (size_t)(close - open);
	bool cut = ends_with_cut_marker(open, rawlen);
	if (cut)
		rawlen -= 4;
	char *value = malloc(rawlen + 1);
	if (!value)
		return no_memory(p);
	size_t value_len = 0;
	if (unescape(p, open, rawlen, cut, value, &value_len) < 0) {
		free(value);
		return -1;
	}

	const char *path = key;
	if (p->form == FORM_TREE) {
		if (tree_path(p, indent, key, keylen) < 0) {
			free(value);
			return -1;
		}
		path = p->path;
	} else {
		*sep = '\0';
	}
	int rc = xs_store_add(out, path, value, value_len);
	free(value);
	if (rc < 0)
		return no_memory(p);
	out->entries[out->n - 1].truncated = cut;
	return 0;
}

int xs_parse_stream(FILE *in, const char *name, struct xs_store *out, struct xerr *err)
{
	struct parser p = {.name = name ? name : "<stdin>", .err = err};
	memset(out, 0, sizeof(*out));
	if (name && !(out->name = strdup(name)))
		return no_memory(&p);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;
	while ((len = getline(&line, &cap, in)) >= 0) {
		p.lineno++;
		if (parse_line(&p, line, (size_t)len, out) < 0) {
			rc = -1;
			break;
		}
	}
	if (!rc && ferror(in)) {
		p.lineno++;
		rc = fail(&p, "read error: %s", strerror(errno));
	}
	free(line);
	free(p.path);
	free(p.level_end);
	if (rc < 0) {
		xs_free(out);
		return -1;
	}
	xs_store_sort(out);
	return 0;
}

int xs_parse_file(const char *file, struct xs_store *out, struct xerr *err)
{
	FILE *in = fopen(file, "r");
	if (!in) {
		memset(out, 0, sizeof(*out));
		xerr_set(err, XERR_INPUT, "%s: %s", file, strerror(errno));
		return -1;
	}
	int rc = xs_parse_stream(in, file, out, err);
	fclose(in);
	return rc;
}

/* --- the store: append, then sort once; lookups by binary search --- */

int xs_store_add(struct xs_store *s, const char *path, const char *value, size_t value_len)
{
	if (s->n >= s->cap) {
		size_t cap = s->cap > s->n ? s->cap : s->n;
		cap = cap < 64 ? 64 : cap * 2;
		struct xs_entry *ne = realloc(s->entries, cap * sizeof(*ne));
		if (!ne)
			return -1;
		s->entries = ne;
		s->cap = cap;
	}
	struct xs_entry *e = &s->entries[s->n];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	e->value = malloc(value_len + 1);
	if (!e->path || !e->value) {
		free(e->path);
		free(e->value);
		return -1;
	}
	memcpy(e->value, value, value_len);
	e->value[value_len] = '\0';
	e->value_len = value_len;
	s->n++;
	return 0;
}

static void free_entry(struct xs_entry *e)
{
	free(e->path);
	free(e->value);
}

/* Sort by path; among equal paths the later entry sorts last (pointer order is
 * insertion order, the array being sorted through pointers). */
static int cmp_entry_ptr(const void *a, const void *b)
{
	const struct xs_entry *ea = *(const struct xs_entry *const *)a;
	const struct xs_entry *eb = *(const struct xs_entry *const *)b;
	int c = strcmp(ea->path, eb->path);
	if (c)
		return c;
	return ea < eb ? -1 : ea > eb;
}

void xs_store_sort(struct xs_store *s)
{
	if (s->n < 2)
		return;
	struct xs_entry **order = malloc(s->n * sizeof(*order));
	struct xs_entry *sorted = malloc(s->n * sizeof(*sorted));
	if (!order || !sorted) {
		/* no memory for the stable way: sort in place, duplicates stay */
		free(order);
		free(sorted);
		qsort(s->entries, s->n, sizeof(*s->entries), cmp_entry_ptr);
		return;
	}
	for (size_t i = 0; i < s->n; i++)
		order[i] = &s->entries[i];
	qsort(order, s->n, sizeof(*order), cmp_entry_ptr);
	size_t kept = 0;
	for (size_t i = 0; i < s->n; i++) {
		/* a path given again replaces the earlier value */
		if (i + 1 < s->n && strcmp(order[i]->path, order[i + 1]->path) == 0) {
			free_entry(order[i]);
			continue;
		}
		sorted[kept++] = *order[i];
	}
	free(order);
	free(s->entries);
	s->entries = sorted;
	s->n = kept;
	s->cap = s->n;
}

static int cmp_path_entry(const void *key, const void *elem)
{
	return strcmp(key, ((const struct xs_entry *)elem)->path);
}

const struct xs_entry *xs_find(const struct xs_store *s, const char *path)
{
	if (!s || !s->n || !path)
		return NULL;
	return bsearch(path, s->entries, s->n, sizeof(*s->entries), cmp_path_entry);
}

const char *xs_get(const struct xs_store *s, const char *path)
{
	const struct xs_entry *e = xs_find(s, path);
	return e ? e->value : NULL;
}

void xs_free(struct xs_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free_entry(&s->entries[i]);
	free(s->entries);
	free(s->name);
	memset(s, 0, sizeof(*s));
}
