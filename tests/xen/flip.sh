#!/bin/bash
# flip.sh - the dom0 phase of the test xen_tcg_flip (xiotop_phases=flip): no xiotop, only
# the kernel switching tracepoint probes on and off while both CPUs make system calls
# and block I/O, as xiotop's attach and detach do at each of its starts and stops (and
# sys_enter's each time a device model comes or goes). Under qemu 7.2's multi-threaded
# TCG a tracepoint going from no probe to one (its static key) or from one to two (its
# static call) rewrites its call sites, and both vCPUs hang at a rewritten one: within
# ~100 flips of raw_syscalls/sys_enter, within seconds of block/block_bio_queue (Debian
# 12's dom0 kernel under Xen and booted bare; a Debian 13 boot crashed at the same
# instruction): the emulator goes on running the int3 it translated mid-rewrite after
# the kernel put the instruction back. So dom0_init.sh holds each tracepoint xiotop
# hooks at two probes from boot, and this phase checks that hold: it flips a third
# probe (the events in a third trace instance) on sys_enter and block_bio_queue. With
# xiotop_flip_hold=0 it shows the hang (with XIOTOP_XEN_TCG=single, that single-threaded
# TCG has none).
up() { cut -d' ' -f1 /proc/uptime; }
secs=240
# shellcheck disable=SC2013 # the command line's words are the parameters
for a in $(cat /proc/cmdline); do case $a in xiotop_flip_secs=*) secs=${a#*=} ;; esac; done
t=/sys/kernel/tracing
if ! { mkdir -p $t/instances/flip && echo 0 >$t/instances/flip/tracing_on; }; then
	echo "flip: no trace instance" >/results/flip.txt
	exit 1
fi
events="raw_syscalls/sys_enter block/block_bio_queue"
for _ in 1 2; do (while :; do dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null; done) & done
for _ in 1 2; do (while :; do dd if=/dev/zero of=/dev/ram0 bs=4k count=2000 oflag=direct 2>/dev/null; done) & done
flip() {
	local e
	for e in $events; do echo "$1" >"$t/instances/flip/events/$e/enable"; done
}
n=0
end=$(($(cut -d. -f1 /proc/uptime) + secs))
while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
	flip 1
	sleep 0.05
	flip 0
	sleep 0.05
	n=$((n + 1))
	[ $((n % 100)) -eq 0 ] && echo "XIOTOP-DOM0: flip $n at uptime $(up)" >/dev/console
done
# shellcheck disable=SC2046 # the job pids, one word each
kill $(jobs -p) 2>/dev/null
echo "flips of $events: $n in $secs s" >/results/flip.txt
