#!/usr/bin/env bash
# Issue "Safe to leave on": memory and file descriptors of the recorder stay flat over a
# month of 10-second samples with daily files (compressed in time: the samples carry a
# synthetic clock) while 10,000 domains are created and destroyed. Runs
# bench/churn_month.c (xiotop-churn-bench: the recorder's writer, file naming, rotation
# and retention, and the model over every pair of samples) and prints its RSS and fd
# count after the first hour's samples, after the first day's, at their highest and at
# the end; exit 1 when the end is more than 10 % above the first hour.
# Usage: bench/churn_month.sh [BUILD_DIR] [DAYS] [SLOTS] [CHURN]   (30, 20, 10000; no root)
# The files go to a fresh directory on /dev/shm (one fsync per sample: a disk would take
# hours), about 30 MB a day, the last 3 days kept.
set -euo pipefail
build=${1:-build}
shift || true
bin="$build/xiotop-churn-bench"
[ -x "$bin" ] || { echo "churn_month: $bin missing; build first (make build)" >&2; exit 2; }
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
dir=$(mktemp -d -p "$base" xiotop-churn.XXXXXX)
trap 'rm -rf "$dir"' EXIT
start=$(date +%s)
rc=0
"$bin" "$dir" "$@" || rc=$?
echo "  ran in $(($(date +%s) - start)) s"
exit $rc
