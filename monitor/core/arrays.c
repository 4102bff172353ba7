/* arrays.c - growable and fixed arrays filled one item at a time; see arrays.h. */
#include "core/arrays.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Capacity of a growable array of n items: the next power of two from 8. */
static size_t capacity_for(size_t n)
{
	size_t cap = 8;
	while (cap < n)
		cap *= 2;
	return cap;
}

int arrays_append(void **items, size_t *n, const void *item, size_t size)
{
	if (*n == 0 || *n == capacity_for(*n)) {
		void *p = realloc(*items, capacity_for(*n + 1) * size);
		if (!p)
			return -1;
		*items = p;
	}
	memcpy((char *)*items + *n * size, item, size);
	(*n)++;
	return 0;
}

void *arrays_put(void *items, size_t *n, size_t max, const void *item, size_t size)
{
	if (*n >= max)
		return NULL;
	void *copy = (char *)items + (*n)++ * size;
	memcpy(copy, item, size);
	return copy;
}

struct keyed_text *arrays_put_text(struct keyed_text *items, size_t *n, size_t max, const char *key,
                                   const char *fmt, va_list ap)
{
	if (*n >= max)
		return NULL;
	struct keyed_text *t = &items[(*n)++];
	t->key = key;
	vsnprintf(t->text, sizeof(t->text), fmt, ap);
	return t;
}
