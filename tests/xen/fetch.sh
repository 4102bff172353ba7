#!/usr/bin/env bash
# fetch.sh CACHE - Debian's Xen 4.17 hypervisor, its tools, the 6.1 dom0 kernel and the
# userland the dom0 needs, fetched with `apt-get download` and unpacked (dpkg -x) into
# CACHE/root. Nothing is installed on the host. A stamp names the package versions, so a
# second run with the same package lists does nothing. Exit 77 (and a SKIPPED line) when
# the packages cannot be had.
set -euo pipefail
cache=${1:?cache dir}
mkdir -p "$cache"
kimg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-6/{print $2; exit}')
[ -n "$kimg" ] || { echo "SKIPPED: no 6.x linux-image-amd64 in the package lists (apt-get update?)"; exit 77; }
# the dom0 kernel, Xen, the toolstack (xl, xenstored, xenconsoled, xentop) and its libs;
# qemu-system-xen is the qdisk backend and an HVM guest's device model (optional: their
# scenarios skip without it)
pkgs=(xen-hypervisor-4.17-amd64 xen-hypervisor-common xen-utils-4.17 xen-utils-common
	libxenmisc4.17 libxencall1 libxendevicemodel1 libxenevtchn1 libxenforeignmemory1
	libxengnttab1 libxenhypfs1 libxenstore4 libxentoolcore1 libxentoollog1 libyajl2
	xenstore-utils "$kimg" busybox-static
	mdadm) # the md RAID arrays of the storage-stack scenarios (stacks.sh)
optional=(qemu-system-xen)
# one apt-cache call (each costs ~1 s on a loaded machine): "pkg: candidate" per package
stamp=$(apt-cache policy "${pkgs[@]}" "${optional[@]}" 2>/dev/null |
	awk '/^[^ ]/{p = $1} /Candidate:/{printf "%s%s ", p, $2}')
if [ -f "$cache/root.stamp" ] && [ "$(cat "$cache/root.stamp")" = "$stamp" ] && [ -d "$cache/root" ]; then
	exit 0
fi
rm -rf "$cache/debs" "$cache/root" "$cache/root.stamp"
mkdir -p "$cache/debs"
if ! (cd "$cache/debs" && apt-get download "${pkgs[@]}" >"$cache/debs/apt.log" 2>&1); then
	echo "SKIPPED: apt-get download of the Xen/kernel packages failed: $(tail -1 "$cache/debs/apt.log")"
	exit 77
fi
(cd "$cache/debs" && apt-get download "${optional[@]}" >>"$cache/debs/apt.log" 2>&1) ||
	echo "note: ${optional[*]} not downloaded (the qdisk scenario will skip)"
for f in "$cache"/debs/*.deb; do dpkg -x "$f" "$cache/root"; done
rm -f "$cache"/debs/*.deb
echo "$kimg" >"$cache/root.kernel"
echo "$stamp" >"$cache/root.stamp"
