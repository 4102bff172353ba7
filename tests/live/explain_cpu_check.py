#!/usr/bin/env python3
"""explain_cpu_check.py WORK - test_explain.sh's judge of seed 002: explain's dom0 CPU per
domain (WORK/cpu.json) against the writers' own utime+stime (WORK/writer-cpuN.out) and
every kworker's runtime growth (WORK/kw0.json, kw1.json), and the ratio in the verdict.
It reads only files, so it can be run again on a kept work dir (XIOTOP_LIVE_KEEP) with a
figure made wrong (tests/live/check_bites.py). Exit 1 on a FAIL."""
import json
import re
import sys
from livelib import check as ok, failures  # one FAIL line format for every live judge

work = sys.argv[1]
ex = json.load(open(f"{work}/cpu.json"))
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
# the text rounds the full double to 0.1 and the JSON holds 6 digits: 2.05 may read 2.0 or
# 2.1, so the number the text says is judged, not a string made from the JSON
said = re.search(r"That is ([0-9.]+)x", v["text"]) if v else None
ok(ratio is not None and abs(ratio - res[hi][0] / res[lo][0]) < 0.01 * ratio and said is not None
   and abs(float(said.group(1)) - ratio) <= 0.051 + ratio * 5e-4,
   f"the ratio is in dom{hi}'s verdict: {ratio and round(ratio, 2)}x ({said.group(0) if said else 'not in the text'})")
if v:
    print("     seed 002 live: " + v["text"])
print(f"     seed 002 live: dom1 (file via loop) {res[1][0]:.2f} s/GiB, dom3 (zram) {res[3][0]:.2f} s/GiB")
sys.exit(1 if failures else 0)