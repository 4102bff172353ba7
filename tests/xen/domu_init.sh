#!/bin/sh
# domU /init: write xw MiB to its disk with O_DIRECT (xloops times, same region), read
# xr MiB back, say so on its console, then wait to be destroyed. Parameters come from the
# kernel command line (xl's extra=).
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
xw=0 xr=0 xloops=1
for a in $(cat /proc/cmdline); do
	case $a in xw=* | xr=* | xloops=*) eval "$a" ;; esac
done
insmod /lib/modules/xen-blkfront.ko
i=0
while [ ! -b /dev/xvda ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
echo "XIOTOP-DOMU: start xw=$xw xr=$xr xloops=$xloops"
n=0
while [ $n -lt "$xloops" ]; do
	dd if=/dev/zero of=/dev/xvda bs=1M count="$xw" oflag=direct 2>/dev/null
	n=$((n + 1))
done
[ "$xr" -gt 0 ] && dd if=/dev/xvda of=/dev/null bs=1M count="$xr" iflag=direct 2>/dev/null
echo "XIOTOP-DOMU: done"
while :; do sleep 60; done
