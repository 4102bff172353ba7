#!/usr/bin/env bash
# Live test: qemu-like device models (Xen -xen-domid and KVM-style) found in /proc, their
# image-file bytes, physical bytes and dirty backlog with dom0 writeback held off.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "the device-model test needs root (BPF, loop devices, zram, sysctl)"
live_require_zram "the emulated world's zram domain needs zram"
live_workdir qemu
saved=$(sysctl -n vm.dirty_expire_centisecs vm.dirty_writeback_centisecs vm.dirty_background_ratio | tr '\n' ' ')
before_cleanup() { # the writeback settings as they were
	read -r expire writeback background <<<"$saved"
	sysctl -qw vm.dirty_expire_centisecs="$expire" vm.dirty_writeback_centisecs="$writeback" \
		vm.dirty_background_ratio="$background"
}
# hold writeback off so dirty pages stay in dom0's page cache until `sync`
sysctl -qw vm.dirty_expire_centisecs=360000 vm.dirty_writeback_centisecs=0 vm.dirty_background_ratio=50
live_world_up off
python3 "$XIOTOP_SRC/tests/live/qemu_check.py" "$work/world/env" "$XIOTOP_BIN" "$XIOTOP_EMU" \
	"$work/xiotop.json"
