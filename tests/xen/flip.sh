#!/bin/bash
# flip.sh - the dom0 phase of the test xen_tcg_flip (xiotop_phases=flip): no xiotop, only
# the kernel switching the sys_enter tracepoint on and off (its static key rewrites the
# code of every system call's entry) while both CPUs make system calls and block I/O, as
# xiotop's hooks do each time it starts, stops or sees a device model come or go.
# Under qemu 7.2's multi-threaded TCG this hangs both vCPUs at the rewritten instruction
# within ~100 flips (seen with Debian 12's dom0 kernel under Xen and booted bare, and
# with Debian 13's): the emulator keeps running the int3 it translated mid-rewrite after
# the kernel put the jump back. run.sh therefore boots under single-threaded TCG; this
# phase is how to see that it holds (XIOTOP_XEN_TCG=multi shows the hang).
up() { cut -d' ' -f1 /proc/uptime; }
secs=240
# shellcheck disable=SC2013 # the command line's words are the parameters
for a in $(cat /proc/cmdline); do case $a in xiotop_flip_secs=*) secs=${a#*=} ;; esac; done
ev=/sys/kernel/tracing/events/raw_syscalls/sys_enter/enable
[ -w $ev ] || { echo "flip: $ev missing" >/results/flip.txt; exit 1; }
for _ in 1 2; do (while :; do dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null; done) & done
for _ in 1 2; do (while :; do dd if=/dev/zero of=/dev/ram0 bs=4k count=2000 oflag=direct 2>/dev/null; done) & done
n=0
end=$(($(cut -d. -f1 /proc/uptime) + secs))
while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
	echo 1 >$ev
	sleep 0.05
	echo 0 >$ev
	sleep 0.05
	n=$((n + 1))
	[ $((n % 100)) -eq 0 ] && echo "XIOTOP-DOM0: flip $n at uptime $(up)" >/dev/console
done
# shellcheck disable=SC2046 # the job pids, one word each
kill $(jobs -p) 2>/dev/null
echo "flips $n in $secs s" >/results/flip.txt
