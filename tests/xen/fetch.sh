#!/usr/bin/env bash
# fetch.sh CACHE RELEASE - the dom0's root file system for one Debian release (bookworm:
# Xen 4.17, Linux 6.1; trixie: Xen 4.20, Linux 6.12), made with mmdebstrap in CACHE/root:
# the release's Xen (xen-system-amd64: hypervisor and toolstack), xenstore-utils,
# qemu-system-xen (the qdisk backend), the tools the scenarios use and their libraries
# (from main and non-free: iozone3 is non-free),
# and the release's dom0 kernel unpacked beside them (dpkg -x: no initramfs is made, the
# test builds its own). Nothing is installed on the host, whose own apt stays as it is.
# Made once: CACHE/root.stamp names the release, this script and the package versions;
# XIOTOP_XEN_REFRESH=1 makes it again (newer packages). Exit 77 (and a SKIPPED line) when
# the packages cannot be had.
set -euo pipefail
cache=${1:?cache dir} release=${2:?release (bookworm, trixie)}
mirror=${XIOTOP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$cache"
pkgs=(xen-system-amd64 xenstore-utils qemu-system-xen qemu-system-data busybox-static bash mount util-linux
	e2fsprogs dmsetup tmux ncurses-base ncurses-term libc-bin kmod
	mdadm    # mdadm: the md RAID arrays of the storage-stack scenarios (stacks.sh)
	fio bonnie++ iozone3 sysstat procps) # the explain phase: benchmarks in the guests, iostat and vmstat in dom0
# iozone3 is in Debian's non-free component (its licence): the root is made from main and non-free
components=main,non-free
want="$release $mirror $components ${pkgs[*]} $(md5sum <"$0")"
if [ -z "${XIOTOP_XEN_REFRESH:-}" ] && [ -f "$cache/root.stamp" ] && [ -d "$cache/root" ] &&
	[ "$(head -1 "$cache/root.stamp")" = "$want" ]; then
	exit 0
fi
command -v mmdebstrap >/dev/null ||
	{ echo "SKIPPED: mmdebstrap is missing on this host (scripts/install-deps.sh installs it)"; exit 77; }
rm -rf "$cache/root" "$cache/root.new" "$cache/root.stamp" "$cache/root.kernel"
# the kernel: the release's linux-image-amd64 target, downloaded and unpacked (installing
# it would run initramfs-tools for an initramfs nobody boots); unpacked keeping the root's
# /lib -> usr/lib link, which bookworm's kernel (files under /lib/modules) would replace
# shellcheck disable=SC2016 # $1 is mmdebstrap's (the root being made), for the hooks' shell
kernel_hook='chroot "$1" sh -c "cd /tmp && apt-get download -q \$(apt-cache depends linux-image-amd64 | sed -n \"s/.*Depends: \(linux-image-6[^ ]*\).*/\1/p\" | head -1)" && for d in "$1"/tmp/linux-image-*.deb; do dpkg-deb --fsys-tarfile "$d" | tar -x --keep-directory-symlink -C "$1"; done && rm -f "$1"/tmp/*.deb'
# (none of the caller's descriptors go in: scripts/no-inherited-fds says why)
# shellcheck disable=SC2016 # as above
if ! "$(dirname "$0")/../../scripts/no-inherited-fds" mmdebstrap --variant=minbase --components="$components" --include="$(
	IFS=,
	echo "${pkgs[*]}"
)" --customize-hook="$kernel_hook" \
	--customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
	"$release" "$cache/root.new" "$mirror" >"$cache/mmdebstrap.log" 2>&1; then
	rm -rf "$cache/root.new"
	# the first error says why (the archive unreachable, a package missing), the last only that it stopped
	echo "SKIPPED: mmdebstrap of $release's dom0 root from $mirror failed: $(grep -a -m1 -E '^E:' "$cache/mmdebstrap.log" || tail -1 "$cache/mmdebstrap.log")"
	exit 77
fi
# shellcheck disable=SC2012 # one kernel version directory, a plain name
ls "$cache/root.new/lib/modules" | head -1 >"$cache/root.kernel"
[ -s "$cache/root.kernel" ] || { echo "FAIL: no kernel was unpacked into the $release root"; exit 1; }
mv "$cache/root.new" "$cache/root"
{
	echo "$want"
	echo "kernel $(cat "$cache/root.kernel")"
	# shellcheck disable=SC2016 # dpkg-query's own ${...}
	chroot "$cache/root" dpkg-query -W -f='${Package} ${Version}\n' | sort
} >"$cache/root.stamp"
