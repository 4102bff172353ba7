#!/bin/bash
# dom0 /init: bring the Xen toolstack up, run the scenarios of scenarios.sh with xiotop
# watching (no xenstore dump: it must find Xen live), write everything to the results
# disk (/dev/vda, a tar the host unpacks) and power off.
# the release's Xen tools: /usr/lib/xen-4.17/bin (Debian 12) or xen-4.20 (Debian 13)
xenbin=$(echo /usr/lib/xen-4.*/bin)
export PATH=/opt/xiotop/bin:$xenbin:/usr/sbin:/usr/bin:/sbin:/bin
export TERM=xterm
up() { cut -d' ' -f1 /proc/uptime; }
mark() { echo "XIOTOP-DOM0: $* (uptime $(up))"; echo "$(up) $*" >>/results/events.log; }
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
# the kernel asks /sbin/modprobe for modules it needs (crc32c for ext4)
[ -e /sbin/modprobe ] || ln -s /bin/modprobe /sbin/modprobe
# devtmpfs lacks these; the hotplug scripts' flock locking needs /dev/stdin
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm /results
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /results
mark "init start"
# qemu 7.2's multi-threaded TCG hangs or crashes a vCPU when the kernel rewrites a hot
# call site while the other vCPU runs it (flip.sh: within seconds for block_bio_queue under
# direct I/O, ~100 flips for sys_enter; one CI boot took an int3 oops in ttwu_do_activate
# when the first ftrace event registered the scheduler's cmdline-recording probes on a
# busy dom0). The kernel rewrites a tracepoint's sites when its first probe comes or its
# last goes (the static key) and from one probe to two or back (the static call then calls
# an iterator): what xiotop's attach and detach are on an idle host. So every tracepoint
# xiotop hooks is held at two probes, its ftrace event on in the top trace instance and in
# 'hold', with tracing off (nothing recorded): xiotop's attach and detach then only add and
# remove a third probe, with no code rewritten; its hooks are otherwise as on any host.
# Both probes are put there by the kernel's command line (run.sh: trace_event= and
# trace_instance=hold,...) in start_kernel, before the second CPU is up, so nothing is
# rewritten while another CPU runs: kernels before 6.3 lack trace_instance=, and there
# 'hold' is filled here, first thing, before anything else runs, as are the system-call
# events' second probes everywhere (run.sh: held from start_kernel, no task would get the
# flag those tracepoints need). The events are read from
# trace_event= (none there, with xiotop_flip_hold=0: nothing held). Each event goes into
# /results/held.txt with where each of its two probes came from (boot or init): check.py
# fails on a tracepoint xiotop attached that is not held, and on a kernel with
# trace_instance= on one that init had to enable.
hold_tracepoints() {
	local t=/sys/kernel/tracing e d where events
	events=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^trace_event=//p' | tr ',' ' ')
	[ -n "$events" ] || return 0
	echo 0 >$t/tracing_on && mkdir -p $t/instances/hold && echo 0 >$t/instances/hold/tracing_on ||
		return 1
	for e in $events; do
		e=${e/://}
		where=""
		for d in $t/events/$e $t/instances/hold/events/$e; do
			if [ "$(cat "$d/enable" 2>/dev/null)" = 1 ]; then
				where="$where boot"
			elif echo 1 >"$d/enable"; then
				where="$where init"
			else
				mark "holding $e FAILED in ${d%/events/*}"
				continue 2
			fi
		done
		echo "${e#*/}$where" >>/results/held.txt
	done
	mark "tracepoints held"
}
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
hold_tracepoints || mark "holding the tracepoints FAILED (no trace instance)"
for m in crc32c_generic xen-evtchn xen-gntdev xen-gntalloc xen-privcmd xenfs xen-blkback loop dm-mod ext4 virtio_pci virtio_blk; do
	modprobe $m || mark "modprobe $m FAILED"
done
modprobe brd rd_nr=2 rd_size=262144 || mark "modprobe brd FAILED"
mount -t xenfs xenfs /proc/xen
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
uname -r >/results/dom0-kernel.txt
xenstored --pid-file /var/run/xen/xenstored.pid || mark "xenstored FAILED"
for _ in $(seq 1 50); do xenstore-exists /local 2>/dev/null && break; sleep 0.2; done
xen-init-dom0 >/dev/null || mark "xen-init-dom0 FAILED"
xenconsoled --pid-file=/var/run/xen/xenconsoled.pid --log=guest --log-dir=/var/log/xen || mark "xenconsoled FAILED"
xl info | grep -E '^(xen_version|nr_cpus|total_memory)' >/results/xl-info.txt
mark "toolstack up"
# a hung scenario must not cost the results: they are written before qemu's timeout
# (xiotop_deadline= on the command line, in dom0 seconds), whatever happens
deadline=300
# shellcheck disable=SC2013 # the command line's words are the parameters
for a in $(cat /proc/cmdline); do case $a in xiotop_deadline=*) deadline=${a#*=} ;; esac; done
left=$((deadline - $(cut -d. -f1 /proc/uptime) - 20))
[ $left -gt 30 ] || left=30
if grep -qw xiotop_phases=flip /proc/cmdline; then
	timeout -s KILL $left bash /root/flip.sh >/results/scenarios.log 2>&1
else
	timeout -s KILL $left bash /root/scenarios.sh >/results/scenarios.log 2>&1
fi
mark "scenarios rc=$?"
# the results disk: a plain tar the host unpacks
if [ -b /dev/vda ]; then
	(cd /results && tar -cf /dev/vda .) && sync && mark "results written to vda"
else
	mark "no results disk"
fi
echo "XIOTOP-DOM0: end"
poweroff -f
