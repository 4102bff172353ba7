/* attr.c - see attr.h. */
#include "sources/attr.h"

#include <stdio.h>
#include <string.h>

bool attr_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = len ? fread(buf, 1, len - 1, f) : 0;
	fclose(f);
	if (len) {
		buf[n] = '\0';
		buf[strcspn(buf, "\r\n")] = '\0';
	}
	return true;
}
