/* claim_result.c - what a post's results are called, what answers to a label, what the
 * post holds in a few words, and freeing it (claim_post.h). */
#include "explain/claims/claim_lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name, *kind, *kinds; /* the tool, one result, several */
} tools[] = {
    [CLAIM_TOOL_DD] = {"dd", "dd run", "dd runs"},
    [CLAIM_TOOL_DD_BUSYBOX] = {"dd-busybox", "dd run", "dd runs"},
    [CLAIM_TOOL_DD_BSD] = {"dd-bsd", "dd run", "dd runs"},
    [CLAIM_TOOL_BONNIE] = {"bonnie++", "bonnie++ row", "bonnie++ rows"},
    [CLAIM_TOOL_BONNIE_CLASSIC] = {"bonnie", "bonnie row", "bonnie rows"},
    [CLAIM_TOOL_IOZONE] = {"iozone", "iozone table", "iozone tables"},
    [CLAIM_TOOL_FIO] = {"fio", "fio group", "fio groups"},
};

static bool known_tool(enum claim_tool tool)
{
	return (unsigned)tool < sizeof(tools) / sizeof(tools[0]) && tools[tool].name;
}

const char *claim_tool_name(enum claim_tool tool)
{
	return known_tool(tool) ? tools[tool].name : "?";
}

const char *claim_result_kind(const struct claim_result *r)
{
	return known_tool(r->tool) ? tools[r->tool].kind : "result";
}

void claim_result_release(struct claim_result *r)
{
	free(r->runs);
	if (r->tool == CLAIM_TOOL_IOZONE)
		free(r->u.iozone.rows);
	else if (r->tool == CLAIM_TOOL_FIO)
		free(r->u.fio.jobs);
	r->runs = NULL;
	r->nruns = 0;
}

void claim_post_free(struct claim_post *post)
{
	for (size_t i = 0; i < post->nresults; i++)
		claim_result_release(&post->results[i]);
	free(post->results);
	free(post->notes);
	memset(post, 0, sizeof(*post));
}

/* A word of the heading equal to label, case aside: words of letters, digits and "-_.'"
 * (and bytes past ASCII: "DomU’s" is one word), a trailing '.' or ':' not part of it. */
static bool heading_word(const char *heading, const char *label)
{
	size_t want = strlen(label);
	const char *p = heading;
	while (*p) {
		while (*p &&
		       !(((unsigned char)*p >= 0x80) || strchr("-_.'", *p) ||
		         (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')))
			p++;
		const char *w = p;
		while (*p &&
		       (((unsigned char)*p >= 0x80) || strchr("-_.'", *p) ||
		        (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')))
			p++;
		size_t n = (size_t)(p - w);
		while (n && (w[n - 1] == '.' || w[n - 1] == ':'))
			n--;
		if (n && n == want && !strncasecmp(w, label, n))
			return true;
	}
	return false;
}

bool claim_result_answers(const struct claim_result *r, const char *label)
{
	if (!label || !label[0])
		return true;
	return (r->machine[0] && !strcmp(r->machine, label)) ||
	       (r->host[0] && !strcasecmp(r->host, label)) || heading_word(r->heading, label);
}

void claim_post_summary(const struct claim_post *post, const bool *keep, char *out, size_t outlen)
{
	/* the kinds in the order the post first has them, with their counts */
	const char *kind[8];
	size_t count[8], nk = 0, o = 0;
	for (size_t i = 0; i < post->nresults; i++) {
		if (keep && !keep[i])
			continue;
		const struct claim_result *r = &post->results[i];
		size_t k = 0;
		while (k < nk && strcmp(kind[k], claim_result_kind(r)))
			k++;
		if (k == nk && nk < 8) {
			kind[nk] = claim_result_kind(r);
			count[nk++] = 0;
		}
		if (k < nk)
			count[k]++;
	}
	out[0] = '\0';
	for (size_t k = 0; k < nk && o < outlen; k++) {
		const char *plural = NULL;
		for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]) && !plural; t++)
			if (tools[t].kind && !strcmp(tools[t].kind, kind[k]))
				plural = tools[t].kinds;
		o += (size_t)snprintf(out + o, outlen - o, "%s%zu %s",
		                      k == 0        ? ""
		                      : k + 1 == nk ? " and "
		                                    : ", ",
		                      count[k], count[k] == 1 ? kind[k] : plural);
	}
	if (!nk)
		snprintf(out, outlen, "no result");
}
