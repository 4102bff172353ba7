#!/usr/bin/env python3
"""check_explain.py RESULTS - phase X of the real Xen dom0 (explain.sh): explain as a user
runs it, judged against what the physics of each guest's path says it must find.

Three guests ran one after the other, each making ext4 on its disk and running, between
its own marks ("start dd" ... "end iozone" or "end bonnie": each run marked as its tool,
"start fio" for both fio runs, as a user names them) written into xenstore (x-file all of
these, x-lv dd, dd oflag=direct, fio's random reads and bonnie++, x-md dd, dd
oflag=direct, fio's write and random reads and bonnie++): GNU dd (32 MiB written
with conv=fdatasync, the guest's caches dropped, read back), dd again with oflag=direct (32
MiB, no sync; its output x-NAME-ddd.txt), fio (32 MiB sequential write with end_fsync; then 4 KiB random
reads with direct=1 at iodepth 1 for 5 s, x-NAME-fiorr.txt), bonnie++ (-s 32 -f: a 32 MiB file,
512 MiB of guest memory) and iozone -o -e (8 MiB in 256 KiB O_SYNC writes, then read):
  x-file  a file image on ext4 on a zram disk, through loop with direct I/O off: dom0's
          page cache is on its path;
  x-lv    a dm linear "LV" over another zram disk: nothing in dom0 caches it;
  x-md    a file image on ext4 on md RAID1 of two zram disks, through loop with direct I/O
          off (seed 000's stack).
Ground truth, never another xiotop output: blkback's statistics read the moment each mark
landed in xenstore (XMARK) and before/after each guest (XVBD); the diskstats of each
guest's backend, file system device and md members at each of its marks (XMARKDISK) and
before/after it (XDISK: after dom0's sync, its drain's end); /proc/vmstat pgpgout
before/after each guest (XVMSTAT); the guest's own clock at each mark (its console); the
tools' own outputs.

THE EXPECTED VERDICTS, FROM THE PHYSICS (written before any run was looked at):
 1. The window explain takes for a guest is that guest's own marks: "start dd" to its
    last ("end iozone" or "end bonnie"), as long as the guest's own clock says (+- one sampling interval each
    side and a second: the window is whole intervals, which a loaded TCG stretches).
 2. Its guest bytes over that window are blkback's between the two marks (within 2 % and
    1 MiB: the window may hold one interval more on each side, in which the guest sleeps).
 3. dd's write ran with conv=fdatasync and fio's with end_fsync: blkback passed the flush
    down (loop fsyncs its file), so on every path the bytes were on a disk when the tool
    printed its rate: no such claim is inflated beyond what whole sampling intervals can
    add to a run of s seconds (at most 1.2 (s + 2 intervals) / s), and a run too short for
    the intervals gets no inflation at all (null, said so).
 3b. dd's log holds no command line: its first run is the write and its second the read,
    which explain must take from the timeline.
 4. dd's read came after the guest dropped its caches: on x-lv the disk served it (the
    claim's observed physical reads are the guest's, within 10 %); on x-file and x-md the
    image's pages were still in dom0's page cache: read_cache given, share >= 0.5.
 5. bonnie++'s file (32 MiB) is far smaller than the guest's memory: its reads never leave
    the guest, they are not located and the guest's own cache is said to have served them;
    test_size_vs_memory is given with the claim's file size (32 MiB), below bonnie's 2x rule.
 6. Double counting as the kernel counts it: pgpgout counts a write at every submit_bio();
    a guest's write is counted a second time only where loop's writeback (or fsync) submits
    it to the image's file system device. So explain's double-counted bytes for x-file
    (window and drain) are within 2 % of what that device (its zram) took between the
    guest's "start dd" mark and the end of its drain (its own diskstats), for x-md within
    2 % of md0's own diskstats (its members' copies counted by no one), and 0 for x-lv (no
    double_counting verdict, the domain's figure within 1 MiB of 0).
 6b. A mirror's copies are their own figure: x-md's members each took what md0 took
    (within 2 %), and the recording's copy_wr_bytes for x-md over the same span is md0's
    bytes (within 2 %); x-file and x-lv have none.
 6c. The identity: over the whole recording, pgpgout (its own counter, read before and
    after) is the domains' vmstat_wr_bytes plus the unattributed writes (2 %, 2 MiB).
 6d. A benchmark's rate is set against the array, not the sum of a mirror's copies: x-md's
    dd write claim (located, synced) sees its physical bytes within 15 % of its guest bytes
    (not twice them).
 7. No page-cache inflation on the LV.
 8. dom0's CPU per GiB: loop and the page cache cost more than a dm remap: x-file's and
    x-md's dom0_cpu_s_per_gib are above x-lv's.
 9. Paths: x-file and x-md "file via loop", x-lv not a file.
 14. request_size, where given, is what the guest's leaf devices took after the block layer
    merged them: disk_avg_request_bytes within 10 % of the leaves' own diskstats (bytes over
    requests) between the guest's "start dd" mark and its drain's end.
 15. Queue depth 1: fio's 4 KiB random reads at iodepth 1 each waited for the last: a
    queue-depth-1 verdict's IOPS from xiotop's latency (of the backend's requests) is within
    20 % of 1 / the backend's mean read latency in the kernel's own trace (qd_truth.py) over
    the reads completed between the marks of the random reads' run. Printed beside it: its
    diskstats (on loop an upper figure, counted after blkback's completion work; on dm whole
    jiffies) and fio's own clat in the guest (the whole trip).
 16. O_DIRECT in the guest is buffered in dom0 where loop's direct I/O is off: explain says
    so for x-file's and x-md's ddd run, never for x-lv's.
 17. iozone -o's writes were O_SYNC: its claim says it ran synchronously (its header says
    "SYNC Mode").
 18. Placement: every claim run placed in the timeline names its evidence; a run not placed
    has no inflation figure.
Imported logs (`xiotop import` of xentop -b -x, vmstat -t, iostat -dxt over the runs):
10. They hold guest bytes, vmstat bi/bo and leaf disks, not the stack: absent is exactly
    ["stack"]; no domain shows physical bytes, no verdict names a per-domain counter.
11. Each guest's bytes over the whole log are blkback's from creation to the end (2 %, 1 MiB).
12. The host double counting is vmstat bo less the guests' own writes (iostat shows md0
    over its members, so not less the leaves): what the kernel counted beyond the guests'
    first counts, pgpgout less blkback's writes over the runs (within 5 % and 2 MiB).
13. fio's default text output is read as a claim (no refusal), in both recordings.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qd_truth  # noqa: E402
from xenfig import epoch  # noqa: E402

MiB = 1 << 20
NAMES = ("x-file", "x-lv", "x-md")
TOOLS = ("dd", "ddd", "fio", "fiorr", "bonnie", "iozone")
# the runs each guest made (explain.sh's x_cfg): each output's file, in the order they ran
TOOLS_OF = {"x-file": TOOLS, "x-lv": ("dd", "ddd", "fiorr", "bonnie"), "x-md": ("dd", "ddd", "fio", "fiorr", "bonnie")}


def last_mark(name):
    return "end " + {"fiorr": "fio", "ddd": "dd"}.get(TOOLS_OF[name][-1], TOOLS_OF[name][-1])
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def near(value, truth, pct, floor=0):
    return value is not None and truth is not None and abs(value - truth) <= max(abs(truth) * pct / 100.0, floor)


def mib(b):
    return "null" if b is None else f"{b / MiB:.2f} MiB"


class Truth:
    """snapshots.txt's X lines."""

    def __init__(self, path):
        self.marks = {}  # name -> [(wall, rd_bytes, wr_bytes, label)]
        self.markdisk = {}  # (name, label) -> [{dev: dict}], each time the label landed
        self.vbd = {}  # (tag, name) -> (wall, rd, wr)
        self.disk = {}  # (tag, name) -> {dev: dict}
        self.vmstat = {}  # (tag, name) -> (wall, pgpgout bytes)
        self.stack = {}  # name -> dict(backend, fs, members)
        self.domid = {}
        self.explain_s = {}
        self.failed = []
        for line in open(path) if os.path.exists(path) else []:
            self._line(line.split(), line)

    def _line(self, f, line):
        if not f:
            return
        if f[0] == "XMARK" and len(f) >= 7:
            self.marks.setdefault(f[1], []).append((float(f[3]), int(f[4]) * 512, int(f[5]) * 512, " ".join(f[6:])))
            self.domid[f[1]] = int(f[2])
        elif f[0] == "XMARKDISK" and len(f) >= 13:
            # one line per device each time a mark lands: a new landing when the device is
            # already in the last one (the same label lands twice: "start fio" per fio run)
            seen = self.markdisk.setdefault((f[1], " ".join(f[12:])), [])
            if not seen or f[4] in seen[-1]:
                seen.append({})
            seen[-1][f[4]] = dict(reads=int(f[5]), rd=int(f[6]) * 512, rticks=int(f[7]), writes=int(f[8]),
                                  wr=int(f[9]) * 512, wticks=int(f[10]))
        elif f[0] == "XVBD":
            self.vbd[(f[1], f[2])] = (float(f[4]), int(f[5]) * 512, int(f[6]) * 512)
            self.domid[f[2]] = int(f[3])
        elif f[0] == "XDISK" and len(f) >= 18:
            self.disk.setdefault((f[1], f[2]), {})[f[6]] = dict(
                reads=int(f[7]), rd=int(f[9]) * 512, rticks=int(f[10]), writes=int(f[11]), wr=int(f[13]) * 512)
        elif f[0] == "XVMSTAT":
            self.vmstat[(f[1], f[2])] = (float(f[3]), int(f[5]) * 1024)
        elif f[0] == "XSTACK":
            self.stack[f[1]] = dict(backend=f[3], fs=f[4], members=f[5:])
        elif f[0] == "XTIME":
            self.explain_s[f[2]] = float(f[4]) - float(f[3])
        elif f[0] in ("XPHASE-FAILED", "XEXPLAIN-FAILED"):
            self.failed.append(line.strip())

    def mark(self, name, label, last=False):
        ms = [m for m in self.marks.get(name, []) if m[3] == label]
        return (ms[-1] if last else ms[0]) if ms else None

    def mark_delta(self, name, first, last):
        """blkback's (rd, wr) between the first mark labelled first and the last labelled last."""
        a, b = self.mark(name, first), self.mark(name, last, True)
        return (b[1] - a[1], b[2] - a[2]) if a and b else None

    def disk_at(self, name, label, nth, dev):
        seen = self.markdisk.get((name, label), [])
        return seen[nth].get(dev) if -len(seen) <= nth < len(seen) else None

    def dev_since_mark(self, name, label, dev, key):
        """A device's counter from the guest's first such mark to its count after it (its
        drain's end)."""
        a = self.disk_at(name, label, 0, dev)
        b = self.disk.get(("after", name), {}).get(dev)
        return b[key] - a[key] if a and b else None

    def dev_between_marks(self, name, first, last, nth, dev, key):
        """A device's counter between the nth landing of mark first and of mark last."""
        a, b = self.disk_at(name, first, nth, dev), self.disk_at(name, last, nth, dev)
        return b[key] - a[key] if a and b else None


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError) as e:
        return {"_error": str(e)}


def verdicts(ex, vid, domid=None):
    return [v for v in ex.get("verdicts", []) if v["id"] == vid and (domid is None or v["domid"] == domid)]


def domain(ex, domid):
    return next((d for d in ex.get("domains", []) if d["domid"] == domid), None)


def guest_console(res, name):
    """The guest's console lines (collected by explain.sh), empty when none were."""
    p = os.path.join(res, f"xguest-{name}.log")
    return [x.strip() for x in open(p, errors="replace")] if os.path.exists(p) else []


def guest_clock(res, name):
    """The guest's own uptime at each of its marks (its console)."""
    out = {}
    for line in guest_console(res, name):
        m = re.match(r"XIOTOP-DOMU: mark (.*) at ([\d.]+)$", line)
        if m:
            out.setdefault(m.group(1), float(m.group(2)))
    return out


def claims(ex, tool):
    """(claim list entry, its verdict or None) of the claims read from x-NAME-TOOL.txt: the
    list names the file, the verdict its figures and text (matched by tool, direction,
    bytes and seconds)."""
    out = []
    for c in ex.get("claims", []):
        if not (c.get("file") or "").endswith(f"-{tool}.txt"):
            continue
        v = next((v for v in verdicts(ex, "claim") if v["figures"].get("tool") == c["tool"]
                  and v["figures"].get("direction") == c["direction"]
                  and v["figures"].get("claimed_bytes") == c["bytes"]
                  and v["figures"].get("claimed_seconds") == c["seconds"]), None)
        out.append((c, v))
    return out


def check_window(res, truth, ex, name, tag):
    """1 and 2."""
    w = ex["window"]
    clock = guest_clock(res, name)
    end = last_mark(name)
    span = clock[end] - clock["start dd"] if end in clock and "start dd" in clock else None
    check(w.get("marks_of") == f"domain {truth.domid.get(name)}" and w.get("from_mark") == "start dd"
          and w.get("to_mark") == end,
          f"{tag} 1: window from the guest's own marks: marks_of {w.get('marks_of')!r},"
          f" {w.get('from_mark')!r} to {w.get('to_mark')!r}")
    slack = 2 * w["interval_s"] + 1
    check(span is not None and abs(w["seconds"] - span) <= slack,
          f"{tag} 1: window {w['seconds']:.1f} s, the guest's clock {span} s between its marks"
          f" (+-{slack:.1f} s: 2 intervals of {w['interval_s']} s and 1 s)")
    d = domain(ex, truth.domid.get(name))
    delta = truth.mark_delta(name, "start dd", last_mark(name))
    if not d or not delta:
        check(False, f"{tag} 2: explain has the domain ({bool(d)}) and blkback was read at its marks ({bool(delta)})")
        return None
    check(near(d["guest_wr_bytes"], delta[1], 2, MiB) and near(d["guest_rd_bytes"], delta[0], 2, MiB),
          f"{tag} 2: guest wr {mib(d['guest_wr_bytes'])} rd {mib(d['guest_rd_bytes'])} vs blkback"
          f" between the marks wr {mib(delta[1])} rd {mib(delta[0])} (2 %, 1 MiB)")
    return d


def check_synced(ex, name, tag):
    """3, 3b, 13."""
    interval = ex["window"]["interval_s"]
    for tool in [t for t in ("fio", "fiorr") if t in TOOLS_OF[name]]:
        check(bool(claims(ex, tool)), f"{tag} 13: fio's default text output ({tool}) read as a claim")
    for tool in [t for t in ("dd", "fio") if t in TOOLS_OF[name]]:
        ws = [(c, v) for c, v in claims(ex, tool) if c["direction"] == "write"]
        got = []
        for c, v in ws:
            s = c["seconds"]
            bound = 1.2 * (s + 2 * interval) / s if s else 1.2
            short = v is not None and "shorter than the recording's intervals can time" in v["text"]
            got.append(((c["inflation"] is None and short) or (c["inflation"] is not None and c["inflation"] <= bound),
                        f"{c['inflation']} (over {s} s: <= {bound:.2f})"))
        check(bool(ws) and all(g for g, _ in got),
              f"{tag} 3: {tool} write (synced) claim inflation {', '.join(t for _, t in got)}")
    dirs = {v["figures"].get("run"): v["figures"].get("direction") for c, v in claims(ex, "dd") if v}
    check(dirs == {"run 1": "write", "run 2": "read"},
          f"{tag} 3b: dd's runs as the guest ran them (run 1 write, run 2 read): {dirs}")


def check_reads(ex, name, domid, tag):
    """4 and 5."""
    ddr = [(c, v) for c, v in claims(ex, "dd") if c["direction"] == "read"]
    rc = verdicts(ex, "read_cache", domid)
    if name == "x-lv":
        check(bool(ddr) and all(near(c["observed_phys_bytes"], c["observed_guest_bytes"], 10, MiB) for c, _ in ddr),
              f"{tag} 4: dd read claim: physical reads = guest reads "
              + ", ".join(f"{mib(c['observed_phys_bytes'])} of {mib(c['observed_guest_bytes'])}" for c, _ in ddr))
        check(not rc or rc[0]["share"] < 0.2, f"{tag} 4: no read_cache on the LV (share {rc[0]['share'] if rc else None})")
    else:
        check(bool(ddr), f"{tag} 4: dd read claim read ({len(ddr)})")
        check(bool(rc) and rc[0]["share"] >= 0.5,
              f"{tag} 4: read_cache given, dom0's cache served the guest's reads (share {rc[0]['share'] if rc else None})")
    br = [v for c, v in claims(ex, "bonnie") if c["direction"] == "read"]
    own = [v is not None and v["figures"].get("located_from_s") is None and "guest's own cache served them" in v["text"]
           and "outside the recording" not in v["text"] for v in br]
    check(bool(br) and all(own), f"{tag} 5: bonnie read claims ({len(br)}) not located, the guest's own cache: {own}")
    ts = verdicts(ex, "test_size_vs_memory", domid)
    f = ts[0]["figures"] if ts else {}
    check(bool(ts) and f.get("test_bytes_from") == "claim" and near(f.get("test_bytes"), 32 * MiB, 1)
          and f.get("test_to_cache", 99) < 2,
          f"{tag} 5: test_size_vs_memory: test {mib(f.get('test_bytes'))} from {f.get('test_bytes_from')},"
          f" {f.get('test_to_cache')} x the caches (< 2)")


def check_double(truth, ex, name, d, tag):
    """6, 6d, 7, 9: double counting as the kernel counted it, against the file system
    device's own diskstats from the guest's first mark to its drain's end."""
    domid = truth.domid.get(name)
    dc = verdicts(ex, "double_counting", domid)
    pci = verdicts(ex, "page_cache_inflation", domid)
    st = truth.stack.get(name, {})
    if name == "x-lv":
        check(not dc and (d.get("double_counted_bytes") or 0) <= MiB,
              f"{tag} 6: LV: no double_counting ({[v['share'] for v in dc]}), double_counted_bytes"
              f" {mib(d.get('double_counted_bytes'))} ~ 0 (dm remaps without a second count)")
        check(not pci, f"{tag} 7: no page-cache inflation on the LV ({[v['text'][:80] for v in pci]})")
        check("loop" not in (d.get("path") or "") and "qemu" not in (d.get("path") or ""),
              f"{tag} 9: path {d.get('path')!r} is not a file")
        return
    fs = st.get("fs")
    kernel = truth.dev_since_mark(name, "start dd", fs, "wr") if fs else None
    dcb = dc[0]["figures"].get("double_counted_bytes") if dc else None
    check(bool(dc) and near(dcb, kernel, 2),
          f"{tag} 6: double_counted_bytes (window and drain) {mib(dcb)} vs {fs}'s own diskstats"
          f" {mib(kernel)} from 'start dd' to the drain's end (2 %); guest writes {mib(d['guest_wr_bytes'])}")
    check("loop" in (d.get("path") or ""), f"{tag} 9: path {d.get('path')!r} is the file via loop")
    if name != "x-md":
        return
    ws = [(c, v) for c, v in claims(ex, "dd") if c["direction"] == "write"]
    placed = [c for c, v in ws if v and v["figures"].get("located_from_s") is not None]
    check(bool(placed) and all(near(c["observed_phys_bytes"], c["observed_guest_bytes"], 15) for c in placed),
          f"{tag} 6d: dd's write against the array, not the mirror's sum: "
          + ", ".join(f"phys {mib(c['observed_phys_bytes'])} of guest {mib(c['observed_guest_bytes'])}" for c in placed))


def sum_export(export, domid, lo, hi, key):
    """A domain's figure over the recording's intervals ending in (lo, hi + 1.2]."""
    total = 0
    for iv in export:
        at = epoch(iv["time"])
        if lo < at <= hi + 1.2:
            total += sum(d.get(key) or 0 for d in iv["domains"] if d["domid"] == domid)
    return total


def check_copies(res, truth):
    """6b and 6c, from the recording's export."""
    p = os.path.join(res, "x-export.json")
    export = load(p)
    if isinstance(export, dict):  # JSON lines, one interval each
        export = [json.loads(x) for x in open(p) if x.strip()] if os.path.exists(p) else []
    if not export:
        check(False, "6b: the recording exported (x-export.json)")
        return
    for name in NAMES:
        st, domid = truth.stack.get(name, {}), truth.domid.get(name)
        start, after = truth.mark(name, "start dd"), truth.vbd.get(("after", name))
        if not st or not start or not after:
            check(False, f"[{name}] 6b: its stack, first mark and after counts were read")
            continue
        copies = sum_export(export, domid, start[0], after[0], "copy_wr_bytes")
        if name != "x-md":
            check(copies == 0, f"[{name}] 6b: no copies ({mib(copies)}): no redundant array under it")
            continue
        md = truth.dev_since_mark(name, "start dd", st["fs"], "wr")
        members = [truth.dev_since_mark(name, "start dd", m, "wr") for m in st["members"]]
        check(all(near(m, md, 2) for m in members),
              f"[x-md] 6b: (the physics) each member took what md0 took: {[mib(m) for m in members]} vs {mib(md)}")
        check(near(copies, md, 2), f"[x-md] 6b: copy_wr_bytes {mib(copies)} vs md0's own diskstats {mib(md)} (2 %)")
    befores = [truth.vmstat[k] for k in truth.vmstat if k[0] == "before"]
    afters = [truth.vmstat[k] for k in truth.vmstat if k[0] == "after"]
    if not befores or not afters:
        check(False, "6c: vmstat read before and after the guests")
        return
    lo, hi = min(befores)[0], max(afters)[0]
    pgpgout = max(afters)[1] - min(befores)[1]
    counted = unattr = 0
    for iv in export:
        at = epoch(iv["time"])
        if lo < at <= hi + 1.2:
            counted += sum(d.get("vmstat_wr_bytes") or 0 for d in iv["domains"])
            unattr += (iv.get("unattributed") or {}).get("wr_bytes") or 0
    check(near(counted + unattr, pgpgout, 2, 2 * MiB),
          f"6c: pgpgout {mib(pgpgout)} (the kernel's, before and after) vs the domains' vmstat_wr_bytes"
          f" {mib(counted)} + unattributed {mib(unattr)} (2 %, 2 MiB)")


def check_request_size(truth, ex, name, domid, tag):
    """14: request_size against the leaves' own diskstats."""
    rs = verdicts(ex, "request_size", domid)
    st = truth.stack.get(name, {})
    leaves = st.get("members") or [st.get("fs")]
    if not rs:
        why = [n for n in ex.get("not_given", []) if "request_size" in json.dumps(n)]
        print(f"     {tag} 14: no request_size verdict (a mechanism given when merged or small); {why[:1]}")
        return
    f = rs[0]["figures"]
    wr = f.get("direction") == "write"
    nbytes = sum(truth.dev_since_mark(name, "start dd", leaf, "wr" if wr else "rd") or 0 for leaf in leaves)
    nios = sum(truth.dev_since_mark(name, "start dd", leaf, "writes" if wr else "reads") or 0 for leaf in leaves)
    want = nbytes / nios if nios else None
    check(near(f.get("disk_avg_request_bytes"), want, 10),
          f"{tag} 14: request_size's disk_avg_request_bytes {f.get('disk_avg_request_bytes')} vs the leaves'"
          f" own {want and round(want)} ({'+'.join(leaves)} diskstats, {f.get('direction')}s, 10 %)")


def check_queue_depth(res, truth, ex, name, domid, tag):
    """15: the queue-depth-1 verdict against the backend's mean read latency in the kernel's
    own trace (its diskstats and the guest's fio clat printed beside it)."""
    dev = truth.stack.get(name, {}).get("backend")
    # the random reads' run: the second "start fio" .. "end fio" where fio's write ran first
    run = ("start fio", "end fio", 1 if "fio" in TOOLS_OF[name] else 0, dev)
    tr = qd_truth.trace_read_latency(res, name, *run)
    reads, ticks = (truth.dev_between_marks(name, *run, k) for k in ("reads", "rticks"))
    clat = qd_truth.fio_clat_us(os.path.join(res, f"x-{name}-fiorr.txt"))
    qd = verdicts(ex, "queue_depth_latency", domid)
    f = qd[0]["figures"] if qd else {}
    fig, want = f.get("latency_iops"), tr["mean_us"] and 1e6 / tr["mean_us"]
    disk = round(1000.0 * ticks / reads, 1) if reads and ticks is not None else None
    upper = "whole jiffies" if dev and dev.startswith("dm-") else "counted after blkback's completion work"
    print(f"     {tag} 15: {dev}'s mean read latency: xiotop {f.get('latency_mean_us')} us over"
          f" {f.get('latency_requests')} requests; kernel trace {tr['mean_us']} us over {tr['reads']}"
          f" ({tr['kind']}, from issue {tr['issue_mean_us']} us, lost {tr['lost']}); diskstats {disk} us"
          f" over {reads} ({upper}); fio's clat in the guest {clat} us; tool {f.get('claimed_iops')} IOPS")
    check(fig is not None and near(fig, want, 20),
          f"{tag} 15: queue-depth-1 verdict's IOPS from latency {fig} vs 1 / {dev}'s mean read latency in"
          f" the kernel's trace {want and round(want, 1)} (20 %)" + (f": unknown, {tr['why']}" if tr["why"] else "")
          + ("" if qd else f": no queue_depth_latency verdict ({why_not(ex, 'queue_depth_latency')})"))


def why_not(ex, vid):
    return next((n["why"][:160] for n in ex.get("not_given", []) if n["id"] == vid), "not named not given")


def check_self_description(ex, name, domid, tag):
    """16 and 17: what the claim says about itself."""
    ddd = [v for c, v in claims(ex, "ddd") if v]
    check(bool(ddd) and all(v["figures"].get("direct") == 1 for v in ddd),
          f"{tag} 16: ddd's oflag=direct read from its command line: {[v['figures'].get('direct') for v in ddd]}")
    buffered = verdicts(ex, "direct_io_buffered", domid)
    if name == "x-lv":
        check(not buffered, f"{tag} 16: no direct_io_buffered on the LV ({len(buffered)})")
    else:
        check(bool(buffered), f"{tag} 16: direct_io_buffered: O_DIRECT in the guest, buffered in dom0"
              f" (loop direct I/O off): {len(buffered)}"
              + ("" if buffered else f" ({why_not(ex, 'direct_io_buffered')})"))
    if "iozone" not in TOOLS_OF[name]:
        return
    iz = [v for c, v in claims(ex, "iozone") if v]
    synced = [v for v in iz if v["figures"].get("sync") == 1]
    check(bool(iz) and len(synced) == len(iz),
          f"{tag} 17: iozone -o's runs ({len(iz)}) said synchronous ({len(synced)}: figure sync)")


def check_placement(ex, tag):
    """18: no run placed without evidence, no inflation on a run not placed."""
    bad_evidence, bad_inflation = [], []
    for c in ex.get("claims", []):
        v = next((v for v in verdicts(ex, "claim") if v["figures"].get("claimed_bytes") == c["bytes"]
                  and v["figures"].get("claimed_seconds") == c["seconds"]
                  and v["figures"].get("direction") == c["direction"]), None)
        placed = v is not None and v["figures"].get("located_from_s") is not None
        if placed and not v["figures"].get("placed_by"):
            bad_evidence.append(f"{os.path.basename(c['file'])} {c['direction']}")
        if not placed and c.get("inflation") is not None:
            bad_inflation.append(f"{os.path.basename(c['file'])} {c['direction']} {c['inflation']}")
    check(not bad_evidence, f"{tag} 18: every placed run names its evidence: {bad_evidence or 'all'}")
    check(not bad_inflation, f"{tag} 18: no inflation on a run not placed: {bad_inflation or 'none'}")


def check_recorded(res, truth, name):
    """1-9, 14-18 for one guest, from explain's JSON on the recording with its tools' claims."""
    ex = load(os.path.join(res, f"x-explain-{name}.json"))
    errp = os.path.join(res, f"x-explain-{name}.err")
    if "_error" in ex:
        err = open(errp, errors="replace").read().strip() if os.path.exists(errp) else ""
        check(False, f"[{name}] explain --format json gave JSON: {ex['_error']}; stderr: {err[:300]}")
        return None
    domid = truth.domid.get(name)
    tag = f"[{name}] (domid {domid})"
    d = check_window(res, truth, ex, name, tag)
    if not d:
        return ex
    check_synced(ex, name, tag)
    check_reads(ex, name, domid, tag)
    check_double(truth, ex, name, d, tag)
    check_request_size(truth, ex, name, domid, tag)
    if "fiorr" in TOOLS_OF[name]:
        check_queue_depth(res, truth, ex, name, domid, tag)
    check_self_description(ex, name, domid, tag)
    check_placement(ex, tag)
    print(f"     {tag} explain took {truth.explain_s.get(name, float('nan')):.1f} s in dom0;"
          f" dom0 CPU {d.get('dom0_cpu_s_per_gib')} s/GiB; verdicts "
          + ", ".join(f"{v['id']}({v['share']})" for v in ex["verdicts"]))
    return ex


def check_kernel_physics(truth):
    """The premises from the kernel's own counters, per guest: pgpgout, blkback's writes and
    each device's (printed)."""
    for name in NAMES:
        b, a = truth.vbd.get(("before", name)), truth.vbd.get(("after", name))
        st = truth.stack.get(name, {})
        if not a or not st:
            check(False, f"[{name}] counts read before and after its run")
            continue
        guest_wr = a[2] - (b[2] if b else 0)
        devs = [st["backend"], st["fs"]] + st["members"]
        print(f"     [{name}] kernel: blkback wr {mib(guest_wr)}; from 'start dd' to the drain's end: "
              + ", ".join(f"{dev} wr {mib(truth.dev_since_mark(name, 'start dd', dev, 'wr'))}" for dev in devs))


def check_imported(res, truth):
    ex = load(os.path.join(res, "x-import-explain-x-lv.json"))
    err_p = os.path.join(res, "x-import.err")
    if "_error" in ex:
        check(False, f"[import] explain of the imported logs gave JSON: {ex['_error']};"
              f" import said: {open(err_p).read()[:300] if os.path.exists(err_p) else ''}")
        return
    imp = ex.get("imported", {})
    check(imp.get("absent") == ["stack"], f"[import] 10: absent {imp.get('absent')} = ['stack']")
    per_domain = ("phys_wr_bytes", "phys_rd_bytes", "dirtied_bytes", "written_back_bytes",
                  "double_counted_bytes", "dirty_backlog")
    phys = [d["phys_wr_bytes"] for d in ex["domains"]]
    bad = [(v["id"], e) for v in ex["verdicts"] for e in v["evidence"] if any(e.startswith(p) for p in per_domain)]
    check(all(p is None for p in phys) and not bad,
          f"[import] 10: no physical bytes per domain ({phys}) and no verdict on one ({bad})")
    for name in NAMES:
        ex1 = load(os.path.join(res, f"x-import-explain-{name}.json"))
        tools = sorted({c["tool"] for c in ex1.get("claims", [])})
        check("fio" in tools, f"[import {name}] 13: fio's text output read as a claim (claims: {tools})")
    whole = load(os.path.join(res, "x-import-explain-all.json"))
    if "_error" in whole:
        check(False, f"[import] explain of the whole log: {whole['_error']}")
        return
    guests = 0
    for name in NAMES:
        vb, va = truth.vbd.get(("before", name)), truth.vbd.get(("after", name))
        d = [x for x in whole["domains"] if x["name"] == name]
        if not d or not va:
            check(False, f"[import {name}] 11: the domain is in the import ({bool(d)}), blkback read ({bool(va)})")
            continue
        wr, rd = va[2] - (vb[2] if vb else 0), va[1] - (vb[1] if vb else 0)
        guests += wr
        check(near(d[0]["guest_wr_bytes"], wr, 2, MiB) and near(d[0]["guest_rd_bytes"], rd, 2, MiB),
              f"[import {name}] 11: xentop's guest wr {mib(d[0]['guest_wr_bytes'])} rd {mib(d[0]['guest_rd_bytes'])}"
              f" vs blkback wr {mib(wr)} rd {mib(rd)}")
    befores = [truth.vmstat[k] for k in truth.vmstat if k[0] == "before"]
    afters = [truth.vmstat[k] for k in truth.vmstat if k[0] == "after"]
    if not befores or not afters:
        check(False, "[import] 12: vmstat read before and after the guests")
        return
    second = max(afters)[1] - min(befores)[1] - guests
    dcv = verdicts(whole, "double_counting")
    dcb = dcv[0]["figures"].get("double_counted_bytes") if dcv else None
    check(bool(dcv) and near(dcb, second, 5, 2 * MiB),
          f"[import] 12: host double counting {mib(dcb)} vs pgpgout less the guests' own writes {mib(second)}"
          " over the runs (5 %, 2 MiB)")


def main():
    res = sys.argv[1]
    truth = Truth(os.path.join(res, "snapshots.txt"))
    for line in truth.failed:
        check(False, line)
    for name in NAMES:
        console = guest_console(res, name)
        done = any(line.startswith("XIOTOP-DOMU: done") for line in console)
        # why not: its kernel's or its script's first complaint, else its console's end
        why = [x for x in console if re.search(r"panic|fail|error", x, re.I)][:3] or console[-3:]
        check(done, f"[{name}] the guest ran its tools to the end"
              + ("" if done else f"; its console: {' | '.join(why) or 'nothing'}"))
        check(len(truth.marks.get(name, [])) >= 2 * len(TOOLS_OF[name]),
              f"[{name}] blkback read at the guest's marks: {[m[3] for m in truth.marks.get(name, [])]}")
        for t in TOOLS_OF[name]:
            p = os.path.join(res, f"x-{name}-{t}.txt")
            check(os.path.exists(p) and os.path.getsize(p) > 0, f"[{name}] {t}'s output collected from the console")
    check_kernel_physics(truth)
    cost = {}
    for name in NAMES:
        ex = check_recorded(res, truth, name)
        d = domain(ex, truth.domid.get(name)) if ex and "_error" not in ex else None
        cost[name] = d.get("dom0_cpu_s_per_gib") if d else None
    check(None not in cost.values() and cost["x-file"] > cost["x-lv"] and cost["x-md"] > cost["x-lv"],
          f"8: dom0 CPU per GiB x-file {cost['x-file']} s, x-md {cost['x-md']} s > x-lv {cost['x-lv']} s")
    check_copies(res, truth)
    check_imported(res, truth)
    print(f"check_explain: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
