#!/usr/bin/env bash
# build_base.sh CACHE SRC - the parts of the dom0 initramfs that do not change with xiotop:
# busybox, the Xen toolstack (xl, xenstored, xenconsoled, xentop), qemu-system-xen when
# it can run, the host tools the scenarios use (bash, flock, losetup, mkfs.ext4,
# dmsetup, tmux) with their shared libraries, the kernel modules, and the domU kernel and
# initramfs. Writes CACHE/img/{xen,vmlinuz,base.cpio.gz,qdisk.status}; the per-run
# overlay (xiotop, scenario scripts) is a second cpio appended by run.sh.
set -euo pipefail
cache=${1:?cache dir} src=${2:?source dir}
R=$cache/root
# shellcheck disable=SC2012 # one kernel version directory, a plain name
kv=$(ls "$R/lib/modules" | head -1)
out=$cache/img
work=$cache/build
rm -rf "$work" && mkdir -p "$work" "$out"
xenlib=$R/usr/lib/x86_64-linux-gnu:$R/usr/lib/xen-4.17/lib/x86_64-linux-gnu

# copy_closure DEST BINARY...: the binaries' shared libraries (as ldd resolves them,
# the unpacked Xen libraries first) into DEST/lib/x86_64-linux-gnu or DEST/lib64
copy_closure() {
	local d=$1
	shift
	mkdir -p "$d/lib/x86_64-linux-gnu" "$d/lib64"
	LD_LIBRARY_PATH=$xenlib ldd "$@" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib64/{print $1}' |
		sort -u | while read -r lib; do
		case $lib in
		/lib64/*) cp -L "$lib" "$d/lib64/" ;;
		*) cp -L "$lib" "$d/lib/x86_64-linux-gnu/" ;;
		esac
	done
}

### domU: busybox, xen-blkfront, an init that does the I/O the kernel command line asks
U=$work/domU
mkdir -p "$U"/{bin,dev,proc,sys,lib/modules}
cp "$R/bin/busybox" "$U/bin/busybox"
for a in $("$U/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$U/bin/$a"; done
cp "$R/lib/modules/$kv/kernel/drivers/block/xen-blkfront.ko" "$U/lib/modules/"
install -m 755 "$src/tests/xen/domu_init.sh" "$U/init"
# an HVM guest's IDE disk (stacks.sh, phase H): the ata modules, dependencies first, in
# the order its init loads them
domu_ata() {
	local f dep
	f=$(find "$R/lib/modules/$kv/kernel" -name "$1.ko" | head -1)
	[ -n "$f" ] || return 0 # built in
	grep -qx "$1" "$U/lib/modules/ata.order" 2>/dev/null && return 0
	for dep in $(modinfo -F depends "$f" | tr ',' ' '); do domu_ata "$dep"; done
	cp "$f" "$U/lib/modules/ata/"
	echo "$1" >>"$U/lib/modules/ata.order"
}
mkdir -p "$U/lib/modules/ata"
for m in ata_piix sd_mod; do domu_ata $m; done
(cd "$U" && find . | cpio -H newc -o --quiet | gzip -1 >"$work/domU.cpio.gz")

### dom0
D=$work/dom0
mkdir -p "$D"/{bin,sbin,dev,proc,sys,tmp,run,root,mnt,etc/xen,usr/bin,usr/sbin,usr/libexec}
mkdir -p "$D"/usr/lib/xen-4.17/bin "$D"/var/{lib/xen,lib/xenstored,log/xen,run/xen,run/xenstored,lock}
cp "$R/bin/busybox" "$D/bin/busybox"
for a in $("$D/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$D/bin/$a"; done
# host tools (util-linux, e2fsprogs, dmsetup, tmux): real ones, busybox lacks options
host_tools=()
for t in bash flock losetup mkfs.ext4 dmsetup tmux; do
	p=$(command -v "$t") || { echo "SKIPPED: host tool $t missing (scripts/install-deps.sh installs it)"; exit 77; }
	cp -L "$p" "$D/usr/bin/$t"
	host_tools+=("$p")
done
ln -sf ../usr/bin/bash "$D/bin/bash"
# mdadm, Debian's (the arrays of stacks.sh)
cp "$R/sbin/mdadm" "$D/sbin/mdadm"
host_tools+=("$R/sbin/mdadm")
XB=$R/usr/lib/xen-4.17/bin
xen_bins=()
for b in xl xenstored xenconsoled xen-init-dom0 libxl-save-helper xenconsole xentop; do
	cp "$XB/$b" "$D/usr/lib/xen-4.17/bin/"
	xen_bins+=("$XB/$b")
done
cp "$R/usr/bin/xenstore" "$D/usr/bin/"
for s in chmod exists list ls read rm watch write control; do ln -sf xenstore "$D/usr/bin/xenstore-$s"; done
cp -a "$R/etc/xen/scripts" "$D/etc/xen/"
cp "$R/etc/xen/xl.conf" "$D/etc/xen/"
cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$D/lib/x86_64-linux-gnu/" 2>/dev/null ||
	{ mkdir -p "$D/lib/x86_64-linux-gnu" && cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$D/lib/x86_64-linux-gnu/"; }
copy_closure "$D" "${xen_bins[@]}" "$R/usr/bin/xenstore" "${host_tools[@]}"
# the terminfo tmux and xentop need; inside tmux TERM is tmux's default-terminal
# (tmux-256color since tmux 3.3, screen before): without its entry the console xiotop
# stops at once with "cannot use terminal type"
mkdir -p "$D/usr/share/terminfo/"{x,s,v,t}
for t in x/xterm s/screen s/screen-256color t/tmux t/tmux-256color v/vt100 v/vt102; do
	for dir in /usr/share/terminfo /lib/terminfo; do
		[ -f "$dir/$t" ] && cp -L "$dir/$t" "$D/usr/share/terminfo/$t" && break
	done
done
# tmux refuses to start without a UTF-8 locale (Debian's C.utf8, from libc-bin)
[ -d /usr/lib/locale/C.utf8 ] && mkdir -p "$D/usr/lib/locale" && cp -r /usr/lib/locale/C.utf8 "$D/usr/lib/locale/"
# qemu-system-xen, the qdisk backend, when all its libraries are on this host
qemu=$R/usr/libexec/xen-qemu-system-i386
if [ ! -x "$qemu" ]; then
	echo "qemu-system-xen was not downloaded" >"$out/qdisk.status"
elif miss=$(LD_LIBRARY_PATH=$xenlib ldd "$qemu" | awk '/not found/{print $1}' | tr '\n' ' ') && [ -n "$miss" ]; then
	echo "qemu-system-xen needs libraries this host lacks: $miss" >"$out/qdisk.status"
else
	cp "$qemu" "$D/usr/libexec/"
	copy_closure "$D" "$qemu"
	# it reads a keymap even with -vnc none (Debian ships them in qemu-system-data)
	if [ -f /usr/share/qemu/keymaps/en-us ]; then
		mkdir -p "$D/usr/share/qemu/keymaps"
		cp /usr/share/qemu/keymaps/en-us "$D/usr/share/qemu/keymaps/"
		echo ok >"$out/qdisk.status"
	else
		echo "qemu-system-xen needs /usr/share/qemu/keymaps/en-us (qemu-system-data) on this host" >"$out/qdisk.status"
	fi
fi
# an HVM guest (stacks.sh, phase H): hvmloader, and from this host's qemu the BIOS and the
# option ROM qemu's direct kernel boot loads; without them its scenario says why not
if [ -f "$R/usr/lib/xen-4.17/boot/hvmloader" ] && [ -f /usr/share/seabios/bios-256k.bin ] &&
	[ -f /usr/share/qemu/linuxboot_dma.bin ]; then
	mkdir -p "$D/usr/lib/xen-4.17/boot" "$D/usr/share/seabios" "$D/usr/share/qemu"
	cp "$R/usr/lib/xen-4.17/boot/hvmloader" "$D/usr/lib/xen-4.17/boot/"
	cp -L /usr/share/seabios/bios-256k.bin "$D/usr/share/seabios/"
	for f in linuxboot_dma.bin linuxboot.bin kvmvapic.bin; do
		if [ -f /usr/share/qemu/$f ]; then cp -L /usr/share/qemu/$f "$D/usr/share/qemu/"; fi
	done
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
	f=$(find "$MS/kernel" -name "$1.ko" -o -name "${1//-/_}.ko" | head -1)
	[ -n "$f" ] || return 0 # built in
	mkdir -p "$MD/$(dirname "${f#"$MS"/}")"
	cp "$f" "$MD/${f#"$MS"/}"
	local dep
	for dep in $(modinfo -F depends "$f" | tr ',' ' '); do add_module "$dep"; done
}
for m in "${want[@]}"; do add_module "$m"; done
cp "$MS"/modules.builtin "$MS"/modules.builtin.modinfo "$MS"/modules.order "$MD/"
depmod -b "$D" "$kv"
# the domU's kernel: the dom0's own, as the plain ELF inside the bzImage (xl then need
# not unpack xz under TCG, ~10 s a domain)
python3 - "$R/boot/vmlinuz-$kv" "$D/root/vmlinux" <<'PY'
import lzma, sys
image = open(sys.argv[1], "rb").read()
start = image.find(b"\xfd7zXZ\x00")
elf = lzma.LZMADecompressor().decompress(image[start:]) if start >= 0 else b""
if elf[:4] != b"\x7fELF":
    sys.exit(f"build_base: no xz-compressed ELF kernel inside {sys.argv[1]}")
open(sys.argv[2], "wb").write(elf)
PY
cp "$work/domU.cpio.gz" "$D/root/domU.cpio.gz"
# an HVM guest boots the bzImage itself (qemu's direct kernel boot)
cp "$R/boot/vmlinuz-$kv" "$D/root/vmlinuz"
(cd "$D" && find . | cpio -H newc -o --quiet | gzip -1 >"$out/base.cpio.gz")
cp "$R/boot/vmlinuz-$kv" "$out/vmlinuz"
gunzip -c "$R"/boot/xen-4.17-amd64.gz >"$out/xen"
rm -rf "$work"
