#!/usr/bin/env bash
# turns.sh - the IOPS ratio of one world read closely: one fio runs all along, and the peers
# are attached to it in turn (issue 47).
#
# bench/compare.sh starts a fio per peer and per round. On this VM two fio runs in a row
# differ by 2.5-4 % with nothing attached (each run its own page placement and its own loop
# worker), so 10 rounds read a ratio to about +-2 %, the width of the whole 3 % bar. Here a
# single fio (4 KiB random writes, O_DIRECT, psync, 3600 s) writes to the world's device, and
# in every cycle each peer is attached (the order turning each cycle, so that no peer always
# sits at the same place in it), WINDOW seconds of the device's completed writes
# (/proc/diskstats) counted once it is ready, and detached. What a window reads differs
# from its neighbours' by 1-2 %, and the cycles pair them. The periodic flusher is paused for
# the run (vm.dirty_writeback_centisecs 0, restored at exit): with direct I/O off it would
# write the image back on CPU 0 in one window of four and not in the next. The image's
# pages are all dirty after the first seconds, so no window pays for dirtying them
# (bench/compare.sh's runs, each after a sync, do).
#
# Peers (PEERS, default "none floor_btf xiotop"): none, xiotop (every figure, latency timed),
# xiotop_nolat (--no-latency), xiotop_before (XIOTOP_BEFORE=path, as it runs by default),
# floor_btf (empty tp_btf programs at the events xiotop runs at per I/O in the world),
# floor_lat (the same with the clock reads latency needs: bench/worlds.sh). The
# first peer is the base every ratio is taken to. The tools run where the scheduler puts
# them; fio and the unbound workqueues on CPU 0 (as compare.sh's PIN=1). The kernel's run
# stats stay off (as a dom0 runs).
# Worlds (WORLD, default dio-off): bench/worlds.sh.
# Prints per peer: the median IOPS, the median ratio to the base of its cycle, and the time
# it adds per I/O (1/IOPS less the base's, per cycle): median, mean and the mean's standard
# error.
# A window starts SETTLE seconds (default 1.5) after its peer is attached, past the tool's
# start (its first pass over every task, its first reads), which is no steady cost.
# Usage: bench/turns.sh [BUILD_DIR]   (root; WORLD CYCLES WINDOW SETTLE PEERS XIOTOP_BEFORE)
set -euo pipefail
build=${1:-build}
world=${WORLD:-dio-off}
cycles=${CYCLES:-12}
window=${WINDOW:-3}
settle=${SETTLE:-1.5}
peers=${PEERS:-none floor_btf xiotop}
[ "$(id -u)" -eq 0 ] || { echo "turns: needs root (BPF, loop devices)" >&2; exit 2; }
[ -x "$build/xiotop" ] || { echo "turns: $build/xiotop not built (make build)" >&2; exit 2; }
for c in fio python3; do
	command -v "$c" >/dev/null || { echo "turns: $c missing (scripts/install-deps.sh)" >&2; exit 2; }
done
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=worlds.sh
. "$src/bench/worlds.sh"
worlds_check "$world"
work=$(mktemp -d /tmp/xiotop-turns.XXXXXX)
wq_mask=/sys/devices/virtual/workqueue/cpumask
old_wq_mask=$(cat "$wq_mask")
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
old_flush=$(sysctl -n vm.dirty_writeback_centisecs)
fio_pid=
tool_pid=
# shellcheck disable=SC2317 # called by the trap below
cleanup() {
	[ -z "$tool_pid" ] || { kill -INT "$tool_pid" 2>/dev/null; wait "$tool_pid" 2>/dev/null || true; }
	[ -z "$fio_pid" ] || { kill "$fio_pid" 2>/dev/null; wait "$fio_pid" 2>/dev/null || true; }
	echo "$old_wq_mask" >"$wq_mask"
	sysctl -qw kernel.bpf_stats_enabled="$old_stats" vm.dirty_writeback_centisecs="$old_flush"
	bash "$src/tests/emu/emu.sh" down "$work/world" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
bash "$src/tests/emu/emu.sh" up "$work/world" --dio on >/dev/null # enter_world turns it off where the world has it so
# shellcheck disable=SC1091
. "$work/world/env"
worlds_dumps
enter_world "$world"
target=$(world_target "$world")
echo 1 >"$wq_mask"
sysctl -qw kernel.bpf_stats_enabled=0 vm.dirty_writeback_centisecs=0
sync

writes() { awk -v d="${target#/dev/}" '$3 == d {print $8}' /proc/diskstats; }
attach() { # peer -> sets tool_pid, returns once attached
	tool_pid=
	case $1 in
	none) ;;
	floor_btf | floor_lat)
		# shellcheck disable=SC2046 # one word per program
		"$build/xiotop-floor-bench" "$build/bpf/floor_btf.bpf.o" $("${1}_of" "$world") >"$work/tool.out" 2>&1 &
		tool_pid=$!
		for _ in $(seq 50); do grep -q Attaching "$work/tool.out" && break; sleep 0.1; done ;;
	xiotop | xiotop_nolat | xiotop_before)
		local bin=$build/xiotop extra=()
		[ "$1" = xiotop_before ] && bin=${XIOTOP_BEFORE:?turns: xiotop_before needs XIOTOP_BEFORE}
		[ "$1" = xiotop_nolat ] && extra=(--no-latency)
		"$bin" -b -d 1 --format json "${extra[@]}" --xenstore-dump "$(world_dump "$world")" >"$work/tool.out" 2>"$work/tool.log" &
		tool_pid=$!
		for _ in $(seq 50); do [ -s "$work/tool.out" ] && break; sleep 0.2; done ;;
	*) echo "turns: no peer $1" >&2; exit 2 ;;
	esac
	if [ -n "$tool_pid" ] && ! kill -0 "$tool_pid" 2>/dev/null; then
		echo "turns: $1 exited at its start:" >&2
		cat "$work/tool.out" "$work/tool.log" 2>/dev/null | tail -5 >&2
		exit 1
	fi
}
detach() {
	[ -z "$tool_pid" ] && return 0
	kill -INT "$tool_pid" 2>/dev/null || true
	wait "$tool_pid" 2>/dev/null || true
	tool_pid=
}

fio --name=w --filename="$target" --ioengine=psync --rw=randwrite --bs=4k --direct=1 \
	--size=200M --runtime=3600 --time_based --cpus_allowed=0 >/dev/null &
fio_pid=$!
sleep 5 # past the first seconds, which dirty the image's pages
: >"$work/windows"
read -ra peer_list <<<"$peers"
for ((c = 0; c < cycles; c++)); do
	# the order turns each cycle: no peer always follows the same one
	for ((k = 0; k < ${#peer_list[@]}; k++)); do
		p=${peer_list[(c + k) % ${#peer_list[@]}]}
		attach "$p"
		sleep "$settle"
		t0=$EPOCHREALTIME w0=$(writes)
		sleep "$window"
		t1=$EPOCHREALTIME w1=$(writes)
		detach
		echo "$c $p $t0 $t1 $w0 $w1" >>"$work/windows"
		sleep 0.3
	done
done
kill -0 "$fio_pid" 2>/dev/null || { echo "turns: fio stopped early" >&2; exit 1; }

echo "world $world, $cycles cycles of $window s windows ($settle s after attach), peers in turn: $peers"
python3 - "$work/windows" <<'EOF'
import collections, statistics as st, sys
iops = collections.defaultdict(dict)
order = []
for line in open(sys.argv[1]):
    c, p, t0, t1, w0, w1 = line.split()
    iops[int(c)][p] = (int(w1) - int(w0)) / (float(t1) - float(t0))
    if p not in order:
        order.append(p)
base = order[0]
cyc = sorted(iops)
print("%-14s %9s %16s %12s %12s %9s" % ("peer", "IOPS", "ratio to " + base, "added ns med", "mean", "se"))
for p in order:
    ratio = [iops[c][p] / iops[c][base] for c in cyc]
    added = [1e9 / iops[c][p] - 1e9 / iops[c][base] for c in cyc]
    se = st.stdev(added) / len(added) ** 0.5 if len(added) > 1 else 0
    print("%-14s %9.0f %16.3f %12.0f %12.0f %9.0f" % (
        p, st.median(iops[c][p] for c in cyc), st.median(ratio), st.median(added), st.mean(added), se))
EOF
