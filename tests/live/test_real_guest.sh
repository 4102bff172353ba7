#!/usr/bin/env bash
# A real qemu guest end to end: qemu-system-x86_64 (TCG) boots a Debian cloud kernel
# (unpacked, not installed) with a busybox initramfs; inside, dd writes and reads back its
# raw disk image. xiotop, with topology from /proc alone, must charge >= 98 % of the
# written bytes to the guest, for cache=writeback,aio=threads, cache=none,aio=native and
# aio=io_uring. Skips with the reason when the packages cannot be had.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_SRC:?}"
mib=${XIOTOP_GUEST_MIB:-64}
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED: the real-guest test needs root (BPF)"
	exit 77
fi
cache=${XIOTOP_CACHE:-$(dirname "$XIOTOP_BIN")/guest-cache}
mkdir -p "$cache"
export DEBIAN_FRONTEND=noninteractive
if ! command -v qemu-system-x86_64 >/dev/null || [ ! -x /bin/busybox ]; then
	apt-get install -y -qq --no-install-recommends qemu-system-x86 busybox-static >/dev/null 2>&1 ||
		{ echo "SKIPPED: cannot install qemu-system-x86 and busybox-static"; exit 77; }
fi
if [ ! -f "$cache/vmlinuz" ]; then
	pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
	[ -n "$pkg" ] || { echo "SKIPPED: no linux-image-cloud-amd64 in the package lists"; exit 77; }
	(cd "$cache" && apt-get download "$pkg" >/dev/null 2>&1) ||
		{ echo "SKIPPED: cannot download $pkg"; exit 77; }
	rm -rf "$cache/pkg" && dpkg -x "$cache"/linux-image-*.deb "$cache/pkg"
	cp "$cache"/pkg/boot/vmlinuz-* "$cache/vmlinuz"
	root=$(mktemp -d)
	mkdir -p "$root/bin" "$root/lib/modules"
	cp /bin/busybox "$root/bin/busybox"
	for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk; do
		find "$cache/pkg/lib/modules" -name "$m.ko" -exec cp {} "$root/lib/modules/" \;
	done
	install -m 755 "$XIOTOP_SRC/tests/live/guest_init.sh" "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 >"$cache/initrd.gz")
	rm -rf "$root" "$cache/pkg" "$cache"/linux-image-*.deb
fi

work=$(mktemp -d /tmp/xiotop-guest.XXXXXX)
xpid=
cleanup() {
	[ -n "$xpid" ] && kill "$xpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM HUP
rc=0
start=$(date +%s)
for mode in "cache=writeback,aio=threads" "cache=none,aio=native" "cache=writeback,aio=io_uring"; do
	name="guest-${mode//[=,]/-}"
	truncate -s $((mib + 16))M "$work/disk.img"
	"$XIOTOP_BIN" -b -d 0.5 --format json >"$work/out.json" 2>"$work/err" &
	xpid=$!
	sleep 1
	timeout 120 qemu-system-x86_64 -name "guest=$name,debug-threads=on" -m 256 -nographic \
		-no-reboot -nodefaults -serial stdio -accel tcg -kernel "$cache/vmlinuz" \
		-initrd "$cache/initrd.gz" -append "console=ttyS0 quiet panic=-1 xmib=$mib" \
		-drive "file=$work/disk.img,if=virtio,format=raw,$mode" >"$work/console" 2>&1 ||
		{ echo "qemu failed ($mode):"; tail -5 "$work/console"; }
	sleep 1.2
	kill "$xpid"
	wait "$xpid" 2>/dev/null || true
	xpid=
	python3 - "$work/out.json" "$name" "$mib" "$mode" <<'PY' || rc=1
import json, sys
path, name, mib, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
wr = rd = 0
domid = None
for line in open(path):
    for d in json.loads(line)["domains"]:
        if d["name"] == name:
            domid = d["domid"]
            wr += d["guest_wr_bytes"]
            rd += d["guest_rd_bytes"]
want = mib << 20
ok = domid is not None and wr >= 0.98 * want
print(f"{'ok  ' if ok else 'FAIL'} {mode}: domain {domid} {name}: guest_wr_bytes {wr / 2**20:.1f} MiB "
      f"of {mib} MiB written by dd in the guest ({100 * wr / want:.1f} %), guest_rd_bytes {rd / 2**20:.1f} MiB")
sys.exit(0 if ok else 1)
PY
	grep -q "XIOTOP-GUEST: done" "$work/console" || { echo "FAIL: the guest did not finish ($mode)"; tail -5 "$work/console"; rc=1; }
done
echo "real-guest test: $(($(date +%s) - start)) s for 3 modes"
exit $rc
