#!/usr/bin/env bash
# Live test: blk-mq backends' layers read from /proc/diskstats (sources/dev_counts.h) are
# the guests' bios, not the requests the block layer split them into, as the programs
# count them when block_split is refused (tests/live/split_check.py says how). Exit 77
# (skipped) without root.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "the split check runs emulated domains (BPF, loop devices, zram)"
live_require_zram "the emulated world's images are on a zram device"
live_require_cmd blkdiscard "write-zeroes (blkdiscard -z) is one of the requests checked"
live_workdir split
live_world_up on
python3 "$XIOTOP_SRC/tests/live/split_check.py" "$work/world/env" "$XIOTOP_BIN" "$work/xiotop"
