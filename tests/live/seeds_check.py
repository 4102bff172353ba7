#!/usr/bin/env python3
"""Checks of tests/live/test_seeds.sh: explain's verdicts and figures on the seeds' runs
against independent truth, never against xiotop's own export: dd's own byte counts (its
output, the claim), the device model's own count (xiotop-emu's JSON), /proc/diskstats of
the backend (loop, zram) and leaf (the host zram) devices and /proc/vmstat, snapshotted
around each recording (NAME.before.snap, NAME.after.snap) and inside dd2.sh (CLAIM.k0
before the write, .k1 between the write and the read, .k2 after the read).

Usage: seeds_check.py WORKDIR (holding env.off and env.on, the two worlds' env files)."""
import json
import re
import sys

from livelib import check as ok, failures  # one FAIL line format for every live judge

MiB = 2**20
# explain calls a claim inflated above EX_CLAIM_INFLATION_MIN (monitor/explain/explain.h):
# the window's margin 1.1 times the located run's bytes margin 1.1; a figure at or below it
# is not told as a cache above the disks (1.2003 was: a 0.86 s dd over 0.5 s samples)
TOLD = 1.1 * 1.1
work = sys.argv[1]

def near(x, truth, what, tol=0.05, floor=0.0):
    good = x is not None and abs(x - truth) <= max(abs(truth) * tol, floor)
    shown = "null" if x is None else f"{x / MiB:.2f} MiB"
    ok(good, f"{what}: explain {shown}, truth {truth / MiB:.2f} MiB "
             f"(within {tol * 100:.0f} %{f' or {floor / MiB:.1f} MiB' if floor else ''})")


def env(name):
    out = {}
    for line in open(f"{work}/{name}"):
        k, _, v = line.strip().partition("=")
        out[k] = v.strip("'")
    return out


def snap(path):
    """(time, {dev: [rd bytes, rd ios, wr bytes, wr ios]}, {vmstat key: value})"""
    lines = open(path).read().splitlines()
    disks, vm = {}, {}
    for line in lines[1:]:
        p = line.split()
        if len(p) >= 14:
            disks[p[2]] = [int(p[5]) * 512, int(p[3]), int(p[9]) * 512, int(p[7])]
        elif len(p) == 2:
            vm[p[0]] = int(p[1])
    return float(lines[0]), disks, vm


class Delta:
    """The kernel's counters between two snapshots."""

    def __init__(self, a, b):
        self.t0, self.d0, self.v0 = snap(a)
        self.t1, self.d1, self.v1 = snap(b)

    def rd(self, dev):
        return self.d1[dev][0] - self.d0[dev][0]

    def wr(self, dev):
        return self.d1[dev][2] - self.d0[dev][2]

    def wr_ios(self, dev):
        return self.d1[dev][3] - self.d0[dev][3]

    def vm(self, key):
        return self.v1[key] - self.v0[key]


def rec(name):
    return Delta(f"{work}/{name}.before.snap", f"{work}/{name}.after.snap")


def load(name):
    return json.load(open(f"{work}/{name}.json"))


def dom(ex, domid):
    return next((d for d in ex["domains"] if d["domid"] == domid), None)


def verdict(ex, vid, domid, run=None):
    for v in ex["verdicts"]:
        if v["id"] == vid and v["domid"] == domid and (run is None or v["figures"].get("run") == run):
            return v
    return None


def dd_runs(claim):
    """dd's own figures from its output: [(command, bytes, seconds)]"""
    runs, cmd = [], None
    for line in open(f"{work}/{claim}"):
        if line.startswith("# "):
            cmd = line[2:].strip()
        m = re.match(r"(\d+) bytes .* copied, ([\d.]+) s", line)
        if m:
            runs.append((cmd, int(m.group(1)), float(m.group(2))))
    return runs


def fig(v, key):
    return v["figures"].get(key) if v else None


off, on = env("env.off"), env("env.on")
leaf, loop1, lv3 = off["HOST_ZRAM"], off["DOM1_LOOP"], off["DOM3_ZRAM"]

# --- seed 000, dom0: dd write then read of the same file, no sync
ex, k = load("dom0"), rec("dom0")
(wcmd, wbytes, wsecs), (rcmd, rbytes, rsecs) = dd_runs("dom0.claim")
w = Delta(f"{work}/dom0.claim.k0", f"{work}/dom0.claim.k1")
r = Delta(f"{work}/dom0.claim.k1", f"{work}/dom0.claim.k2")
s = dom(ex, 0)
ok(s is not None and s["name"] == "dom0 (sh)", f"seed 000 dom0: the subject is dom0 (sh): {s and s['name']}")
# explain's slack on the run's data (monitor/explain/dom0_subject.h EX_DOM0_DATA_SLACK_DEN)
slack = max(MiB, wbytes // 20)
if s:
    ok(wbytes - slack <= s["guest_wr_bytes"] <= k.vm("pgpgout") * 1024,
       f"dom0's submitted writes {s['guest_wr_bytes'] / MiB:.1f} MiB between dd's {wbytes / MiB:.0f} MiB "
       f"less the slack ({slack / MiB:.1f} MiB) and /proc/vmstat pgpgout's {k.vm('pgpgout') / 1024:.1f} MiB "
       f"over the recording")
ok(k.wr(leaf) >= wbytes, f"(the test) the host leaf took dd's file during the recording: "
   f"{k.wr(leaf) / MiB:.1f} MiB")
ok(r.rd(leaf) < rbytes / 5, f"(the physics) dd's read of the file just written: the leaf read "
   f"{r.rd(leaf) / MiB:.2f} MiB of {rbytes / MiB:.0f} (dom0's cache served it)")
cw, cr = verdict(ex, "claim", 0, "run 1"), verdict(ex, "claim", 0, "run 2")
ok(fig(cw, "direction") == "write" and fig(cr, "direction") == "read",
   f"two runs in one file: run 1 {fig(cw, 'direction')}, run 2 {fig(cr, 'direction')} (their command lines)")
# when the leaf had dd's data (its diskstats every 0.1 s): dom0's drain ends when the run's
# disk has taken dd's bytes less the slack (the last pages wait for the flusher's timer);
# what the leaf took after that (the last pages, ext4's journal) is named, not drained
poll = [tuple(map(float, line.split())) for line in open(f"{work}/dom0.poll") if len(line.split()) == 2]
base = next((n for t, n in reversed(poll) if t <= w.t0), poll[0][1])
data = next((t for t, n in poll if (n - base) * 512 >= wbytes - slack), None)
last = max((t for t, n in poll if any(t - 0.5 <= t0 < t and (n - n0) * 512 >= MiB for t0, n0 in poll)),
           default=None)
late = None if data is None else data - w.t1
print(f"     dom0: dd ended at +{w.t1 - w.t0:.2f} s; the leaf had dd's bytes less {slack / MiB:.1f} MiB "
      f"{'never' if late is None else f'{late:+.2f} s'} and its last MiB "
      f"{'never' if last is None else f'{last - w.t1:+.2f} s'} after that")
infl = fig(cw, "inflation")
if late is not None and late > 1.5:  # more than 3 samples later: the samples can tell
    ok(cw is not None and (infl or 0) > TOLD,
       f"the write claim is inflated: dd's {wbytes / wsecs / MiB:.0f} MiB/s, {infl}x what the disk did")
elif late is not None and late < 0.4:  # within the run's own interval: they cannot
    ok(cw is not None and (infl is None or infl <= TOLD),
       f"the write claim: on the disk within the run's interval, no inflation told ({infl})")
else:
    ok(cw is not None, f"the write claim ({infl}x): the leaf had its data {late} s after, either is right")
if cw:
    near(fig(cw, "observed_phys_bytes"), wbytes, "the write run's disk bytes against dd's", 0.10)
for v in (cw, cr):
    told = v is not None and (fig(v, "inflation") or 0) > TOLD
    ok(v is not None and "guest" not in v["text"] and (not told or "dom0's page cache" in v["text"]),
       f"{v and v['figures']['run']}: no guest{', dom0' + chr(39) + 's page cache named' if told else ''}: "
       f"...{v and v['text'][-140:]}")
if cr and fig(cr, "placed") == "not placed":
    # (the physics) dom0's cache served the read: no stretch of dom0's reads holds its bytes,
    # nothing else in the recording places it (no mark names dd: the wrapped command is
    # the script), and explain says so rather than set the window's rate against it. Why it
    # says: "dom0's page cache served it" when no stretch of dom0's reads holds its bytes; on
    # a busy dom0 other programs' reads may (then it names those stretches and why none is its)
    why = "dom0's page cache served it" in cr["text"] or "stretch" in cr["text"]
    ok(r.rd(leaf) < rbytes / 5 and why and "Not placed in the timeline" in cr["text"]
       and fig(cr, "observed_phys_bytes") is None and fig(cr, "inflation") is None,
       f"the read run, served by dom0's cache (the leaf read {r.rd(leaf) / MiB:.2f} MiB), not placed "
       f"and said so, no figure set against it: ...{cr['text'][-160:]}")
elif cr:
    near(fig(cr, "observed_phys_bytes"), r.rd(leaf), "the read run's disk bytes vs the leaf's diskstats", 0, MiB)
t = verdict(ex, "test_size_vs_memory", 0)
ok(t is not None and fig(t, "test_bytes") == wbytes and fig(t, "test_bytes_from") == "claim",
   f"test_size_vs_memory for dom0: the test file is dd's {fig(t, 'test_bytes')} bytes (from the claim)")
mem = next(int(line.split()[1]) * 1024 for line in open("/proc/meminfo") if line.startswith("MemTotal:"))
near(fig(t, "dom0_mem_bytes"), mem, "dom0's memory vs /proc/meminfo MemTotal", 0.01)
wend = snap(f"{work}/dom0.claim.k2")[0]  # dd2.sh's end: the window's (its wrap mark)
drain = None if data is None else max(0.0, data - wend)
got = s and s["drain_seconds"]
# explain's drain ends at the sample after the leaf had the data; the window's last sample
# is up to one 0.5 s interval after its end mark, and what lands before it is the window's
ok(got is not None and drain is not None and drain - 0.55 <= got <= drain + 0.8,
   f"dom0's drain {got} s after the window vs the leaf's having dd's data "
   f"{drain if drain is None else round(drain, 2)} s (-0.55 .. +0.8 s: 0.5 s samples)")
ok(fig(cw, "drain_from") == "the run's data" and fig(cw, "run_data_bytes") == wbytes,
   f"the drain is the run's data ({fig(cw, 'drain_from')}), dd's {fig(cw, 'run_data_bytes')} bytes")
if data is not None:  # the leaf's writes after it had the data, to the recording's end
    had = next(n for t, n in poll if t == data)
    after = k.d1[leaf][2] - had * 512
    near(fig(cw, "after_data_wr_bytes"), after, "the run's disk's writes after the drain's end vs "
         "the leaf's diskstats (its poll when it had the data, the snapshot after the recording)", 0.05, MiB)
    ok(after < MiB or "Then dom0 wrote" in (cw or {}).get("text", ""),
       f"the {after / MiB:.2f} MiB after the drain are named in the claim's text")
pci = verdict(ex, "page_cache_inflation", 0)
if late is not None and late > 1.5:
    ok(pci is not None and (fig(pci, "inflation_factor") or 0) >= 1.1,
       f"page_cache_inflation for dom0: dd returned before its data were on the disk "
       f"(factor {fig(pci, 'inflation_factor')})")
elif late is not None and late < 0.4:
    ok(pci is None, f"no page_cache_inflation for dom0: the disk had dd's data within the run's "
       f"interval ({pci and fig(pci, 'inflation_factor')})")
else:
    print(f"     page_cache_inflation for dom0: {pci and fig(pci, 'inflation_factor')} (the leaf had "
          f"the data {late} s after the run: either is right)")

# --- seed 000, domU on a file via loop without direct I/O: the same two runs
ex, k = load("domu"), rec("domu")
(_, wbytes, wsecs), (_, rbytes, rsecs) = dd_runs("domu.claim")
w = Delta(f"{work}/domu.claim.k0", f"{work}/domu.claim.k1")
r = Delta(f"{work}/domu.claim.k1", f"{work}/domu.claim.k2")
d = dom(ex, 1)
ok(not [v for v in ex["verdicts"] if v["domid"] == 0],
   "no verdict for dom0: the run was the guest's (dd wrote to its backend device)")
near(d["guest_wr_bytes"], wbytes, "guest_wr_bytes vs dd's count", 0.01)
near(d["guest_wr_bytes"], w.wr(loop1), f"guest_wr_bytes vs {loop1}'s diskstats", 0.01)
near(d["guest_rd_bytes"], r.rd(loop1), f"guest_rd_bytes vs {loop1}'s diskstats", 0.01)
near(d["phys_wr_bytes"], w.wr(leaf) + r.wr(leaf), f"phys_wr_bytes in the window vs {leaf}'s diskstats", 0.05, MiB)
near(d["phys_rd_bytes"], r.rd(leaf) + w.rd(leaf), f"phys_rd_bytes vs {leaf}'s diskstats", 0.05, MiB)
# vmstat's second count is what loop's writeback submitted to the image's file system
# device: in the window (dd into dom0's cache) the leaf's bytes; with the drain, every byte
# dd wrote, once (the recording's whole span, a private leaf)
near(d["double_counted_bytes"], w.wr(leaf) + r.wr(leaf),
     f"double_counted_bytes in the window vs {leaf}'s diskstats (the second count)", 0.05, MiB)
dirty = w.vm("nr_dirty") * 4096
ok(dirty > wbytes / 2, f"(the physics) dd left {dirty / MiB:.0f} MiB dirty in dom0 (nr_dirty's growth)")
near(d["dirty_backlog_end_bytes"], dirty + r.vm("nr_dirty") * 4096,
     "dirty backlog at the end vs /proc/vmstat nr_dirty's growth over the run", 0.10)
pci = verdict(ex, "page_cache_inflation", 1)
ok(pci is not None and fig(pci, "drained") == 1 and fig(pci, "drain_seconds") <= 8,
   f"page_cache_inflation, drained within the tail: {fig(pci, 'drain_seconds')} s, factor {fig(pci, 'inflation_factor')}")
dc = verdict(ex, "double_counting", 1)
times = k.vm("pgpgout") * 1024 / wbytes
ok(dc is not None and abs(fig(dc, "vmstat_times") - 2) < 0.1 and times >= 1.95,
   f"double_counting, vmstat {fig(dc, 'vmstat_times')}x (the host's pgpgout grew {times:.2f}x dd's bytes)")
near(fig(dc, "double_counted_bytes"), k.wr(leaf),
     f"double_counting's double_counted_bytes (window and drain) vs {leaf}'s diskstats over the recording")
near(fig(dc, "double_counted_bytes"), k.wr(loop1),
     f"double_counting's double_counted_bytes vs {loop1}'s diskstats (each byte written back once)")
rc = verdict(ex, "read_cache", 1)
ok(rc is not None and fig(rc, "cached_rd_bytes") >= 0.8 * rbytes,
   f"read_cache: {fig(rc, 'cached_rd_bytes')} of dd's {rbytes} bytes read from dom0's cache "
   f"(the leaf read {r.rd(leaf) / MiB:.2f} MiB)")
rq = verdict(ex, "request_size", 1)
# dd's requests are bs=1M; diskstats counts them after the block layer split them at the
# loop queue's max_sectors_kb (512 KiB here), the tracer as dd submitted them
ok(rq is not None and fig(rq, "guest_avg_request_bytes") == MiB and fig(rq, "guest_requests") == 256
   and fig(rq, "merge_ratio") >= 2,
   f"request_size: the guest's {fig(rq, 'guest_requests')} requests of {fig(rq, 'guest_avg_request_bytes')} B "
   f"(dd: 256 x bs=1M; {loop1}'s diskstats after splitting: {w.wr_ios(loop1)}) merged {fig(rq, 'merge_ratio')}x")
ok(w.wr(loop1) / max(w.wr_ios(loop1), 1) <= MiB, f"(the test) {loop1}'s requests are at most dd's 1 MiB")
cw, cr = verdict(ex, "claim", 1, "run 1"), verdict(ex, "claim", 1, "run 2")
ok(cw is not None and (fig(cw, "inflation") or 0) > TOLD and "own cache" not in cw["text"],
   f"the write claim: inflated {fig(cw, 'inflation')}x by dom0's cache, not called the guest's")
ok(cr is not None and fig(cr, "direction") == "read" and "own cache" not in cr["text"],
   "the read claim: a read, not called the guest's own cache (dd read with O_DIRECT)")
rank = [v["id"] for v in ex["verdicts"]]
cache = {"read_cache", "page_cache_inflation", "test_size_vs_memory", "claim"}
ok(rank[0] in cache and rank.index("page_cache_inflation") < rank.index("double_counting"),
   f"ranked: the caches first, page_cache_inflation above double_counting: {rank[:6]}")

cmp = load("cmp000")["comparison"]
shares = [c["share"] for c in cmp["causes"]]
ok(cmp["a"]["name"] == "dom0 (sh)" and cmp["b"]["domid"] == 1 and all(0 <= x <= 1 for x in shares)
   and abs(sum(shares) - 1) < 0.01,
   f"explain dom0 domU: {cmp['a']['name']} against domain {cmp['b']['domid']}, shares {shares}")

# --- seed 003's shape: the same dd through the LV stand-in, then `explain dom0 lv`
ex, k = load("lv"), rec("lv")
(_, wbytes, _), (_, rbytes, _) = dd_runs("lv.claim")
w = Delta(f"{work}/lv.claim.k0", f"{work}/lv.claim.k1")
r = Delta(f"{work}/lv.claim.k1", f"{work}/lv.claim.k2")
d = dom(ex, 3)
ok(d is not None, "seed 003: the LV's domain 3 is in the recording")
if d:
    near(d["guest_wr_bytes"], wbytes, "lv: guest_wr_bytes vs dd's count", 0.01)
    near(d["guest_wr_bytes"], w.wr(lv3), f"lv: guest_wr_bytes vs {lv3}'s diskstats", 0.01)
    near(d["guest_rd_bytes"], r.rd(lv3), f"lv: guest_rd_bytes vs {lv3}'s diskstats", 0.01)
    near(d["phys_wr_bytes"], k.wr(lv3), f"lv: phys_wr_bytes vs {lv3}'s diskstats over the recording", 0.01, MiB)
times = k.vm("pgpgout") * 1024 / wbytes
# host-wide: other writers on the machine add to it (seen: 1.36x while builds ran beside)
ok(0.95 <= times < 1.8, f"(the physics) one submission, not two: the host's pgpgout grew {times:.2f}x dd's bytes")
for vid in ("page_cache_inflation", "double_counting", "read_cache"):
    ok(verdict(ex, vid, 3) is None, f"lv: no {vid} (nothing in dom0 caches or resubmits an LV's bios)")
ok(r.rd(lv3) >= 0.95 * rbytes, f"(the physics) the LV read {r.rd(lv3) / MiB:.0f} MiB of dd's {rbytes / MiB:.0f}")
pth = verdict(ex, "path", 3)
ok(pth is None or fig(pth, "path") == "phy", f"lv: path {fig(pth, 'path')}")
cw, cr = verdict(ex, "claim", 3, "run 1"), verdict(ex, "claim", 3, "run 2")
ok(cw is not None and fig(cw, "direction") == "write" and (fig(cw, "inflation") or 0) <= TOLD,
   f"lv: the write claim is not inflated ({fig(cw, 'inflation')})")
ok(cr is not None and fig(cr, "direction") == "read", f"lv: run 2 is a read ({fig(cr, 'direction')})")
if cr:
    near(fig(cr, "observed_phys_bytes"), r.rd(lv3), f"lv: the read run's disk bytes vs {lv3}'s diskstats", 0.10)
cmp = load("cmp003")["comparison"]
shares = [c["share"] for c in cmp["causes"]]
ok(cmp["a"]["name"] == "dom0 (sh)" and cmp["b"]["domid"] == 3 and all(0 <= x <= 1 for x in shares)
   and abs(sum(shares) - 1) < 0.01,
   f"explain dom0 lv: {cmp['a']['name']} against domain {cmp['b']['domid']}, shares {shares}")
gib = wbytes / 2**30
ha, hb = cmp["a"]["hidden_s_per_gib"], cmp["b"]["hidden_s_per_gib"]
ok(hb <= 0.5 / gib + 1e-9 and ha >= hb,
   f"explain dom0 lv: dom0's page cache hid {ha:.2f} s/GiB from dom0's run, {hb:.2f} from the LV's "
   f"(at most one 0.5 s sample per GiB: {0.5 / gib:.2f})")

# --- seed 001: sync; time (dd bs=4096; sync), file against LV
for name, domid, dev, merged in (("file4k", 1, loop1, True), ("lv4k", 3, lv3, False)):
    ex, k = load(name), rec(name)
    (_, nbytes, _), = dd_runs(f"{name}.claim")
    real = re.search(r"real\s+(\d+)m([\d.]+)s", open(f"{work}/{name}.claim").read())
    real = int(real.group(1)) * 60 + float(real.group(2))
    d = dom(ex, domid)
    near(d["guest_wr_bytes"], k.wr(dev), f"{name}: guest_wr_bytes vs {dev}'s diskstats", 0.01)
    rq = verdict(ex, "request_size", domid)
    ios = k.wr_ios(dev)
    ok(rq is not None and fig(rq, "guest_requests") == ios == 16384 and fig(rq, "guest_avg_request_bytes") == 4096,
       f"{name}: the guest's requests {fig(rq, 'guest_requests')} of {fig(rq, 'guest_avg_request_bytes')} B "
       f"({dev}'s diskstats: {ios}; dd: 16384 x 4096)")
    m = fig(rq, "merge_ratio") or 0
    ok((m >= 2) == merged, f"{name}: merge ratio {m:.1f} ({'merged by dom0' if merged else 'taken as issued'})")
    if not merged:
        truth = k.wr(lv3) / max(k.wr_ios(lv3), 1)
        got = fig(rq, "disk_avg_request_bytes")
        ok(got is not None and abs(got - truth) <= 0.02 * truth,
           f"{name}: the disk's average request {got} B vs {lv3}'s diskstats {truth:.0f} B (2 %)")
    ok((verdict(ex, "double_counting", domid) is not None) == merged,
       f"{name}: double_counting {'named' if merged else 'not named'}")
    if not merged:
        ok(verdict(ex, "page_cache_inflation", domid) is None, f"{name}: no page_cache_inflation on the LV")
    c = verdict(ex, "claim", domid)
    ok(c is not None and abs(fig(c, "claimed_seconds") - real) < 0.002,
       f"{name}: the claim's seconds are time's real line, sync included: {fig(c, 'claimed_seconds')} s vs {real} s")
    infl = fig(c, "inflation")
    ok(infl is None or infl <= TOLD,
       f"{name}: timed until synced, no inflation of the claim beyond the samples' resolution ({infl})")
cmp = load("cmp001")["comparison"]
shares = [c["share"] for c in cmp["causes"]]
ok(all(0 <= x <= 1 for x in shares) and abs(sum(shares) - 1) < 0.01, f"explain file lv: shares {shares}")

# --- seed 004's path: a device model writing its image through dom0's page cache
ex, k = load("qemu"), rec("qemu")
wj = json.loads([line for line in open(f"{work}/qemu.out") if line.startswith("{")][-1])
d = dom(ex, 7)
ok(d is not None, "the device model's domain 7 is in the recording")
if d:
    near(d["guest_wr_bytes"], wj["image_wr_bytes"], "domain 7's guest writes vs the device model's own count", 0.02)
    near(d["phys_wr_bytes"] + (d["dirty_backlog_end_bytes"] or 0), k.wr(leaf),
         f"domain 7's disk writes in the window + its backlog vs {leaf}'s diskstats over the recording", 0.05, 2 * MiB)
pth = verdict(ex, "path", 7)
ok(fig(pth, "path") == "qemu", f"path: {fig(pth, 'path')}")
cost = verdict(ex, "dom0_cpu_cost", 7)
ticks = (wj["utime_ticks"] + wj["stime_ticks"]) / wj["clk_tck"]
dm = (fig(cost, "device_model_s_per_gib") or 0) * (fig(cost, "guest_gib") or 0)
ok(cost is not None and ticks - 0.03 <= dm <= ticks * 1.05 + 0.03,
   f"dom0_cpu_cost: the device model's {dm:.3f} s vs its own utime+stime {ticks:.2f} s (2 ticks + 5 %)")
ok(verdict(ex, "double_counting", 7) is None, "no double_counting for the device model (one submission)")
pci = verdict(ex, "page_cache_inflation", 7)
ok(pci is not None and fig(pci, "drained") == 1, f"page_cache_inflation for the device model's buffered writes "
   f"(backlog {fig(pci, 'dirty_backlog_end_bytes')}, drained {fig(pci, 'drain_seconds')} s later)")

# --- loop with direct I/O
ex, k = load("dio"), rec("dio")
(_, wbytes, _), (_, rbytes, _) = dd_runs("dio.claim")
w = Delta(f"{work}/dio.claim.k0", f"{work}/dio.claim.k1")
r = Delta(f"{work}/dio.claim.k1", f"{work}/dio.claim.k2")
leaf_on, loop_on = on["HOST_ZRAM"], on["DOM1_LOOP"]
d = dom(ex, 1)
near(d["guest_wr_bytes"], wbytes, "dio: guest_wr_bytes vs dd's count", 0.01)
near(d["phys_wr_bytes"], w.wr(leaf_on) + r.wr(leaf_on), f"dio: phys_wr_bytes in the window vs {leaf_on}'s diskstats during the run", 0.05, MiB)
near(d["phys_rd_bytes"], w.rd(leaf_on) + r.rd(leaf_on), f"dio: phys_rd_bytes vs {leaf_on}'s diskstats (direct I/O: no cache)", 0.05, MiB)
ok(r.rd(leaf_on) >= 0.95 * rbytes, f"(the physics) with direct I/O the leaf read {r.rd(leaf_on) / MiB:.0f} MiB of dd's {rbytes / MiB:.0f}")
ok(verdict(ex, "page_cache_inflation", 1) is None, "dio: no page_cache_inflation (no dom0 page cache on the path)")
ok(verdict(ex, "read_cache", 1) is None, "dio: no read_cache")
dc = verdict(ex, "double_counting", 1)
ok(dc is not None and abs(fig(dc, "vmstat_times") - 2) < 0.1, f"dio: double_counting, vmstat {fig(dc, 'vmstat_times')}x")
# loop's direct I/O submits each write to the file system device at once: in the window
near(d["double_counted_bytes"], w.wr(leaf_on) + r.wr(leaf_on),
     f"dio: double_counted_bytes vs {leaf_on}'s diskstats during the run (the second count)", 0.05, MiB)
near(d["double_counted_bytes"], k.wr(loop_on), f"dio: double_counted_bytes vs {loop_on}'s diskstats")
c = verdict(ex, "claim", 1, "run 1")
ok(c is not None and (fig(c, "inflation") is None or fig(c, "inflation") <= TOLD),
   f"dio: the write claim is not inflated ({fig(c, 'inflation')})")

print(f"seeds: {len(failures)} check(s) failed")
sys.exit(1 if failures else 0)
