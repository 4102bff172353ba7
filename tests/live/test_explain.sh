#!/usr/bin/env bash
# Live test of `xiotop explain` (issue 11) on emulated domains:
#  - seed 001: the same guest dd (256 MiB, 1 MiB O_DIRECT writes in the guest) through a
#    file-backed loop domain (loop direct-io off: buffered in dom0's page cache) and a
#    zram domain (the LV stand-in; its writer throttled to 150 MiB/s as a disk-bound LV),
#    each recorded with `xiotop record --tail N -- CMD`. explain must name
#    page_cache_inflation for the loop domain with its factor and backlog, double_counting
#    for it alone, and `explain A B` must rank inflation first. Each figure against the
#    writer's own count and the kernel's, never against xiotop's own output: the wrapped
#    command snapshots /proc/diskstats and /proc/vmstat just before and after the writer
#    (the recorder's start and end marks are around it), and a poller reads the leaf's
#    diskstats every 0.1 s through the tail: guest bytes = the writer's; physical = the
#    leaf's diskstats; double counted = the loop device's diskstats (what vmstat counts
#    beyond the leaf); dirty backlog at the end = /proc/vmstat nr_dirty's growth; drain =
#    when the leaf had taken the backlog (within one 1 s sample late).
#  - seed 002: 512 MiB from each domain one after the other (sync after each), one
#    recording: dom0 CPU of the zram domain = its writer thread's runtime (its own
#    CLOCK_THREAD_CPUTIME_ID; nothing else works for it: no loop, no page cache), of the
#    loop domain between its writer's plus its loop device's and the host file system's
#    flusher's kworkers' runtime while it wrote and synced (kworker_sampler.py) and its
#    writer's plus every kworker's runtime growth; per
#    GiB of the writer's bytes; their ratio in the verdict.
#  - the file-backed dd again, its recording stopped by SIGINT as soon as dd returned (the
#    kernel's 30 s dirty expiry not reached): its drain cut short, explain gives no
#    page_cache_inflation and no double_counting on half of it, and says the recording
#    ended before the drain (the kernel: nr_dirty grew by most of dd's bytes, and the
#    leaf had not taken them when the recorder stopped).
#  - the HTML report is written and holds a chart per domain.
# Exit 77 (skipped) without root or zram.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "emulated domains need root (BPF, loop devices, zram, mounts)"
live_require_zram "the emulated domains need zram"
live_workdir explain
X=$XIOTOP_BIN
E=$XIOTOP_EMU
# Seed 001's drain: dirty pages expire after vm.dirty_expire_centisecs and the flusher
# wakes every vm.dirty_writeback_centisecs, so the file-backed recording's tail must
# outlast both: 5 s and 1 s for that recording (restored after it, and at cleanup), as
# test_seeds.sh does, and 10 s more; the kernel's 30 s and 5 s made a 45 s tail, idle
# but for the drain. The backlog still waits for its expiry: the writer's 256 MiB take
# well under a second.
saved_wb=$(sysctl -n vm.dirty_expire_centisecs vm.dirty_writeback_centisecs | tr '\n' ' ')
restore_writeback() {
	local expire writeback
	read -r expire writeback <<<"$saved_wb"
	sysctl -qw vm.dirty_expire_centisecs="$expire" vm.dirty_writeback_centisecs="$writeback"
}
before_cleanup() { restore_writeback; }
expire_s=5
writeback_s=1
tail_s=$((expire_s + writeback_s + 10))
live_world_up off --size-mib 600
dump=$XENSTORE_DUMP
set +e

# --- seed 001 ---
# the writer between two snapshots of the kernel's counters (PREFIX.before, PREFIX.after)
cat >"$work/between.sh" <<'EOS'
#!/bin/sh
p=$1
shift
{ date +%s.%N; cat /proc/diskstats /proc/vmstat; } >"$p.before"
"$@"
rc=$?
{ date +%s.%N; cat /proc/diskstats /proc/vmstat; } >"$p.after"
exit $rc
EOS
# the leaf's written sectors every 0.1 s until stopped: when the backlog reached it
poll_leaf() {
	while :; do
		printf '%s %s\n' "$(date +%s.%N)" "$(awk -v d="$1" '$3 == d { print $10 }' /proc/diskstats)"
		sleep 0.1
	done >"$2"
}
poll_leaf "$HOST_ZRAM" "$work/leaf.poll" &
poll_pid=$!
sync # nothing dirty from before the writeback settings
sysctl -qw vm.dirty_expire_centisecs=$((expire_s * 100)) vm.dirty_writeback_centisecs=$((writeback_s * 100))
"$X" record -o "$work/file.xiotop" -d 1 --tail "$tail_s" --xenstore-dump "$dump" -- \
	sh "$work/between.sh" "$work/k1" \
	"$E" blkback --domid 1 --target "$DOM1_DEV" --write-mib 256 --read-mib 0 \
	>"$work/writer1.out" 2>"$work/rec1.err"
check $? "record -- the file-backed guest's dd (tail $tail_s s)"
restore_writeback
kill "$poll_pid"
wait "$poll_pid" 2>/dev/null
"$X" record -o "$work/lv.xiotop" -d 1 --tail 3 --xenstore-dump "$dump" -- \
	sh "$work/between.sh" "$work/k3" \
	"$E" blkback --domid 3 --target "$DOM3_DEV" --write-mib 256 --read-mib 0 --rate-mib-s 150 \
	>"$work/writer3.out" 2>"$work/rec3.err"
check $? "record -- the LV (zram) guest's dd at 150 MiB/s"
# Each recording is asked about its guest by name (--domain), as a user asks when dom0 is
# busy too: dom0's own I/O meanwhile (other work on the host) is a subject of its own
# ("dom0 (sh)"), and can be the busiest, which explain A B would take by default.
"$X" explain "$work/file.xiotop" --domain 1 --format json >"$work/file.json"
check $? "explain file.xiotop --domain 1 --format json"
"$X" explain "$work/lv.xiotop" --domain 3 --format json >"$work/lv.json"
check $? "explain lv.xiotop --domain 3 --format json"
"$X" explain "$work/file.xiotop" --domain 1 >"$work/file.txt"
check $? "explain (text)"
sed 's/^/     | /' "$work/file.txt" | head -40
"$X" explain "$work/file.xiotop" "$work/lv.xiotop" --domain 1 --domain 3 --format json >"$work/cmp.json"
check $? "explain A B --format json"
"$X" explain "$work/file.xiotop" "$work/lv.xiotop" --domain 1 --domain 3 >"$work/cmp.txt"
sed 's/^/     | /' "$work/cmp.txt" | head -16

# The same file-backed dd in a recording stopped as soon as dd returned, long before the
# kernel's own 30 s expiry writes it back (the writeback settings are restored above): the
# run's drain is cut short, and explain must say so rather than judge half of it
# each sample committed as it is taken (the default groups 10 s of them): the waits below
# read the file (each wait reads it anew: its count in the wait's words was read once, when
# the file did not exist yet, and the wait ran out however many samples came)
"$X" record -o "$work/cut.xiotop" -d 1 --commit-every 1 --xenstore-dump "$dump" >/dev/null \
	2>"$work/cut.err" &
cut_pid=$!
live_wait 90 "the cut recording's first samples" live_rec_has_samples "$work/cut.xiotop" 2
sh "$work/between.sh" "$work/k5" "$E" blkback --domid 1 --target "$DOM1_DEV" --write-mib 128 \
	--read-mib 0 >"$work/writer5.out" 2>>"$work/cut.err"
cut_at=$(live_rec_samples "$work/cut.xiotop")
live_wait 10 "the cut recording's interval after dd" live_rec_has_samples "$work/cut.xiotop" $((cut_at + 1))
kill -INT "$cut_pid"
wait "$cut_pid"
check $? "record stopped by SIGINT right after the guest's dd"
{ date +%s.%N; cat /proc/diskstats /proc/vmstat; } >"$work/k5.stop"
"$X" explain "$work/cut.xiotop" --domain 1 --format json >"$work/cut.json"
check $? "explain cut.xiotop --domain 1 --format json"
sync # what the cut recording left in dom0's cache, before the next recordings

python3 "$XIOTOP_SRC/tests/live/explain_check.py" "$work" "$HOST_ZRAM" "$DOM1_LOOP" "$DOM3_ZRAM"
check $? "seed 001: verdicts and figures"

# --- seed 002 ---
# every kworker's runtime (schedstat, ns) by pid and start time: the loop domain's loop
# and writeback work is theirs
cat >"$work/kworkers.py" <<'EOS'
import json, os, sys
seen = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if not open(f"/proc/{pid}/comm").read().startswith("kworker/"):
            continue
        start = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[19]
        seen[f"{pid}:{start}"] = int(open(f"/proc/{pid}/schedstat").read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
json.dump(seen, open(sys.argv[1], "w"))
EOS
# a command with kworker_sampler.py around it (OUT.json first): the loop device's kworkers'
# own runtime, told by the workqueue their comm names
cat >"$work/sampled.sh" <<'EOS'
#!/bin/sh
out=$1
shift
python3 "$XIOTOP_SRC/tests/live/kworker_sampler.py" "$out" >"$out.ready" &
sp=$!
until grep -q ready "$out.ready" 2>/dev/null; do
	kill -0 "$sp" 2>/dev/null || exit 1
	sleep 0.05
done
"$@"
rc=$?
kill -INT "$sp"
wait "$sp" || rc=1
exit $rc
EOS
# the loop domain's writer, its sync and the quiet after, sampled: the loop work, then the
# flusher's work for the host leaf's file system (its workqueue item names it flush-MAJ:MIN)
cat "/sys/block/$HOST_ZRAM/dev" >"$work/hostfs.dev"
cat >"$work/cpu1.sh" <<EOS
'$E' blkback --domid 1 --target '$DOM1_DEV' --write-mib 512 --read-mib 0 --zero-data >'$work/writer-cpu1.out' && sync && sleep 2
EOS
"$X" record -o "$work/cpu.xiotop" -d 1 --tail 3 --xenstore-dump "$dump" -- sh -c \
	"python3 '$work/kworkers.py' '$work/kw0.json' &&
	 sh '$work/sampled.sh' '$work/kwloop.json' sh '$work/cpu1.sh' &&
	 python3 '$work/kworkers.py' '$work/kw1.json' &&
	 '$E' blkback --domid 3 --target '$DOM3_DEV' --write-mib 512 --read-mib 0 --zero-data >'$work/writer-cpu3.out' && sync && sleep 2" \
	2>"$work/rec-cpu.err"
check $? "record -- both domains' 512 MiB, one after the other"
"$X" explain "$work/cpu.xiotop" --format json >"$work/cpu.json"
check $? "explain cpu.xiotop --format json"
"$X" explain "$work/cpu.xiotop" --format html -o "$work/cpu.html"
check $? "explain --format html -o FILE"
# a chart for each domain that moved 1 MiB or more as the JSON of the same recording says:
# both writers' domains, and dom0 too when other work on the host wrote that much meanwhile;
# and the day chart once
python3 - "$work/cpu.json" "$work/cpu.html" <<'PY'
import json, re, sys
ex, html = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
active = {d["domid"] for d in ex["domains"] if d["guest_wr_bytes"] + d["guest_rd_bytes"] >= 2**20}
# the day chart (the whole recording, one strip a domain) is one more svg, once
day = html.count("<h2>The whole recording, per domain</h2>")
charts = html.count("<svg") - day
print(f"     charts {charts} and the day chart {day}, domains that moved 1 MiB or more {sorted(active)}")
sys.exit(0 if {1, 3} <= active and charts == len(active) and day == 1 else 1)
PY
check $? "the HTML report holds a chart per active domain (domains 1 and 3 among them)"
python3 "$XIOTOP_SRC/tests/live/explain_cpu_check.py" "$work"
check $? "seed 002: dom0 CPU of both domains against their writers and the kworkers, ratio in the verdict"

live_finish explain
