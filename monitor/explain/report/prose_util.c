/* prose_util.c - what every writer of words needs: appending, a verdict's figures, names
 * and numbers in words. See prose.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/sanitize.h"
#include "explain/report/prose.h"

void say(struct prose *p, const char *fmt, ...)
{
	size_t used = strlen(p->buf);
	if (used + 1 >= p->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->buf + used, p->len - used, fmt, ap);
	va_end(ap);
}

static const struct ex_figure *figure_of(const struct ex_verdict *v, enum ex_key key)
{
	for (size_t i = 0; i < v->n_figures; i++)
		if (v->figures[i].key == key)
			return &v->figures[i];
	return NULL;
}

double fig(const struct ex_verdict *v, enum ex_key key)
{
	const struct ex_figure *f = figure_of(v, key);
	return f && !f->null ? f->value : NAN;
}

const char *fig_str(const struct ex_verdict *v, enum ex_key key)
{
	const struct ex_figure *f = figure_of(v, key);
	return f && !f->null ? f->str : "";
}

bool fig_null(const struct ex_verdict *v, enum ex_key key)
{
	const struct ex_figure *f = figure_of(v, key);
	return !f || f->null;
}

const struct ex_domain *prose_domain(const struct explain *ex, uint32_t domid)
{
	for (size_t i = 0; i < ex->n_doms; i++)
		if (ex->doms[i].domid == domid)
			return &ex->doms[i];
	return NULL;
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
