#!/usr/bin/env bash
# Live test (issue 30): `xiotop serve` counts from the tracer's attach. Each round starts
# serve over the emulated domains (guest1: loop, guest3: zram), and as soon as /metrics
# first answers 200 both write 64 MiB; after a sync the scrape must hold exactly the
# writers' bytes at the guest layer and /proc/diskstats' growth at the zram disk
# (serve_attach_check.py). XIOTOP_ATTACH_ROUNDS rounds in a row (default 20), one world.
# Exit 77 (skipped) without root or zram.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
rounds=${XIOTOP_ATTACH_ROUNDS:-20}

live_require_root "serving live domains needs root (BPF, loop devices, zram)"
live_require_zram "the emulated domains need zram"
live_workdir serve-attach
live_world_up off

rc=0
python3 "$XIOTOP_SRC/tests/live/serve_attach_check.py" "$work/world/env" "$XIOTOP_BIN" \
	"$XIOTOP_EMU" "$rounds" "$work" || rc=$?
check $rc "serve counts every byte written right after it first answers, $rounds rounds in a row"
if [ $rc -ne 0 ]; then
	for f in "$work"/serve-*.err; do sed "s|^|     $(basename "$f"): |" "$f" | tail -3; done
fi

live_finish serve_attach
