#!/usr/bin/env bash
# Bytes per domain-sample of a recording: 100 synthetic domains over 3,600 one-second
# samples (an hour) written through the recorder, then the file's size on disk after
# close (the WAL folded in). Target (issue "Record, replay and export sessions"): <= 200.
#   bench/record_size.sh [BUILD_DIR] [DOMAINS] [SAMPLES]
set -euo pipefail
build=${1:-build}
domains=${2:-100}
samples=${3:-3600}
bin="$build/xiotop-record-bench"
if [ ! -x "$bin" ]; then
	echo "record_size: $bin missing; build first (make build)" >&2
	exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
start=$(date +%s.%N)
"$bin" "$dir/bench.xiotop" "$domains" "$samples"
end=$(date +%s.%N)
bytes=$(stat -c %s "$dir/bench.xiotop")
alloc=$(( $(stat -c %b "$dir/bench.xiotop") * $(stat -c %B "$dir/bench.xiotop") ))
awk -v b="$bytes" -v a="$alloc" -v d="$domains" -v s="$samples" -v t0="$start" -v t1="$end" \
	'BEGIN { printf "record size: %.1f bytes per domain-sample (file %d bytes, %d allocated; %d domains x %d samples; written in %.1f s)\n", b / (d * s), b, a, d, s, t1 - t0 }'
