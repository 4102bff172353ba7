/* free_all.h - release the buffers a struct owns in one statement.
 *
 * Contract: FREE_ALL(a, b, ...) calls free() on each pointer given, in order (NULL ones
 * too, as free() allows); nothing else. The owner names its buffers once, in one list,
 * instead of a free() line per member.
 */
#ifndef XIOTOP_FREE_ALL_H
#define XIOTOP_FREE_ALL_H

#include <stddef.h>

void free_all(void *const ptrs[], size_t n);

#define FREE_ALL(...)                                                                              \
	free_all((void *const[]){__VA_ARGS__},                                                     \
	         sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

#endif
