#!/usr/bin/env bash
# Install the Debian packages xiotop needs, only those missing.
#
#   install-deps.sh          what building (xiotop and its unit tests) and `make demo` need
#   install-deps.sh --test   that and what `make test` runs besides (make test, lint, fuzz, bench)
#
# Runs as root (apt-get); prints one line when nothing is to do. Every tool a test runs is
# in the test list (curl: test_serve; git: test_package's clean copy; qemu, busybox, cpio:
# the real guest and the Xen dom0s; mmdebstrap: the .deb's build root and the dom0's root),
# so that a test never skips for a tool this script could have installed; none of them is
# installed for a build or the demo.
set -euo pipefail
# the build (debian/control's Build-Depends, and cmocka for the unit tests), and the
# demo's emulated domains (tests/emu/emu.sh: losetup, addpart, mount; mkfs.ext4; modprobe)
build_pkgs=(build-essential cmake pkg-config clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
            libxen-dev libncurses-dev libsqlite3-dev libyaml-dev libjson-c-dev libmicrohttpd-dev
            libgnutls28-dev libcrypt-dev libcmocka-dev util-linux e2fsprogs kmod)
# the suite, the linters, the sanitizer build and fuzzers, the benchmarks
test_pkgs=(libclang-rt-dev python3 jq tmux cppcheck clang-format shellcheck fio sqlite3 sysstat
           procps dmsetup curl git openssl systemd adduser debhelper lintian mandoc man-db
           bpftrace prometheus python3-yaml cpio busybox-static qemu-system-x86 mmdebstrap xz-utils zstd)
case "${1:-}" in
"") pkgs=("${build_pkgs[@]}") what="build and demo" ;;
--test) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}") what="build, demo and test" ;;
*) echo "usage: $0 [--test]" >&2; exit 1 ;;
esac
# the machine-wide cache the Xen dom0 test (tests/xen) keeps Debian's packages in, so a
# fresh clone on this machine starts warm
[ "$what" = "build and demo" ] || [ "$(id -u)" -ne 0 ] || mkdir -p /var/cache/xiotop-tests
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps ($what): all ${#pkgs[@]} packages present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps ($what): missing ${missing[*]}; run as root to install them" >&2
	exit 2
fi
echo "deps ($what): installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
