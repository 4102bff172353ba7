#!/bin/bash
# flip.sh - the dom0 phase of the test xen_tcg_flip (xiotop_phases=flip): no xiotop, only
# the kernel switching tracepoint probes on and off while the dom0 makes system calls and
# block I/O, as xiotop's attach and detach do at each of its starts and stops (and
# sys_enter's each time a device model comes or goes). A tracepoint going from no probe
# to one (its static key) or from one to two (its static call) rewrites its call sites.
# Under qemu 7.2's multi-threaded TCG, with two dom0 vCPUs both hang at a rewritten site
# (within ~100 flips of raw_syscalls/sys_enter, within seconds of block/block_bio_queue on
# Debian 12's dom0 kernel under Xen and booted bare) or oops on an int3 (Debian 13's): the
# emulator goes on running the int3 it translated mid-rewrite after the kernel put the
# instruction back. The kernel's own static keys do the same at times of its choosing
# (crng_is_ready once the crng is seeded). So the dom0 runs on one vCPU (run.sh), and this
# phase checks that it then does not hang: it flips the events of a trace instance on
# sys_enter and block_bio_queue. With XIOTOP_XEN_DOM0_VCPUS=2 it shows the hang.
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
