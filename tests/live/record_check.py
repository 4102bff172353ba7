#!/usr/bin/env python3
"""record_check.py LIVE.json EXPORT.json WORK HOST_LEAF ZRAM3 LOOP1 LOOP2 - test_record.sh's
judge of the recording: the recording's per-domain totals (EXPORT.json, `xiotop export`)
against the writers' own counts (WORK/writerN.json: guest bytes, exactly) and the kernel's
/proc/diskstats around the run (WORK/diskstats.before, .after: physical bytes at each
leaf, double-counted bytes at each loop device), and the live batch run (LIVE.json) beside
it within 1 %. It reads only files, so it can be run again on a kept work dir
(XIOTOP_LIVE_KEEP) with a figure made wrong (tests/live/check_bites.py). Exit 1 on a FAIL."""
import json
import sys
from livelib import check as ok, failures  # one FAIL line format for every live judge

live, rec, work, host_leaf, zram3, loop1, loop2 = sys.argv[1:8]
def totals(path):
    t = {}
    for line in open(path):
        for d in json.loads(line)["domains"]:
            s = t.setdefault(d["domid"], {})
            for k in ("guest_wr_bytes", "guest_rd_bytes", "phys_wr_bytes", "double_counted_bytes"):
                s[k] = s.get(k, 0) + d[k]
    return t
def diskstats(path):
    return {p[2]: int(p[9]) * 512 for p in (l.split() for l in open(path)) if len(p) >= 14}
a, b = totals(live), totals(rec)
ds0, ds1 = diskstats(f"{work}/diskstats.before"), diskstats(f"{work}/diskstats.after")
kernel = {dev: ds1[dev] - ds0[dev] for dev in ds1 if dev in ds0}
def near(x, truth, pct):
    return abs(x - truth) <= truth * pct / 100 + 65536
for domid in (1, 2, 3):
    w = json.loads(open(f"{work}/writer{domid}.json").read().strip().splitlines()[-1])
    for k in ("guest_wr_bytes", "guest_rd_bytes", "phys_wr_bytes", "double_counted_bytes"):
        x, y = a.get(domid, {}).get(k, 0), b.get(domid, {}).get(k, 0)
        ok(abs(x - y) <= max(x, y) * 0.01 + 65536,
           f"dom{domid} {k}: live batch {x / 2**20:.1f} MiB, recorded {y / 2**20:.1f} MiB (1 %)")
    got = b.get(domid, {})
    ok(got.get("guest_wr_bytes", 0) == w["wr_bytes"], f"dom{domid} recorded guest_wr_bytes == {w['wr_bytes']} written")
    ok(got.get("guest_rd_bytes", 0) == w["rd_bytes"], f"dom{domid} recorded guest_rd_bytes == {w['rd_bytes']} read")
# the kernel's own counts: each leaf's diskstats, and each loop device's (what vmstat
# counts beyond the leaf for a file-backed domain); the leaves are the world's own
phys12 = sum(b.get(d, {}).get("phys_wr_bytes", 0) for d in (1, 2))
ok(near(phys12, kernel[host_leaf], 5),
   f"dom1+dom2 recorded phys_wr_bytes {phys12 / 2**20:.1f} MiB vs {host_leaf} diskstats {kernel[host_leaf] / 2**20:.1f} MiB (5 %)")
for domid, dev, k in ((3, zram3, "phys_wr_bytes"), (1, loop1, "double_counted_bytes"),
                      (2, loop2, "double_counted_bytes")):
    x = b.get(domid, {}).get(k, 0)
    ok(near(x, kernel[dev], 2), f"dom{domid} recorded {k} {x / 2**20:.1f} MiB vs {dev} diskstats {kernel[dev] / 2**20:.1f} MiB (2 %)")
sys.exit(1 if failures else 0)