/* verifier_log.h - the one line of a BPF program load log that says why the kernel
 * refused the program, for the hooks report ("does not load: ...").
 *
 * Contract: libbpf hands a refused program's verifier log over as one message,
 * "prog 'NAME': -- BEGIN PROG LOAD LOG --\n<log>-- END PROG LOAD LOG --\n". The
 * verifier ends its log with its verdict, then a statistics line starting "processed ";
 * the verdict is the last non-empty line before that line (or before the END marker
 * when there is no statistics line). verifier_reason() writes "prog NAME: VERDICT" into
 * out (NUL-terminated, cut to outlen) and returns true; false, with out untouched, when
 * msg is not such a message or holds no line. No allocation; msg is not modified.
 */
#ifndef XIOTOP_SOURCES_VERIFIER_LOG_H
#define XIOTOP_SOURCES_VERIFIER_LOG_H

#include <stdbool.h>
#include <stddef.h>

bool verifier_reason(const char *msg, char *out, size_t outlen);

#endif
