#!/usr/bin/env bash
# hvm_build.sh OUT [AS-OPTION...] - the HVM guest of the Xen test's phase H (hvm_disk.S, no
# OS, no BIOS: xl loads it in hvmloader's place) assembled with the host's GNU as and
# linked at 1 MiB as an ELF32, written to OUT. AS-OPTIONs reach `as`, e.g.
# --defsym WR_SECT=N (sectors written, then read back) or --defsym MULTIBOOT=1 (a
# multiboot header, to try it in plain qemu: qemu-system-x86_64 -kernel OUT -hda IMG
# -debugcon stdio).
set -euo pipefail
out=${1:?output file}
shift
for t in as ld; do
	command -v $t >/dev/null || { echo "hvm_build: $t (binutils) is missing on this host"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
as --32 "$@" -o "$tmp/hvm_disk.o" "$(dirname "$0")/hvm_disk.S"
# -N: one segment from 1 MiB up, no ELF header loaded below it (it is writable and
# executable on purpose: the program is its own firmware)
quiet=()
case $(ld --help 2>/dev/null) in *--no-warn-rwx-segments*) quiet=(--no-warn-rwx-segments) ;; esac
ld -m elf_i386 -N "${quiet[@]}" -Ttext=0x100000 -e _start -o "$out" "$tmp/hvm_disk.o"
