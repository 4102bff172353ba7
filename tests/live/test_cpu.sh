#!/usr/bin/env bash
# Live test: dom0 CPU per domain by role against the kernel's per-thread accounting
# (/proc utime+stime): blkback-like threads doing 16 KiB O_DIRECT writes to a loop device
# with direct-io off, then on, then on again with the writers and every unbound workqueue on
# CPU 0 (as bench/compare.sh pins fio and the loop workers: there one loop work item serves
# tens of requests, and its CPU is settled as it goes, at the bios it submits); and to zram;
# a qemu-like device model (first world only).
# Exit 77 (skipped) without root or zram.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "live CPU attribution needs root (BPF, loop devices, zram)"
live_require_zram "the emulated domains need zram"
live_workdir cpu
wq_mask=/sys/devices/virtual/workqueue/cpumask
old_wq_mask=
before_cleanup() {
	[ -z "$old_wq_mask" ] || echo "$old_wq_mask" >"$wq_mask"
}
rc=0
qemu=--qemu
for mode in off on on-pinned; do
	live_world_up "${mode%-pinned}"
	pin=()
	if [ "$mode" = on-pinned ]; then
		old_wq_mask=$(cat "$wq_mask")
		echo 1 >"$wq_mask"
		pin=(taskset -c 0)
	fi
	"${pin[@]}" python3 "$XIOTOP_SRC/tests/live/cpu_check.py" "$work/world/env" \
		"$XIOTOP_BIN" "$XIOTOP_EMU" "$work/xiotop-$mode.json" $qemu || rc=1
	if [ -n "$old_wq_mask" ]; then
		echo "$old_wq_mask" >"$wq_mask"
		old_wq_mask=
	fi
	qemu=
	live_world_down
done
exit $rc
