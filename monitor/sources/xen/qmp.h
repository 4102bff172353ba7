/* qmp.h - one question to a QEMU over its QMP socket, answered within a deadline.
 *
 * Why: the one way to read a qdisk vbd's counters is to ask its QEMU (query-blockstats).
 * libxenstat does it taking 10 ms of silence for the end of each reply (xenstat_qmp.c);
 * a QEMU that is busy, or serving another QMP client first, answers later than that, and
 * the answer is lost. Here the reply is the JSON object that carries our command's id,
 * however late or however split it comes, up to the deadline.
 *
 * Contract: qmp_ask() connects to the UNIX socket at `path`, waits for QEMU's greeting,
 * negotiates (qmp_capabilities), sends `{"execute": command}` and returns in *reply the
 * text of that command's "return" value (malloc'd, the caller frees it). Events and
 * other lines are skipped. It never waits past `deadline_ms` in all, and closes the
 * socket before returning: QEMU serves one client at a time on a QMP socket (xentop's
 * libxenstat shares this one), so the connection is held only for the question.
 * 0 on success; -1 with `why` (one line, no newline) when the socket is absent or
 * refused, QEMU answers with an error, closes, sends a line that is not JSON or longer
 * than QMP_LINE_MAX, or does not answer in time. `command` is a fixed ASCII name.
 */
#ifndef XIOTOP_QMP_H
#define XIOTOP_QMP_H

#include <stddef.h>

#define QMP_LINE_MAX (1u << 20) /* a reply line longer than this is refused */

int qmp_ask(const char *path, const char *command, int deadline_ms, char **reply, char *why,
            size_t whylen);

#endif
