/* fail.h - where the library layers' failures are said and turned into exit statuses.
 *
 * Contract: cli_say() prints a failure's sentence (core/error.h) as one line
 * "xiotop: SENTENCE" on stderr, nothing for XERR_NONE or an empty sentence (said as it
 * happened). cli_fail() says it and returns the exit status its kind means (cli_status():
 * 2 for bad input and missing prerequisites, 1 for runtime and memory failures, 0 for
 * none; for a command that says the sentence its own way).
 * Only cli/ calls these: a library layer fills a struct xerr and returns.
 */
#ifndef XIOTOP_CLI_FAIL_H
#define XIOTOP_CLI_FAIL_H

#include "core/error.h"

void cli_say(const struct xerr *e);
int cli_fail(const struct xerr *e);
int cli_status(const struct xerr *e);
/* The note sink (core/error.h) main() installs: "xiotop: SENTENCE" on stderr. */
void cli_note(const char *sentence);

#endif
