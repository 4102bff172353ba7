#!/usr/bin/env bash
# build-release.sh RELEASE [OUTDIR] - the xiotop .deb for one Debian release (bookworm,
# trixie), built the way Debian's builders build it: in a fresh root file system of that
# release holding only build-essential and the Build-Depends of debian/control, as an
# unprivileged user, with nothing from the host but the source and the kernel's BTF.
#
# The release's root file system is made once with mmdebstrap (variant buildd) and kept as
# a tarball in the cache the Xen dom0 test uses ($XIOTOP_CACHE, else the machine-wide
# /var/cache/xiotop-tests, else <source>/build/cache); it is remade when debian/control
# changes. Each build unpacks it afresh, so no build sees another's leftovers.
# The .deb (and its .buildinfo, .changes) land in OUTDIR, default
# <source>/build/release/RELEASE; the last line printed is the .deb's path. A .deb already
# there from the same source files and build root is kept (OUTDIR/source.md5 says which).
# Needs root (mmdebstrap, chroot), mmdebstrap, and network access to the Debian archive.
set -euo pipefail
release=${1:?usage: build-release.sh RELEASE [OUTDIR] (bookworm, trixie)}
src=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$src/build/release/$release}
mirror=${XIOTOP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
case $release in
bookworm | trixie) ;;
*)
	echo "build-release: unknown release '$release' (bookworm or trixie)" >&2
	exit 2
	;;
esac
[ "$(id -u)" -eq 0 ] || {
	echo "build-release: needs root (mmdebstrap, chroot)" >&2
	exit 2
}
command -v mmdebstrap >/dev/null || {
	echo "build-release: mmdebstrap is missing (scripts/install-deps.sh installs it)" >&2
	exit 2
}
if [ -n "${XIOTOP_CACHE:-}" ]; then
	cache=$XIOTOP_CACHE
elif [ -d /var/cache/xiotop-tests ] && [ -w /var/cache/xiotop-tests ]; then
	cache=/var/cache/xiotop-tests
else
	cache=$src/build/cache
fi
mkdir -p "$cache/rootfs" "$out"
tarball=$cache/rootfs/$release-build.tar
stamp="$release $mirror $(md5sum <"$src/debian/control")"

# the build root: one maker at a time (the cache is machine-wide)
exec 8>"$cache/rootfs/.lock"
flock 8
if [ ! -f "$tarball" ] || [ "$(cat "$tarball.stamp" 2>/dev/null)" != "$stamp" ]; then
	echo "build-release: making the $release build root (mmdebstrap, a few minutes)"
	ctl=$(mktemp -d)
	mkdir -p "$ctl/debian"
	cp "$src/debian/control" "$ctl/debian/control"
	# apt-get build-dep reads the Build-Depends (alternatives, versions) as a builder does
	# none of our descriptors (this script's lock, ctest's) go in: scripts/no-inherited-fds
	# shellcheck disable=SC2016 # $1 is mmdebstrap's (the root being made), for the hooks' shell
	"$src/scripts/no-inherited-fds" mmdebstrap --variant=buildd --format=tar \
		--customize-hook="mkdir -p \"\$1/tmp/ctl\" && cp -r '$ctl/debian' \"\$1/tmp/ctl/\"" \
		--customize-hook='chroot "$1" apt-get build-dep -y -q /tmp/ctl >/dev/null' \
		--customize-hook='rm -rf "$1/tmp/ctl" "$1"/var/cache/apt/archives/*.deb' \
		"$release" "$tarball.new" "$mirror" >"$cache/rootfs/$release-build.log" 2>&1 || {
		rm -rf "$ctl" "$tarball.new"
		echo "build-release: mmdebstrap failed; the end of its log:" >&2
		tail -20 "$cache/rootfs/$release-build.log" >&2
		exit 1
	}
	rm -rf "$ctl"
	mv "$tarball.new" "$tarball"
	echo "$stamp" >"$tarball.stamp"
fi
flock -u 8

# the source: tracked and new files, not build/ (what a clean clone plus the edits holds)
list_source() {
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$src" && git ls-files -z -co --exclude-standard)
	else
		(cd "$src" && find . -path ./build -prune -o -type f -print0)
	fi
}
source_md5="$(cat "$tarball.stamp") $( (cd "$src" && list_source | sort -z | xargs -0 md5sum) | md5sum)"
if [ "$(cat "$out/source.md5" 2>/dev/null)" = "$source_md5" ] && ls "$out"/xiotop_*.deb >/dev/null 2>&1; then
	deb=$(ls "$out"/xiotop_*.deb)
	echo "build-release: $release: $(basename "$deb") is built from these sources already"
	echo "$deb"
	exit 0
fi

# a fresh root for this build, the source copied in (tracked and new files, not build/)
root=$(mktemp -d /var/tmp/xiotop-build-"$release".XXXXXX)
cleanup() {
	umount "$root/sys" 2>/dev/null || true
	umount "$root/proc" 2>/dev/null || true
	rm -rf "$root"
}
trap cleanup EXIT INT TERM HUP
tar -xf "$tarball" -C "$root"
mkdir -p "$root/build/xiotop"
(cd "$src" && list_source | xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$root/build/xiotop"
chown -R nobody:nogroup "$root/build"
# /proc for the compilers; /sys for the kernel BTF that vmlinux.h is generated from (CO-RE
# relocates it to the kernel the tracer runs on); both as a builder's chroot has them
mount -t proc proc "$root/proc"
mount --bind -o ro /sys "$root/sys" 2>/dev/null || mount --bind /sys "$root/sys"
jobs=${XIOTOP_BUILD_JOBS:-$(nproc)}
if ! chroot --userspec=nobody:nogroup "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/build \
	LC_ALL=C.UTF-8 DEB_BUILD_OPTIONS="parallel=$jobs nocheck" \
	sh -c 'cd /build/xiotop && dpkg-buildpackage -b -us -uc' >"$out/build.log" 2>&1; then
	echo "build-release: dpkg-buildpackage failed in the $release root; the end of $out/build.log:" >&2
	tail -30 "$out/build.log" >&2
	exit 1
fi
rm -f "$out"/xiotop_*.deb "$out"/xiotop-dbgsym_*.deb "$out"/xiotop_*.buildinfo "$out"/xiotop_*.changes
cp "$root"/build/xiotop_*.deb "$root"/build/xiotop_*.buildinfo "$root"/build/xiotop_*.changes "$out/"
rm -f "$out"/xiotop-dbgsym_*.deb
echo "$source_md5" >"$out/source.md5"
deb=$(ls "$out"/xiotop_*.deb)
echo "build-release: $release: $(dpkg-deb -f "$deb" Version) built; Depends: $(dpkg-deb -f "$deb" Depends)"
echo "$deb"
