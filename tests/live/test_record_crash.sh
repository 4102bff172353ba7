#!/usr/bin/env bash
# The recorder against what happens to it from outside (issue "Safe to leave on"):
#  - 50 kill -9 at random moments of `record` (0 to 2.5 s after its start: before its
#    file, while the tracer loads, while it samples every 0.2 s), half with -o FILE, half
#    with --dir, one of each at a time (two lanes), an emulated writer busy meanwhile:
#    every file left at a recording's name passes SQLite's integrity_check and opens in
#    xiotop (one killed while it committed, its -journal beside it, once xiotop's reader
#    rolled the journal back: a busy dom0 makes commits long enough to be hit); its
#    samples run 0..n-1 without a gap; its intervals are the first the recorder printed
#    (--print), all but at most one of them (samples are committed every -d here,
#    --commit-every: a kill lands in commits too); its last sample is within the 10 s
#    SCHEMA.md promises of the kill (the count above is the exact check: a recorder a
#    loaded host leaves without CPU for a second samples late, and loses nothing);
#  - the file removed, then renamed (logrotate without copytruncate) under `record -o`:
#    said once each, a new file at the path each time, the renamed one complete on its
#    own (no -wal beside it), and the guest bytes written across the rename are in the
#    renamed file and the new one, once;
#  - with --dir, the file moved out of the directory, then the directory removed: said,
#    the directory made again, a new file each time, every file readable.
# Exit 77 (skipped) without root or zram.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "recording live domains needs root (BPF, loop devices, zram)"
live_require_zram "the emulated domains need zram"
live_require_cmd sqlite3 "no sqlite3 command-line tool (apt-get install sqlite3)"
live_workdir crash
pids=()
lanes=()
before_cleanup() { # the recorders and the writers; a lane of part 1 kills its own recorder
	for p in "${lanes[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
}
export XIOTOP_RUNTIME_DIR="$work/run" # `xiotop mark`'s registry: this test's own
X=$XIOTOP_BIN
D=0.2
wait_for() { # SECONDS COMMAND...: until COMMAND succeeds
	local until=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $until ] || return 1
		sleep 0.1
	done
}
# past_name_second FILE: until the clock has left the second that names FILE
# (xiotop-YYYYmmddTHHMMSSZ.xrec, UTC), so that the next recorder in the same --dir makes
# a file of its own name; at once when that second is over (most kills come later)
past_name_second() {
	local stamp=${1##*/xiotop-}
	stamp=${stamp%Z.xrec}
	local named
	named=$(date -u -d "${stamp:0:8} ${stamp:9:2}:${stamp:11:2}:${stamp:13:2}" +%s) || return 1
	until [ "$(date +%s)" -gt "$named" ]; do sleep 0.05; done
}
# past_period_end SECONDS: at once, unless a --period 1h file would end within SECONDS (files
# are cut on the UTC hour, rec_dir_period_start): then until that hour has begun, so that a
# --dir run makes only the files its checks read (a kill at 2.5 s at most: 5 s; part 3: 40 s)
past_period_end() {
	local into=$(($(date +%s) % 3600))
	if [ "$into" -ge $((3600 - $1)) ]; then sleep $((3600 - into)); fi
}
live_world_up off
set +e

# --- 1. 50 kill -9 at random moments ---
# Two lanes at once, each recorder killed by its own lane: the -o runs (odd i) and the
# --dir runs (even i, alone in their directory, so a new file there is that run's). Every
# kill waits its own 0-2.5 s; the 50 waits, one after the other, were 62 of the test's 77 s.
mkdir "$work/single" "$work/dir"
"$XIOTOP_EMU" blkback --domid 1 --target "$DOM1_DEV" --write-mib 400 --rate-mib-s 4 \
	>/dev/null 2>&1 &
busy=$!
pids+=("$busy")
runs=$work/runs.txt
lane() { # FIRST: runs FIRST, FIRST+2, ... 49 or 50, a line each into runs-FIRST.txt
	local i pid=
	trap 'kill -9 $pid 2>/dev/null; exit 1' TERM
	for i in $(seq "$1" 2 50); do
		ms=$((RANDOM % 2501)) # 0 to 2.5 s, by the millisecond
		delay=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))
		if [ $((i % 2)) -eq 0 ]; then
			mode=dir
			args=(--dir "$work/dir" --period 1h)
			past_period_end 5
		else
			mode=single
			args=(-o "$work/single/r$i.xrec")
		fi
		before=$(ls "$work/dir")
		"$X" record "${args[@]}" -d $D --commit-every $D --xenstore-dump "$XENSTORE_DUMP" --print json \
			>"$work/p$i.json" 2>"$work/e$i.err" &
		pid=$!
		sleep "$delay"
		running=0
		kill -0 "$pid" 2>/dev/null && running=1
		kill -9 "$pid" 2>/dev/null
		killed=$(date +%s%N)
		wait "$pid" 2>/dev/null
		if [ $mode = dir ]; then
			file=$(comm -13 <(echo "$before") <(ls "$work/dir") | grep '\.xrec$' | head -1)
			file=${file:+$work/dir/$file}
			# the next file is named by another second: the one after this file's
			if [ -n "$file" ]; then past_name_second "$file"; fi
		else
			file=$work/single/r$i.xrec
		fi
		echo "$i $mode $delay $killed $running ${file:--}" >>"$work/runs-$1.txt"
	done
}
lane 1 &
lanes+=("$!")
lane 2 &
lanes+=("$!")
wait "${lanes[@]}"
lanes=()
cat "$work/runs-1.txt" "$work/runs-2.txt" >"$runs"
kill "$busy" 2>/dev/null
wait "$busy" 2>/dev/null # its last write done before part 2 counts dom1's bytes
python3 - "$X" "$work" "$D" <<'PY'
import os, sqlite3, subprocess, sys
x, work, d = sys.argv[1], sys.argv[2], float(sys.argv[3])
bad, made, before_file, worst_ms, journals, cold = 0, 0, 0, 0, 0, 0
for row in open(f"{work}/runs.txt"):
    i, mode, delay, killed, running, path = row.split()
    printed = sum(1 for _ in open(f"{work}/p{i}.json"))
    why = []
    if running != "1":
        why.append("the recorder was not running at the kill: "
                   + open(f"{work}/e{i}.err").read().strip()[-200:])
    if path == "-" or not os.path.exists(path):
        before_file += 1
        if printed:
            why.append(f"{printed} intervals printed but no file")
    else:
        made += 1
        jp = path + "-journal"
        first = open(jp, "rb").read(1) if os.path.exists(jp) else None
        if first in (b"", b"\0"):
            # killed before the journal was synced and its header's magic written (zero until
            # then with synchronous=FULL): not hot, no page of the file changed yet; SQLite's
            # readers ignore it, the next transaction replaces it (SCHEMA.md)
            cold += 1
        elif first is not None:
            # killed while it committed: the next process that may write the file rolls the
            # journal back (as monitor/record/SCHEMA.md promises): xiotop's reader here. A
            # recorder killed as it committed its first or second sample leaves fewer than two
            # once rolled back: export then says so (exit 2), the file checked below as any
            journals += 1
            r = subprocess.run([x, "export", path, "--format", "json"], capture_output=True,
                               text=True)
            too_few = r.returncode == 2 and "no complete interval" in r.stderr
            if os.path.exists(path + "-journal") or (r.returncode and not too_few):
                why.append(f"a hot journal not rolled back by export (exit {r.returncode}, "
                           f"journal {'left' if os.path.exists(path + '-journal') else 'gone'}"
                           "): " + r.stderr.strip()[-200:])
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        check = db.execute("PRAGMA integrity_check").fetchone()[0]
        app = db.execute("PRAGMA application_id").fetchone()[0]
        n, top, last = db.execute(
            "SELECT count(*), max(idx), max(realtime_ns) FROM samples").fetchone()
        db.close()
        if check != "ok" or app != 0x78696F74:
            why.append(f"integrity_check {check}, application_id {app:#x}")
        if n and top != n - 1:
            why.append(f"samples not 0..n-1: {n} samples, last index {top}")
        if printed and not printed <= n <= printed + 2:
            why.append(f"{printed} intervals printed, {n} samples in the file")
        r = subprocess.run([x, "export", path, "--format", "json"], capture_output=True,
                           text=True)
        exported = len(r.stdout.splitlines())
        if n >= 2 and (r.returncode or exported != n - 1):
            why.append(f"export: exit {r.returncode}, {exported} intervals: {r.stderr.strip()}")
        shown = open(f"{work}/p{i}.json").read().splitlines()
        k = min(exported, len(shown))
        if n >= 2 and r.stdout.splitlines()[:k] != shown[:k]:
            why.append("the file's intervals are not the first ones printed")
        if n < 2 and "no complete interval" not in r.stderr:
            why.append(f"export of {n} samples: {r.stderr.strip()}")
        if n:
            ms = (int(killed) - last) / 1e6
            worst_ms = max(worst_ms, ms)
            if ms > 10000:
                why.append(f"last sample {ms:.0f} ms before the kill (promised: 10 s)")
    if why:
        bad += 1
        print(f"FAIL run {i} ({mode}, killed at {delay} s): {'; '.join(why)}")
leftovers = [f for sub in ("single", "dir") for f in os.listdir(f"{work}/{sub}") if ".new-" in f]
print(f"     50 kills at 0-2.5 s: {made} files made, {before_file} runs killed before their "
      f"file; the last committed sample at most {worst_ms:.0f} ms before the kill (-d {d}); "
      f"{len(leftovers)} creation leftovers (NAME.new-PID); {journals} killed while committing "
      f"(a -journal left, rolled back by the first reader), {cold} killed as a commit began (an"
      f" empty -journal left, not hot)")
sys.exit(1 if bad else 0)
PY
check $? "every file of 50 killed recorders passes integrity_check, opens, and holds every committed sample"

# --- 2. -o: the file removed, then renamed, under the recorder ---
loop_written() { echo $(($(awk -v d="$DOM1_LOOP" '$3 == d { print $10 }' /proc/diskstats) * 512)); }
f=$work/mv.xrec
"$X" record -o "$f" -d $D --commit-every $D --xenstore-dump "$XENSTORE_DUMP" 2>"$work/mv.err" &
rec=$!
pids+=("$rec")
wait_for 30 live_rec_has_samples "$f" 3
rm "$f"
wait_for 10 grep -q "$f was removed or renamed" "$work/mv.err"
check $? "removed: $(grep -m1 'removed or renamed' "$work/mv.err")"
wait_for 10 live_rec_has_samples "$f" 3
check $? "removed: a new $f, recording"
# 16 MiB at 4 MiB/s, the rename once its loop device took 4 MiB (the kernel's count):
# bytes on both sides of it whenever the writer starts, 3 s of writes at least after it
loop_wrote() { [ "$(loop_written)" -ge "$1" ]; }
before_mv=$(loop_written)
"$XIOTOP_EMU" blkback --domid 1 --target "$DOM1_DEV" --write-mib 16 --rate-mib-s 4 \
	>"$work/mv-writer.json" &
writer=$!
pids+=("$writer")
wait_for 30 loop_wrote $((before_mv + 4 * 1048576))
check $? "the writer wrote 4 MiB before the rename"
mv "$f" "$f.1"
wait "$writer"
sync
n=$(live_rec_samples "$f")
wait_for 30 live_rec_has_samples "$f" $((n + 2)) # one sampled after the writer's end and the sync
kill -INT "$rec"
wait "$rec"
check $? "the recorder exits 0 after both"
# what the loop device took from just before the writer to the end (the kernel's count), said
# beside the figures: a write of another process in it would show there
took=$(($(loop_written) - before_mv))
said=$(grep -c "was removed or renamed" "$work/mv.err")
check "$([ "$said" -eq 2 ] && echo 0 || echo 1)" "said once each time ($said lines)"
check "$([ ! -e "$f.1-journal" ] && [ ! -e "$f-journal" ] && [ "$(sqlite3 "$f.1" 'PRAGMA integrity_check')" = ok ] && echo 0 || echo 1)" \
	"the renamed file stands alone: integrity_check ok, no journal beside it ($(live_rec_samples "$f.1") samples)"
"$X" export "$f.1" --format json >"$work/mv1.json" && "$X" export "$f" --format json >"$work/mv2.json"
check $? "the renamed file and the new one export"
python3 - "$work" "$took" <<'PY'
import json, sys
work, took = sys.argv[1], int(sys.argv[2])
got = [sum(d["guest_wr_bytes"] or 0 for line in open(f"{work}/{n}.json")
           for d in json.loads(line)["domains"] if d["domid"] == 1) for n in ("mv1", "mv2")]
w = json.loads(open(f"{work}/mv-writer.json").read().strip().splitlines()[-1])["wr_bytes"]
print(f"     dom1: {got[0]} bytes in the renamed file + {got[1]} in the new one, written "
      f"{w} ({w/2**20:.2f} MiB); the loop device took {took} from just before the writer to "
      "the end (diskstats)")
sys.exit(0 if sum(got) == w and got[0] and got[1] else 1)
PY
check $? "guest bytes across the rename: renamed + new file == written, each holding a part"

# --- 3. --dir: the file moved out, then the directory removed ---
dir=$work/rot
past_period_end 40
"$X" record --dir "$dir" --period 1h -d $D --commit-every $D --xenstore-dump "$XENSTORE_DUMP" \
	2>"$work/rot.err" &
rec=$!
pids+=("$rec")
wait_for 30 bash -c "ls $dir/xiotop-*.xrec >/dev/null 2>&1"
first=$(find "$dir" -name "xiotop-*.xrec" | sort | head -1)
wait_for 10 live_rec_has_samples "$first" 3
past_name_second "$first" # the next file is named by another second
mv "$first" "$work/aside.xrec"
wait_for 10 grep -q "was removed or renamed" "$work/rot.err"
check $? "moved out: $(grep -m1 'removed or renamed' "$work/rot.err")"
wait_for 10 bash -c "ls $dir/xiotop-*.xrec >/dev/null 2>&1"
check $? "moved out: a new file in $dir"
second=$(find "$dir" -name "xiotop-*.xrec" | sort | head -1)
wait_for 10 live_rec_has_samples "$second" 2 # recording into it
rm -rf "$dir"
wait_for 10 grep -q "was gone: made it again" "$work/rot.err"
check $? "directory removed: $(grep -m1 'was gone' "$work/rot.err")"
wait_for 10 bash -c "ls $dir/xiotop-*.xrec >/dev/null 2>&1"
wait_for 10 live_rec_has_samples "$(find "$dir" -name "xiotop-*.xrec" | sort | head -1)" 2
kill -INT "$rec"
wait "$rec"
check $? "the recorder exits 0 after both"
bad=0
for g in "$work/aside.xrec" "$dir"/xiotop-*.xrec; do
	[ "$(sqlite3 "$g" 'PRAGMA integrity_check')" = ok ] && [ "$(live_rec_samples "$g")" -ge 2 ] || bad=$((bad + 1))
done
check $bad "the moved file and the new one pass integrity_check, each with samples"
"$X" export --dir "$dir" --format json >/dev/null
check $? "export --dir of the directory made again"
live_finish "recorder crash, removal and renaming"
