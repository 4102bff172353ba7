/* kallsyms.h - kernel symbol addresses from a /proc/kallsyms listing.
 *
 * Contract: kallsyms_addr() reads the listing at path ("ADDR TYPE NAME [module]" per
 * line) and gives the first address of the symbol named sym; 0 when the file cannot be
 * read, the symbol is absent, or the kernel hides addresses (kptr_restrict prints 0).
 * It prints nothing: what a missing symbol costs is the caller's to say.
 */
#ifndef XIOTOP_SOURCES_KALLSYMS_H
#define XIOTOP_SOURCES_KALLSYMS_H

unsigned long long kallsyms_addr(const char *path, const char *sym);

#endif
