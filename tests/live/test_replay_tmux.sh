#!/usr/bin/env bash
# Live test: `xiotop replay` is the console over a recording, and the live console's m key
# writes into a running recorder. Emulated domains are recorded for 8 s while marks are
# added three ways: `xiotop mark -o FILE`, m in a live console (origin "console", found
# through the recorder's registration as `xiotop mark` finds it) and `xiotop mark -o`
# again. Then the replay is driven in tmux: g Enter, Right, n, n, G, N, [, ], space, +, m,
# h, q, each checked on the captured pane (sample positions, mark labels, playing to the
# end); and without a terminal `xiotop replay` still prints batch text and exits. Last, a
# `record --dir` of a few files (a period of 2 s) with a mark in an early and in a late
# one is replayed as one timeline (`replay --dir`, in another zone than UTC): g to the
# late file's mark, g to a time given in UTC, each read back from the header's time
# (local, with its zone) against the samples' own times (sqlite3).
# Exit 77 (skipped) without root, tmux, zram or the sqlite3 tool.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "recording live domains needs root (BPF, loop and zram devices)"
live_require_cmd tmux "tmux is not installed"
live_require_zram "the emulated domains need zram"
live_require_cmd sqlite3 "no sqlite3 command-line tool (the expected positions come from it)"

live_workdir replay
sock="xiotop-replay-$$" # a tmux server of our own: nothing else is touched
pids=()
before_cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock" # a killed server leaves its socket
}
export XIOTOP_RUNTIME_DIR="$work/run" # the console's m finds this test's recorder only

# this test's own check, in place of livelib.sh's: its checks are commands
failures=0
check() { # DESCRIPTION COMMAND...: run a check, say ok/FAIL
	local what=$1
	shift
	if "$@"; then
		echo "ok   $what"
	else
		echo "FAIL $what"
		failures=$((failures + 1))
	fi
}
pane() { tmux -L "$sock" capture-pane -p -t "$1"; }
keys() { # SESSION KEYS...
	local s=$1
	shift
	tmux -L "$sock" send-keys -t "$s" "$@"
}
screen=""
on="" # the session wait_for captures
wait_for() { # SECONDS PREDICATE...: until it holds on a fresh capture of $on (in $screen)
	local deadline=$((SECONDS + $1))
	shift
	while :; do
		screen=$(pane "$on" 2>/dev/null || true)
		"$@" && return 0
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.2
	done
}
has() { grep -qF -- "$1" <<<"$screen"; }
show() { echo "--- $on ---"; echo "$screen"; echo "--------------"; }
samples() { [ -s "$1" ] && sqlite3 "$1" 'SELECT count(*) FROM samples' 2>/dev/null || echo 0; }
has_samples() { [ "$(samples "$rec")" -ge "$1" ]; }
# The window sample whose interval holds mark LABEL (the last sample if after the end).
mark_pos() {
	sqlite3 "$rec" "SELECT coalesce(min(s.idx), (SELECT max(idx) FROM samples)) FROM samples s
		WHERE s.realtime_ns >= (SELECT realtime_ns FROM marks WHERE label = '$1')"
}

live_world_up off --size-mib 64
"$XIOTOP_EMU" blkback --domid 2 --target "$DOM2_DEV" --write-mib 32 --bs 1M --repeat \
	--rate-mib-s 20 >"$work/world/logs/dom2.out" 2>&1 &
echo $! >"$work/world/pids/dom2.pid"

# 1. a live console first: m with no recorder running keeps the mark on screen only
tmux -L "$sock" -f /dev/null new-session -d -s live -x 160 -y 30 \
	"env LANG=C.UTF-8 LC_ALL=C.UTF-8 XIOTOP_RUNTIME_DIR='$XIOTOP_RUNTIME_DIR' '$XIOTOP_BIN' \
	-d 1 --xenstore-dump '$XENSTORE_DUMP' 2>'$work/live.err'; echo \$? >'$work/live.exit'"
on=live
if ! wait_for 20 has "guest2"; then
	show
	cat "$work/live.err" || true
	echo "FAIL the live console did not show the domains"
	exit 1
fi
keys live m e a r l y Enter
check "m without a recorder: kept on screen only" \
	wait_for 5 has "kept on screen only (no recorder running): early"

# 2. record 8 s; marks from a shell, from the console's m, from a shell again, each in an
# interval of its own (two samples committed between them: the first may have been
# stamped before the mark)
rec=$work/session.xiotop
"$XIOTOP_BIN" record -o "$rec" -d 0.5 --commit-every 0.5 --duration 8 \
	--xenstore-dump "$XENSTORE_DUMP" >/dev/null 2>"$work/record.err" &
rec_pid=$!
pids+=("$rec_pid")
# past sample 3, so that the first mark is beyond where Right leaves the replay
if ! wait_for 20 has_samples 4 || [ ! -s "$XIOTOP_RUNTIME_DIR/recorder" ]; then
	cat "$work/record.err"
	echo "FAIL the recorder did not start"
	exit 1
fi
check "xiotop mark -o FILE alpha" "$XIOTOP_BIN" mark -o "$rec" alpha
check "two samples after alpha" wait_for 10 has_samples $(($(samples "$rec") + 2))
keys live m c o n s o l e - m Enter
check "m with a recorder running: recorded in its file" \
	wait_for 5 has "recorded in $(realpath "$rec"): console-m"
check "two samples after console-m" wait_for 10 has_samples $(($(samples "$rec") + 2))
check "xiotop mark -o FILE beta" "$XIOTOP_BIN" mark -o "$rec" beta
keys live q
wait "$rec_pid"
check "the recorder ran its 8 s and exited 0" test $? -eq 0
check "the console's mark is in the file, origin console" \
	test "$(sqlite3 "$rec" "SELECT origin FROM marks WHERE label = 'console-m'")" = console

n=$(($(samples "$rec") - 1)) # the replay shows sample i of 0..n
alpha=$(mark_pos alpha)
consm=$(mark_pos console-m)
echo "recorded samples 0..$n; alpha in the interval ending at $alpha, console-m at $consm"

# 3. without a terminal: batch text with the marks, no waiting on keys
timeout 20 "$XIOTOP_BIN" replay "$rec" </dev/null >"$work/batch.txt" 2>&1
check "replay without a terminal exits 0" test $? -eq 0
check "replay without a terminal prints batch text with the marks" \
	grep -qF "mark: console-m" "$work/batch.txt"

# 4. the replay console
tmux -L "$sock" new-session -d -s replay -x 120 -y 30 \
	"env LANG=C.UTF-8 LC_ALL=C.UTF-8 '$XIOTOP_BIN' replay --speed 2 '$rec' \
	2>'$work/replay.err'; echo \$? >'$work/replay.exit'"
on=replay
if ! wait_for 10 has "sample 1/$n "; then
	show
	cat "$work/replay.err" || true
	echo "FAIL the replay console did not open at the first interval"
	exit 1
fi
check "the header says it is a replay of the file" has "xiotop replay session.xiotop"
check "paused at the start, speed x2" has "paused"
check "the domains are there" has "guest2"
keys replay g
check "g: asks where to go" wait_for 5 has "go to (a time"
keys replay Enter
check "g Enter: the first interval" wait_for 5 has "sample 1/$n "
keys replay Right
check "Right: one interval on" wait_for 5 has "sample 2/$n "
keys replay n
check "n: the first mark (alpha, sample $alpha)" \
	wait_for 5 has "sample $alpha/$n "
check "n: its label shown here" has 'mark here "alpha"'
keys replay n
check "n: the console's mark next (sample $consm)" wait_for 5 has 'mark here "console-m"'
check "n: at its sample" has "sample $consm/$n "
keys replay G
check "G: the last interval" wait_for 5 has "sample $n/$n "
keys replay N
check "N: back to a mark" wait_for 5 has 'mark here "'
keys replay '['
check "[: a period (1 min) back: the first interval" wait_for 5 has "sample 1/$n "
check "the step period shown" has "step 1m"
keys replay ']'
check "]: a period on: the last interval" wait_for 5 has "sample $n/$n "
keys replay Left
check "Left: one interval back" bash -c "! tmux -L '$sock' capture-pane -p -t replay | grep -qF 'sample $n/$n '"
keys replay m
check "m in a replay: read-only" wait_for 5 has "the recording is read-only"
keys replay g Enter space
check "space plays" wait_for 5 has "playing x2"
keys replay +
check "+ plays faster" wait_for 5 has "speed x4"
check "playing reaches the end and stops there" \
	wait_for 15 has "sample $n/$n  "
check "stopped at the end: paused" wait_for 3 has "paused"
keys replay h
check "h: the replay keys in the help" wait_for 5 has "go to a time or mark"
keys replay x q
for _ in $(seq 1 300); do # 30 s: a loaded dom0 ends it late; the status is the check
	[ -s "$work/replay.exit" ] && [ -s "$work/live.exit" ] && break
	sleep 0.1
done
check "q quits the replay with status 0" test "$(cat "$work/replay.exit" 2>/dev/null)" = 0
check "the live console quit with status 0" test "$(cat "$work/live.exit" 2>/dev/null)" = 0

# 5. a --dir span of files replayed as one timeline, in Berlin's zone
span=$work/span
"$XIOTOP_BIN" record --dir "$span" --period 2s -d 0.5 --commit-every 0.5 --duration 9 \
	--xenstore-dump "$XENSTORE_DUMP" >/dev/null 2>"$work/span.err" &
span_pid=$!
pids+=("$span_pid")
span_files() { find "$span" -name 'xiotop-*.xrec' 2>/dev/null | sort; }
span_has() { [ "$(span_files | wc -l)" -ge "$1" ] && [ "$(samples "$(span_files | tail -1)")" -ge 2 ]; }
check "the --dir recorder made a first file" wait_for 20 span_has 1
check "xiotop mark early (the running recorder's file)" "$XIOTOP_BIN" mark early
check "two more files" wait_for 20 span_has 3
check "xiotop mark late" "$XIOTOP_BIN" mark late
wait "$span_pid"
check "the --dir recorder ran its 9 s and exited 0" test $? -eq 0
nfiles=$(span_files | wc -l)
# the expected answers, from the files themselves: the span's sample times (a rotation's
# sample counted once), the interval holding each mark, a time in the late part
python3 - "$span" "$work/span.expect" <<'PY'
import glob, sqlite3, sys, time, os
span, out = sys.argv[1:3]
times, marks = set(), {}
for f in sorted(glob.glob(f"{span}/xiotop-*.xrec")):
    db = sqlite3.connect(f"file:{f}?mode=ro", uri=True)
    times.update(t for (t,) in db.execute("SELECT realtime_ns FROM samples"))
    marks.update(db.execute("SELECT label, realtime_ns FROM marks"))
times = sorted(times)
n = len(times) - 1
def at(t):  # the interval holding t: the first sample at or after it, at least 1
    return max(1, min(next((i for i, s in enumerate(times) if s >= t), n), n))
os.environ["TZ"] = "Europe/Berlin"
time.tzset()
def shown(i):
    ns = times[i]
    return time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(ns // 10**9))
k = n - 3
target = times[k] - 250_000_000  # a quarter second before sample k: its interval
iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(target // 10**9)) + \
      f".{target % 10**9 // 10**6:03d}Z"
late = at(marks["late"])
with open(out, "w") as f:
    f.write(f"n={n}\nlate={late}\nlate_time='{shown(late)}'\n")
    f.write(f"iso={iso}\nk={at(target)}\nk_time='{shown(at(target))}'\n")
PY
late="" late_time="" iso="" k="" k_time=""
# shellcheck disable=SC1091 # made just above
. "$work/span.expect"
echo "span: $nfiles files, samples 0..$n; late at $late ($late_time); $iso at $k ($k_time)"
tmux -L "$sock" new-session -d -s span -x 140 -y 30 \
	"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=Europe/Berlin '$XIOTOP_BIN' replay --dir '$span' \
	2>'$work/spanreplay.err'; echo \$? >'$work/spanreplay.exit'"
on=span
check "replay --dir: the console over the $nfiles files as one ($n intervals)" \
	wait_for 10 has "sample 1/$n "
check "the header names the directory and its files" has "replay span ($nfiles files)"
keys span g
keys span -l late
keys span Enter
check "g late: the late file's mark, at its interval" wait_for 5 has "sample $late/$n "
check "g late: the header's time, local with its zone: $late_time" has "$late_time  sample $late/$n "
check "g late: named here" has 'mark here "late"'
keys span g
keys span -l "$iso"
keys span Enter
check "g $iso: the interval holding it (sample $k)" wait_for 5 has "sample $k/$n "
check "g $iso: the header's time in Berlin's zone: $k_time" has "$k_time  sample $k/$n "
keys span g
keys span -l "no such mark"
keys span Enter
check "g with neither a mark nor a time: said, not moved" \
	wait_for 5 has "'no such mark' is neither a mark"
keys span q
for _ in $(seq 1 100); do
	[ -s "$work/spanreplay.exit" ] && break
	sleep 0.1
done
check "q quits the span's replay with status 0" test "$(cat "$work/spanreplay.exit" 2>/dev/null)" = 0

if [ "$failures" -ne 0 ]; then
	show
	for f in live.err record.err replay.err span.err spanreplay.err; do
		[ -s "$work/$f" ] && { echo "$f:"; sed 's/^/  /' "$work/$f" | cat -v; }
	done
	echo "$failures check(s) failed"
	exit 1
fi
echo "all replay checks passed"
