#!/usr/bin/env bash
# Live test: three emulated blkback domains (loop, partition of a loop, zram) under the
# real BPF tracer, loop direct-io off then on. Exit 77 (skipped) without root.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "live attribution needs root (BPF, loop devices, zram)"
live_require_zram "zram is the non-file-backed leaf of this test"
live_workdir attribution
rc=0
# the third run loads the raw_tp fallback programs instead of tp_btf
for run in off:tp_btf on:tp_btf on:raw_tp; do
	dio=${run%%:*}
	live_world_up "$dio"
	echo "# programs: ${run#*:}"
	XIOTOP_FORCE_RAW_TP=$([ "${run#*:}" = raw_tp ] && echo 1 || echo 0) \
		python3 "$XIOTOP_SRC/tests/live/attribution_check.py" "$work/world/env" \
		"$XIOTOP_BIN" "$XIOTOP_EMU" "$work/xiotop-$dio.json" || rc=1
	live_world_down
done
exit $rc
