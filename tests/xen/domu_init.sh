#!/bin/sh
# domU /init: write xw MiB to its disk with O_DIRECT in xbs KiB requests (xloops times,
# same region), read xr MiB back, print its own /sys/block/xvda/stat, say so on its
# console, then (xw2) wait for a save and restore to write again, then wait to be
# destroyed. Parameters come from the kernel command line (xl's extra=).
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
xw=0 xr=0 xloops=1 xbs=1024
# shellcheck disable=SC2013 # the command line's words are the parameters
for a in $(cat /proc/cmdline); do
	case $a in xw=* | xr=* | xloops=* | xw2=* | xbs=*) eval "$a" ;; esac
done
insmod /lib/modules/xen-blkfront.ko
i=0
while [ ! -b /dev/xvda ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
echo "XIOTOP-DOMU: start xw=$xw xr=$xr xloops=$xloops"
n=0
while [ $n -lt "$xloops" ]; do
	dd if=/dev/zero of=/dev/xvda bs="${xbs}k" count=$((xw * 1024 / xbs)) oflag=direct 2>/dev/null
	n=$((n + 1))
done
[ "$xr" -gt 0 ] && dd if=/dev/xvda of=/dev/null bs=1M count="$xr" iflag=direct 2>/dev/null
# the guest's own view of its disk: sectors read (field 3) and written (field 7)
echo "XIOTOP-DOMU: stat $(cat /sys/block/xvda/stat)"
echo "XIOTOP-DOMU: done"
# xw2: once this guest was saved and restored (the kernel logged its suspend: the loop
# only sees it after the thaw, and reads no disk meanwhile), write xw2 MiB more
if [ "${xw2:-0}" -gt 0 ]; then
	while ! dmesg | grep -q -e "suspending xenstore" -e "Freezing user space"; do
		sleep 0.5
	done
	sleep 3 # dom0's xiotop sees the new incarnation listed first
	dd if=/dev/zero of=/dev/xvda bs=1M count="$xw2" oflag=direct 2>/dev/null
	echo "XIOTOP-DOMU: stat2 $(cat /sys/block/xvda/stat)"
	echo "XIOTOP-DOMU: done2"
fi
while :; do sleep 60; done
