#!/usr/bin/env bash
# Bytes per domain-sample of a recording, and what writing it cost the disk: DOMAINS
# synthetic domains over SAMPLES one-second samples (an hour) written through the
# recorder into a file on the file system of $TMPDIR (not a tmpfs: its pages are never
# written back, so write_bytes would say nothing), committed as the recorder's commit rule
# does at -d 1. Prints the file's size after close, bytes per domain-sample, and the
# program's write_bytes (/proc/self/io: every page it dirtied, journal included) against
# the file's size. Each domain has a read and a write latency histogram, as latency is
# timed by default (LATENCY=0: without, as with --no-latency); IDLE=1: the domains rest
# (only their vCPU and blkback thread time move), IDLE=2: nothing moves (bench/record_size.c). Targets (issue 45): at most 64 bytes per domain-sample with 100
# busy domains and latency, at most 8 per idle domain-sample; written at most twice the
# file's growth.
#   [LATENCY=0] [IDLE=1] bench/record_size.sh [BUILD_DIR] [DOMAINS] [SAMPLES]
set -euo pipefail
build=${1:-build}
domains=${2:-100}
samples=${3:-3600}
latency=${LATENCY:-1}
idle=${IDLE:-0}
bin="$build/xiotop-record-bench"
if [ ! -x "$bin" ]; then
	echo "record_size: $bin missing; build first (make build)" >&2
	exit 2
fi
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/xiotop-record-size.XXXXXX")
trap 'rm -rf "$dir"' EXIT
if [ "$(stat -f -c %T "$dir")" = tmpfs ]; then
	echo "record_size: $dir is on a tmpfs: give TMPDIR on a disk's file system" >&2
	exit 2
fi
start=$(date +%s.%N)
line=$("$bin" "$dir/bench.xiotop" "$domains" "$samples" "$latency" "$idle")
end=$(date +%s.%N)
alloc=$(($(stat -c %b "$dir/bench.xiotop") * $(stat -c %B "$dir/bench.xiotop")))
awk -v l="$line" -v a="$alloc" -v t0="$start" -v t1="$end" \
	'BEGIN { printf "record size: %s (%d bytes allocated; written in %.1f s)\n", l, a, t1 - t0 }'
