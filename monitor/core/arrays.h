/* arrays.h - the two kinds of array the engine fills one item at a time: a growable one
 * (the sample's layers, an import's rows) and a fixed one with a bound (a verdict's
 * figures, explain's layers), and the fixed list of texts by key (explain's verdicts not
 * given, an import's meta facts).
 *
 * Contract: a growable array is (items, n), its capacity implied by n: the next power of
 * two from 8, none allocated while n is 0. Only arrays_append allocates it (it is freed
 * with free(); lowering n keeps it valid), so nothing else may realloc it or hand it a
 * buffer of another size. -1 on ENOMEM with the array as it was. A fixed array is
 * items[max] with its count n; arrays_put copies an item into its next place, or says
 * it is full (NULL): what the caller drops then is its own to count or say.
 */
#ifndef XIOTOP_ARRAYS_H
#define XIOTOP_ARRAYS_H

#include <stdarg.h>
#include <stddef.h>

/* Appends a copy of item (size bytes) to the growable array (*items, *n). */
int arrays_append(void **items, size_t *n, const void *item, size_t size);
/* Puts a copy of item (size bytes) at the end of the fixed array items[max] of *n: the
 * copy in the array, or NULL when it is full. */
void *arrays_put(void *items, size_t *n, size_t max, const void *item, size_t size);

/* An entry of a fixed list of texts by key: the key (static storage) and its text. */
struct keyed_text {
	const char *key;
	char text[768];
};
/* Puts key and the text fmt and ap make (cut to fit) at the end of the fixed list
 * items[max] of *n: the entry, or NULL when the list is full. */
struct keyed_text *arrays_put_text(struct keyed_text *items, size_t *n, size_t max, const char *key,
                                   const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

#endif
