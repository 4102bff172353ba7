#!/usr/bin/env bash
# A real qemu guest end to end: qemu-system-x86_64 (TCG) boots a Debian cloud kernel
# (unpacked, not installed) with a busybox initramfs; inside, dd writes and reads back its
# raw disk image. xiotop, with topology from /proc alone, must charge the guest's writes
# and reads to it within 2 % of the guest's own count (/sys/block/vda/stat, printed on its
# console after dd), both ways, for cache=writeback,aio=threads, cache=none,aio=native and
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
# a cached initramfs made from an older guest_init.sh gets this one (its modules stay)
if ! gzip -dc "$cache/initrd.gz" | cpio -i --quiet --to-stdout init |
	cmp -s - "$XIOTOP_SRC/tests/live/guest_init.sh"; then
	root=$(mktemp -d)
	(cd "$root" && gzip -dc "$cache/initrd.gz" | cpio -i --quiet -d)
	install -m 755 "$XIOTOP_SRC/tests/live/guest_init.sh" "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 >"$cache/initrd.gz.new")
	mv "$cache/initrd.gz.new" "$cache/initrd.gz"
	rm -rf "$root"
fi

work=$(mktemp -d /tmp/xiotop-guest.XXXXXX)
xpid=
cleanup() {
	if [ -n "$xpid" ]; then kill "$xpid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM HUP
lines_by() { # FILE N SECONDS: until FILE holds N complete lines; 1 at the timeout
	local deadline=$((SECONDS + $3))
	until [ "$(wc -l <"$1")" -ge "$2" ]; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.1
	done
}
rc=0
start=$(date +%s)
for mode in "cache=writeback,aio=threads" "cache=none,aio=native" "cache=writeback,aio=io_uring"; do
	name="guest-${mode//[=,]/-}"
	truncate -s $((mib + 16))M "$work/disk.img"
	"$XIOTOP_BIN" -b -d 0.5 --format json >"$work/out.json" 2>"$work/err" &
	xpid=$!
	# its first interval: the tracer is attached (it prints none before)
	lines_by "$work/out.json" 1 60 || { echo "FAIL: xiotop printed no interval ($mode): $(cat "$work/err")"; exit 1; }
	timeout 120 qemu-system-x86_64 -name "guest=$name,debug-threads=on" -m 256 -nographic \
		-no-reboot -nodefaults -serial stdio -accel tcg -kernel "$cache/vmlinuz" \
		-initrd "$cache/initrd.gz" -append "console=ttyS0 quiet panic=-1 xmib=$mib" \
		-drive "file=$work/disk.img,if=virtio,format=raw,$mode" >"$work/console" 2>&1 ||
		{ echo "qemu failed ($mode):"; tail -5 "$work/console"; }
	# an interval sampled after the guest ended (the second complete line from now: the
	# next may have been sampled before), then stop
	lines_by "$work/out.json" $(($(wc -l <"$work/out.json") + 2)) 30 ||
		{ echo "FAIL: xiotop stopped printing ($mode)"; exit 1; }
	kill "$xpid"
	wait "$xpid" 2>/dev/null || true
	xpid=
	python3 - "$work/out.json" "$name" "$mib" "$mode" "$work/console" <<'PY' || rc=1
import json, re, sys
path, name, mib, mode, console = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
wr = rd = 0
domid = None
for line in open(path):
    for d in json.loads(line)["domains"]:
        if d["name"] == name:
            domid = d["domid"]
            wr += d["guest_wr_bytes"]
            rd += d["guest_rd_bytes"]
# the guest's /sys/block/vda/stat: field 3 sectors read, field 7 sectors written
stat = re.search(r"XIOTOP-GUEST-STAT:((?:\s+\d+){11,})", open(console, errors="replace").read())
g_rd, g_wr = (int(stat.group(1).split()[2]) * 512, int(stat.group(1).split()[6]) * 512) if stat else (None, None)
bad = 0
for what, got, truth in (("guest_wr_bytes", wr, g_wr), ("guest_rd_bytes", rd, g_rd)):
    ok = domid is not None and truth is not None and abs(got - truth) <= 0.02 * truth
    bad += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {mode}: domain {domid} {name}: {what} {got / 2**20:.2f} MiB vs the "
          f"guest's own /sys/block/vda/stat {'(no stat line)' if truth is None else f'{truth / 2**20:.2f} MiB'}"
          f" (2 %; dd moved {mib} MiB each way)")
sys.exit(1 if bad else 0)
PY
	grep -q "XIOTOP-GUEST: done" "$work/console" || { echo "FAIL: the guest did not finish ($mode)"; tail -5 "$work/console"; rc=1; }
done
echo "real-guest test: $(($(date +%s) - start)) s for 3 modes"
exit $rc
