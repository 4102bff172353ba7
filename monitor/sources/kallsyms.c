/* kallsyms.c - symbol addresses from /proc/kallsyms; see kallsyms.h. */
#include "sources/kallsyms.h"

#include <stdio.h>
#include <string.h>

unsigned long long kallsyms_addr(const char *path, const char *sym)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char line[256], name[128], type;
	unsigned long long addr, found = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 && !strcmp(name, sym)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}
