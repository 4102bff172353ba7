/* lost_kinds.c - see lost_kinds.h. */
#include "sources/lost_kinds.h"

#include <stdio.h>

void tracer_lost_words(const struct tracer_lost *l, char *out, size_t outlen)
{
	const struct {
		const char *what;
		uint64_t n;
	} kinds[] = {
	    {"layer counter map full", l->layer_map},
	    {"remap map full", l->remap_map},
	    {"cpu state busy or map full", l->cpu_map},
	    {"latency map full", l->latency_map},
	    {"latency program skipped as nested", l->latency_nested},
	    {"bio stamp displaced", l->latency_displaced},
	    {"request without the kernel's start time", l->latency_unstamped},
	    {"completions no program saw", l->latency_unseen},
	    {"topology entries refused", l->map_refused},
	};
	size_t used = 0;
	if (!outlen)
		return;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].n && used < outlen)
			used += (size_t)snprintf(out + used, outlen - used, "%s%s %llu",
			                         used ? ", " : "", kinds[i].what,
			                         (unsigned long long)kinds[i].n);
}
