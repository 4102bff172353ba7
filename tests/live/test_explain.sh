#!/usr/bin/env bash
# Live test of `xiotop explain` (issue 11) on emulated domains:
#  - seed 001: the same guest dd (256 MiB, 1 MiB O_DIRECT writes in the guest) through a
#    file-backed loop domain (loop direct-io off: buffered in dom0's page cache) and a
#    zram domain (the LV stand-in; its writer throttled to 150 MiB/s as a disk-bound LV),
#    each recorded with `xiotop record --tail N -- CMD`. explain must name
#    page_cache_inflation for the loop domain with its factor and backlog, double_counting
#    for it alone, and `explain A B` must rank inflation first. Figures within 5 % of the
#    recording's truth (export's JSON, the same samples summed by hand) and of what the
#    writer says it wrote.
#  - seed 002: 512 MiB from each domain one after the other (sync after each), one
#    recording: dom0 CPU per GiB of both and their ratio in the verdict, within 5 % of
#    export's figures.
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
"$X" record -o "$work/file.xiotop" -d 1 --tail "$tail_s" --xenstore-dump "$dump" -- \
	"$E" blkback --domid 1 --target "$DOM1_DEV" --write-mib 256 --read-mib 0 \
	>"$work/writer1.out" 2>"$work/rec1.err"
check $? "record -- the file-backed guest's dd (tail $tail_s s)"
"$X" record -o "$work/lv.xiotop" -d 1 --tail 3 --xenstore-dump "$dump" -- \
	"$E" blkback --domid 3 --target "$DOM3_DEV" --write-mib 256 --read-mib 0 --rate-mib-s 150 \
	>"$work/writer3.out" 2>"$work/rec3.err"
check $? "record -- the LV (zram) guest's dd at 150 MiB/s"
for f in file lv; do
	"$X" explain "$work/$f.xiotop" --format json >"$work/$f.json"
	check $? "explain $f.xiotop --format json"
	"$X" export "$work/$f.xiotop" --format json >"$work/$f.export.json"
	check $? "export $f.xiotop"
done
"$X" explain "$work/file.xiotop" >"$work/file.txt"
check $? "explain (text)"
sed 's/^/     | /' "$work/file.txt" | head -40
"$X" explain "$work/file.xiotop" "$work/lv.xiotop" --format json >"$work/cmp.json"
check $? "explain A B --format json"
"$X" explain "$work/file.xiotop" "$work/lv.xiotop" >"$work/cmp.txt"
sed 's/^/     | /' "$work/cmp.txt" | head -16

python3 - "$work" <<'EOF'
import calendar, json, sys, time
work = sys.argv[1]
bad = 0
def ok(cond, what):
    global bad
    print(("ok   " if cond else "FAIL ") + what)
    bad += not cond
def near(x, truth, what, tol=0.05, floor=0.0):
    good = abs(x - truth) <= max(abs(truth) * tol, floor)
    ok(good, f"{what}: explain {x:.4g}, truth {truth:.4g} (5 %)")
def t_of(iv):
    s = iv["time"]
    return calendar.timegm(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")) + int(s[20:23]) / 1000
def iso(s):
    return calendar.timegm(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")) + int(s[20:23]) / 1000
def truth(name, domid):
    """The window's and the drain's figures summed from export's intervals."""
    ex = json.load(open(f"{work}/{name}.json"))
    ivs = [json.loads(l) for l in open(f"{work}/{name}.export.json")]
    w = ex["window"]
    first, last = w["first_sample"], w["last_sample"]
    win = ivs[first:last]  # interval k ends at sample k + 1
    doms = [[d for d in iv["domains"] if d["domid"] == domid] for iv in ivs]
    t = {k: sum(d[0][k] for d in doms[first:last] if d) for k in
         ("guest_wr_bytes", "phys_wr_bytes", "double_counted_bytes", "dom0_cpu_ns")}
    t["backlog_end"] = doms[last - 1][0]["dirty_backlog_bytes"] if doms[last - 1] else 0
    thr = max(2**20, t["backlog_end"] / 100)
    t["drain"], cpu_after, t["drain_phys"] = (0.0 if t["backlog_end"] <= thr else None), 0, 0
    end = iso(w["to"])
    for iv, d in zip(ivs[last:], doms[last:]):
        if t["drain"] is not None or not d:
            break
        cpu_after += d[0]["dom0_cpu_ns"]
        t["drain_phys"] += d[0]["phys_wr_bytes"]
        if d[0]["dirty_backlog_bytes"] <= thr:
            t["drain"] = max(0.0, t_of(iv) - end)
    t["cpu_with_drain"] = (t["dom0_cpu_ns"] + cpu_after) / 1e9
    t["seconds"] = w["seconds"]
    return ex, t
def verdict(ex, vid, domid):
    return next((v for v in ex["verdicts"] if v["id"] == vid and v["domid"] == domid), None)
def dom(ex, domid):
    return next(d for d in ex["domains"] if d["domid"] == domid)

ex, t = truth("file", 1)
writer = json.loads(open(f"{work}/writer1.out").read().strip().splitlines()[-1])
d = dom(ex, 1)
near(d["guest_wr_bytes"], writer["wr_bytes"], "loop domain guest_wr_bytes vs the writer's count")
for k in ("guest_wr_bytes", "phys_wr_bytes", "double_counted_bytes"):
    near(d[k], t[k], f"loop domain {k} vs export", floor=2**20)
near(d["dirty_backlog_end_bytes"], t["backlog_end"], "loop domain backlog at the end vs export")
ok(t["backlog_end"] > 0.5 * writer["wr_bytes"], f"the dd left {t['backlog_end'] / 2**20:.0f} MiB dirty in dom0")
ok(d["drain_seconds"] is not None and t["drain"] is not None, "the backlog drained in the tail")
if d["drain_seconds"] is not None and t["drain"] is not None:
    near(d["drain_seconds"], t["drain"], "drain seconds vs export", floor=0.05)
v = verdict(ex, "page_cache_inflation", 1)
ok(v is not None, "page_cache_inflation named for the loop domain")
if v:
    f = v["figures"]
    factor_truth = (t["guest_wr_bytes"] / t["seconds"]) / (t["guest_wr_bytes"] / (t["seconds"] + (t["drain"] or 0)))
    near(f["inflation_factor"], factor_truth, "inflation factor vs export")
    near(f["dirty_backlog_end_bytes"], t["backlog_end"], "verdict's backlog vs export")
    ok(f"inflated {f['inflation_factor']:.1f}x" in v["text"], f"the text says the factor: {v['text'][:120]}...")
    print(f"     seed 001 live: guest {f['guest_wr_rate_bytes_per_s'] / 2**20:.0f} MiB/s in {f['window_seconds']:.2f} s, "
          f"backlog {f['dirty_backlog_end_bytes'] / 2**20:.0f} MiB, drained {f['drain_seconds']} s later, "
          f"end to end {f['end_to_end_rate_bytes_per_s'] / 2**20:.1f} MiB/s, factor {f['inflation_factor']:.1f}x")
dc = verdict(ex, "double_counting", 1)
ok(dc is not None and abs(dc["figures"]["vmstat_times"] - 2) < 0.1, "double_counting for the loop domain, vmstat 2x")
ok(ex["verdicts"][0]["id"] == "page_cache_inflation", f"ranked first: {ex['verdicts'][0]['id']}")

lv, tl = truth("lv", 3)
ok(verdict(lv, "double_counting", 3) is None, "no double_counting for the zram (LV) domain")
ok(verdict(lv, "page_cache_inflation", 3) is None, "no page_cache_inflation for the zram domain")
ok(verdict(ex, "double_counting", 3) is None, "no double_counting for the zram domain in A either")
dl = dom(lv, 3)
for k in ("guest_wr_bytes", "phys_wr_bytes", "double_counted_bytes"):
    near(dl[k], tl[k], f"zram domain {k} vs export", floor=2**20)
cmp = json.load(open(f"{work}/cmp.json"))["comparison"]
ok(cmp["causes"][0]["id"] == "page_cache_inflation", f"A against B ranks {cmp['causes'][0]['id']} first")
print(f"     comparison: A {cmp['a']['rate_bytes_per_s'] / 2**20:.0f} MiB/s, B {cmp['b']['rate_bytes_per_s'] / 2**20:.0f} MiB/s "
      f"({cmp['ratio']:.2f}x); " + "; ".join(f"{c['id']} {c['share'] * 100:+.0f} %" for c in cmp["causes"]))
sys.exit(1 if bad else 0)
EOF
check $? "seed 001: verdicts and figures"

# --- seed 002 ---
"$X" record -o "$work/cpu.xiotop" -d 1 --tail 3 --xenstore-dump "$dump" -- sh -c \
	"'$E' blkback --domid 1 --target '$DOM1_DEV' --write-mib 512 --read-mib 0 --zero-data >/dev/null && sync && sleep 2 &&
	 '$E' blkback --domid 3 --target '$DOM3_DEV' --write-mib 512 --read-mib 0 --zero-data >/dev/null && sync && sleep 2" \
	2>"$work/rec-cpu.err"
check $? "record -- both domains' 512 MiB, one after the other"
"$X" explain "$work/cpu.xiotop" --format json >"$work/cpu.json"
check $? "explain cpu.xiotop --format json"
"$X" export "$work/cpu.xiotop" --format json >"$work/cpu.export.json"
"$X" explain "$work/cpu.xiotop" --format html -o "$work/cpu.html"
check $? "explain --format html -o FILE"
grep -c '<svg' "$work/cpu.html" | grep -q '^2$'
check $? "the HTML report holds a chart per active domain"
python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
ex = json.load(open(f"{work}/cpu.json"))
ivs = [json.loads(l) for l in open(f"{work}/cpu.export.json")]
w = ex["window"]
bad = 0
res = {}
for domid in (1, 3):
    guest = sum(d["guest_wr_bytes"] + d["guest_rd_bytes"] for iv in ivs[w["first_sample"]:w["last_sample"]] for d in iv["domains"] if d["domid"] == domid)
    cpu = sum(d["dom0_cpu_ns"] for iv in ivs[w["first_sample"]:w["last_sample"]] for d in iv["domains"] if d["domid"] == domid) / 1e9
    d = next(x for x in ex["domains"] if x["domid"] == domid)
    truth = cpu / (guest / 2**30)
    good = abs(d["dom0_cpu_s_per_gib"] - truth) <= 0.05 * truth
    print(f"{'ok  ' if good else 'FAIL'} dom{domid}: dom0 CPU {d['dom0_cpu_s_per_gib']:.3f} s/GiB, export {truth:.3f} (5 %)")
    bad += not good
    v = next((v for v in ex["verdicts"] if v["id"] == "dom0_cpu_cost" and v["domid"] == domid), None)
    good = v is not None
    print(f"{'ok  ' if good else 'FAIL'} dom0_cpu_cost verdict for dom{domid}")
    bad += not good
    res[domid] = (d["dom0_cpu_s_per_gib"], v)
hi, lo = (1, 3) if res[1][0] > res[3][0] else (3, 1)
v = res[hi][1]
ratio = v["figures"].get("ratio_to_cheapest") if v else None
good = ratio is not None and abs(ratio - res[hi][0] / res[lo][0]) < 0.01 * ratio and f"{ratio:.1f}x" in v["text"]
print(f"{'ok  ' if good else 'FAIL'} the ratio is in dom{hi}'s verdict: {ratio and round(ratio, 2)}x")
bad += not good
if v:
    print("     seed 002 live: " + v["text"])
print(f"     seed 002 live: dom1 (file via loop) {res[1][0]:.2f} s/GiB, dom3 (zram) {res[3][0]:.2f} s/GiB")
sys.exit(1 if bad else 0)
EOF
check $? "seed 002: dom0 CPU per GiB of both domains, ratio in the verdict"

live_finish explain
