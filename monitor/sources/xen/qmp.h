/* qmp.h - a question to a QEMU over its QMP socket, answered however late it comes.
 *
 * Why: the one way to read a qdisk vbd's counters is to ask its QEMU (query-blockstats).
 * libxenstat does it taking 10 ms of silence for the end of each reply (xenstat_qmp.c);
 * a QEMU that is busy, or serving another QMP client first, answers later than that, and
 * the answer is lost. Here the reply is the JSON object that carries our command's id,
 * however late or however split it comes. A question is a conversation that may outlive
 * one sample: a dom0 slowed down (a loaded host, a busy device model) takes longer than
 * a sample's wait for the greeting, the negotiation and the reply, three round trips;
 * given up at each sample's deadline, such a QEMU was never read at all (the Xen test
 * under load: 2 answers in 49 samples, none while the guest wrote).
 *
 * Contract: qmp_start() connects to the UNIX socket at `path` without blocking and
 * returns the conversation that will ask `command` (a fixed ASCII name). qmp_step() moves
 * it on for up to `wait_ms` (0: only what has arrived): it waits for QEMU's greeting,
 * negotiates (qmp_capabilities), sends `{"execute": command}` and returns 1 with *reply
 * the text of that command's "return" value (malloc'd, the caller frees it), 0 while the
 * answer has not come, -1 with `why` (one line, no newline) when QEMU answers with an
 * error, closes, or sends a line that is not JSON or longer than QMP_LINE_MAX. After 1 or
 * -1 the conversation is over. Events and other lines are skipped. qmp_fd() is its socket
 * (for poll), qmp_waiting_for() what it waits for ("the QMP greeting", "the negotiation",
 * the command's name). qmp_end() closes it, answered or not: QEMU serves one client at a
 * time on a QMP socket (xentop's libxenstat shares this one), so a conversation is held
 * only until its answer. qmp_start() fails (-1, `why`) when the socket is absent, refused
 * or its backlog full. qmp_ask() is one question within `deadline_ms`, then closed.
 */
#ifndef XIOTOP_QMP_H
#define XIOTOP_QMP_H

#include <stddef.h>

#define QMP_LINE_MAX (1u << 20) /* a reply line longer than this is refused */

struct qmp_conv;

int qmp_start(struct qmp_conv **out, const char *path, const char *command, char *why,
              size_t whylen);
int qmp_step(struct qmp_conv *c, int wait_ms, char **reply, char *why, size_t whylen);
int qmp_fd(const struct qmp_conv *c);
const char *qmp_waiting_for(const struct qmp_conv *c);
void qmp_end(struct qmp_conv *c);

int qmp_ask(const char *path, const char *command, int deadline_ms, char **reply, char *why,
            size_t whylen);

#endif
