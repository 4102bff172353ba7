#!/usr/bin/env bash
# Install the Debian packages xiotop needs to build and test, only those missing.
# Runs as root (apt-get); prints one line when nothing is to do. Every tool a test runs is
# here (curl: test_serve; git: test_package's clean copy; kmod: modprobe of zram/loop), so
# that a test never skips for a tool this script could have installed.
set -euo pipefail
pkgs=(build-essential cmake pkg-config clang llvm libclang-rt-dev libbpf-dev bpftool libelf-dev zlib1g-dev
      libxen-dev libncurses-dev libsqlite3-dev sqlite3 libcmocka-dev libmicrohttpd-dev
      util-linux jq tmux cppcheck clang-format shellcheck python3 fio e2fsprogs cpio qemu-system-x86 busybox-static
      libjson-c-dev sysstat debhelper lintian mandoc man-db bpftrace prometheus
      kmod dmsetup curl git procps libgnutls28-dev libcrypt-dev openssl systemd adduser mmdebstrap xz-utils zstd)
# the machine-wide cache the Xen dom0 test (tests/xen) keeps Debian's packages in, so a
# fresh clone on this machine starts warm
[ "$(id -u)" -ne 0 ] || mkdir -p /var/cache/xiotop-tests
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run as root to install them" >&2
	exit 2
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
