#!/usr/bin/env bash
# Side by side, in one run: what xiotop costs per I/O next to its peers (issue 17).
#
# Peers: no tracer, xiotop (this build as it runs by default: timing each I/O), xiotop_nolat
# (this build with --no-latency), optionally an older xiotop (XIOTOP_BEFORE=path: as it
# runs by default, and with --latency),
# a bpftrace byte sum per (dev, comm) at block_bio_queue, a bpftrace latency histogram
# (block_rq_issue -> block_rq_complete), the two and the loop workers' time in one
# bpftrace script (bt_same: the figures xiotop gives by default, bpftrace's way),
# bpftrace's empty programs at the events xiotop runs at per I/O (floor: the run stats'
# own cost per event), and bcc's biotop where it
# runs (else the reason is printed). Workloads on an emulated loop domain (tests/emu;
# BLOCK_ONLY: on its zram domain), with the loop device's direct I/O on, then off, in each
# round (DIO, default "on off"; a workload with direct I/O off is reported as
# "WORKLOAD dio-off": the loop worker writes the backing file through dom0's page cache):
#   rand4k    fio 4 KiB random writes, O_DIRECT, psync
#   seq1m     fio 1 MiB sequential writes, O_DIRECT, psync
#   buffered  fio 64 KiB buffered writes with writeback (end_fsync)
# ROUNDS rounds (default 10), each running every peer once in a rotating order, each peer
# attached once per round for all workloads of SECS seconds (default 4).
# Columns: busy CPU per I/O (/proc/stat), BPF ns per I/O and events per I/O (kernel bpf
# run stats of the peer's own programs), IOPS ratio to no tracer in the same round,
# median (min-max), tool RSS; then ns per event per program.
# NO_BIO_BACKEND=1: xiotop is not told of guest3 (a bare zram, the emulated LV), so the
# host it traces has only blk-mq and file-backed backends, as a file-backed Xen host.
# BLOCK_ONLY=1: xiotop is told of guest3 alone and the workloads write to its zram, as a
# host whose domains are all on block devices (LVM, phy: no loop device, no image file,
# no device model). Its buffered workload is no blkback pattern (blkback does no buffered
# I/O): it writes through the zram's own page cache.
# Usage: bench/compare.sh [BUILD_DIR]   (root; ROUNDS SECS XIOTOP_BEFORE WORKLOADS DIO, and
# PEERS to keep only some of: none xiotop xiotop_nolat xiotop_before xiotop_before_latency
# bt_sum bt_hist bt_same floor biotop; xiotop_latency, its name from when latency was opt-in, is xiotop)
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-10}
secs=${SECS:-4}
workloads=${WORKLOADS:-rand4k seq1m buffered}
dio_modes=${DIO:-on off}
for m in $dio_modes; do
	case $m in on | off) ;; *) echo "compare: DIO takes on and off, not $m" >&2; exit 2 ;; esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
xiotop="$build/xiotop"
[ "$(id -u)" -eq 0 ] || { echo "compare: needs root (BPF, loop devices)" >&2; exit 2; }
[ -x "$xiotop" ] || { echo "compare: $xiotop not built (make build)" >&2; exit 2; }
for c in fio bpftool python3; do
	command -v "$c" >/dev/null || { echo "compare: $c missing (scripts/install-deps.sh)" >&2; exit 2; }
done

work=$(mktemp -d /tmp/xiotop-compare.XXXXXX)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
tool_pid=
# shellcheck disable=SC2317 # called by the trap below
cleanup() {
	[ -n "$tool_pid" ] && kill -INT "$tool_pid" 2>/dev/null && wait "$tool_pid" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	bash "$src/tests/emu/emu.sh" down "$work/world" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM HUP
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
bash "$src/tests/emu/emu.sh" up "$work/world" --dio on >/dev/null
# shellcheck disable=SC1091
. "$work/world/env"
sysctl -qw kernel.bpf_stats_enabled=1
if [ -n "${NO_BIO_BACKEND:-}" ] && [ -n "${BLOCK_ONLY:-}" ]; then
	echo "compare: NO_BIO_BACKEND leaves out the only domain BLOCK_ONLY keeps" >&2
	exit 2
fi
target=$DOM1_DEV
if [ -n "${NO_BIO_BACKEND:-}" ]; then
	grep -v -e '^/local/domain/3' -e '/backend/vbd/3' "$XENSTORE_DUMP" >"$work/no-bio.dump"
	XENSTORE_DUMP=$work/no-bio.dump
fi
if [ -n "${BLOCK_ONLY:-}" ]; then
	grep -v -E -e '^/local/domain/[12]( |/)' -e '/backend/vbd/[12]( |/)' "$XENSTORE_DUMP" \
		>"$work/block-only.dump"
	XENSTORE_DUMP=$work/block-only.dump
	target=$DOM3_DEV
	dio_modes=on # a zram has no direct I/O mode: one pass, reported as "on"
fi

set_dio() { # on|off: guest1's loop device, while no tool is attached (its start reads it)
	local want=$1 got
	losetup --direct-io="$want" "$DOM1_DEV"
	got=$(cat "/sys/block/${DOM1_DEV##*/}/loop/dio")
	[ "$got" = "$([ "$want" = on ] && echo 1 || echo 0)" ] || {
		echo "compare: $DOM1_DEV kept direct I/O $got after --direct-io=$want" >&2
		exit 1
	}
}

bt_sum='tracepoint:block:block_bio_queue { @bytes[args->dev, comm] = sum(args->nr_sector * 512); }'
bt_hist='tracepoint:block:block_rq_issue { @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {
  @usecs = hist((nsecs - @start[args->dev, args->sector]) / 1000);
  delete(@start[args->dev, args->sector]); }'

# bt_same: bpftrace computing what xiotop's default figures need of a loop domain, its
# own way: bytes per (device, task) at block_bio_queue, a latency histogram per device
# from block_rq_issue to block_rq_complete, and the loop workers' time per item from
# workqueue_execute_start to _end (loop work only, by function address). Less than xiotop
# still: no domain, no partition or remap rule, wall time not runtime, no bio-based
# device's latency, no dirty backlog
bt_same="$bt_sum
${bt_hist/@usecs =/@usecs[args->dev] =}
"'tracepoint:workqueue:workqueue_execute_start
  /args->function == kaddr("loop_workfn") || args->function == kaddr("loop_rootcg_workfn")/ {
  @item[tid] = nsecs; }
tracepoint:workqueue:workqueue_execute_end /@item[tid]/ {
  @loop_ns[tid] = sum(nsecs - @item[tid]); delete(@item[tid]); }'

# floor: empty programs at the events xiotop runs at per I/O, so the report can say what
# the kernel's run stats cost per event whatever the program (two sched_clock reads)
bt_floor='tracepoint:block:block_bio_queue {} tracepoint:block:block_bio_complete {}
tracepoint:block:block_rq_complete {} tracepoint:workqueue:workqueue_execute_start {}
tracepoint:workqueue:workqueue_execute_end {}'

peers="none xiotop xiotop_nolat"
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

start_tool() { # peer -> sets tool_pid, waits until attached
	local log="$work/tool.log"
	case $1 in
	none) return 0 ;;
	xiotop | xiotop_nolat | xiotop_before | xiotop_before_latency)
		local bin=$xiotop extra=()
		[[ $1 == xiotop_before* ]] && bin=$XIOTOP_BEFORE
		[[ $1 == *_latency ]] && extra=(--latency) # an older build's opt-in
		[[ $1 == *_nolat ]] && extra=(--no-latency)
		"$bin" -b -d 1 --format json "${extra[@]}" --xenstore-dump "$XENSTORE_DUMP" \
			>"$work/tool.out" 2>"$log" &
		tool_pid=$!
		for _ in $(seq 50); do [ -s "$work/tool.out" ] && break; sleep 0.2; done ;;
	bt_sum | bt_hist | bt_same | floor)
		local prog=$bt_sum
		[ "$1" = bt_hist ] && prog=$bt_hist
		[ "$1" = bt_same ] && prog=$bt_same
		[ "$1" = floor ] && prog=$bt_floor
		bpftrace -e "$prog" >/dev/null 2>"$log" &
		tool_pid=$!
		for _ in $(seq 100); do grep -q Attaching "$log" 2>/dev/null && break; sleep 0.1; done
		sleep 0.5 ;;
	biotop)
		"$biotop" -C 1 >/dev/null 2>"$log" &
		tool_pid=$!
		sleep 8 ;; # bcc compiles first
	esac
}
stop_tool() {
	[ -z "$tool_pid" ] && return 0
	kill -INT "$tool_pid" 2>/dev/null || true
	wait "$tool_pid" 2>/dev/null || true
	tool_pid=
}
rss_kib() { [ -n "$tool_pid" ] && awk '/^VmRSS/{print $2}' "/proc/$tool_pid/status" 2>/dev/null || echo 0; }

run_fio() { # workload -> fio JSON on stdout
	local common=(--name=w --filename="$target" --ioengine=psync --output-format=json)
	case $1 in
	rand4k) fio "${common[@]}" --rw=randwrite --bs=4k --direct=1 --size=200M --runtime="$secs" --time_based ;;
	seq1m) fio "${common[@]}" --rw=write --bs=1M --direct=1 --size=200M --runtime="$secs" --time_based ;;
	buffered) fio "${common[@]}" --rw=write --bs=64k --direct=0 --size=128M --runtime="$secs" --time_based --end_fsync=1 ;;
	esac
}

: >"$work/results"
if [ -n "${PEERS:-}" ]; then
	asked=
	for p in $PEERS; do [ "$p" = xiotop_latency ] && p=xiotop; asked="$asked $p"; done
	PEERS=$asked
	kept=
	for p in $peers; do [[ " $PEERS " == *" $p "* ]] && kept="$kept $p"; done
	peers=${kept# }
fi
read -ra peer_list <<<"$peers"
n=${#peer_list[@]}
for r in $(seq 1 "$rounds"); do
	for dio in $dio_modes; do
		set_dio "$dio"
		for k in $(seq 0 $((n - 1))); do
			peer=${peer_list[$(((k + r) % n))]}
			before=$(prog_ids)
			start_tool "$peer"
			for wl in $workloads; do
				label=$wl
				[ "$dio" = off ] && label="$wl dio-off"
				s0=$(prog_stats "$before")
				b0=$(busy_ticks)
				t0=$(date +%s.%N)
				run_fio "$wl" >"$work/fio.json"
				t1=$(date +%s.%N)
				b1=$(busy_ticks)
				s1=$(prog_stats "$before")
				python3 "$lib" record "$work/fio.json" "$r" "$peer" "$label" "$((b1 - b0))" \
					"$t0" "$t1" "$(rss_kib)" "$s0" "$s1" >>"$work/results"
			done
			stop_tool
		done
	done
	echo "round $r/$rounds done ($peers; direct I/O $dio_modes)" >&2
done
python3 "$lib" report "$work/results"
[ -n "${KEEP_RESULTS:-}" ] && cp "$work/results" "$KEEP_RESULTS"
exit 0
