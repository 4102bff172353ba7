#!/usr/bin/env python3
"""check_explain.py RESULTS - phase X of the real Xen dom0 (explain.sh): explain as a user
runs it, judged against what the physics of each guest's path says it must find.

Two guests ran one after the other, each making ext4 on its disk and running GNU dd
(48 MiB written with conv=fdatasync, the guest's caches dropped, read back), fio (48 MiB
sequential write, end_fsync) and bonnie++ (-s 48 -f: a 48 MiB file, 448 MiB of guest
memory), writing its own marks ("start dd" ... "end bonnie") into xenstore:
  x-file  a file image on ext4 on zram, through loop with direct I/O off: dom0's page
          cache is on its path;
  x-lv    a dm linear "LV" over another zram disk: nothing in dom0 caches it.
Ground truth, never another xiotop output: blkback's statistics read the moment each
mark landed in xenstore (XMARK) and before/after each guest (XVBD), the zram disks'
/proc/diskstats and /proc/vmstat pgpgout before/after each guest (XDISK, XVMSTAT), the
guest's own clock at each mark (its console), the tools' own outputs.

THE EXPECTED VERDICTS, FROM THE PHYSICS (written before any run was looked at):
 1. The window explain takes for a guest is that guest's own marks: "start dd" to
    "end bonnie", as long as the guest's own clock says (+- one 1 s interval each side).
 2. Its guest bytes over that window are blkback's between the two marks (within 2 % and
    1 MiB: the window may hold one interval more on each side, in which the guest only
    sleeps: mark() waits 2 s, mkfs initialises eagerly).
 3. dd's write ran with conv=fdatasync and fio's with end_fsync: blkback passed the flush
    down (loop fsyncs its file), so on both paths the bytes were on a disk when the tool
    printed its rate: no write claim is called inflated beyond what whole sampling
    intervals can add to a run of s seconds (xiotop sees a run in whole 1 s intervals,
    up to two more than the run: at most 1.2 (s + 2 intervals) / s), and a run too
    short for the intervals gets no inflation at all (null, said so).
 3b. dd's log holds no command line: its first run is the write and its second the read
    (as the guest ran them, 2 s apart), which explain must take from the timeline.
 4. dd's read came after the guest dropped its caches, so the guest read its disk. On
    x-lv the disk (zram) served it: its dd read claim's observed physical reads are the
    guest's (within 10 %). On x-file the image's pages were still in dom0's page cache
    (written through it a few seconds before, dom0 has 1.5 GiB): no disk read; explain
    gives read_cache for x-file, with most of the guest's reads served by no disk
    (share >= 0.5), and gives no read_cache for x-lv.
 5. bonnie++'s file (48 MiB) is far smaller than the guest's memory (448 MiB): its block
    reads never leave the guest (its own cache). Each bonnie read claim is not located
    in the guest's reads and explain says the guest's own cache served them (not "outside
    the recording"). test_size_vs_memory is given for both guests with the claim's file
    size (test_bytes = 48 MiB, from the claim), a test below bonnie's own 2x rule.
 6. Double counting: every write of x-file is counted by vmstat twice (the loop bio, then
    the page cache's writeback of the image to zram); x-lv's once (dm remaps without a
    second count). The kernel's own counters say so first (pgpgout over each guest's run
    against blkback's writes, printed); explain gives double_counting for x-file with
    double-counted bytes near its guest writes (within 25 %: ext4's journal and metadata
    of the dom0 file system add writes) and none for x-lv.
 7. No page-cache inflation on the LV: no page_cache_inflation verdict for x-lv.
 8. dom0's CPU per GiB: loop and the page cache cost more than a dm remap: x-file's
    dom0_cpu_s_per_gib is above x-lv's.
 9. Paths: x-file "file via loop", x-lv not a file.
Imported logs (`xiotop import` of xentop -b -x, vmstat -t, iostat -dxt over both runs):
10. They hold guest bytes (xentop VBD), vmstat bi/bo and leaf disks (iostat sees zram),
    but not the stack: absent is exactly ["stack"]; no domain shows physical bytes, and no
    verdict's evidence names a per-domain counter the logs lack.
11. Each guest's bytes over the whole log are blkback's from creation to the end
    (within 2 % and 1 MiB: xentop's sectors are blkback's statistics).
12. The host's disk writes (iostat's zram rows) are /proc/diskstats' zram writes over the
    same span (within 3 % and 2 MiB: iostat prints rounded rates); the host double
    counting is given, its bytes vmstat bo less the disks' writes, which is x-file's
    second count (within 25 %).
13. fio's default text output is read as a claim (no refusal), in both recordings.
"""
import json
import os
import re
import sys

MiB = 1 << 20
failures = []
notes = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def report(ok, what):
    """A figure with no truth to hold it to in this run (the caller says why): a NOTE."""
    print(("ok   " if ok else "NOTE ") + what, flush=True)
    if not ok:
        notes.append(what)


def near(value, truth, pct, floor=0):
    return value is not None and abs(value - truth) <= max(abs(truth) * pct / 100.0, floor)


def mib(b):
    return "null" if b is None else f"{b / MiB:.2f} MiB"


class Truth:
    """snapshots.txt's X lines."""

    def __init__(self, path):
        self.marks = {}  # name -> [(wall, rd_bytes, wr_bytes, label)]
        self.vbd = {}  # (tag, name) -> (rd, wr)
        self.disk = {}  # (tag, name) -> {zram: (rd_bytes, wr_bytes)}
        self.vmstat = {}  # (tag, name) -> pgpgout KiB
        self.stack = {}  # name -> (backend, zram)
        self.failed = []
        self.domid = {}
        self.explain_s = {}
        name_of = {}
        for line in open(path) if os.path.exists(path) else []:
            f = line.split()
            if not f:
                continue
            if f[0] == "XMARK" and len(f) >= 7:
                self.marks.setdefault(f[1], []).append(
                    (float(f[3]), int(f[4]) * 512, int(f[5]) * 512, " ".join(f[6:])))
                self.domid[f[1]] = int(f[2])
            elif f[0] == "XVBD":
                self.vbd[(f[1], f[2])] = (int(f[5]) * 512, int(f[6]) * 512)
                self.domid[f[2]] = int(f[3])
                name_of[f[1]] = f[2]
            elif f[0] == "XDISK" and f[5].startswith("zram"):
                self.disk.setdefault(f[1], []).append((f[5], int(f[8]) * 512, int(f[12]) * 512))
            elif f[0] == "XVMSTAT":
                self.vmstat.setdefault(f[1], []).append(int(f[4]))
            elif f[0] == "XSTACK":
                self.stack[f[1]] = (f[2], f[3])
            elif f[0] == "XTIME":
                self.explain_s[f[2]] = float(f[4]) - float(f[3])
            elif f[0] in ("XPHASE-FAILED", "XEXPLAIN-FAILED"):
                self.failed.append(line.strip())

    def mark_delta(self, name, first, last):
        """blkback's (rd, wr) between the first mark labelled first and the last labelled last."""
        ms = self.marks.get(name, [])
        a = [m for m in ms if m[3] == first]
        b = [m for m in ms if m[3] == last]
        if not a or not b:
            return None
        return b[-1][1] - a[0][1], b[-1][2] - a[0][2]


def disk_series(truth):
    """Each guest's before/after snapshot of one zram disk, in snapshot order: the XDISK
    lines come in (before, after) pairs per guest, x-file first."""
    return truth.disk.get("before", []), truth.disk.get("after", [])


def zram_delta(before, after, zram):
    b = {n: (r, w) for n, r, w in before}
    a = {n: (r, w) for n, r, w in after}
    if zram not in a or zram not in b:
        return None
    return a[zram][0] - b[zram][0], a[zram][1] - b[zram][1]


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError) as e:
        return {"_error": str(e)}


def verdicts(ex, vid, domid=None):
    return [v for v in ex.get("verdicts", []) if v["id"] == vid and (domid is None or v["domid"] == domid)]


def domain(ex, domid):
    for d in ex.get("domains", []):
        if d["domid"] == domid:
            return d
    return None


def guest_clock(res, name):
    """The guest's own uptime at each of its marks (its console)."""
    out = {}
    p = os.path.join(res, f"xguest-{name}.log")
    for line in open(p, errors="replace") if os.path.exists(p) else []:
        m = re.match(r"XIOTOP-DOMU: mark (.*) at ([\d.]+)$", line.strip())
        if m:
            out.setdefault(m.group(1), float(m.group(2)))
    return out


def claims_of(ex, tool, direction=None):
    return [v for v in verdicts(ex, "claim")
            if v["figures"].get("tool") == tool and (direction is None or v["figures"].get("direction") == direction)]


def check_recorded(res, truth, name):
    """1-9 for one guest, from explain's JSON on the recording with its tools' claims."""
    ex = load(os.path.join(res, f"x-explain-{name}.json"))
    err = open(os.path.join(res, f"x-explain-{name}.err"), errors="replace").read().strip() \
        if os.path.exists(os.path.join(res, f"x-explain-{name}.err")) else ""
    if "_error" in ex:
        check(False, f"[{name}] explain --format json gave JSON: {ex['_error']}; stderr: {err[:300]}")
        return None
    domid = truth.domid.get(name)
    tag = f"[{name}] (domid {domid})"
    w = ex["window"]
    # 1. the guest's own marks are the window; as long as its own clock says
    clock = guest_clock(res, name)
    span = clock["end bonnie"] - clock["start dd"] if "end bonnie" in clock and "start dd" in clock else None
    check(w.get("marks_of") == f"domain {domid}" and w.get("from_mark") == "start dd"
          and w.get("to_mark") == "end bonnie",
          f"{tag} 1: window from the guest's own marks: marks_of {w.get('marks_of')!r},"
          f" {w.get('from_mark')!r} to {w.get('to_mark')!r}")
    check(span is not None and abs(w["seconds"] - span) <= 2.0,
          f"{tag} 1: window {w['seconds']:.1f} s, the guest's clock {span} s between its marks (+-2 s)")
    # 2. guest bytes over the window are blkback's between the marks
    d = domain(ex, domid)
    delta = truth.mark_delta(name, "start dd", "end bonnie")
    if not d or not delta:
        check(False, f"{tag} 2: explain has the domain ({bool(d)}) and blkback was read at its marks ({bool(delta)})")
        return ex
    check(near(d["guest_wr_bytes"], delta[1], 2, MiB) and near(d["guest_rd_bytes"], delta[0], 2, MiB),
          f"{tag} 2: guest wr {mib(d['guest_wr_bytes'])} rd {mib(d['guest_rd_bytes'])} vs blkback"
          f" between the marks wr {mib(delta[1])} rd {mib(delta[0])} (2 %, 1 MiB)")
    # 13. fio's text output is a claim
    check(bool(claims_of(ex, "fio")), f"{tag} 13: fio's default text output read as a claim"
          f" ({len(claims_of(ex, 'fio'))} runs)")
    # 3. synced writes (dd conv=fdatasync, fio end_fsync): not inflated on either path
    for tool in ("dd", "fio"):
        ws = claims_of(ex, tool, "write")
        got = [(v["figures"].get("inflation"), v["figures"].get("claimed_seconds")) for v in ws]
        bound = [1.2 * (s + 2 * w["interval_s"]) / s if s else 1.2 for _, s in got]
        short = ["shorter than the recording's intervals can time" in v["text"] for v in ws]
        check(bool(ws) and all((i is None and sh) or (i is not None and i <= b)
                               for (i, _), b, sh in zip(got, bound, short)),
              f"{tag} 3: {tool} write (synced) claim inflation "
              + ", ".join(f"{i} (over {s} s: <= {b:.2f})" for (i, s), b in zip(got, bound))
              + " (on a disk when the tool printed)")
    # 3b. the dd runs' directions from the timeline: run 1 the write, run 2 the read
    dirs = {v["figures"].get("run"): v["figures"].get("direction") for v in claims_of(ex, "dd")}
    check(dirs == {"run 1": "write", "run 2": "read"},
          f"{tag} 3b: dd's runs as the guest ran them (run 1 write, run 2 read): {dirs}")
    # 4. dd's read after drop_caches: the LV's disk served it, the file's dom0 cache did
    ddr = claims_of(ex, "dd", "read")
    rc = verdicts(ex, "read_cache", domid)
    if name == "x-lv":
        ok = bool(ddr) and all(near(v["figures"].get("observed_phys_bytes"),
                                    v["figures"].get("observed_guest_bytes"), 10, MiB) for v in ddr)
        check(ok, f"{tag} 4: dd read claim: physical reads = guest reads "
              + ", ".join(f"{mib(v['figures'].get('observed_phys_bytes'))} of {mib(v['figures'].get('observed_guest_bytes'))}" for v in ddr))
        check(not rc or rc[0]["share"] < 0.2, f"{tag} 4: no read_cache on the LV (share {rc[0]['share'] if rc else None})")
    else:
        check(bool(ddr), f"{tag} 4: dd read claim read ({len(ddr)})")
        check(bool(rc) and rc[0]["share"] >= 0.5,
              f"{tag} 4: read_cache given, dom0's cache served the guest's reads (share {rc[0]['share'] if rc else None})")
    # 5. bonnie's reads: the guest's own cache; its file against the guest's memory
    br = claims_of(ex, "bonnie++", "read")
    located = [v["figures"].get("located_from_s") for v in br]
    own = [("guest's own cache served them" in v["text"]) and ("outside the recording" not in v["text"]) for v in br]
    check(bool(br) and all(x is None for x in located) and all(own),
          f"{tag} 5: bonnie read claims ({len(br)}) not located, said served by the guest's own cache: {own}")
    ts = verdicts(ex, "test_size_vs_memory", domid)
    f = ts[0]["figures"] if ts else {}
    check(bool(ts) and f.get("test_bytes_from") == "claim" and near(f.get("test_bytes"), 48 * MiB, 1)
          and f.get("test_to_cache", 99) < 2,
          f"{tag} 5: test_size_vs_memory: test {mib(f.get('test_bytes'))} from {f.get('test_bytes_from')},"
          f" {f.get('test_to_cache')} x the caches (< 2)")
    # 6, 7: double counting and inflation by path
    dc = verdicts(ex, "double_counting", domid)
    pci = verdicts(ex, "page_cache_inflation", domid)
    if name == "x-file":
        dcb = dc[0]["figures"].get("double_counted_bytes") if dc else None
        check(bool(dc) and near(dcb, d["guest_wr_bytes"], 25),
              f"{tag} 6: double_counting {mib(dcb)} vs guest writes {mib(d['guest_wr_bytes'])} (25 %)")
        check("loop" in (d.get("path") or ""), f"{tag} 9: path {d.get('path')!r} is the file via loop")
    else:
        check(not dc, f"{tag} 6: no double counting on the LV ({[v['share'] for v in dc]})")
        check(not pci, f"{tag} 7: no page-cache inflation on the LV ({[v['text'][:80] for v in pci]})")
        check("loop" not in (d.get("path") or "") and "qemu" not in (d.get("path") or ""),
              f"{tag} 9: path {d.get('path')!r} is not a file")
    print(f"     {tag} explain took {truth.explain_s.get(name, float('nan')):.1f} s in dom0;"
          f" dom0 CPU {d.get('dom0_cpu_s_per_gib')} s/GiB; verdicts "
          + ", ".join(f"{v['id']}({v['share']})" for v in ex["verdicts"]))
    return ex


def check_kernel_physics(truth):
    """6's premise from the kernel's own counters, per guest's run: pgpgout against
    blkback's writes and the zram disk's."""
    before, after = disk_series(truth)
    vb, va = truth.vmstat.get("before", []), truth.vmstat.get("after", [])
    for i, name in enumerate(["x-file", "x-lv"]):
        vbd_b, vbd_a = truth.vbd.get(("before", name)), truth.vbd.get(("after", name))
        if not vbd_a or i >= len(vb) or i >= len(va):
            check(False, f"[{name}] counts read before and after its run")
            continue
        guest_wr = vbd_a[1] - (vbd_b[1] if vbd_b else 0)
        out = (va[i] - vb[i]) * 1024
        z = truth.stack.get(name, (None, None))[1]
        n = len(before) // 2 if before else 0
        zd = zram_delta(before[i * n:(i + 1) * n], after[i * n:(i + 1) * n], z) if n else None
        print(f"     [{name}] kernel: blkback wr {mib(guest_wr)}, vmstat pgpgout {mib(out)}"
              f" ({out / guest_wr if guest_wr else 0:.2f}x), {z} wr {mib(zd[1] if zd else None)}")


def check_imported(res, truth):
    ex = load(os.path.join(res, "x-import-explain-x-lv.json"))
    err_p = os.path.join(res, "x-import.err")
    if "_error" in ex:
        check(False, f"[import] explain of the imported logs gave JSON: {ex['_error']};"
              f" import said: {open(err_p).read()[:300] if os.path.exists(err_p) else ''}")
        return
    imp = ex.get("imported", {})
    # 10. what the logs hold and what they lack
    check(imp.get("absent") == ["stack"], f"[import] 10: absent {imp.get('absent')} = ['stack']")
    per_domain = ("phys_wr_bytes", "phys_rd_bytes", "dirtied_bytes", "written_back_bytes",
                  "double_counted_bytes", "dirty_backlog")
    phys = [d["phys_wr_bytes"] for d in ex["domains"]]
    bad = [(v["id"], e) for v in ex["verdicts"] for e in v["evidence"] if any(e.startswith(p) for p in per_domain)]
    check(all(p is None for p in phys) and not bad,
          f"[import] 10: no physical bytes per domain ({phys}) and no verdict on one ({bad})")
    for name in ("x-file", "x-lv"):
        ex1 = load(os.path.join(res, f"x-import-explain-{name}.json"))
        tools = sorted({c["tool"] for c in ex1.get("claims", [])})
        check("fio" in tools, f"[import {name}] 13: fio's text output read as a claim (claims: {tools})")
    # 11 and 12 over the whole log: explain without claims
    whole = load(os.path.join(res, "x-import-explain-all.json"))
    if "_error" in whole:
        check(False, f"[import] explain of the whole log: {whole['_error']}")
        return
    for name in ("x-file", "x-lv"):
        vb, va = truth.vbd.get(("before", name)), truth.vbd.get(("after", name))
        d = [x for x in whole["domains"] if x["name"] == name]
        if not d or not va:
            check(False, f"[import {name}] 11: the domain is in the import ({bool(d)}), blkback read ({bool(va)})")
            continue
        wr, rd = va[1] - (vb[1] if vb else 0), va[0] - (vb[0] if vb else 0)
        check(near(d[0]["guest_wr_bytes"], wr, 2, MiB) and near(d[0]["guest_rd_bytes"], rd, 2, MiB),
              f"[import {name}] 11: xentop's guest wr {mib(d[0]['guest_wr_bytes'])} rd {mib(d[0]['guest_rd_bytes'])}"
              f" vs blkback wr {mib(wr)} rd {mib(rd)}")
    before, after = disk_series(truth)
    n = len(before) // 2 if before else 0
    zrams = [truth.stack.get(x, (None, None))[1] for x in ("x-file", "x-lv")]
    if n and len(after) >= 2 * n:
        first = {z: r for z, *r in before[:n]}
        last = {z: r for z, *r in after[n:2 * n]}
        zwr = sum(last[z][1] - first[z][1] for z in zrams if z in first and z in last)
        hw = whole.get("imported", {}).get("host_disk_wr_bytes")
        check(near(hw, zwr, 3, 2 * MiB),
              f"[import] 12: iostat's disk writes {mib(hw)} vs /proc/diskstats zram {mib(zwr)} (3 %, 2 MiB)")
        vb, va = truth.vmstat.get("before", []), truth.vmstat.get("after", [])
        dcv = verdicts(whole, "double_counting")
        dcb = dcv[0]["figures"].get("double_counted_bytes") if dcv else None
        xf = truth.vbd.get(("after", "x-file"), (0, 0))[1]
        check(bool(dcv) and near(dcb, xf, 25),
              f"[import] 12: host double counting {mib(dcb)} vs x-file's guest writes {mib(xf)} (25 %);"
              f" kernel: pgpgout {mib((va[-1] - vb[0]) * 1024) if va and vb else None}, zram wr {mib(zwr)}")
    else:
        check(False, "[import] 12: zram counts read before and after both runs")


def main():
    res = sys.argv[1]
    truth = Truth(os.path.join(res, "snapshots.txt"))
    for line in truth.failed:
        check(False, line)
    for name in ("x-file", "x-lv"):
        check(len(truth.marks.get(name, [])) >= 6,
              f"[{name}] blkback read at the guest's marks: {[m[3] for m in truth.marks.get(name, [])]}")
        for t in ("dd", "fio", "bonnie"):
            p = os.path.join(res, f"x-{name}-{t}.txt")
            check(os.path.exists(p) and os.path.getsize(p) > 0, f"[{name}] {t}'s output collected from the console")
    check_kernel_physics(truth)
    cost = {}
    for name in ("x-file", "x-lv"):
        ex = check_recorded(res, truth, name)
        d = domain(ex, truth.domid.get(name)) if ex and "_error" not in ex else None
        cost[name] = d.get("dom0_cpu_s_per_gib") if d else None
    # 8. loop and the page cache cost dom0 more CPU per GiB than a dm remap
    check(None not in cost.values() and cost["x-file"] > cost["x-lv"],
          f"8: dom0 CPU per GiB x-file {cost['x-file']} s > x-lv {cost['x-lv']} s")
    check_imported(res, truth)
    print(f"check_explain: {len(failures)} failures, {len(notes)} notes")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
