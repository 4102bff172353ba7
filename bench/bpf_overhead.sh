#!/usr/bin/env bash
# Tracer overhead, as the issue asks it measured:
#  - mean BPF ns per event of each xiotop program (kernel bpf run stats), and overall;
#  - 4 KiB random O_DIRECT write IOPS on an emulated domain's loop device, with and
#    without the tracer, in interleaved pairs (order alternating), median (min-max);
#  - system busy CPU per I/O in both cases.
# Usage: bench/bpf_overhead.sh [BUILD_DIR]   (root; PAIRS=5 SECS=5 by default)
set -euo pipefail
build=${1:-build}
pairs=${PAIRS:-5}
secs=${SECS:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
xiotop="$build/xiotop"
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (BPF, loop devices)" >&2; exit 2; }
[ -x "$xiotop" ] || { echo "bench: $xiotop not built (make build)" >&2; exit 2; }
command -v fio >/dev/null || { echo "bench: fio missing (make deps)" >&2; exit 2; }

work=$(mktemp -d /tmp/xiotop-bench.XXXXXX)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
tracer_pid=
cleanup() {
	if [ -n "$tracer_pid" ]; then
		kill "$tracer_pid" 2>/dev/null || true
		wait "$tracer_pid" 2>/dev/null || true
	fi
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	bash "$src/tests/emu/emu.sh" down "$work/world" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM HUP
bash "$src/tests/emu/emu.sh" up "$work/world" --dio "${DIO:-on}" >/dev/null
# shellcheck disable=SC1091
. "$work/world/env"
sysctl -qw kernel.bpf_stats_enabled=1

busy_ticks() {
	awk '/^cpu /{print $2+$3+$4+$7+$8+$9; exit}' /proc/stat
}
# one fio run: prints "IOPS BUSY_TICKS"
run_fio() {
	local b0 b1 iops
	b0=$(busy_ticks)
	iops=$(fio --name=bench --filename="$DOM1_DEV" --rw=randwrite --bs=4k --direct=1 \
		--ioengine=psync --size=200M --runtime="$secs" --time_based --output-format=json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["write"]["iops"])')
	b1=$(busy_ticks)
	echo "$iops $((b1 - b0))"
}
# bpf run stats of the loaded xiotop programs: "name run_time_ns run_cnt" lines
prog_stats() {
	bpftool prog show -j | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    n = p.get("name", "")
    if n.startswith(("btf_", "raw_")) and "run_cnt" in p:
        print(n, p.get("run_time_ns", 0), p["run_cnt"])'
}

tracer_on() {
	"$xiotop" -b -d 1 --format json --xenstore-dump "$work/world/xenstore.dump" >/dev/null \
		2>"$work/tracer.err" &
	tracer_pid=$!
	sleep 1
}
tracer_off() {
	prog_stats >>"$work/progstats"
	kill "$tracer_pid"
	wait "$tracer_pid" 2>/dev/null || true
	tracer_pid=
}

: >"$work/pairs"
for i in $(seq 1 "$pairs"); do
	if [ $((i % 2)) -eq 1 ]; then
		off=$(run_fio)
		tracer_on
		on=$(run_fio)
		tracer_off
	else
		tracer_on
		on=$(run_fio)
		tracer_off
		off=$(run_fio)
	fi
	echo "$off $on" >>"$work/pairs"
	echo "pair $i: without ${off%% *} IOPS, with ${on%% *} IOPS"
done

python3 - "$work/pairs" "$work/progstats" "$secs" <<'PY'
import statistics, sys
pairs = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
secs = float(sys.argv[3])
ratios = [on / off for off, _, on, _ in pairs]
tick_us = 1e6 / 100  # USER_HZ
cpu_off = [b * tick_us / (i * secs) for i, b, _, _ in pairs]
cpu_on = [b * tick_us / (i * secs) for _, _, i, b in pairs]
print(f"IOPS ratio with/without tracer: median {statistics.median(ratios):.3f} "
      f"(min {min(ratios):.3f}, max {max(ratios):.3f}) over {len(pairs)} interleaved pairs; target >= 0.97")
print(f"busy CPU per I/O: without {statistics.median(cpu_off):.1f} us, with {statistics.median(cpu_on):.1f} us (medians)")
tot = {}
for l in open(sys.argv[2]):
    name, ns, cnt = l.split()
    t = tot.setdefault(name, [0, 0])
    t[0] += int(ns); t[1] += int(cnt)
all_ns = sum(t[0] for t in tot.values()); all_cnt = sum(t[1] for t in tot.values())
for name, (ns, cnt) in sorted(tot.items()):
    print(f"bpf {name}: {ns / cnt if cnt else 0:.0f} ns/event over {cnt} events")
print(f"bpf all programs: {all_ns / all_cnt if all_cnt else 0:.0f} ns/event mean; target <= 300")
PY
