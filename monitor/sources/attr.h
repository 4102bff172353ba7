/* attr.h - one-line attribute files of sysfs (and the like), read whole.
 *
 * Contract: attr_read_line() reads at most len - 1 bytes of PATH into buf, NUL-terminated,
 * with the first line break (\n or \r) and what follows it cut off. It returns false (buf
 * untouched) when the file cannot be opened; an empty file gives "" and true. */
#ifndef XIOTOP_ATTR_H
#define XIOTOP_ATTR_H

#include <stdbool.h>
#include <stddef.h>

bool attr_read_line(const char *path, char *buf, size_t len);

#endif
