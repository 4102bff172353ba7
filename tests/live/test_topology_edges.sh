#!/usr/bin/env bash
# Live test of topology edge cases: a loop domain whose backing file is deleted while
# attached keeps being attributed (the inode is asked of the loop device); without any
# dump, a blkback thread's loop device is learned from its bios. Exit 77 without root.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED: needs root (BPF, loop devices, zram)"
	exit 77
fi
work=$(mktemp -d /tmp/xiotop-deleted.XXXXXX)
cleanup() { bash "$XIOTOP_SRC/tests/emu/emu.sh" down "$work/world" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM HUP
rc=0
for check in nodump_check deleted_check; do
	bash "$XIOTOP_SRC/tests/emu/emu.sh" up "$work/world" --dio off >/dev/null
	python3 "$XIOTOP_SRC/tests/live/$check.py" "$work/world/env" "$XIOTOP_BIN" "$XIOTOP_EMU" \
		"$work/$check.json" || rc=1
	bash "$XIOTOP_SRC/tests/emu/emu.sh" down "$work/world" >/dev/null
done
exit $rc
