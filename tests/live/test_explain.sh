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
#    recording: dom0 CPU of the zram domain = its writer thread's utime+stime (nothing
#    else works for it: no loop, no page cache), of the loop domain between its writer's
#    and its writer's plus every kworker's runtime growth; per GiB of the writer's bytes;
#    their ratio in the verdict.
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
# dirty pages expire after vm.dirty_expire_centisecs: the tail must outlast that
expire_s=$(($(cat /proc/sys/vm/dirty_expire_centisecs) / 100))
tail_s=$((expire_s + 15))
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
"$X" record -o "$work/file.xiotop" -d 1 --tail "$tail_s" --xenstore-dump "$dump" -- \
	sh "$work/between.sh" "$work/k1" \
	"$E" blkback --domid 1 --target "$DOM1_DEV" --write-mib 256 --read-mib 0 \
	>"$work/writer1.out" 2>"$work/rec1.err"
check $? "record -- the file-backed guest's dd (tail $tail_s s)"
kill "$poll_pid"
wait "$poll_pid" 2>/dev/null
"$X" record -o "$work/lv.xiotop" -d 1 --tail 3 --xenstore-dump "$dump" -- \
	sh "$work/between.sh" "$work/k3" \
	"$E" blkback --domid 3 --target "$DOM3_DEV" --write-mib 256 --read-mib 0 --rate-mib-s 150 \
	>"$work/writer3.out" 2>"$work/rec3.err"
check $? "record -- the LV (zram) guest's dd at 150 MiB/s"
for f in file lv; do
	"$X" explain "$work/$f.xiotop" --format json >"$work/$f.json"
	check $? "explain $f.xiotop --format json"
done
"$X" explain "$work/file.xiotop" >"$work/file.txt"
check $? "explain (text)"
sed 's/^/     | /' "$work/file.txt" | head -40
"$X" explain "$work/file.xiotop" "$work/lv.xiotop" --format json >"$work/cmp.json"
check $? "explain A B --format json"
"$X" explain "$work/file.xiotop" "$work/lv.xiotop" >"$work/cmp.txt"
sed 's/^/     | /' "$work/cmp.txt" | head -16

python3 - "$work" "$HOST_ZRAM" "$DOM1_LOOP" "$DOM3_ZRAM" <<'EOF'
import json, sys
work, leaf, loop, zram3 = sys.argv[1:5]
MiB = 2**20
bad = 0
def ok(cond, what):
    global bad
    print(("ok   " if cond else "FAIL ") + what)
    bad += not cond
def near(x, truth, what, tol=0.05, floor=0.0):
    good = x is not None and abs(x - truth) <= max(abs(truth) * tol, floor)
    ok(good, f"{what}: explain {x if x is None else f'{x:.4g}'}, truth {truth:.4g} "
             f"({tol * 100:.0f} %{f' or {floor:.3g}' if floor else ''})")
def snapshot(path):
    """(time, {dev: (read bytes, written bytes)}, {vmstat key: pages})"""
    lines = open(path).read().splitlines()
    disks, vm = {}, {}
    for l in lines[1:]:
        p = l.split()
        if len(p) >= 14:
            disks[p[2]] = (int(p[5]) * 512, int(p[9]) * 512)
        elif len(p) == 2:
            vm[p[0]] = int(p[1])
    return float(lines[0]), disks, vm
def kernel(prefix):
    t0, d0, v0 = snapshot(f"{work}/{prefix}.before")
    t1, d1, v1 = snapshot(f"{work}/{prefix}.after")
    return dict(t0=t0, t1=t1, wr=lambda dev: d1[dev][1] - d0[dev][1],
                vm=lambda key: (v1[key] - v0[key]) * 4096)
def dom(ex, domid):
    return next(d for d in ex["domains"] if d["domid"] == domid)
def verdict(ex, vid, domid):
    return next((v for v in ex["verdicts"] if v["id"] == vid and v["domid"] == domid), None)
def writer(n):
    return json.loads(open(f"{work}/writer{n}.out").read().strip().splitlines()[-1])

ex, k, w = json.load(open(f"{work}/file.json")), kernel("k1"), writer(1)
d = dom(ex, 1)
near(d["guest_wr_bytes"], w["wr_bytes"], "loop domain guest_wr_bytes vs the writer's count", 0.01)
near(d["phys_wr_bytes"], k["wr"](leaf), f"loop domain phys_wr_bytes vs {leaf} diskstats", floor=MiB)
near(d["double_counted_bytes"], k["wr"](loop), f"loop domain double_counted_bytes vs {loop} diskstats")
backlog = k["vm"]("nr_dirty")
near(d["dirty_backlog_end_bytes"], backlog, "loop domain backlog at the end vs /proc/vmstat nr_dirty's growth")
ok(backlog > 0.5 * w["wr_bytes"], f"the dd left {backlog / MiB:.0f} MiB dirty in dom0 (nr_dirty)")
# drain: when the leaf had taken what was dirty at the end (explain: within 1 MiB or 1 %)
poll = [tuple(map(float, l.split())) for l in open(f"{work}/leaf.poll") if len(l.split()) == 2]
base = next((s for t, s in reversed(poll) if t <= k["t1"]), None)
need = d["dirty_backlog_end_bytes"] - max(MiB, d["dirty_backlog_end_bytes"] / 100)
done = next((t for t, s in poll if t > k["t1"] and base is not None and (s - base) * 512 >= need), None)
ok(d["drain_seconds"] is not None and done is not None,
   f"the backlog drained in the tail (leaf diskstats: {None if done is None else round(done - k['t1'], 1)} s)")
if d["drain_seconds"] is not None and done is not None:
    truth = done - k["t1"]
    # explain sees the drain at its 1 s samples: up to one late, never before the leaf had it
    good = truth - 0.3 <= d["drain_seconds"] <= truth + 1.3
    ok(good, f"drain {d['drain_seconds']:.2f} s vs the leaf's diskstats {truth:.2f} s (-0.3 s .. +1.3 s: 1 s samples)")
v = verdict(ex, "page_cache_inflation", 1)
ok(v is not None, "page_cache_inflation named for the loop domain")
if v and done is not None:
    f, win = v["figures"], ex["window"]["seconds"]
    lo, hi = (win + done - k["t1"] - 0.3) / win, (win + done - k["t1"] + 1.3) / win
    ok(lo <= f["inflation_factor"] <= hi,
       f"inflation factor {f['inflation_factor']:.1f}x in [{lo:.1f}, {hi:.1f}]: (window {win:.2f} s + drain) / window")
    near(f["dirty_backlog_end_bytes"], backlog, "verdict's backlog vs nr_dirty's growth")
    ok(f"inflated {f['inflation_factor']:.1f}x" in v["text"], f"the text says the factor: {v['text'][:120]}...")
    print(f"     seed 001 live: guest {f['guest_wr_rate_bytes_per_s'] / MiB:.0f} MiB/s in {f['window_seconds']:.2f} s, "
          f"backlog {f['dirty_backlog_end_bytes'] / MiB:.0f} MiB, drained {f['drain_seconds']} s later, "
          f"end to end {f['end_to_end_rate_bytes_per_s'] / MiB:.1f} MiB/s, factor {f['inflation_factor']:.1f}x")
dc = verdict(ex, "double_counting", 1)
times = k["vm"]("pgpgout") / 4 / max(w["wr_bytes"], 1)  # pgpgout counts KiB, not pages
ok(dc is not None and abs(dc["figures"]["vmstat_times"] - 2) < 0.1,
   f"double_counting for the loop domain, vmstat 2x (the host's pgpgout grew {times:.2f}x its writes)")
ok(ex["verdicts"][0]["id"] == "page_cache_inflation", f"ranked first: {ex['verdicts'][0]['id']}")

lv, k3, w3 = json.load(open(f"{work}/lv.json")), kernel("k3"), writer(3)
ok(verdict(lv, "double_counting", 3) is None, "no double_counting for the zram (LV) domain")
ok(verdict(lv, "page_cache_inflation", 3) is None, "no page_cache_inflation for the zram domain")
ok(verdict(ex, "double_counting", 3) is None, "no double_counting for the zram domain in A either")
dl = dom(lv, 3)
near(dl["guest_wr_bytes"], w3["wr_bytes"], "zram domain guest_wr_bytes vs the writer's count", 0.01)
near(dl["phys_wr_bytes"], k3["wr"](zram3), f"zram domain phys_wr_bytes vs {zram3} diskstats")
ok(dl["double_counted_bytes"] <= MiB, f"zram domain double_counted_bytes {dl['double_counted_bytes'] / MiB:.2f} MiB ~ 0")
cmp = json.load(open(f"{work}/cmp.json"))["comparison"]
ok(cmp["causes"][0]["id"] == "page_cache_inflation", f"A against B ranks {cmp['causes'][0]['id']} first")
print(f"     comparison: A {cmp['a']['rate_bytes_per_s'] / MiB:.0f} MiB/s, B {cmp['b']['rate_bytes_per_s'] / MiB:.0f} MiB/s "
      f"({cmp['ratio']:.2f}x); " + "; ".join(f"{c['id']} {c['share'] * 100:+.0f} %" for c in cmp["causes"]))
sys.exit(1 if bad else 0)
EOF
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
"$X" record -o "$work/cpu.xiotop" -d 1 --tail 3 --xenstore-dump "$dump" -- sh -c \
	"python3 '$work/kworkers.py' '$work/kw0.json' &&
	 '$E' blkback --domid 1 --target '$DOM1_DEV' --write-mib 512 --read-mib 0 --zero-data >'$work/writer-cpu1.out' && sync && sleep 2 &&
	 python3 '$work/kworkers.py' '$work/kw1.json' &&
	 '$E' blkback --domid 3 --target '$DOM3_DEV' --write-mib 512 --read-mib 0 --zero-data >'$work/writer-cpu3.out' && sync && sleep 2" \
	2>"$work/rec-cpu.err"
check $? "record -- both domains' 512 MiB, one after the other"
"$X" explain "$work/cpu.xiotop" --format json >"$work/cpu.json"
check $? "explain cpu.xiotop --format json"
"$X" explain "$work/cpu.xiotop" --format html -o "$work/cpu.html"
check $? "explain --format html -o FILE"
grep -c '<svg' "$work/cpu.html" | grep -q '^2$'
check $? "the HTML report holds a chart per active domain"
python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
ex = json.load(open(f"{work}/cpu.json"))
bad = 0
def ok(good, what):
    global bad
    print(("ok   " if good else "FAIL ") + what)
    bad += not good
def writer(domid):
    w = json.loads(open(f"{work}/writer-cpu{domid}.out").read().strip().splitlines()[-1])
    # utime and stime are whole 10 ms ticks each: the runtime is up to 2 ticks above
    return w, (w["utime_ticks"] + w["stime_ticks"]) * 1e9 / w["clk_tck"], 2e9 / w["clk_tck"]
kw0, kw1 = (json.load(open(f"{work}/kw{i}.json")) for i in (0, 1))
kworkers = sum(r - kw0.get(k, 0) for k, r in kw1.items())  # born meanwhile: from zero
res = {}
for domid in (1, 3):
    w, ticks, trunc = writer(domid)
    d = next(x for x in ex["domains"] if x["domid"] == domid)
    cpu = d["dom0_cpu_s"] * 1e9
    ok(abs(d["guest_wr_bytes"] + d["guest_rd_bytes"] - w["wr_bytes"]) <= 0.01 * w["wr_bytes"],
       f"dom{domid}: guest bytes {d['guest_wr_bytes'] / 2**20:.0f} MiB vs the writer's {w['wr_bytes'] / 2**20:.0f} MiB (1 %)")
    lo = ticks * 0.97 - 10e6
    if domid == 3:  # zram: its writer's thread is all the CPU it costs dom0
        hi, what = ticks * 1.03 + 10e6 + trunc, "its writer's utime+stime"
    else:  # loop: the writer's, plus the loop and writeback work of the kworkers
        hi, what = (ticks + kworkers) * 1.03 + 10e6 + trunc, "its writer's utime+stime + every kworker's runtime growth"
    ok(lo <= cpu <= hi, f"dom{domid}: dom0 CPU {cpu / 1e9:.3f} s in [{lo / 1e9:.3f}, {hi / 1e9:.3f}] s: "
                        f"{what} (writer {ticks / 1e9:.2f} s; 3 % + 10 ms)")
    v = next((v for v in ex["verdicts"] if v["id"] == "dom0_cpu_cost" and v["domid"] == domid), None)
    ok(v is not None, f"dom0_cpu_cost verdict for dom{domid}")
    res[domid] = (d["dom0_cpu_s_per_gib"], v)
hi, lo = (1, 3) if res[1][0] > res[3][0] else (3, 1)
v = res[hi][1]
ratio = v["figures"].get("ratio_to_cheapest") if v else None
ok(ratio is not None and abs(ratio - res[hi][0] / res[lo][0]) < 0.01 * ratio and f"{ratio:.1f}x" in v["text"],
   f"the ratio is in dom{hi}'s verdict: {ratio and round(ratio, 2)}x")
if v:
    print("     seed 002 live: " + v["text"])
print(f"     seed 002 live: dom1 (file via loop) {res[1][0]:.2f} s/GiB, dom3 (zram) {res[3][0]:.2f} s/GiB")
sys.exit(1 if bad else 0)
EOF
check $? "seed 002: dom0 CPU of both domains against their writers and the kworkers, ratio in the verdict"

live_finish explain
