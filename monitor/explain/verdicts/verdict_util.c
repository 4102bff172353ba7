/* verdict_util.c - what every verdict needs: a verdict slot, its figures and evidence,
 * text, number formats, names. The verdicts call it; it calls none of them
 * (verdicts_rank.c runs and ranks them). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arrays.h"
#include "core/sanitize.h"
#include "explain/verdicts/verdicts.h"

struct ex_verdict *ex_verdict_new(struct explain *ex, enum ex_verdict_id id, uint32_t domid)
{
	const struct ex_verdict v = {.id = id, .domid = domid};
	return arrays_put(ex->verdicts, &ex->n_verdicts, EX_MAX_VERDICTS, &v, sizeof(v));
}

static void not_given(struct explain *ex, const char *key, const char *fmt, va_list ap)
{
	for (size_t i = 0; i < ex->n_not_given; i++)
		if (!strcmp(ex->not_given[i].key, key))
			return; /* once per recording, not per domain */
	arrays_put_text(ex->not_given, &ex->n_not_given, EX_MAX_NOT_GIVEN, key, fmt, ap);
}

void ex_not_given(struct explain *ex, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	not_given(ex, key, fmt, ap);
	va_end(ap);
}

void ex_verdict_not_given(struct explain *ex, enum ex_verdict_id id, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	not_given(ex, ex_verdict_key(id), fmt, ap);
	va_end(ap);
}

static struct ex_figure *new_fig(struct ex_verdict *v, const char *key)
{
	struct ex_figure f = {0};
	snprintf(f.key, sizeof(f.key), "%s", key);
	return arrays_put(v->figures, &v->n_figures, EX_MAX_FIGURES, &f, sizeof(f));
}

void ex_fig(struct ex_verdict *v, const char *key, double value)
{
	struct ex_figure *f = new_fig(v, key);
	if (f)
		f->value = value;
}

void ex_fig_null(struct ex_verdict *v, const char *key)
{
	struct ex_figure *f = new_fig(v, key);
	if (f)
		f->null = true;
}

void ex_fig_str(struct ex_verdict *v, const char *key, const char *value)
{
	struct ex_figure *f = new_fig(v, key);
	if (f)
		snprintf(f->str, sizeof(f->str), "%s", value[0] ? value : "-");
}

void ex_evidence(struct ex_verdict *v, const char *counter)
{
	if (v->n_evidence < EX_MAX_EVIDENCE)
		v->evidence[v->n_evidence++] = counter;
}

void ex_say(struct ex_verdict *v, const char *fmt, ...)
{
	size_t used = strlen(v->text);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->text + used, sizeof(v->text) - used, fmt, ap);
	va_end(ap);
}

const char *ex_dom_label(const struct ex_domain *d, char *buf, size_t len)
{
	char name[XIO_NAME_MAX * 4];
	sanitize_text(d->name, name, sizeof(name));
	if (d->dom0_subject) /* "dom0 (dd)": domain 0 is dom0 itself */
		snprintf(buf, len, "%s", name);
	else if (name[0])
		snprintf(buf, len, "%s (domain %u)", name, d->domid);
	else
		snprintf(buf, len, "domain %u", d->domid);
	return buf;
}

const char *ex_bytes(double b, char *buf, size_t len)
{
	if (b >= EX_GIB)
		snprintf(buf, len, "%.2f GiB", b / EX_GIB);
	else if (b >= EX_MIB)
		snprintf(buf, len, "%.1f MiB", b / EX_MIB);
	else if (b >= 1024)
		snprintf(buf, len, "%.0f KiB", b / 1024);
	else
		snprintf(buf, len, "%.0f bytes", b);
	return buf;
}

const char *ex_rate(double bps, char *buf, size_t len)
{
	if (bps >= EX_GIB)
		snprintf(buf, len, "%.2f GiB/s", bps / EX_GIB);
	else
		snprintf(buf, len, "%.1f MiB/s", bps / EX_MIB);
	return buf;
}

const char *ex_leaf_names(const struct ex_domain *d, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < d->n_layers; i++) {
		const struct ex_layer *l = &d->layers[i];
		if (!l->is_leaf || l->is_file || !l->name[0] || strstr(buf, l->name))
			continue;
		char name[128];
		sanitize_text(l->name, name, sizeof(name));
		int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, len, "a disk");
	return buf;
}
