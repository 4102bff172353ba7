#!/usr/bin/env bash
# build_base.sh CACHE SRC - the parts of the dom0 initramfs that do not change with xiotop,
# all taken from the release's root file system in CACHE/root (fetch.sh): busybox, the Xen
# toolstack (xl, xenstored, xenconsoled, xentop), qemu-system-xen when it can run, the
# tools the scenarios use (bash, flock, losetup, mkfs.ext4, dmsetup, tmux) with their
# shared libraries as that root's loader resolves them, the kernel modules (uncompressed:
# busybox's modprobe loads plain .ko), and the domU kernel and initramfs. Writes
# CACHE/img/{xen,vmlinuz,base.cpio.gz,qdisk.status,domU-bench.cpio.gz}; the per-run
# overlay (xiotop, scenario scripts) is a second cpio appended by run.sh.
set -euo pipefail
cache=${1:?cache dir} src=${2:?source dir}
R=$cache/root
# shellcheck disable=SC2012 # one kernel version directory, a plain name
kv=$(ls "$R/lib/modules" | head -1)
# the Xen version's directory (xen-4.17 on bookworm, xen-4.20 on trixie)
# shellcheck disable=SC2012 # one Xen version directory, a plain name
xv=$(ls -d "$R"/usr/lib/xen-4.* | head -1 | xargs basename)
out=$cache/img
work=$cache/build
rm -rf "$work" && mkdir -p "$work" "$out"

# copy_closure DEST BINARY...: the binaries (paths inside the root) and their shared
# libraries, as the root's own loader resolves them, at the same paths under DEST
copy_closure() {
	local d=$1
	shift
	chroot "$R" ldd "$@" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib64/{print $1}' |
		sort -u | while read -r lib; do
		mkdir -p "$d$(dirname "$lib")"
		cp -L "$R$lib" "$d$lib"
	done
}

### domU: busybox, xen-blkfront, an init that does the I/O the kernel command line asks
U=$work/domU
mkdir -p "$U"/{bin,dev,proc,sys,lib/modules}
cp "$R/bin/busybox" "$U/bin/busybox"
for a in $("$U/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$U/bin/$a"; done
blkfront=$R/lib/modules/$kv/kernel/drivers/block/xen-blkfront.ko
if [ -f "$blkfront.xz" ]; then xz -dc "$blkfront.xz" >"$U/lib/modules/xen-blkfront.ko"; else cp "$blkfront" "$U/lib/modules/"; fi
install -m 755 "$src/tests/xen/domu_init.sh" "$U/init"
(cd "$U" && find . | cpio -H newc -o --quiet | gzip -1 >"$work/domU.cpio.gz")

### the explain phase's guests (explain.sh): the same domU plus what a user runs in a
# guest, from the release's root with their libraries (fio's pull in ceph's: ~80 MiB,
# so a ramdisk of their own, not every guest's): GNU dd, fio, bonnie++, iozone, mkfs.ext4,
# xenstore-write (a guest's own marks), ext4's modules; domu_bench.sh is its /init
B=$work/domU-bench
cp -a "$U" "$B"
mkdir -p "$B/usr/bin" "$B/lib/modules/ext4" "$B/tmp" "$B/mnt"
bench_tools=()
for t in dd fio bonnie++ iozone mkfs.ext4 xenstore; do
	p=$(chroot "$R" sh -c "command -v $t || ls /usr/sbin/$t /sbin/$t 2>/dev/null | head -1") ||
		{ echo "FAIL: $t is not in the release root (fetch.sh)"; exit 1; }
	[ -n "$p" ] || { echo "FAIL: $t is not in the release root (fetch.sh)"; exit 1; }
	cp -L "$R$p" "$B/usr/bin/$t"
	bench_tools+=("$p")
done
rm -f "$B/bin/dd" # busybox's: GNU dd's own output is the claim
ln -sf xenstore "$B/usr/bin/xenstore-write"
ln -sf xenstore "$B/usr/bin/xenstore-read"
copy_closure "$B" "${bench_tools[@]}"
mkdir -p "$B/lib/x86_64-linux-gnu" && cp -L "$R/usr/lib/x86_64-linux-gnu/libgcc_s.so.1" "$B/lib/x86_64-linux-gnu/"
[ -e "$B/lib64" ] || ln -s lib "$B/lib64" 2>/dev/null || true
domu_ext4() { # NAME: the module and its dependencies, in load order (ext4.order)
	local f dep
	f=$(find "$R/lib/modules/$kv/kernel" -name "$1.ko" -o -name "$1.ko.xz" | head -1)
	[ -n "$f" ] || return 0 # built in
	grep -qx "$1" "$B/lib/modules/ext4.order" 2>/dev/null && return 0
	for dep in $(modinfo -F depends "$f" | tr ',' ' '); do domu_ext4 "$dep"; done
	case $f in *.xz) xz -dc "$f" >"$B/lib/modules/ext4/$1.ko" ;; *) cp "$f" "$B/lib/modules/ext4/" ;; esac
	echo "$1" >>"$B/lib/modules/ext4.order"
}
for m in crc32c_generic ext4; do domu_ext4 $m; done
# bonnie++ -u root looks the user up
mkdir -p "$B/etc" && echo "root:x:0:0:root:/root:/bin/sh" >"$B/etc/passwd" && echo "root:x:0:" >"$B/etc/group"
install -m 755 "$src/tests/xen/domu_bench.sh" "$B/init"
(cd "$B" && find . | cpio -H newc -o --quiet | gzip -1 >"$work/domU-bench.cpio.gz")

### dom0
D=$work/dom0
mkdir -p "$D"/{bin,sbin,dev,proc,sys,tmp,run,root,mnt,etc/xen,usr/bin,usr/sbin,usr/libexec}
mkdir -p "$D"/var/{lib/xen,lib/xenstored,log/xen,run/xen,run/xenstored,lock}
cp "$R/bin/busybox" "$D/bin/busybox"
for a in $("$D/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$D/bin/$a"; done
# the release's tools (util-linux, e2fsprogs, dmsetup, tmux): real ones, busybox lacks options
tools=()
for t in bash flock losetup mkfs.ext4 dmsetup tmux vmstat iostat; do
	p=$(chroot "$R" sh -c "command -v $t") || { echo "FAIL: $t is not in the release root (fetch.sh)"; exit 1; }
	cp -L "$R$p" "$D/usr/bin/$t"
	tools+=("$p")
done
ln -sf ../usr/bin/bash "$D/bin/bash"
# mdadm, the release's (the arrays of stacks.sh)
cp -L "$R/sbin/mdadm" "$D/sbin/mdadm"
tools+=("/sbin/mdadm")
mkdir -p "$D/usr/lib/$xv/bin"
xen_bins=()
for b in xl xenstored xenconsoled xen-init-dom0 libxl-save-helper xenconsole xentop; do
	cp "$R/usr/lib/$xv/bin/$b" "$D/usr/lib/$xv/bin/"
	xen_bins+=("/usr/lib/$xv/bin/$b")
done
cp "$R/usr/bin/xenstore" "$D/usr/bin/"
for s in chmod exists list ls read rm watch write control; do ln -sf xenstore "$D/usr/bin/xenstore-$s"; done
cp -a "$R/etc/xen/scripts" "$D/etc/xen/"
cp "$R/etc/xen/xl.conf" "$D/etc/xen/"
# glibc dlopens libgcc_s for pthread_cancel: ldd does not list it
mkdir -p "$D/lib/x86_64-linux-gnu"
cp -L "$R/usr/lib/x86_64-linux-gnu/libgcc_s.so.1" "$D/lib/x86_64-linux-gnu/"
copy_closure "$D" "${xen_bins[@]}" /usr/bin/xenstore "${tools[@]}"
# the terminfo tmux and xentop need; inside tmux TERM is tmux's default-terminal
# (tmux-256color since tmux 3.3, screen before): without its entry the console xiotop
# stops at once with "cannot use terminal type"
mkdir -p "$D/usr/share/terminfo/"{x,s,v,t}
for t in x/xterm s/screen s/screen-256color t/tmux t/tmux-256color v/vt100 v/vt102; do
	for dir in "$R"/usr/share/terminfo "$R"/usr/lib/terminfo "$R"/lib/terminfo; do
		[ -f "$dir/$t" ] && cp -L "$dir/$t" "$D/usr/share/terminfo/$t" && break
	done
done
# tmux refuses to start without a UTF-8 locale (Debian's C.utf8, from libc-bin)
[ -d "$R"/usr/lib/locale/C.utf8 ] && mkdir -p "$D/usr/lib/locale" && cp -r "$R"/usr/lib/locale/C.utf8 "$D/usr/lib/locale/"
# qemu-system-xen, the qdisk backend, when all its libraries are in the root
qemu=/usr/libexec/xen-qemu-system-i386
if [ ! -x "$R$qemu" ]; then
	echo "qemu-system-xen is not in the release root" >"$out/qdisk.status"
elif miss=$(chroot "$R" ldd "$qemu" | awk '/not found/{print $1}' | tr '\n' ' ') && [ -n "$miss" ]; then
	echo "qemu-system-xen needs libraries the release root lacks: $miss" >"$out/qdisk.status"
else
	cp "$R$qemu" "$D/usr/libexec/"
	copy_closure "$D" "$qemu"
	# it reads a keymap even with -vnc none (Debian ships them in qemu-system-data)
	if [ -f "$R"/usr/share/qemu/keymaps/en-us ]; then
		mkdir -p "$D/usr/share/qemu/keymaps"
		cp "$R"/usr/share/qemu/keymaps/en-us "$D/usr/share/qemu/keymaps/"
		echo ok >"$out/qdisk.status"
	else
		echo "qemu-system-xen needs /usr/share/qemu/keymaps/en-us (qemu-system-data)" >"$out/qdisk.status"
	fi
fi
# the HVM guest (hvm.sh, phase H): libxl loads a BIOS for every HVM domain of qemu-xen, even
# one whose firmware is overridden (the guest program in hvmloader's place needs none of
# it): this host's SeaBIOS, as the release's root has none
if [ -f /usr/share/seabios/bios-256k.bin ]; then
	mkdir -p "$D/usr/share/seabios"
	cp -L /usr/share/seabios/bios-256k.bin "$D/usr/share/seabios/"
fi
# kernel modules with their dependencies, then depmod
MS=$R/lib/modules/$kv MD=$D/lib/modules/$kv
want=(xen-evtchn xen-gntdev xen-gntalloc xen-privcmd xenfs xen-blkback loop dm-mod brd ext4
	crc32c_generic virtio_blk virtio_pci zram md-mod raid1 raid10)
declare -A seen=()
add_module() {
	[ -n "${seen[$1]:-}" ] && return
	seen[$1]=1
	local f
	f=$(find "$MS/kernel" -name "$1.ko*" -o -name "${1//-/_}.ko*" | grep -E '\.ko(\.xz|\.zst)?$' | head -1 || true)
	[ -n "$f" ] || return 0 # built in
	local rel=${f#"$MS"/}
	mkdir -p "$MD/$(dirname "$rel")"
	# 6.12's modules are xz-compressed (.ko.xz): stored plain, as 6.1's are
	local ko=$MD/${rel%.ko*}.ko
	case $f in
	*.ko.xz) xz -dc "$f" >"$ko" ;;
	*.ko.zst) zstd -qdc "$f" >"$ko" ;;
	*) cp "$f" "$ko" ;;
	esac
	local dep
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do add_module "$dep"; done
}
for m in "${want[@]}"; do add_module "$m"; done
cp "$MS"/modules.builtin "$MS"/modules.builtin.modinfo "$MS"/modules.order "$MD/"
depmod -b "$D" "$kv"
# the domU's kernel: the dom0's own, as the plain ELF inside the bzImage (xl then need
# not unpack it under TCG, ~10 s a domain): xz-compressed in 6.1, zstd in 6.12
python3 - "$R/boot/vmlinuz-$kv" "$D/root/vmlinux" <<'PY'
import lzma, subprocess, sys
image = open(sys.argv[1], "rb").read()
elf = b""
start = image.find(b"\xfd7zXZ\x00")
if start >= 0:
    elf = lzma.LZMADecompressor().decompress(image[start:])
else:
    start = image.find(b"\x28\xb5\x2f\xfd")
    if start >= 0:
        # the frame is followed by the rest of the bzImage: zstd complains after the
        # frame, what it wrote before is the kernel (checked below)
        elf = subprocess.run(["zstd", "-dc"], input=image[start:], capture_output=True).stdout
# a whole ELF: its section headers, the last part written, are inside what came out
whole = len(elf) >= 64 and int.from_bytes(elf[0x28:0x30], "little") + int.from_bytes(
    elf[0x3A:0x3C], "little") * int.from_bytes(elf[0x3C:0x3E], "little") <= len(elf)
if elf[:4] != b"\x7fELF" or not whole:
    sys.exit(f"build_base: no xz- or zstd-compressed ELF kernel inside {sys.argv[1]}")
open(sys.argv[2], "wb").write(elf)
PY
cp "$work/domU.cpio.gz" "$D/root/"
# the explain phase's guests' ramdisk: run.sh adds it to the dom0 only for that phase
cp "$work/domU-bench.cpio.gz" "$out/"
(cd "$D" && find . | cpio -H newc -o --quiet | gzip -1 >"$out/base.cpio.gz")
cp "$R/boot/vmlinuz-$kv" "$out/vmlinuz"
gunzip -c "$R"/boot/"$xv"-amd64.gz >"$out/xen"
rm -rf "$work"
