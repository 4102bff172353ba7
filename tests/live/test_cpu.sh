#!/usr/bin/env bash
# Live test: dom0 CPU per domain by role against the kernel's per-thread accounting
# (/proc utime+stime): blkback-like threads doing 16 KiB O_DIRECT writes to a loop device
# with direct-io off, then on, and to zram; a qemu-like device model (first world only).
# Exit 77 (skipped) without root or zram.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "live CPU attribution needs root (BPF, loop devices, zram)"
live_require_zram "the emulated domains need zram"
live_workdir cpu
rc=0
qemu=--qemu
for dio in off on; do
	live_world_up "$dio"
	python3 "$XIOTOP_SRC/tests/live/cpu_check.py" "$work/world/env" \
		"$XIOTOP_BIN" "$XIOTOP_EMU" "$work/xiotop-$dio.json" $qemu || rc=1
	qemu=
	live_world_down
done
exit $rc
