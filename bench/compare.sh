#!/usr/bin/env bash
# Side by side, in one run: what xiotop costs per I/O next to its peers (issues 17 and 47).
#
# Peers: no tracer (none), xiotop (this build as it runs by default: every figure, latency
# timed), xiotop_nolat (this build with --no-latency), optionally an older xiotop
# (XIOTOP_BEFORE=path: as it runs by default, and with --latency), and bpftrace: a byte sum
# per (dev, comm) at block_bio_queue (bt_sum), the latency one-liner of the world's backend
# (bt_hist: block_rq_issue -> block_rq_complete for a blk-mq device as loop, block_bio_queue
# -> block_bio_complete for a bio-based one as an LV or zram, which makes no requests), the
# two and the loop workers' time per item in one script (bt_same: the figures xiotop gives
# by default, bpftrace's way), bpftrace's empty programs at the events xiotop runs at
# (floor: the run stats' own cost per event), empty tp_btf programs at xiotop's per-I/O events
# (floor_btf, below), the same with the clock reads latency needs (floor_lat: the least any
# tool that times every I/O costs), and bcc's biotop where it runs (else the reason is printed).
#
# Worlds (WORLDS, default "dio-on dio-off bio"; mixed), on one emulated dom0 (tests/emu):
# bench/worlds.sh says each.
# The bio world's buffered workload is no blkback pattern (blkback does no buffered I/O):
# it writes through the zram's own page cache.
# Workloads (WORKLOADS, default "rand4k seq1m buffered"), each SECS seconds (default 4), each
# after a sync (no run pays the writeback of the one before):
#   rand4k    fio 4 KiB random writes, O_DIRECT, psync
#   seq1m     fio 1 MiB sequential writes, O_DIRECT, psync
#   buffered  fio 64 KiB buffered writes with writeback (end_fsync)
# PIN=1 (the default) runs fio and every unbound workqueue (the loop workers, the flusher) on
# CPU 0, the tools where the scheduler puts them. Unpinned, a loop I/O's hand-off to a worker on
# the other CPU wakes it from halt, which on a virtual machine without a cpuidle driver costs
# more than any tool and varies with where the scheduler put each (twelve no-tracer runs in a
# row 22.5-30.8k IOPS, and a tool's ratio followed placement, not its cost); pinned, nine of
# ten no-tracer runs in a row within 42.1-46.6k, and every nanosecond a tool adds is in each
# I/O's path, the strictest case for the IOPS ratio. PIN=0: as before.
# ROUNDS rounds (default 10); in each, every world, and in it every peer once in a rotating
# order, attached once for all workloads. A round whose no-tracer IOPS of STEADY_WL (default
# rand4k) moved more than 10 % from its neighbours' in a world is run again for that world
# once (RERUN=0: never), the rows it replaces kept apart; the report says which.
# Columns: busy CPU per I/O (/proc/stat), BPF ns and events per I/O (kernel bpf run stats of
# the peer's own programs), IOPS ratio to no tracer in the same round, median (min-max), the
# tool's own threads' CPU per second of the run (schedstat: its user space and the system
# calls it makes, not its programs), tool RSS; then ns per event per program, and per world
# the figures of issue 47's bars, with whether the rounds decide its IOPS bar at all (the
# median's distribution-free interval over the rounds: compare_lib.py bar_decided).
# The kernel's run stats (kernel.bpf_stats_enabled) add two clock reads around every program
# run, a cost no dom0 pays with them off (the default): BPF_STATS=0 leaves them off, for IOPS
# ratios as a dom0 runs the tools; BPF time and events per I/O are then not measured ("-").
# BPF_STATS=both runs STEADY_WL twice in every attach, with the stats on and off (the order
# turns each round), the second as workload "STEADY_WL/stats-off": both figures from the same
# rounds, each IOPS ratio against the no-tracer run of its own mode.
# Usage: bench/compare.sh [BUILD_DIR]   (root; ROUNDS SECS WORLDS WORKLOADS XIOTOP_BEFORE
# STEADY_WL RERUN KEEP_RESULTS BPF_STATS PIN, and PEERS to keep only some of: none xiotop xiotop_nolat
# xiotop_before xiotop_before_latency floor_btf floor_lat bt_sum bt_hist bt_same floor biotop)
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-10}
secs=${SECS:-4}
workloads=${WORKLOADS:-rand4k seq1m buffered}
worlds=${WORLDS:-dio-on dio-off bio}
steady_wl=${STEADY_WL:-rand4k}
rerun=${RERUN:-1}
bpf_stats=${BPF_STATS:-1}
pin=${PIN:-1}
[[ $pin == [01] ]] || { echo "compare: PIN is 1 (fio and the unbound workqueues on CPU 0) or 0" >&2; exit 2; }
[[ $bpf_stats == [01] || $bpf_stats == both ]] ||
	{ echo "compare: BPF_STATS is 1 (run stats on), 0 (off) or both" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=worlds.sh
. "$src/bench/worlds.sh"
# shellcheck disable=SC2086 # one word per world
worlds_check $worlds
xiotop="$build/xiotop"
[ "$(id -u)" -eq 0 ] || { echo "compare: needs root (BPF, loop devices)" >&2; exit 2; }
[ -x "$xiotop" ] || { echo "compare: $xiotop not built (make build)" >&2; exit 2; }
for c in fio bpftool python3; do
	command -v "$c" >/dev/null || { echo "compare: $c missing (scripts/install-deps.sh)" >&2; exit 2; }
done

work=$(mktemp -d /tmp/xiotop-compare.XXXXXX)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
wq_mask=/sys/devices/virtual/workqueue/cpumask
old_wq_mask=
fio_pin=()
tool_pid=
tool_name=
# shellcheck disable=SC2317 # called by the trap below
cleanup() {
	stop_tool
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	[ -z "$old_wq_mask" ] || echo "$old_wq_mask" >"$wq_mask"
	bash "$src/tests/emu/emu.sh" down "$work/world" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP # the cleanup once, then out (a trap that returns would go on)
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
if [ "$pin" = 1 ]; then
	[ -w "$wq_mask" ] || { echo "compare: no $wq_mask to pin the unbound workqueues (PIN=0 runs unpinned)" >&2; exit 2; }
	old_wq_mask=$(cat "$wq_mask")
	echo 1 >"$wq_mask" # CPU 0, as fio below
	fio_pin=(--cpus_allowed=0)
fi
bash "$src/tests/emu/emu.sh" up "$work/world" --dio on >/dev/null
# shellcheck disable=SC1091
. "$work/world/env"
stats_modes() { # round workload -> the run-stats settings to run it with, in order
	if [ "$bpf_stats" != both ]; then
		echo "$bpf_stats"
	elif [ "$2" != "$steady_wl" ]; then
		echo 1
	elif (($1 % 2)); then
		echo "1 0"
	else
		echo "0 1"
	fi
}
sysctl -qw kernel.bpf_stats_enabled="$([ "$bpf_stats" = 0 ] && echo 0 || echo 1)"
worlds_dumps

bt_sum='tracepoint:block:block_bio_queue { @bytes[args->dev, comm] = sum(args->nr_sector * 512); }'
# the latency one-liner of a blk-mq backend (requests) and of a bio-based one (bios)
bt_hist_rq='tracepoint:block:block_rq_issue { @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {
  @usecs = hist((nsecs - @start[args->dev, args->sector]) / 1000);
  delete(@start[args->dev, args->sector]); }'
bt_hist_bio='tracepoint:block:block_bio_queue { @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_bio_complete /@start[args->dev, args->sector]/ {
  @usecs = hist((nsecs - @start[args->dev, args->sector]) / 1000);
  delete(@start[args->dev, args->sector]); }'
bt_hist_of() { # world
	case $1 in bio) echo "$bt_hist_bio" ;; *) echo "$bt_hist_rq" ;; esac
}

# bt_same: bpftrace computing what xiotop's default figures need, its own way: bytes per
# (device, task) at block_bio_queue, a latency histogram per device (the world's one-liner),
# and the loop workers' time per item from workqueue_execute_start to _end (loop work only,
# by function address). Less than xiotop still: no domain, no partition or remap rule, wall
# time not runtime, no dirty backlog
bt_same_of() { # world
	local hist
	hist=$(bt_hist_of "$1")
	if [ "$1" = bio ]; then # one block_bio_queue program for the sum and the stamp
		hist=${hist#*\}}
		printf '%s\n' "tracepoint:block:block_bio_queue {
  @bytes[args->dev, comm] = sum(args->nr_sector * 512); @start[args->dev, args->sector] = nsecs; }"
	else
		printf '%s\n' "$bt_sum"
	fi
	printf '%s\n' "${hist/@usecs =/@usecs[args->dev] =}"
	printf '%s\n' 'tracepoint:workqueue:workqueue_execute_start
  /args->function == kaddr("loop_workfn") || args->function == kaddr("loop_rootcg_workfn")/ {
  @item[tid] = nsecs; }
tracepoint:workqueue:workqueue_execute_end /@item[tid]/ {
  @loop_ns[tid] = sum(nsecs - @item[tid]); delete(@item[tid]); }'
}

# floor: empty programs at the events xiotop runs at, so the report can say what the
# kernel's run stats cost per event whatever the program (two sched_clock reads)
bt_floor='tracepoint:block:block_bio_queue {} tracepoint:block:block_bio_complete {}
tracepoint:block:block_rq_complete {} tracepoint:workqueue:workqueue_execute_start {}'

peers="none xiotop xiotop_nolat"
[ -x "$build/xiotop-floor-bench" ] && peers="$peers floor_btf floor_lat"
[ -n "${XIOTOP_BEFORE:-}" ] && peers="$peers xiotop_before xiotop_before_latency"
if command -v bpftrace >/dev/null; then
	peers="$peers bt_sum bt_hist bt_same floor"
else
	echo "compare: bpftrace not installed: its peers are left out" >&2
fi
biotop=$(command -v biotop-bpfcc || command -v biotop || true)
if [ -n "$biotop" ]; then
	if why=$(timeout 60 "$biotop" 1 1 2>&1 >/dev/null); then
		peers="$peers biotop"
	else
		echo "compare: biotop does not run here: $(echo "$why" | grep -v '^ ' | tail -1)" >&2
	fi
else
	echo "compare: biotop (bcc) not installed" >&2
fi

busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; }
lib="$src/bench/compare_lib.py"
prog_ids() { bpftool prog show -j | python3 "$lib" ids; }
# run stats of the programs not in $1 (ids loaded before the tool started): one JSON object
prog_stats() { bpftool prog show -j | python3 "$lib" stats "$1"; }

start_tool() { # peer world -> sets tool_pid, waits until attached
	local log="$work/tool.log"
	tool_name=$1
	case $1 in
	none) return 0 ;;
	xiotop | xiotop_nolat | xiotop_before | xiotop_before_latency)
		local bin=$xiotop extra=()
		[[ $1 == xiotop_before* ]] && bin=$XIOTOP_BEFORE
		[[ $1 == *_latency ]] && extra=(--latency) # an older build's opt-in
		[[ $1 == *_nolat ]] && extra=(--no-latency)
		"$bin" -b -d 1 --format json "${extra[@]}" --xenstore-dump "$(world_dump "$2")" \
			>"$work/tool.out" 2>"$log" &
		tool_pid=$!
		for _ in $(seq 50); do [ -s "$work/tool.out" ] && break; sleep 0.2; done ;;
	bt_sum | bt_hist | bt_same | floor)
		local prog=$bt_sum
		[ "$1" = bt_hist ] && prog=$(bt_hist_of "$2")
		[ "$1" = bt_same ] && prog=$(bt_same_of "$2")
		[ "$1" = floor ] && prog=$bt_floor
		bpftrace -e "$prog" >/dev/null 2>"$log" &
		tool_pid=$!
		for _ in $(seq 100); do grep -q Attaching "$log" 2>/dev/null && break; sleep 0.1; done
		sleep 0.5 ;;
	floor_btf | floor_lat)
		# shellcheck disable=SC2046 # one word per program
		"$build/xiotop-floor-bench" "$build/bpf/floor_btf.bpf.o" $("${1}_of" "$2") >"$work/tool.out" 2>"$log" &
		tool_pid=$!
		for _ in $(seq 50); do grep -q Attaching "$work/tool.out" 2>/dev/null && break; sleep 0.1; done ;;
	biotop)
		"$biotop" -C 1 >/dev/null 2>"$log" &
		tool_pid=$!
		sleep 8 ;; # bcc compiles first
	esac
}
gone_within() { # pid tenths: has it exited within that many tenths of a second?
	for _ in $(seq "$2"); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	! kill -0 "$1" 2>/dev/null
}
stop_tool() { # SIGINT, then (said on stderr) SIGINT again, SIGTERM, SIGKILL: never hangs
	[ -z "$tool_pid" ] && return 0
	local pid=$tool_pid sig
	tool_pid=
	kill -INT "$pid" 2>/dev/null || true
	if ! gone_within "$pid" 100; then
		for sig in INT TERM KILL; do
			echo "compare: $tool_name (pid $pid) still running 10 s after SIGINT: SIG$sig" >&2
			kill -"$sig" "$pid" 2>/dev/null || true
			gone_within "$pid" 50 && break
		done
	fi
	wait "$pid" 2>/dev/null || true
}
tool_cpu_ns() { # the tool's own threads' time on a CPU (schedstat), 0 with none running
	[ -n "$tool_pid" ] && cat /proc/"$tool_pid"/task/*/schedstat 2>/dev/null | awk '{n += $1} END {print n + 0}' || echo 0
}
rss_kib() { [ -n "$tool_pid" ] && awk '/^VmRSS/{print $2}' "/proc/$tool_pid/status" 2>/dev/null || echo 0; }

run_fio() { # workload target -> fio JSON on stdout
	local common=(--name=w --filename="$2" --ioengine=psync --output-format=json "${fio_pin[@]}")
	case $1 in
	rand4k) fio "${common[@]}" --rw=randwrite --bs=4k --direct=1 --size=200M --runtime="$secs" --time_based ;;
	seq1m) fio "${common[@]}" --rw=write --bs=1M --direct=1 --size=200M --runtime="$secs" --time_based ;;
	buffered) fio "${common[@]}" --rw=write --bs=64k --direct=0 --size=128M --runtime="$secs" --time_based --end_fsync=1 ;;
	esac
}

if [ -n "${PEERS:-}" ]; then
	asked=
	for p in $PEERS; do [ "$p" = xiotop_latency ] && p=xiotop; asked="$asked $p"; done
	kept=
	for p in $peers; do [[ " $asked " == *" $p "* ]] && kept="$kept $p"; done
	peers=${kept# }
fi
read -ra peer_list <<<"$peers"
n=${#peer_list[@]}

run_round() { # round world -> result lines on stdout
	local r=$1 world=$2 k peer before wl st label s0 s1 b0 b1 c0 c1 t0 t1 target
	target=$(world_target "$world")
	enter_world "$world"
	for k in $(seq 0 $((n - 1))); do
		peer=${peer_list[$(((k + r) % n))]}
		before=$(prog_ids)
		start_tool "$peer" "$world"
		for wl in $workloads; do
			for st in $(stats_modes "$r" "$wl"); do
				label=$wl
				if [ "$bpf_stats" = both ]; then
					sysctl -qw kernel.bpf_stats_enabled="$st"
					[ "$st" = 0 ] && label="$wl/stats-off"
				fi
				# dom0's dirty pages written back first: a run never pays the writeback
				# of the run before (with direct I/O off, 4 s of 4 KiB writes dirty ~700 MiB
				# of the image, which the flusher writes while a later run goes on)
				sync
				s0=$(prog_stats "$before")
				c0=$(tool_cpu_ns)
				b0=$(busy_ticks)
				t0=$(date +%s.%N)
				run_fio "$wl" "$target" >"$work/fio.json"
				t1=$(date +%s.%N)
				b1=$(busy_ticks)
				c1=$(tool_cpu_ns)
				s1=$(prog_stats "$before")
				python3 "$lib" record "$work/fio.json" "$r" "$peer" "$label $world" "$((b1 - b0))" \
					"$t0" "$t1" "$(rss_kib)" "$s0" "$s1" "$((c1 - c0))"
			done
		done
		stop_tool
	done
}

: >"$work/results"
: >"$work/replaced"
for r in $(seq 1 "$rounds"); do
	for world in $worlds; do
		run_round "$r" "$world" >>"$work/results"
	done
	echo "round $r/$rounds done ($peers; worlds $worlds)" >&2
done
# a round whose no-tracer IOPS moved more than 10 % from its neighbours', run again once
if [ "$rerun" != 0 ] && [[ " $peers " == *" none "* ]]; then
	for world in $worlds; do
		for r in $(python3 "$lib" unsteady "$work/results" "$steady_wl $world"); do
			echo "round $r of world $world: no-tracer IOPS of $steady_wl moved > 10 % from its neighbours': run again" >&2
			python3 "$lib" take "$work/results" "$r" "$world" >>"$work/replaced"
			run_round "$r" "$world" >>"$work/results"
		done
	done
fi
python3 "$lib" report "$work/results" "$work/replaced" "$steady_wl"
[ -n "${KEEP_RESULTS:-}" ] && cp "$work/results" "$KEEP_RESULTS"
exit 0
