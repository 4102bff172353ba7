#!/usr/bin/env bash
# Console CPU use: `xiotop --synthetic N -d 1` (fabricated domains, no tracer, no root) runs
# in a private tmux server at COLSxROWS; after a warm-up, utime+stime of the process from
# /proc/PID/stat over SECS seconds is printed as a percentage of one core. Target: <= 1 %
# with 500 domains at a 1 s delay (issue "xentop-like live console").
# Usage: bench/console_cpu.sh [BUILD_DIR]   (N=500 SECS=30 COLS=200 ROWS=50 by default)
set -euo pipefail
build=${1:-build}
n=${N:-500}
secs=${SECS:-30}
cols=${COLS:-200}
rows=${ROWS:-50}
xiotop="$build/xiotop"
[ -x "$xiotop" ] || {
	echo "bench: $xiotop not built (make build)" >&2
	exit 2
}
command -v tmux >/dev/null || {
	echo "bench: tmux missing (make deps)" >&2
	exit 2
}

sock="xiotop-bench-$$"
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock" # a killed server leaves its socket
}
trap cleanup EXIT INT TERM HUP
# exec: the pane's process is xiotop itself
tmux -L "$sock" -f /dev/null new-session -d -s bench -x "$cols" -y "$rows" \
	"exec env LANG=C.UTF-8 '$xiotop' --synthetic '$n' -d 1"
pid=$(tmux -L "$sock" display-message -p -t bench '#{pane_pid}')

ticks() { # utime + stime (fields 14 and 15; the name in field 2 has no blanks here)
	awk '{print $14 + $15}' "/proc/$1/stat"
}
sleep 3 # warm-up: start, first intervals
tmux -L "$sock" capture-pane -p -t bench | grep -q "synth" || {
	echo "bench: the console does not show the synthetic domains" >&2
	tmux -L "$sock" capture-pane -p -t bench >&2
	exit 1
}
t0=$(ticks "$pid")
s0=$(date +%s.%N)
sleep "$secs"
t1=$(ticks "$pid")
s1=$(date +%s.%N)
hz=$(getconf CLK_TCK)
rss_kb=$(awk '/^VmRSS/{print $2}' "/proc/$pid/status")
awk -v t0="$t0" -v t1="$t1" -v s0="$s0" -v s1="$s1" -v hz="$hz" -v n="$n" -v cols="$cols" \
	-v rows="$rows" -v rss="$rss_kb" 'BEGIN {
	cpu = (t1 - t0) / hz; wall = s1 - s0; pct = 100 * cpu / wall
	printf "console CPU, %d synthetic domains, -d 1, %dx%d: %.2f %% of a core " \
	       "(%.2f s CPU in %.1f s; RSS %d KiB) -- target <= 1 %%: %s\n",
	       n, cols, rows, pct, cpu, wall, rss, pct <= 1 ? "met" : "NOT MET"
}'
