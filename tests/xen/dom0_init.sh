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
# one vCPU (run.sh says why: the emulator and code the kernel rewrites); check.py holds
# the boot to it
nproc >/results/dom0-vcpus.txt
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
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
