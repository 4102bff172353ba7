#!/usr/bin/env bash
# Live test of recordings (issue "Record, replay and export sessions"): emulated domains
# recorded while a live `xiotop -b --format json` runs beside the recorder.
#  - what the recorder printed as it recorded (--print json), `xiotop export` and
#    `xiotop -b --from-file` are the same lines, byte for byte;
#  - the recording's per-domain totals against the writers' own counts (guest bytes, exactly)
#    and the kernel's /proc/diskstats around the run (physical bytes at each leaf, double
#    counted bytes at each loop device); the live batch run saw the same totals (both
#    tracers attached before the writers started and sampled after sync);
#  - marks from another shell (registry and -o) appear and bound an export window;
#  - kill -9 mid-recording, then export works; wrap mode marks start/end and exit status;
#  - wrap mode records on until the dirty pages the command left are written back (the
#    host leaf's own diskstats took the command's bytes by the recorder's stop, and the
#    recording's own leaf counts hold them), said;
#    older dirty pages beside the command's do not end or stretch its drain;
#  - a full disk keeps the recorder going (said); it exits 2 when what waited could not be
#    committed; a read-only place and bad files each give their message and exit 2.
# Exit 77 (skipped) without root or zram.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "recording live domains needs root (BPF, loop devices, zram, mounts)"
live_require_zram "the emulated domains need zram"
live_require_cmd sqlite3 "no sqlite3 command-line tool (apt-get install sqlite3)"
live_workdir record
pids=()
before_cleanup() { # the recorders and writers, the tmpfs of the full-disk and read-only steps
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	for m in "$work/full" "$work/ro"; do mountpoint -q "$m" && umount "$m"; done
}
export XIOTOP_RUNTIME_DIR="$work/run" # `xiotop mark` finds this test's recorder only
X=$XIOTOP_BIN
wait_for() { # wait_for SECONDS COMMAND...: until COMMAND succeeds
	local until=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $until ] || return 1
		sleep 0.2
	done
}
has_lines() { [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; }

live_world_up off
dump=$XENSTORE_DUMP
set +e # from here every step is checked and reported, and the test goes on

# --- 1. record beside a live batch run; marks from another shell ---
rec=$work/session.xiotop
"$X" record -o "$rec" -d 1 --xenstore-dump "$dump" --print json >"$work/printed.json" \
	2>"$work/record.err" &
rec_pid=$!
pids+=("$rec_pid")
"$X" -b --format json -d 1 --xenstore-dump "$dump" >"$work/live.json" 2>"$work/live.err" &
live_pid=$!
pids+=("$live_pid")
if ! wait_for 30 live_rec_has_samples "$rec" 2 || ! wait_for 30 has_lines "$work/live.json" 1; then
	check 1 "recorder and live batch running"
	cat "$work/record.err" "$work/live.err"
	exit 1 # nothing below can be checked
fi
check 0 "recorder and live batch running"
cp /proc/diskstats "$work/diskstats.before"
"$X" mark "bench start" >/dev/null
check $? "xiotop mark (no -o) reaches the running recorder"
for d in 1 2 3; do
	dev_var=DOM${d}_DEV
	"$XIOTOP_EMU" blkback --domid "$d" --target "${!dev_var}" --write-mib 96 --read-mib 32 \
		>"$work/writer$d.json" &
	pids+=($!)
done
wait "${pids[@]:2}"
sync
"$X" mark -o "$rec" "bench end" >/dev/null
check $? "xiotop mark -o FILE"
n=$(live_rec_samples "$rec")
wait_for 30 live_rec_has_samples "$rec" $((n + 2))
lines=$(wc -l <"$work/live.json")
wait_for 30 has_lines "$work/live.json" $((lines + 2))
cp /proc/diskstats "$work/diskstats.after"
kill -INT "$rec_pid" "$live_pid"
rec_rc=0
wait "$rec_pid" || rec_rc=$?
wait "$live_pid" || true
check $rec_rc "recorder stops cleanly on SIGINT (exit $rec_rc)"
check "$([ "$(stat -c %a "$rec")" = 640 ] && echo 0 || echo 1)" "recording is 0640"
check "$([ ! -e "$rec-wal" ] && [ ! -e "$rec-journal" ] && echo 0 || echo 1)" \
	"nothing left beside the file on close"

"$X" export "$rec" --format json >"$work/export.json"
check $? "export exits 0"
cmp -s "$work/printed.json" "$work/export.json"
check $? "export JSON == what the recorder printed as batch JSON ($(wc -l <"$work/export.json") intervals)"
"$X" -b --format json --from-file "$rec" >"$work/fromfile.json"
cmp -s "$work/printed.json" "$work/fromfile.json"
check $? "-b --from-file JSON == the same lines"
"$X" export "$rec" --format csv >"$work/export.csv" &&
	"$X" -b --format csv --from-file "$rec" >"$work/fromfile.csv" &&
	cmp -s "$work/export.csv" "$work/fromfile.csv"
check $? "export CSV == -b --from-file CSV"
"$X" replay "$rec" >"$work/replay.txt" && "$X" -b --from-file "$rec" >"$work/fromfile.txt" &&
	diff <(grep -v '^mark: ' "$work/replay.txt") "$work/fromfile.txt" >/dev/null &&
	grep -q '^mark: bench start$' "$work/replay.txt"
check $? "replay prints the intervals (batch text) with the marks"

python3 "$XIOTOP_SRC/tests/live/record_check.py" "$work/live.json" "$work/export.json" "$work" \
	"$HOST_ZRAM" "$DOM3_ZRAM" "$DOM1_LOOP" "$DOM2_LOOP"
check $? "the recording against the writers and the kernel's diskstats, and the live batch run"


labels=$(sqlite3 "$rec" "SELECT group_concat(label, '|') FROM (SELECT label FROM marks ORDER BY realtime_ns)")
check "$([ "$labels" = "bench start|bench end" ] && echo 0 || echo 1)" "marks in the file: $labels"
"$X" export "$rec" --format json --from "bench start" --to "bench end" >"$work/window.json"
python3 - "$work/window.json" "$work" <<'EOF'
import json, sys
path, work = sys.argv[1:3]
ivs = [json.loads(l) for l in open(path)]
bad = 0
for domid in (1, 2, 3):
    w = json.loads(open(f"{work}/writer{domid}.json").read().strip().splitlines()[-1])
    got = sum(d["guest_wr_bytes"] for iv in ivs for d in iv["domains"] if d["domid"] == domid)
    ok = got == w["wr_bytes"]
    print(f"{'ok  ' if ok else 'FAIL'} window between the marks: dom{domid} {got} of {w['wr_bytes']} bytes written ({len(ivs)} intervals)")
    bad += not ok
sys.exit(1 if bad else 0)
EOF
check $? "export --from MARK --to MARK holds the benchmark"

# The README's per-domain totals, as a user would run them (its FILE: the recording).
readme=$(awk '/^```sh$/ { on = 1; next } on && /^```$/ { exit } on' "$XIOTOP_SRC/README.md")
xiotop() { "$X" "$@"; }
FILE=$rec eval "${readme//FILE/\"\$FILE\"}" >"$work/totals.txt"
grep -q guest1 "$work/totals.txt" && grep -q guest3 "$work/totals.txt"
check $? "README export command lists per-domain totals"
sed 's/^/     /' "$work/totals.txt"

# --- 2. kill -9 mid-recording, then export ---
rec2=$work/killed.xiotop
"$X" record -o "$rec2" -d 0.5 --xenstore-dump "$dump" 2>/dev/null &
k_pid=$!
pids+=("$k_pid")
wait_for 30 live_rec_has_samples "$rec2" 2
"$XIOTOP_EMU" blkback --domid 1 --target "$DOM1_DEV" --write-mib 64 --rate-mib-s 32 >/dev/null &
w_pid=$!
pids+=("$w_pid")
wait_for 30 live_rec_has_samples "$rec2" 4 # mid-recording, the writer busy: two samples on
kill -9 "$k_pid"
wait "$k_pid" 2>/dev/null || true
wait "$w_pid"
n2=$(live_rec_samples "$rec2")
"$X" export "$rec2" --format json >"$work/killed.json"
check $? "export after kill -9 exits 0"
check "$([ "$(wc -l <"$work/killed.json")" -eq $((n2 - 1)) ] && [ "$n2" -ge 2 ] && echo 0 || echo 1)" \
	"kill -9: $n2 committed samples, $((n2 - 1)) intervals exported"
out=$("$X" mark "after kill" 2>&1)
mark_rc=$?
check "$([ $mark_rc -eq 2 ] && grep -q 'is gone' <<<"$out" && echo 0 || echo 1)" \
	"mark after the recorder died: exit $mark_rc, $out"

# --- 3. wrap mode ---
rec3=$work/wrap.xiotop
"$X" record -o "$rec3" -d 0.5 --tail 1.5 --xenstore-dump "$dump" -- \
	sh -c "'$XIOTOP_EMU' blkback --domid 3 --target '$DOM3_DEV' --write-mib 32 >/dev/null; exit 3" \
	2>"$work/wrap.err"
wrap_rc=$?
check "$([ $wrap_rc -eq 3 ] && echo 0 || echo 1)" "wrap mode returns the command's exit status ($wrap_rc)"
marks=$(sqlite3 "$rec3" "SELECT origin || ':' || coalesce(exit_status, '-') || ':' || label FROM marks ORDER BY realtime_ns")
echo "$marks" | head -1 | grep -q "^wrap:-:start: sh -c" && echo "$marks" | sed -n 2p | grep -q "^wrap:3:end: sh -c .*(exit 3)$"
check $? "wrap mode marks start and end with the exit status"
tail_s=$(sqlite3 "$rec3" "SELECT ((SELECT max(realtime_ns) FROM samples) - (SELECT realtime_ns FROM marks WHERE exit_status IS NOT NULL)) / 1e9")
check "$(python3 -c "import sys; sys.exit(0 if 1.5 <= $tail_s < 3 else 1)" && echo 0 || echo 1)" \
	"recording goes on --tail 1.5 s after the command ends (${tail_s} s)"

# --- 3b. wrap mode, by default: on until the dirty pages it left are written back ---
# guest1's loop device has direct I/O off: its writes land in dom0's page cache of the
# image file and reach the host leaf (HOST_ZRAM) by writeback, after the writer ended.
rec4=$work/drain.xiotop
leaf_wr() { awk -v d="$HOST_ZRAM" '$3 == d { print $10 * 512 }' /proc/diskstats; }
sync # part 2's pages written back: none older than the recording is written back in it (3c)
leaf_before=$(leaf_wr)
"$X" record -o "$rec4" -d 0.5 --xenstore-dump "$dump" -- \
	"$XIOTOP_EMU" blkback --domid 1 --target "$DOM1_DEV" --write-mib 32 >/dev/null 2>"$work/drain.err"
drain_rc=$?
leaf_after=$(leaf_wr)
waits=$(grep -m1 "ended at .* recording until the .* MiB dirty in dom0's page cache" "$work/drain.err")
done_line=$(grep -m1 "written back .* s after the end: stopping" "$work/drain.err")
check "$([ $drain_rc -eq 0 ] && [ -n "$waits" ] && [ -n "$done_line" ] && echo 0 || echo 1)" \
	"wrap mode says when the command ended and what it waits for: ${waits#xiotop: }; ${done_line#xiotop: }"
# The tracer counts a written-back bio as it is queued, the leaf's diskstats as it completes:
# one bio of the image's writeback can hold all 32 MiB (ext4's large folios), and the drain
# ends only at a sample where the leaf had no I/O in progress (rec_drain.h), so the
# recording's own leaf counts hold the bytes too, not only diskstats read after it stopped.
"$X" export "$rec4" --format json >"$work/drain.json"
python3 - "$leaf_before" "$leaf_after" "$work/drain.json" "$HOST_ZRAM" <<'EOF'
import json, sys
before, after = map(int, sys.argv[1:3])
recorded = sum(d["wr_bytes"] for line in open(sys.argv[3])
               for d in json.loads(line)["host"]["disks"] if d["dev"] == sys.argv[4])
ok = after - before >= 32 << 20 and recorded >= 32 << 20
print(f"     host leaf {(after - before) / 2**20:.1f} MiB written by the recorder's stop, "
      f"{recorded / 2**20:.1f} MiB in the recording's own counts; the command wrote 32.0")
sys.exit(0 if ok else 1)
EOF
check $? "the recording holds the drain: the host leaf's diskstats took the command's bytes by its stop, and so did the recording's last sample"
drained=$(sqlite3 "$rec4" "SELECT (SELECT max(realtime_ns) FROM samples) - (SELECT realtime_ns FROM marks WHERE exit_status IS NOT NULL)")
mark=$(sqlite3 "$rec4" "SELECT label FROM marks WHERE label LIKE 'drain: %'")
check "$(python3 -c "import sys; sys.exit(0 if 0 < $drained / 1e9 < 45 else 1)" && [ -n "$mark" ] &&
	echo 0 || echo 1)" "recorded $(python3 -c "print(f'{$drained / 1e9:.1f}')") s after the end, within the bound; mark: $mark"

# --- 3c. older dirty pages beside the command's: its own drain still ends it ---
# 64 MiB dirtied before the recorder starts, 32 by its command past them (over pages still
# dirty a write dirties nothing new: the command would seem to leave nothing, rec_drain.h).
# The flusher writes the image's dirty pages together once the older ones expire; the
# domain's written-back bytes are counted up to what it dirtied while traced (bpf/bio.bpf.h
# tally_written_back), so the older 64 MiB never pass its dirtied ones: the recording goes on
# until the command's 32 MiB are written back, which is when the older pages' expiry
# (30 s) wrote them, and says so.
rec5=$work/older.xiotop
"$XIOTOP_EMU" blkback --domid 1 --target "$DOM1_DEV" --write-mib 64 >/dev/null
"$X" record -o "$rec5" -d 0.5 --xenstore-dump "$dump" -- \
	"$XIOTOP_EMU" blkback --domid 1 --target "$DOM1_DEV" --write-mib 32 --offset-mib 64 \
	>/dev/null 2>"$work/older.err"
older_rc=$?
said=$(grep -m1 "recording until the 32.0 MiB dirty in dom0's page cache (domain 1)" "$work/older.err")
mark=$(sqlite3 "$rec5" "SELECT label FROM marks WHERE label LIKE 'drain: 32.0 MiB written back%'")
check "$([ $older_rc -eq 0 ] && [ -n "$said" ] && [ -n "$mark" ] && echo 0 || echo 1)" \
	"older pages beside the command's: ${said#xiotop: }; mark: $mark"

# --- 4. a full disk: said, the recorder goes on; exit 2 when what waited is lost ---
mkdir "$work/full"
mount -t tmpfs -o size=1m tmpfs "$work/full"
timeout 60 "$X" record -o "$work/full/rec.xiotop" -d 0.1 --commit-every 0.5 --duration 8 \
	--xenstore-dump "$dump" 2>"$work/full.err" &
full_pid=$!
pids+=("$full_pid")
# another writer takes the rest of the file system once the recording has committed samples
wait_for 30 live_rec_has_samples "$work/full/rec.xiotop" 2
dd if=/dev/zero of="$work/full/filler" bs=4k 2>/dev/null
full_rc=0
wait "$full_pid" || full_rc=$?
said=$(grep -c "is full: samples wait in memory" "$work/full.err")
check "$(grep -q "samples (of [0-9]*) could not be committed" "$work/full.err" &&
	[ $full_rc -eq 2 ] && [ "$said" -eq 1 ] && echo 0 || echo 1)" \
	"disk full: said $said times, exit $full_rc, $(grep 'could not be committed' "$work/full.err" | head -1)"
"$X" export "$work/full/rec.xiotop" --format csv >/dev/null
check $? "the recording of a full disk exports"
umount "$work/full"

# --- 5. places and files that are not recordings: a message and exit 2 each ---
expect_2() { # expect_2 TEXT COMMAND...
	local text=$1 out rc=0
	shift
	out=$("$@" 2>&1 >/dev/null) || rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$text" <<<"$out"; then
		echo "ok   exit 2: $out"
	else
		echo "FAIL want exit 2 and '$text', got exit $rc: $out"
		fails=$((fails + 1))
	fi
}
mkdir "$work/ro"
mount -t tmpfs -o ro,size=64k tmpfs "$work/ro"
expect_2 "cannot create recording .*Read-only file system" \
	"$X" record -o "$work/ro/x.xiotop" --xenstore-dump "$dump"
umount "$work/ro"
expect_2 "exists: a recording is never overwritten" "$X" record -o "$rec" --xenstore-dump "$dump"
: >"$work/empty.xiotop"
expect_2 "is empty (0 bytes)" "$X" export "$work/empty.xiotop"
head -c 20000 /dev/urandom >"$work/garbage.xiotop"
expect_2 "not an SQLite database" "$X" export "$work/garbage.xiotop"
cp "$rec" "$work/cut.xiotop"
truncate -s $(($(stat -c %s "$rec") / 2)) "$work/cut.xiotop"
expect_2 "is truncated" "$X" export "$work/cut.xiotop"
sqlite3 "$work/foreign.db" "CREATE TABLE t (a); INSERT INTO t VALUES (1)"
expect_2 "an SQLite database but not an xiotop recording" "$X" export "$work/foreign.db"
cp "$rec" "$work/newer.xiotop"
sqlite3 "$work/newer.xiotop" "PRAGMA user_version=9"
expect_2 "schema version 9 .* reads schema versions up to 4" "$X" -b --from-file "$work/newer.xiotop"
expect_2 "neither a mark" "$X" export "$rec" --from "no such mark"

live_finish record
