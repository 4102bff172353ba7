#!/usr/bin/env bash
# Live test: dom0 CPU per domain by role against the kernel's per-thread accounting
# (/proc utime+stime): blkback-like threads doing 16 KiB O_DIRECT writes to a loop device
# with direct-io off, then on, and to zram; a qemu-like device model (first world only).
# Exit 77 (skipped) without root or zram.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED: live CPU attribution needs root (BPF, loop devices, zram)"
	exit 77
fi
if [ ! -e /sys/class/zram-control/hot_add ]; then
	echo "SKIPPED: no zram-control in sysfs"
	exit 77
fi
work=$(mktemp -d /tmp/xiotop-cpu.XXXXXX)
cleanup() { bash "$XIOTOP_SRC/tests/emu/emu.sh" down "$work/world" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM HUP
rc=0
qemu=--qemu
for dio in off on; do
	bash "$XIOTOP_SRC/tests/emu/emu.sh" up "$work/world" --dio "$dio" >/dev/null
	python3 "$XIOTOP_SRC/tests/live/cpu_check.py" "$work/world/env" \
		"$XIOTOP_BIN" "$XIOTOP_EMU" "$work/xiotop-$dio.json" $qemu || rc=1
	qemu=
	bash "$XIOTOP_SRC/tests/emu/emu.sh" down "$work/world" >/dev/null
done
exit $rc
