#!/usr/bin/env bash
# The always-on recorder (issue "Installed like a system tool"): the command line of
# dist/xiotop-record.service, run under this test's supervisor (systemd is not PID 1 on
# the machines this suite runs on; with Restart=on-failure as the unit says), with a tiny
# period and retention, over emulated domains:
#  - files rotate at period boundaries and the oldest go;
#  - export --dir across the files gives the same per-domain totals as a single-file
#    recording of the same run (and as the emulated writers wrote);
#  - a SIGKILL mid-file loses at most what waited for its commit (record.h: 10 s); the
#    supervisor restarts the recorder into a new file;
#  - on a 1 MiB file system filled by another writer, twice, the recorder goes on: it says
#    so once each time, keeps its samples waiting in memory and commits them when space
#    returns (said once each time), so the files' times lack no sample; while the file
#    system is still full every reader (export of each file and of the directory, replay
#    -b, explain) reads every sample committed; every file passes integrity_check, and the
#    bytes across the episodes are those written.
# Every run is the unit's ExecStart in the unit's sandbox as far as it can be emulated
# without systemd (unit_sandbox.sh: its capabilities only, no new privileges, a read-only
# file system but the recording and runtime directories), dropping to user nobody once
# attached (--user): the counts above are made after the drop.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
# shellcheck source=unit_sandbox.sh
. "$XIOTOP_SRC/tests/live/unit_sandbox.sh"
live_require_root "recording live domains needs root (BPF, loop devices, zram)"
live_require_zram "the emulated domains need zram"
live_workdir svc
pids=()
before_cleanup() { # the supervisors, the recorders they started, the writers
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	pkill -9 -f "record --dir $work" 2>/dev/null || true
	if mountpoint -q "$work/fullrec"; then umount -l "$work/fullrec"; fi
}
export XIOTOP_RUNTIME_DIR="$work/run"
chmod 755 "$work" # the recorder goes on as nobody: it must reach its directories
unit=$XIOTOP_SRC/dist/xiotop-record.service
X=$XIOTOP_BIN
live_world_up off

# The unit's ExecStart, with this test's settings in its environment variables.
unit_cmd() { # DIR PERIOD RETAIN [RETAIN_SIZE]
	local line
	line=$(sed -n 's/^ExecStart=//p' "$unit")
	XIOTOP_DIR=$1 XIOTOP_INTERVAL=0.5 XIOTOP_PERIOD=$2 XIOTOP_RETAIN=$3 XIOTOP_RETAIN_SIZE=${4:-0} \
		XIOTOP_USER=nobody XIOTOP_OPTS="--xenstore-dump $XENSTORE_DUMP" \
		bash -c "echo \"$line\"" | sed "s|^/usr/sbin/xiotop|$X|"
}
# A supervisor as the unit asks for: restart 1 s after a failure but the unit's
# RestartPreventExitStatus (2: stopped, said in DIR.stopped), stop on SIGTERM.
supervise() { # DIR PERIOD RETAIN [RETAIN_SIZE]
	local cmd child rc prevent
	cmd=$(unit_cmd "$@")
	prevent=$(sed -n 's/^RestartPreventExitStatus=//p' "$unit")
	trap 'kill -TERM $child 2>/dev/null; wait $child; exit 0' TERM
	while :; do
		# shellcheck disable=SC2086 # the unit's command line, split as systemd does
		(unit_sandboxed "$unit" "$1" "$XIOTOP_RUNTIME_DIR" -- $cmd) 2>>"$1.err" &
		child=$!
		wait $child
		rc=$?
		[ $rc -eq 0 ] && exit 0
		if [[ " $prevent " == *" $rc "* ]]; then
			echo "stopped: exit $rc" >>"$1.stopped"
			exit 0
		fi
		echo "restart" >>"$1.restarts"
		sleep 1
	done
}
samples() { sqlite3 "$1" 'SELECT count(*) FROM samples' 2>/dev/null || echo 0; }
wait_for() { # SECONDS COMMAND...
	local until=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $until ] || return 1
		sleep 0.2
	done
}
files_in() { ls "$1"/xiotop-*.xrec 2>/dev/null; }
has_samples() { [ -s "$1" ] && [ "$(samples "$1")" -ge "$2" ]; }
# sampled_since NS FILE|DIR...: a sample stamped after NS (date +%s%N) is committed in one
# of the recordings (a DIR: its files as they are now); its counts are the kernel's after NS
sampled_since() {
	local t=$1 f last=0 v files=()
	shift
	for f in "$@"; do
		if [ -d "$f" ]; then mapfile -t -O "${#files[@]}" files < <(files_in "$f"); else files+=("$f"); fi
	done
	for f in "${files[@]}"; do
		v=$(sqlite3 "$f" 'SELECT max(realtime_ns) FROM samples' 2>/dev/null) || continue
		[ -n "$v" ] && [ "$v" -gt "$last" ] && last=$v
	done
	[ "$last" -gt "$t" ]
}
loop_written() { echo $(($(awk -v d="$DOM1_LOOP" '$3 == d { print $10 }' /proc/diskstats) * 512)); }
loop_wrote() { [ "$(loop_written)" -ge "$1" ]; }
set +e

# --- 1. rotation, retention, and one recording across files ---
rot=$work/rot
supervise "$rot" 3s 10s &
sup=$!
pids+=("$sup")
"$X" record -o "$work/single.xrec" -d 0.5 --xenstore-dump "$XENSTORE_DUMP" 2>"$work/single.err" &
single=$!
pids+=("$single")
wait_for 30 has_samples "$work/single.xrec" 2
wait_for 30 bash -c "ls $rot/xiotop-*.xrec >/dev/null 2>&1"
seen=$work/seen
: >"$seen"
( while kill -0 "$sup" 2>/dev/null; do files_in "$rot" >>"$seen"; sleep 0.3; done ) &
pids+=($!)
sleep 12 # a few idle periods: the files of these go when retention passes
for d in 1 2 3; do
	dev_var=DOM${d}_DEV
	"$XIOTOP_EMU" blkback --domid "$d" --target "${!dev_var}" --write-mib 48 \
		--rate-mib-s 16 >"$work/writer$d.json" &
	pids+=($!)
done
wait "${pids[@]:3}" 2>/dev/null
sync
now=$(date +%s%N)
wait_for 30 sampled_since "$now" "$work/single.xrec" && wait_for 30 sampled_since "$now" "$rot"
check $? "both recorders sampled after the writers and the sync"
kill -TERM "$sup"
kill -INT "$single"
wait "$sup" "$single"
n_seen=$(sort -u "$seen" | wc -l)
n_left=$(files_in "$rot" | wc -l)
check "$([ "$n_seen" -ge 5 ] && echo 0 || echo 1)" "files rotated: $n_seen files over the run (period 3 s)"
first_seen=$(sort -u "$seen" | head -1)
check "$([ ! -e "$first_seen" ] && [ "$n_left" -lt "$n_seen" ] && echo 0 || echo 1)" \
	"retention: the oldest went ($n_left of $n_seen left)"
check "$([ ! -s "$rot.restarts" ] && echo 0 || echo 1)" "no restart while running normally"
drops=$(grep -c "attached; now user nobody (uid [0-9]*, gid [0-9]*), no capabilities" "$rot.err")
check "$([ "$drops" -ge 1 ] && ! grep -q "sandbox:" "$rot.err" && echo 0 || echo 1)" \
	"in the unit's sandbox, dropped to nobody once attached: $(grep -m1 "now user" "$rot.err")"
owners=$(stat -c %U "$rot" "$rot"/xiotop-*.xrec | sort -u | paste -sd, -)
check "$([ "$owners" = nobody ] && echo 0 || echo 1)" "the directory and its files are nobody's ($owners)"
"$X" export --dir "$rot" --format json >"$work/dir.json"
check $? "export --dir exits 0 ($(wc -l <"$work/dir.json") intervals)"
"$X" export "$work/single.xrec" --format json >"$work/single.json"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def totals(path):
    t = {}
    for line in open(path):
        for d in json.loads(line)["domains"]:
            t[d["domid"]] = t.get(d["domid"], 0) + d["guest_wr_bytes"]
    return t
rot, single = totals(f"{work}/dir.json"), totals(f"{work}/single.json")
bad = 0
for domid in (1, 2, 3):
    w = json.loads(open(f"{work}/writer{domid}.json").read().strip().splitlines()[-1])
    a, b, truth = rot.get(domid, 0), single.get(domid, 0), w["wr_bytes"]
    ok = a == b == truth
    bad += not ok
    print(f"{'ok  ' if ok else 'FAIL'} dom{domid}: across files {a/2**20:.1f} MiB, single file {b/2**20:.1f} MiB, written {truth/2**20:.1f} MiB")
sys.exit(1 if bad else 0)
PY
check $? "per-domain guest bytes across the files == single-file recording == written"

# --- 2. SIGKILL mid-file: at most the interval in flight is lost; restarted ---
kill9=$work/kill9
supervise "$kill9" 1h 0 &
sup=$!
pids+=("$sup")
wait_for 30 bash -c "ls $kill9/xiotop-*.xrec >/dev/null 2>&1"
file1=$(files_in "$kill9" | head -1)
wait_for 30 has_samples "$file1" 8
rec_pid=$(pgrep -f "record --dir $kill9" | head -1)
kill -9 "$rec_pid"
killed_at=$(date +%s%N)
wait_for 30 bash -c "[ \$(ls $kill9/xiotop-*.xrec | wc -l) -ge 2 ]"
check $? "the supervisor restarted the recorder into a new file"
last=$(sqlite3 "$file1" 'SELECT max(realtime_ns) FROM samples')
lost_ms=$(((killed_at - last) / 1000000))
# what waited for its commit: at most 10 s of samples (REC_COMMIT_AGE_NS), and the one
# being taken (interval 500 ms)
check "$([ "$lost_ms" -le 11000 ] && echo 0 || echo 1)" \
	"killed file readable, its last sample ${lost_ms} ms before the kill (commits every 10 s)"
"$X" export "$file1" --format json >/dev/null
check $? "export of the killed file exits 0"
kill -TERM "$sup"
wait "$sup"

# --- 3. a full file system (1 MiB tmpfs), twice: said, nothing lost, readable while full ---
# No retention (it would remove the file before the gap, and the bytes with it): the run
# is short enough for the recorder's own files to stay well under the 1 MiB; a filler
# takes the rest. A writer runs across both episodes, so its bytes cross them.
full=$work/fullrec
mkdir -p "$full"
mount -t tmpfs -o size=1m,mode=755 tmpfs "$full"
# each sample's instant said as the recorder takes it (XIOTOP_TEST_SAMPLES): what "no
# sample lost" is judged against below
XIOTOP_TEST_SAMPLES=1 supervise "$full" 3s 0 &
sup=$!
pids+=("$sup")
wait_for 30 bash -c "ls $full/xiotop-*.xrec >/dev/null 2>&1"
wait_for 30 has_samples "$(files_in "$full" | head -1)" 2
"$XIOTOP_EMU" blkback --domid 1 --target "$DOM1_DEV" --write-mib 20 --rate-mib-s 1 \
	>"$work/full-writer.json" &
writer=$!
pids+=("$writer")
# every reader while the file system is full: each reads every sample committed (the
# counts sqlite3 gives; a reader makes nothing beside a file: it would find no room)
readers_while_full() { # EPISODE
	local f n bad=0 total=0 distinct out
	for f in "$full"/xiotop-*.xrec; do
		n=$(sqlite3 "$f" 'SELECT count(*) FROM samples')
		total=$((total + n))
		[ "$n" -ge 2 ] || continue
		out=$("$X" export "$f" --format json | wc -l)
		[ "$out" -eq $((n - 1)) ] || { echo "     export $f: $out intervals of $n samples"; bad=1; }
		out=$("$X" replay -b "$f" --format json | wc -l)
		[ "$out" -eq $((n - 1)) ] || { echo "     replay -b $f: $out intervals of $n samples"; bad=1; }
		out=$("$X" explain "$f" --format json | python3 -c \
			'import json,sys; w=json.load(sys.stdin)["window"]; print(w["first_sample"], w["last_sample"])')
		[ "$out" = "0 $((n - 1))" ] || { echo "     explain $f: samples $out of $n"; bad=1; }
	done
	distinct=$(for f in "$full"/xiotop-*.xrec; do sqlite3 "$f" 'SELECT realtime_ns FROM samples'; done |
		sort -u | wc -l)
	out=$("$X" export --dir "$full" --format json | wc -l)
	[ "$out" -eq $((distinct - 1)) ] || { echo "     export --dir: $out intervals of $distinct samples"; bad=1; }
	check "$([ $bad -eq 0 ] && [ "$(df --output=avail -B1 "$full" | tail -1)" -lt 16384 ] &&
		echo 0 || echo 1)" \
		"episode $1, still full: export, replay -b, explain of each file and export --dir read every committed sample ($total in $(files_in "$full" | wc -l) files, $distinct distinct)"
}
for episode in 1 2; do
	dd if=/dev/zero of="$full/filler" bs=4k 2>/dev/null # the rest of the space
	wait_for 40 bash -c "[ \$(grep -c 'is full: ' $full.err) -ge $episode ]"
	check $? "episode $episode, disk full: $(grep 'is full: ' "$full.err" | tail -1)"
	before=$(loop_written)
	# 2 s of the writer's bytes at least while the disk is full (the kernel's count)
	wait_for 30 loop_wrote $((before + 2 * 1048576))
	check $? "episode $episode, the writer wrote 2 MiB while the disk was full"
	readers_while_full "$episode"
	rm -f "$full/filler"
	wait_for 30 bash -c "[ \$(grep -c 'recording again in' $full.err) -ge $episode ]"
	check $? "episode $episode, space back: $(grep 'recording again' "$full.err" | tail -1)"
	sleep 2
done
wait "$writer"
sync
now=$(date +%s%N)
wait_for 30 sampled_since "$now" "$full"
check $? "the recorder sampled after the writer and the sync"
kill -TERM "$sup"
wait "$sup"
said=$(grep -c "is full: " "$full.err")
check "$([ "$said" -eq 2 ] && echo 0 || echo 1)" "the full disk said once an episode ($said times in 2)"
check "$([ ! -s "$full.restarts" ] && echo 0 || echo 1)" "no restart on the full disk"
bad=0
for f in "$full"/xiotop-*.xrec; do
	[ "$(sqlite3 "$f" 'PRAGMA integrity_check')" = ok ] || bad=$((bad + 1))
done
check $bad "every file passes integrity_check ($(files_in "$full" | wc -l) files)"
lost_said=$(grep -c "a sample not kept" "$full.err")
# Every sample the recorder took (it says each as it comes in) is in the files, and none
# is there that it did not take. The files' times alone cannot say it: a sample that took
# longer than the interval (its write waited behind a reader's lock, or for the CPU) makes
# the pacer skip the slot after it, a stretched interval, not a lost sample (a loaded
# fresh clone's run counted one such gap as lost); they are printed.
taken=$(sed -n 's/^xiotop-test: sample //p' "$full.err" | sort -u)
kept=$(for f in "$full"/xiotop-*.xrec; do sqlite3 "$f" 'SELECT realtime_ns FROM samples'; done | sort -u)
missing=$(comm -23 <(echo "$taken") <(echo "$kept") | grep -c . || true)
unknown=$(comm -13 <(echo "$taken") <(echo "$kept") | grep -c . || true)
stretched=$(echo "$kept" | awk 'NR > 1 { k = int(($1 - prev) / 500000000 + 0.5) - 1; if (k > 0) n += k }
	{ prev = $1 } END { print n + 0 }')
check "$([ "$lost_said" -eq 0 ] && [ "$missing" -eq 0 ] && [ "$unknown" -eq 0 ] &&
	[ "$(echo "$taken" | grep -c .)" -gt 0 ] && echo 0 || echo 1)" \
	"no sample lost: $(echo "$taken" | grep -c .) taken, $missing of them missing from the files, $unknown in the files not taken, $lost_said said not kept ($stretched slots skipped by the pacer after a slow sample)"
"$X" export --dir "$full" --format json >"$work/full.json"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
got = sum(d["guest_wr_bytes"] or 0 for line in open(f"{work}/full.json")
          for d in json.loads(line)["domains"] if d["domid"] == 1)
w = json.loads(open(f"{work}/full-writer.json").read().strip().splitlines()[-1])["wr_bytes"]
print(f"     dom1 across the files, through both episodes: {got/2**20:.2f} MiB, written {w/2**20:.2f} MiB")
sys.exit(0 if got == w else 1)
PY
check $? "guest bytes across the full-disk episodes == written"
umount "$full"
live_finish "recorder service"
