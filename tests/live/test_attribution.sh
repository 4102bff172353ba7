#!/usr/bin/env bash
# Live test: three emulated blkback domains (loop, partition of a loop, zram) under the
# real BPF tracer, loop direct-io off then on. Exit 77 (skipped) without root.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED: live attribution needs root (BPF, loop devices, zram)"
	exit 77
fi
if [ ! -e /sys/class/zram-control/hot_add ]; then
	echo "SKIPPED: no zram-control in sysfs (zram is the non-file-backed leaf of this test)"
	exit 77
fi
work=$(mktemp -d /tmp/xiotop-live.XXXXXX)
cleanup() { bash "$XIOTOP_SRC/tests/emu/emu.sh" down "$work/world" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM HUP
rc=0
# the third run loads the raw_tp fallback programs instead of tp_btf
for run in off:tp_btf on:tp_btf on:raw_tp; do
	dio=${run%%:*}
	bash "$XIOTOP_SRC/tests/emu/emu.sh" up "$work/world" --dio "$dio" >/dev/null
	echo "# programs: ${run#*:}"
	XIOTOP_FORCE_RAW_TP=$([ "${run#*:}" = raw_tp ] && echo 1 || echo 0) \
		python3 "$XIOTOP_SRC/tests/live/attribution_check.py" "$work/world/env" \
		"$XIOTOP_BIN" "$XIOTOP_EMU" "$work/xiotop-$dio.json" || rc=1
	bash "$XIOTOP_SRC/tests/emu/emu.sh" down "$work/world" >/dev/null
done
exit $rc
