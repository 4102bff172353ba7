#!/usr/bin/env bash
# Live test of topology edge cases: a loop domain whose backing file is deleted while
# attached keeps being attributed (the inode is asked of the loop device); without any
# dump, a blkback thread's loop device is learned from its bios; a loop domain's direct
# I/O switched off while xiotop runs is followed (its flush empties its dirty backlog).
# Exit 77 without root.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "the topology edge cases need root (BPF, loop devices, zram)"
live_require_zram "the emulated world's zram domain needs zram"
live_workdir topology-edges
rc=0
for run in nodump_check:off deleted_check:off dio_switch_check:on; do
	check=${run%%:*}
	live_world_up "${run#*:}"
	python3 "$XIOTOP_SRC/tests/live/$check.py" "$work/world/env" "$XIOTOP_BIN" "$XIOTOP_EMU" \
		"$work/$check.json" || rc=1
	live_world_down
done
exit $rc
