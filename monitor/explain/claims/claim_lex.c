/* claim_lex.c - a claim's lines and words (core/text_scan.c), the escaped one-line error,
 * and a post's results and runs as they are appended (claim_lex.h). */
#include "explain/claims/claim_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/arrays.h"

bool claim_next_line(const struct claim_src *src, size_t *pos, unsigned *lineno, bool split_cr,
                     struct claim_line *out)
{
	struct text_span line;
	bool newline;
	if (!text_next_line(src->buf, src->len, pos, split_cr, &line, &newline))
		return false;
	out->s = line.s;
	out->len = line.len;
	out->no = *lineno;
	out->ended = newline || (split_cr && line.s + line.len < src->buf + src->len);
	if (newline)
		(*lineno)++;
	return true;
}

/* Escapes in place into dst: printable ASCII stays, everything else becomes \xNN. */
static void escape_into(const char *in, char *dst, size_t dstlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
		bool plain = *p >= 0x20 && *p < 0x7f;
		size_t need = plain ? 1 : 4;
		if (o + need >= dstlen)
			break;
		if (plain) {
			dst[o++] = (char)*p;
		} else {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[*p >> 4];
			dst[o++] = hex[*p & 15];
		}
	}
	if (dstlen)
		dst[o] = '\0';
}

int claim_fail(const struct claim_src *src, unsigned line, const char *fmt, ...)
{
	char raw[1024];
	int n = line ? snprintf(raw, sizeof(raw), "%s:%u: ", src->name, line)
	             : snprintf(raw, sizeof(raw), "%s: ", src->name);
	if (n < 0 || (size_t)n >= sizeof(raw))
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw + n, sizeof(raw) - (size_t)n, fmt, ap);
	va_end(ap);
	if (src->err) {
		src->err->kind = XERR_INPUT;
		src->err->code = 0;
		escape_into(raw, src->err->msg, sizeof(src->err->msg));
	}
	return -1;
}

int claim_no_memory(const struct claim_src *src)
{
	claim_fail(src, 0, "out of memory");
	if (src->err)
		src->err->kind = XERR_NOMEM;
	return -1;
}

void claim_excerpt(const struct claim_line *line, char *out, size_t outlen)
{
	size_t n = line->len < 40 ? line->len : 40;
	if (n >= outlen)
		n = outlen - 1;
	/* a NUL inside the line would cut the excerpt: show it as a visible byte */
	for (size_t i = 0; i < n; i++)
		out[i] = line->s[i] ? line->s[i] : '\x01';
	out[n] = '\0';
}

double claim_unit_factor(const char *u, size_t ulen, bool si_for_plain)
{
	static const char prefixes[] = "KMGTPE";
	if (ulen == 1 && u[0] == 'B')
		return 1;
	if (ulen < 1 || ulen > 3)
		return 0;
	const char *hit = strchr(prefixes, u[0] == 'k' ? 'K' : u[0]);
	if (!hit || !*hit)
		return 0;
	int power = (int)(hit - prefixes) + 1;
	double base;
	if (ulen == 3 && u[1] == 'i' && u[2] == 'B')
		base = 1024;
	else if (ulen == 2 && u[1] == 'B')
		base = si_for_plain ? 1000 : 1024;
	else if (ulen == 1)
		base = 1024;
	else
		return 0;
	double f = 1;
	while (power--)
		f *= base;
	return f;
}

bool claim_contains(const struct claim_src *src, const char *needle)
{
	return text_contains(src->buf, src->len, needle);
}

bool claim_next_word(const struct claim_line *l, size_t *pos, size_t *start)
{
	return text_next_word(l->s, l->len, pos, start, " \t\r");
}

void claim_say(struct claim_setting *s, enum claim_from from, uint64_t value)
{
	s->from = from;
	s->value = value;
}

static void merge(struct claim_setting *to, const struct claim_setting *from)
{
	if (from->from != CLAIM_FROM_NONE)
		*to = *from;
}

void claim_said_merge(struct claim_said *to, const struct claim_said *from)
{
	merge(&to->direct, &from->direct);
	merge(&to->sync, &from->sync);
	merge(&to->flush_end, &from->flush_end);
	merge(&to->block_bytes, &from->block_bytes);
	merge(&to->queue_depth, &from->queue_depth);
	merge(&to->file_bytes, &from->file_bytes);
	if (from->ioengine[0])
		snprintf(to->ioengine, sizeof(to->ioengine), "%s", from->ioengine);
}

struct claim_result *claim_new_result(struct claim_build *b, const struct claim_src *src,
                                      enum claim_tool tool, unsigned first_line, unsigned last_line)
{
	struct claim_post *p = b->post;
	struct claim_result r = {.tool = tool,
	                         .index = (unsigned)p->nresults,
	                         .first_line = first_line,
	                         .last_line = last_line,
	                         .command_line = b->ctx.command_line,
	                         .said = b->ctx.said,
	                         .seconds = -1,
	                         .rate_bytes_per_s = -1};
	snprintf(r.prompt, sizeof(r.prompt), "%s", b->ctx.prompt);
	snprintf(r.host, sizeof(r.host), "%s", b->ctx.host);
	snprintf(r.heading, sizeof(r.heading), "%s", b->ctx.heading);
	snprintf(r.command, sizeof(r.command), "%s", b->ctx.command);
	if (arrays_append((void **)&p->results, &p->nresults, &r, sizeof(r))) {
		claim_no_memory(src);
		return NULL;
	}
	return &p->results[p->nresults - 1];
}

int claim_add_run(const struct claim_src *src, struct claim_result *r, const struct claim_run *run)
{
	struct claim_run copy = *run;
	if (copy.block_bytes.from == CLAIM_FROM_NONE)
		copy.block_bytes = r->said.block_bytes;
	if (arrays_append((void **)&r->runs, &r->nruns, &copy, sizeof(copy)))
		return claim_no_memory(src);
	return 0;
}
