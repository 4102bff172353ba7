#!/usr/bin/env bash
# Live test: qemu-like device models (Xen -xen-domid and KVM-style) found in /proc, their
# image-file bytes, physical bytes and dirty backlog with dom0 writeback held off.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED: the device-model test needs root (BPF, loop devices, zram, sysctl)"
	exit 77
fi
work=$(mktemp -d /tmp/xiotop-qemu.XXXXXX)
saved=$(sysctl -n vm.dirty_expire_centisecs vm.dirty_writeback_centisecs vm.dirty_background_ratio | tr '\n' ' ')
restore() {
	read -r expire writeback background <<<"$saved"
	sysctl -qw vm.dirty_expire_centisecs="$expire" vm.dirty_writeback_centisecs="$writeback" \
		vm.dirty_background_ratio="$background"
	bash "$XIOTOP_SRC/tests/emu/emu.sh" down "$work/world" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap restore EXIT INT TERM HUP
# hold writeback off so dirty pages stay in dom0's page cache until `sync`
sysctl -qw vm.dirty_expire_centisecs=360000 vm.dirty_writeback_centisecs=0 vm.dirty_background_ratio=50
bash "$XIOTOP_SRC/tests/emu/emu.sh" up "$work/world" --dio off >/dev/null
python3 "$XIOTOP_SRC/tests/live/qemu_check.py" "$work/world/env" "$XIOTOP_BIN" "$XIOTOP_EMU" \
	"$work/xiotop.json"
