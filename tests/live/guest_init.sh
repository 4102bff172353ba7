#!/bin/busybox sh
# shellcheck shell=dash # busybox ash: checked as the POSIX sh it is written in
# /init of the test guest: load virtio, write then read back the disk, power off.
# Parameters arrive on the kernel command line: xmib=N (MiB to write).
/bin/busybox mkdir -p /proc /sys /dev
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk; do
	/bin/busybox insmod /lib/modules/$m.ko 2>/dev/null
done
mib=16
for arg in $(/bin/busybox cat /proc/cmdline); do
	case "$arg" in xmib=*) mib=${arg#xmib=} ;; esac
done
n=0
while [ ! -b /dev/vda ] && [ $n -lt 50 ]; do /bin/busybox sleep 0.1; n=$((n + 1)); done
echo "XIOTOP-GUEST: writing $mib MiB"
/bin/busybox dd if=/dev/zero of=/dev/vda bs=1M count="$mib" oflag=direct conv=fsync 2>&1
/bin/busybox dd if=/dev/vda of=/dev/null bs=1M count="$mib" iflag=direct 2>&1
# the guest's own count of what its disk did (boot's partition scan included): the truth
# test_real_guest.sh holds xiotop's guest bytes to, both ways
echo "XIOTOP-GUEST-STAT: $(/bin/busybox cat /sys/block/vda/stat)"
echo "XIOTOP-GUEST: done"
/bin/busybox poweroff -f
