#!/usr/bin/env bash
# Bytes per domain-sample of a recording: 100 synthetic domains over 3,600 one-second
# samples (an hour) written through the recorder, then the file's size on disk after
# close (the WAL folded in). Each domain has a read and a write latency histogram, as
# latency is timed by default (LATENCY=0: without, as with --no-latency). Target (issues
# "Record, replay and export sessions" and 31, with histograms): <= 200.
#   [LATENCY=0] bench/record_size.sh [BUILD_DIR] [DOMAINS] [SAMPLES]
set -euo pipefail
build=${1:-build}
domains=${2:-100}
samples=${3:-3600}
latency=${LATENCY:-1}
bin="$build/xiotop-record-bench"
if [ ! -x "$bin" ]; then
	echo "record_size: $bin missing; build first (make build)" >&2
	exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
start=$(date +%s.%N)
"$bin" "$dir/bench.xiotop" "$domains" "$samples" "$latency"
end=$(date +%s.%N)
bytes=$(stat -c %s "$dir/bench.xiotop")
alloc=$(( $(stat -c %b "$dir/bench.xiotop") * $(stat -c %B "$dir/bench.xiotop") ))
awk -v b="$bytes" -v a="$alloc" -v d="$domains" -v s="$samples" -v t0="$start" -v t1="$end" -v lat="$([ "$latency" = 0 ] && echo ", no latency" || echo ", latency histograms")" \
	'BEGIN { printf "record size: %.1f bytes per domain-sample%s (file %d bytes, %d allocated; %d domains x %d samples; written in %.1f s)\n", b / (d * s), lat, b, a, d, s, t1 - t0 }'
