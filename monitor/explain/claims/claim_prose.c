/* claim_prose.c - the lines of a post between tool outputs: shell prompts, the benchmark
 * command lines they run, headings, and rates written in prose (claim_lex.h).
 *
 * A prompt is what a shell prints before a command, at the line's start, ended by '#',
 * '$', '%' or '>' and a blank: "[root@DomU]#", "root@host:~#", "Dom0#", "-bash-4.0#", "#".
 * The host it names is the part after '@', or its one word when that is no shell's name.
 * A benchmark command is dd (with an operand), bonnie or bonnie++, iozone or fio, as the
 * first word after the prompt or the line's start, after ";", "(", "|", "&", `time`,
 * `sudo`, `nice`, `nohup`, `env` or `exec`; "bonnie in dom0" is no command (its word
 * after the tool is no option). A heading is a short line of words (at most 100 bytes,
 * at least half of them letters) that ends in ':', is underlined ("----", "===="), is
 * framed ("==== Dom0 ... ===="), stands alone between blank lines, or comes just before a
 * benchmark's command line; the last three not when they end like a sentence.
 */
#include "explain/claims/claim_lex.h"

#include <stdio.h>
#include <string.h>

static bool is_blank_byte(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* l without the blanks around it. */
static void trim(const struct claim_line *l, const char **s, size_t *n)
{
	const char *p = l->s, *e = l->s + l->len;
	while (p < e && is_blank_byte(*p))
		p++;
	while (e > p && is_blank_byte(e[-1]))
		e--;
	*s = p;
	*n = (size_t)(e - p);
}

bool claim_blank_line(const struct claim_line *l)
{
	const char *s;
	size_t n;
	trim(l, &s, &n);
	return n == 0;
}

static bool shell_name(const char *w, size_t n)
{
	static const char *const shells[] = {"bash", "sh", "zsh", "ksh", "csh", "tcsh", "dash"};
	if (n && w[0] == '-')
		return true; /* "-bash-4.0" */
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++) {
		size_t k = strlen(shells[i]);
		if (n >= k && !memcmp(w, shells[i], k)) {
			size_t j = k;
			while (j < n &&
			       ((w[j] >= '0' && w[j] <= '9') || w[j] == '.' || w[j] == '-'))
				j++;
			if (j == n)
				return true;
		}
	}
	return false;
}

static bool prompt_end(char c)
{
	return c == '#' || c == '$' || c == '%' || c == '>';
}

/* The host of "user@host ..." in s[0, n): up to a blank, ':' or ']'. */
static void host_after_at(const char *s, size_t n, char *host, size_t hostlen)
{
	const char *at = memchr(s, '@', n);
	if (!at)
		return;
	size_t k = 0;
	while (at + 1 + k < s + n && !is_blank_byte(at[1 + k]) && at[1 + k] != ':' &&
	       at[1 + k] != ']')
		k++;
	snprintf(host, hostlen, "%.*s", (int)k, at + 1);
}

size_t claim_prompt(const struct claim_line *l, char *host, size_t hostlen)
{
	const char *s = l->s;
	size_t n = l->len, end;
	host[0] = '\0';
	if (n >= 1 && prompt_end(s[0]) && (n == 1 || is_blank_byte(s[1])))
		return n == 1 ? 1 : 2; /* a bare "#" */
	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n < 64 ? n : 64);
		if (!close)
			return 0;
		end = (size_t)(close - s) + 1;
		if (end >= n || !prompt_end(s[end]) || (end + 1 < n && !is_blank_byte(s[end + 1])))
			return 0;
		host_after_at(s + 1, end - 2, host, hostlen);
		return end + 1 < n ? end + 2 : end + 1;
	}
	for (end = 0; end < n && end < 48 && !is_blank_byte(s[end]) && !prompt_end(s[end]); end++)
		;
	if (!end || end >= n || !prompt_end(s[end]) || (end + 1 < n && !is_blank_byte(s[end + 1])))
		return 0;
	if (memchr(s, '@', end))
		host_after_at(s, end, host, hostlen);
	else if (!shell_name(s, end))
		snprintf(host, hostlen, "%.*s", (int)end, s);
	return end + 1 < n ? end + 2 : end + 1;
}

static bool separator(char c)
{
	return is_blank_byte(c) || c == ';' || c == '(' || c == ')' || c == '|' || c == '&' ||
	       c == '`';
}

static bool word_eq(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(w, lit, n);
}

/* The tool a word names (a path to it too): its family, or none. */
static enum claim_family tool_word(const char *w, size_t n)
{
	static const struct {
		const char *name;
		enum claim_family family;
	} tools[] = {{"dd", CLAIM_FAMILY_DD},         {"bonnie++", CLAIM_FAMILY_BONNIE},
	             {"bonnie", CLAIM_FAMILY_BONNIE}, {"Bonnie", CLAIM_FAMILY_BONNIE},
	             {"iozone", CLAIM_FAMILY_IOZONE}, {"fio", CLAIM_FAMILY_FIO}};
	const char *slash = NULL;
	for (size_t i = 0; i < n; i++)
		slash = w[i] == '/' ? w + i : slash;
	if (slash) {
		n -= (size_t)(slash + 1 - w);
		w = slash + 1;
	}
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (word_eq(w, n, tools[i].name))
			return tools[i].family;
	return CLAIM_FAMILY_NONE;
}

/* The word after p (from it on, skipping blanks): its start and length. */
static size_t next_word(const char *p, const char *end, const char **w)
{
	while (p < end && is_blank_byte(*p))
		p++;
	*w = p;
	size_t n = 0;
	while (p + n < end && !separator(p[n]))
		n++;
	return n;
}

/* Whether the words after the tool make it a command: dd needs an operand (if=, of=...);
 * the others an option, a job file, or nothing. */
static bool takes_args(enum claim_family f, const char *p, const char *end)
{
	const char *w;
	size_t n = next_word(p, end, &w);
	if (f == CLAIM_FAMILY_DD) {
		for (; n; n = next_word(w + n, end, &w))
			if (memchr(w, '=', n))
				return true;
		return false;
	}
	bool at_end = w >= end || *w == ';' || *w == '|' || *w == '&' || *w == ')';
	return at_end || (n && w[0] == '-') ||
	       (f == CLAIM_FAMILY_FIO && n > 4 &&
	        (!memcmp(w + n - 4, ".fio", 4) || memchr(w, '=', n)));
}

enum claim_family claim_command(const struct claim_line *l, size_t from, size_t *tool_at)
{
	static const char *const leads[] = {"time", "sudo", "nice", "nohup", "env", "exec", "-p"};
	const char *p = l->s + from, *end = l->s + l->len;
	bool head = true; /* a command's first word may come next */
	while (p < end) {
		if (separator(*p)) {
			head |= *p != ' ' && *p != '\t' && *p != '\r';
			p++;
			continue;
		}
		size_t n = 0;
		while (p + n < end && !separator(p[n]))
			n++;
		enum claim_family f = head ? tool_word(p, n) : CLAIM_FAMILY_NONE;
		if (f != CLAIM_FAMILY_NONE && takes_args(f, p + n, end)) {
			*tool_at = (size_t)(p - l->s);
			return f;
		}
		bool lead = false;
		for (size_t i = 0; i < sizeof(leads) / sizeof(leads[0]) && !lead; i++)
			lead = word_eq(p, n, leads[i]);
		head = head && lead;
		p += n;
	}
	return CLAIM_FAMILY_NONE;
}

/* A line of only '-' or '=' (at least 3). */
static bool underline(const struct claim_line *l)
{
	const char *s;
	size_t n;
	trim(l, &s, &n);
	if (n < 3)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '-' && s[i] != '=')
			return false;
	return true;
}

/* "==== text ====" or "--- text ---". */
static bool framed(const char *s, size_t n)
{
	if (n < 9 || (s[0] != '=' && s[0] != '-') || s[1] != s[0] || s[2] != s[0])
		return false;
	size_t i = 0;
	while (i < n && s[i] == s[0])
		i++;
	size_t j = n;
	while (j > i && s[j - 1] == s[0])
		j--;
	return i < n && s[i] == ' ' && j < n && j > i && s[j - 1] == ' ' && n - j >= 3;
}

/* Words, not figures or code: at least half of its non-blank bytes are letters. */
static bool wordy(const char *s, size_t n)
{
	size_t letters = 0, shown = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (is_blank_byte(s[i]))
			continue;
		shown++;
		letters += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
	}
	return letters >= 2 && 2 * letters >= shown;
}

bool claim_heading(bool after_blank, const struct claim_line *l, const struct claim_line *next,
                   bool next_is_command)
{
	const char *s;
	size_t n;
	trim(l, &s, &n);
	if (n == 0 || n > 100 || !wordy(s, n) || underline(l))
		return false;
	if (s[n - 1] == ':' || framed(s, n) || (next && underline(next)))
		return true;
	if (strchr(".?!,;", s[n - 1]))
		return false; /* a sentence */
	return next_is_command || (after_blank && (!next || claim_blank_line(next)));
}

/* "150 MB/s", ">450 MB/s", "238172644 bytes/sec": a figure, a unit, "/s". */
bool claim_prose_rate(const struct claim_line *l)
{
	for (size_t i = 1; i + 1 < l->len; i++) {
		if (l->s[i] != '/' || l->s[i + 1] != 's')
			continue;
		size_t j = i;
		while (j > 0 && i - j < 5 &&
		       ((l->s[j - 1] >= 'a' && l->s[j - 1] <= 'z') ||
		        (l->s[j - 1] >= 'A' && l->s[j - 1] <= 'Z')))
			j--;
		if (j == i)
			continue;
		if (j > 0 && l->s[j - 1] == ' ')
			j--;
		if (j > 0 && l->s[j - 1] >= '0' && l->s[j - 1] <= '9')
			return true;
	}
	return false;
}
