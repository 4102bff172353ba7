/* proc_stat.h - one field of /proc/PID/stat: a process's start time.
 *
 * Contract: proc_start_ticks() reads PROC/PID/stat (proc: the /proc root, NULL for
 * /proc) and gives field 22, the start time in clock ticks since boot, which tells a
 * reused pid apart; the command name (field 2) may hold spaces and parentheses, so the
 * fields are counted after its last ')'. 0, or -1 when the process is gone or the line
 * is not a stat line. It prints nothing.
 */
#ifndef XIOTOP_SOURCES_PROC_STAT_H
#define XIOTOP_SOURCES_PROC_STAT_H

int proc_start_ticks(const char *proc, int pid, unsigned long long *ticks);

#endif
