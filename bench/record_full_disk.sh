#!/usr/bin/env bash
# Issue "Safe to leave on": the always-on recorder on a 1 MiB file system for 5 minutes.
# `xiotop record --dir` (interval 0.5 s, a file every 15 s, retention by size 512 KiB) on
# a 1 MiB tmpfs, over the emulated domains, with a writer moving bytes the whole time:
#   0 s        recording; files rotate and the oldest go by the size rule
#   FILL1      a filler takes every free byte: samples wait in the recorder's memory
#   FREE1      the filler goes: what waited is committed, recording again
#   FILL2      a second filler, FREE2 it goes
#   DURATION   SIGTERM: the recorder's last sample, exit
# Every file is copied out once closed, before the size rule removes it,
# and its sample times and PRAGMA integrity_check read from the copy; the ones left at
# the end are read in place. Printed, from the copies and the recorder's own lines (never
# another xiotop output): samples recorded, samples missing from the files' times (each
# gap of k intervals lacks k - 1), the samples the recorder said it lost ("recording again
# in ...; N were lost meanwhile", and its closing "N samples lost"), when it said "is full"
# (once an episode), files made and removed by the rule, files failing integrity_check.
# The domain's bytes against the writer's count are not checked here (the size rule
# removes the early ones); tests/live/test_recorder_service.sh checks them across a loss.
# Exit 0 when the missing samples are those said, every file passes integrity_check, each
# episode was said once as it began and once as it ended, and the recorder ran to the end
# without failing.
# Usage: bench/record_full_disk.sh [BUILD_DIR]   (root, zram and loop; hold the live
# lock: flock /tmp/xiotop-live.lock bench/record_full_disk.sh build)
# Timings (seconds) from the environment: DURATION=300 FILL1=45 FREE1=195 FILL2=235 FREE2=260.
set -euo pipefail
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
X="$build/xiotop"
EMU="$build/xiotop-emu"
duration=${DURATION:-300}
fill1=${FILL1:-45}
free1=${FREE1:-195}
fill2=${FILL2:-235}
free2=${FREE2:-260}
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (BPF, loop devices, mount)" >&2; exit 2; }
if [ ! -x "$X" ] || [ ! -x "$EMU" ]; then
	echo "bench: $X or $EMU not built (make build)" >&2
	exit 2
fi
command -v sqlite3 >/dev/null || { echo "bench: sqlite3 missing (make deps)" >&2; exit 2; }

work=$(mktemp -d /tmp/xiotop-fullbench.XXXXXX)
dir=$work/rec
rec_pid=
writer_pid=
cleanup() {
	if [ -n "$rec_pid" ]; then kill -9 "$rec_pid" 2>/dev/null || true; fi
	if [ -n "$writer_pid" ]; then kill -9 "$writer_pid" 2>/dev/null || true; fi
	mountpoint -q "$dir" && umount -l "$dir"
	bash "$src/tests/emu/emu.sh" down "$work/world" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM HUP
bash "$src/tests/emu/emu.sh" up "$work/world" --dio off >/dev/null
# shellcheck disable=SC1091
. "$work/world/env"
mkdir -p "$dir" "$work/copies"
mount -t tmpfs -o size=1m,mode=755 tmpfs "$dir"

# The recorder's lines, each with the seconds since the start.
t0=$(date +%s%N)
"$X" record --dir "$dir" -d 0.5 --period 15s --retain 0 --retain-size 524288 \
	--xenstore-dump "$XENSTORE_DUMP" 2> >(while IFS= read -r line; do
		echo "$((($(date +%s%N) - t0) / 1000000)) $line"
	done >"$work/rec.err") &
rec_pid=$!
"$EMU" blkback --domid 1 --target "$DOM1_DEV" --write-mib $((duration * 2 / 3)) --rate-mib-s 1 \
	>/dev/null 2>&1 &
writer_pid=$!

# Closed files (all but the newest) copied out once; at the end every file, in place.
harvest() { # final?
	local f newest copy
	newest=$(find "$dir" -maxdepth 1 -name 'xiotop-*.xrec' | sort | tail -1)
	for f in "$dir"/xiotop-*.xrec; do
		[ -e "$f" ] || continue
		copy=$work/copies/$(basename "$f")
		[ -e "$copy" ] && continue
		if [ -z "${1:-}" ]; then
			[ "$f" != "$newest" ] || continue
			cp "$f" "$copy.tmp" 2>/dev/null || { rm -f "$copy.tmp"; continue; }
			mv "$copy.tmp" "$copy"
		else
			copy=$f
		fi
		sqlite3 "$copy" 'SELECT realtime_ns FROM samples' >>"$work/times" 2>/dev/null ||
			echo "$(basename "$f"): unreadable" >>"$work/bad"
		[ "$(sqlite3 "$copy" 'PRAGMA integrity_check' 2>&1)" = ok ] ||
			echo "$(basename "$f"): integrity_check failed" >>"$work/bad"
		echo "$f" >>"$work/harvested"
	done
}
: >"$work/times"
: >"$work/bench.log"
: >"$work/bad"
: >"$work/harvested"
elapsed() { echo $((($(date +%s%N) - t0) / 1000000000)); }
phase=0
while [ "$(elapsed)" -lt "$duration" ]; do
	kill -0 "$rec_pid" 2>/dev/null || break
	now=$(elapsed)
	if { [ $phase -eq 0 ] && [ "$now" -ge "$fill1" ]; } || { [ $phase -eq 2 ] && [ "$now" -ge "$fill2" ]; }; then
		dd if=/dev/zero of="$dir/filler" bs=4k 2>/dev/null || true
		echo "$((($(date +%s%N) - t0) / 1000000)) bench: filled ($(df --output=avail -B1 "$dir" | tail -1) bytes free)" >>"$work/bench.log"
		phase=$((phase + 1))
	elif { [ $phase -eq 1 ] && [ "$now" -ge "$free1" ]; } || { [ $phase -eq 3 ] && [ "$now" -ge "$free2" ]; }; then
		rm -f "$dir/filler"
		echo "$((($(date +%s%N) - t0) / 1000000)) bench: filler removed" >>"$work/bench.log"
		phase=$((phase + 1))
	fi
	harvest
	sleep 1
done
alive=0
kill -0 "$rec_pid" 2>/dev/null && alive=1
kill -TERM "$rec_pid" 2>/dev/null || true
rec_rc=0
wait "$rec_pid" || rec_rc=$?
rec_pid=
kill "$writer_pid" 2>/dev/null || true
wait "$writer_pid" 2>/dev/null || true
writer_pid=
sleep 0.5 # the recorder's last lines through the pipe
harvest final
made=$(sort -u "$work/harvested" | wc -l)
left=$(find "$dir" -maxdepth 1 -name 'xiotop-*.xrec' | wc -l)

python3 - "$work" "$alive" "$rec_rc" "$made" "$left" "$duration" <<'PY'
import re, sys
work, alive, rec_rc, made, left, duration = sys.argv[1], *map(int, sys.argv[2:])
times = sorted({int(t) for t in open(f"{work}/times") if t.strip()})
step = 500000000
missing = 0
for a, b in zip(times, times[1:]):
    missing += max(0, round((b - a) / step) - 1)
lines = [l.rstrip("\n").split(" ", 1) for l in open(f"{work}/rec.err")]
bench = [l.rstrip("\n").split(" ", 1) for l in open(f"{work}/bench.log")]
said_back = [int(m.group(1) or 0) for _, l in lines
             if (m := re.search(r"recording again in .*: the samples that waited are in it"
                                r"(?:; (\d+) were lost meanwhile)?", l))]
said_end = [int(m.group(1)) for _, l in lines if (m := re.search(r"(\d+) samples lost to a full", l))]
full_at = [int(ms) / 1000 for ms, l in lines if "is full: " in l]
other = [l for _, l in lines if "is full: " not in l and "recording again" not in l
         and "samples lost to a full" not in l]
said_total = sum(said_back)
last_run_open = said_end and said_end[0] > said_total  # a loss running at the stop
if last_run_open:
    said_total = said_end[0]
bad = [l.strip() for l in open(f"{work}/bad")]
# each episode said once as it began and once as it ended: "is full" and "recording again"
# alternate, beginning with "is full"
said = [("full" if "is full: " in l else "again") for _, l in lines
        if "is full: " in l or "recording again" in l]
episodes_ok = all(k == ("full" if i % 2 == 0 else "again") for i, k in enumerate(said))
for ms, l in bench:
    print(f"  {int(ms)/1000:6.1f} s  {l}")
for ms, l in lines:
    print(f"  {int(ms)/1000:6.1f} s  recorder: {l}")
print(f"{duration} s on a 1 MiB tmpfs, interval 0.5 s, period 15 s, retention 512 KiB:")
print(f"  samples in the files: {len(times)} (first to last {((times[-1]-times[0])/1e9) if times else 0:.1f} s)")
print(f"  samples missing from the files' times: {missing}")
print(f"  samples the recorder said lost: {said_total} (recording again after {said_back}; at the end {said_end or '-'})")
print(f"  'is full' said {len(full_at)} times, at {', '.join(f'{t:.1f}' for t in full_at)} s;"
      f" each episode said as it began and ended: {'yes' if episodes_ok else 'no'}")
print(f"  files made {made}, left {left}, removed by the size rule {made - left}")
print(f"  files failing integrity_check or unreadable: {len(bad)} {bad if bad else ''}")
print(f"  recorder ran to the end: {'yes' if alive else 'no'}, exit {rec_rc}")
if other:
    print("  other recorder lines: " + " | ".join(other[:5]))
ok = (missing == said_total and not bad and episodes_ok and len(full_at) >= 2 and alive and
      rec_rc == 0)
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
