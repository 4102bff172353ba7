#!/bin/sh
# domU /init of the explain phase (explain.sh): what a user does in a guest to ask "why
# is my disk slow": an ext4 file system on its disk, then GNU dd (a write with
# conv=fdatasync, the caches dropped, the file read back; then a write with oflag=direct),
# fio with its default text output (a sequential write with end_fsync; then 4 KiB random
# reads at iodepth 1 with direct=1, for 5 s), bonnie++ with a file smaller than the guest's
# memory (-r tells it the size it checks against) and iozone -o (O_SYNC writes: seed 002's
# flags, a smaller file). Around each tool the guest writes its own marks into xenstore
# (data/xiotop/mark: "start dd" ... "end iozone"), which dom0's xiotop record stores, and
# prints the tool's whole output between XIOTOP-BENCH lines on its console, which dom0
# collects; where the tool's output does not say how it was run (dd's flags, fio's), the
# command line goes first, as a terminal shows it. Parameters from the kernel command line
# (xl's extra=): xmib, the size of each tool's file in MiB; xtools, the runs this guest
# makes (dd, ddd, fio, fiorr, bonnie, iozone: all by default), in that order.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
xmib=32
xtools=dd,ddd,fio,fiorr,bonnie,iozone
# shellcheck disable=SC2013 # the command line's words are the parameters
for a in $(cat /proc/cmdline); do
	case $a in xmib=* | xtools=*) eval "$a" ;; esac
done
wants() { case ",$xtools," in *",$1,"*) return 0 ;; esac; return 1; }
insmod /lib/modules/xen-blkfront.ko
while read -r m; do insmod "/lib/modules/ext4/$m.ko"; done </lib/modules/ext4.order
i=0
while [ ! -b /dev/xvda ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
export PATH=/usr/bin:/bin
say() { echo "XIOTOP-DOMU: $*"; }
# mark LABEL: the guest's own mark; its time on the console too (checked against dom0's).
# Quiet for 2 s on both sides: the recorder's window holds the interval around each mark
# whole, and blkback's statistics are read when the mark lands; nothing may move between
# (dom0 saw a mark 2.3 s after the guest wrote it under a loaded TCG: 1.2 s let dd's first
# megabytes into the interval before the mark)
mark() {
	sync
	sleep 2
	if xenstore-write data/xiotop/mark "$1" 2>/tmp/xs.err; then
		say "mark $1 at $(cut -d' ' -f1 /proc/uptime)"
	else
		say "mark $1 FAILED: $(cat /tmp/xs.err)"
	fi
	sleep 2 # and one recorder interval at least between two marks (the node keeps the last)
}
# bench NAME TOOL COMMAND...: the command's whole output between markers (NAME: its own
# file in dom0), marked around as the TOOL it runs ("start fio" for both fio runs: a
# guest's marks name the tool, which is how explain places its claims)
bench() {
	name=$1 tool=$2
	shift 2
	wants "$name" || return 0 # not one of the guest's xtools
	mark "start $tool"
	echo "XIOTOP-BENCH-BEGIN $name"
	"$@" 2>&1
	echo "XIOTOP-BENCH-END $name rc=$?"
	mark "end $tool"
}
say "bench start xmib=$xmib mem=$(awk '/MemTotal/ {print $2}' /proc/meminfo)kB"
# no lazy initialisation: its background writes would run into the marked window
if ! /usr/bin/mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/xvda || ! mount -t ext4 /dev/xvda /mnt; then say "mkfs/mount FAILED"; fi
cd /mnt || exit 1
sync
# dd: the write (fdatasync: its rate includes the flush), then the read from the disk.
# GNU dd by its path: busybox's sh runs its own applets before $PATH
dd_runs() {
	/usr/bin/dd if=/dev/zero of=/mnt/dd.bin bs=1M count="$xmib" conv=fdatasync
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# two commands typed apart: runs closer than one sampling interval are one stretch
	# of the timeline, which cannot say which came first
	sleep 2
	/usr/bin/dd if=/mnt/dd.bin of=/dev/null bs=1M
}
bench dd dd dd_runs
rm -f /mnt/dd.bin
sync
# dd with O_DIRECT, no sync: done when blkback has completed the writes, wherever dom0
# put them (on a file image through loop without direct I/O: its page cache)
ddd_run() {
	echo "[root@domU]# dd if=/dev/zero of=/mnt/ddd.bin bs=1M count=$xmib oflag=direct"
	/usr/bin/dd if=/dev/zero of=/mnt/ddd.bin bs=1M count="$xmib" oflag=direct
}
bench ddd dd ddd_run
rm -f /mnt/ddd.bin
sync
bench fio fio fio --name=seqwrite --rw=write --bs=1M --size="${xmib}M" --directory=/mnt --end_fsync=1
rm -f /mnt/seqwrite.*
sync
# 4 KiB random reads, one at a time, past the guest's cache: each waits for the last, so
# the rate is one over the round trip's latency
fiorr_run() {
	set -- fio --name=randread --rw=randread --bs=4k --iodepth=1 --direct=1 --size=8M \
		--runtime=5 --time_based --directory=/mnt
	echo "[root@domU]# $*"
	"$@"
}
bench fiorr fio fiorr_run
rm -f /mnt/randread.*
sync
# -f: no per-character phases (hours under TCG); -n 0: no small-file phase; -r: the RAM
# bonnie++ checks its file against (it wants twice that): the guest's real memory is larger
bench bonnie bonnie bonnie++ -d /mnt -s "$xmib" -r $((xmib / 2)) -n 0 -f -u root
sync
# iozone -o: every write O_SYNC (-e: the flush timed too); write/rewrite, read/reread
bench iozone iozone iozone -o -e -s 8m -r 256k -i 0 -i 1 -f /mnt/iozone.tmp
rm -f /mnt/iozone.tmp
sync
say "stat $(cat /sys/block/xvda/stat)"
say "done"
while :; do sleep 60; done
