#!/usr/bin/env python3
"""check.py RESULTS QDISK_STATUS - what came out of the real Xen dom0 (scenarios.sh),
checked against the "done when" list of issue 16. Every compared figure is printed.

Ground truth is blkback's own statistics/{rd,wr}_sect x 512 of each vbd, read in dom0
after the guest finished (snapshots.txt), the blkback threads' schedstat runtime read
every 50 ms with the wall clock around each read (RUNTIME lines), the kernel's trace of the
unbound kworkers' work items and runtime around a phase where one domain does I/O alone on
a loop device (kwtrace-PHASE.txt.gz: its loop CPU, kwtrace.py), phase A's blkback wr_sect every 0.2 s (WRPOLL
lines: which domains the console must show writing), and xentop's VBD lines. xiotop's side is the sum of its per-interval JSON objects per domid
(or per incarnation, split by time, when a domid is reused). xiotop runs with --latency:
its histograms are checked by check_latency.py (counts against blkback's and the guest's,
times against the guest's own)."""
import json
import os
import re
import sys

from check_hvm import check_hvm
from check_latency import check_latency
from check_stacks import check_stacks
from kwtrace import loop_runtime
from xenfig import MiB, epoch, mib, within

# loop CPU against the kernel's trace of the kworkers (check_loop_cpu, kwtrace.py): at least
# its loop items' runtime, at most the runtime from their starts to the next items' (xiotop
# 100.0 % of the latter in the six phases of three boots, two trixie and one bookworm; the
# items 98-100 % of it)
KWT_LO, KWT_HI, KWT_NS = 0.97, 1.03, 2e6

failures = []
notes = []
XIOTOP_ERR = []  # xiotop's stderr lines (main() reads them)
skipped = []  # the scenarios that could not run here: "SKIPPED NAME: why", counted


def skip(name, why):
    """A scenario that cannot run on this Xen: a named skip that tests/skips.allow must
    list (tests/skip_report.py reads the line) for `make test` to pass."""
    print(f"SKIPPED {name}: {why}", flush=True)
    skipped.append(name)


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def report(ok, what):
    """A figure that cannot be checked in this run, for a reason the text gives (each
    caller says in a comment why no truth is to be had): printed as a NOTE, never a pass.
    Anything that can be checked is a check."""
    print(("ok   " if ok else "NOTE ") + what, flush=True)
    if not ok:
        notes.append(what)


def load_intervals(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                # the last line may be cut by the kill at the end; any other is a defect
                print(f"{path}:{n}: not JSON ({e})")
                if n != sum(1 for _ in open(path)):
                    failures.append(f"{path}:{n} is not JSON")
    return out


expect = {}  # (phase, domid): (rd, wr) bytes the guest's dd moves, where no counter exists
# (phase, domid): [(wall time before, after, runtime ns)]: its blkback threads' runtime
runtimes = {}
guest_stat = {}  # domain name: [(rd, wr) bytes from the guest's /sys/block/xvda/stat, ...]
# domain name: [{op: (completed requests, their time in ms)} from that same stat line, ...]
guest_reqs = {}
devstats = {}  # (phase, domid): (dev, {op: (requests, ms)}): the backend device's stat in dom0


def stat_reqs(v):
    """/sys/block/<dev>/stat's reads and writes completed and their ticks (fields 1, 4, 5, 8)."""
    return {"read": (v[0], v[3]), "write": (v[4], v[7])}


def load_guest_stats(res):
    """The guest's own view of its disk, printed by domu_init.sh on its console (one
    line after its first I/O, "stat2" after the second): sectors read and written."""
    for f in os.listdir(res):
        m = re.match(r"guest-(.+)\.log$", f)
        if not m:
            continue
        for line in open(os.path.join(res, f), errors="replace"):
            g = re.search(r"XIOTOP-DOMU: stat2? +([\d ]+)", line)
            if g:
                v = [int(x) for x in g.group(1).split()]
                if len(v) >= 7:
                    guest_stat.setdefault(m.group(1), []).append((v[2] * 512, v[6] * 512))
                    guest_reqs.setdefault(m.group(1), []).append(stat_reqs(v))


loopdevs = {}  # phase: (domid, loop device) of that one domain
# phase: (events the kworkers' trace ring lost (None: no trace), its file): kwtrace.py
kwtraces = {}
# [(wall time before the reads, after, {name: blkback wr bytes})]: phase A's vbds every 0.2 s
wrpolls = []
captured = {}  # console capture number: the wall clock just after it was taken
dmruns = {}  # (phase, domid): [(wall before, after, utime+stime in ns)], read every 50 ms
# (phase, domid): {"start"|"end": (s, wall before, wall after)}, xl list's Time(s)
xlcpu = {}


def load_snapshots(path):
    vbds, threads, domains, other = {}, {}, {}, []
    for line in open(path):
        p = line.split()
        if not p:
            continue
        if p[0] == "VBD":
            vbds.setdefault((p[1], int(p[3])), []).append(
                dict(name=p[2], devid=int(p[4]), rd=int(p[5]) * 512, wr=int(p[6]) * 512,
                     rd_req=int(p[7]), wr_req=int(p[8])))
        elif p[0] == "THREAD":
            threads.setdefault((p[1], int(p[3])), []).append(dict(comm=p[5], runtime_ns=int(p[6])))
        elif p[0] == "DEVSTAT":
            devstats[(p[1], int(p[3]))] = (p[5], stat_reqs([int(x) for x in p[6:]]))
        elif p[0] == "DOMAIN":
            domains[(p[1], int(p[3]))] = p[2]
        elif p[0] == "RUNTIME":
            runtimes.setdefault((p[1], int(p[2])), []).append((float(p[3]), float(p[4]), int(p[5])))
        elif p[0] == "DMRUN" and len(p) == 6:  # DMRUN PHASE DOMID WALL_BEFORE WALL_AFTER TICKS
            dmruns.setdefault((p[1], int(p[2])), []).append((float(p[3]), float(p[4]), int(p[5]) * 10_000_000))
        elif p[0] == "XLCPU" and len(p) == 8:
            # XLCPU PHASE NAME DOMID start|end SECONDS WALL_BEFORE WALL_AFTER
            xlcpu.setdefault((p[1], int(p[3])), {})[p[4]] = (float(p[5]), float(p[6]), float(p[7]))
        elif p[0] == "KWTRACE" and len(p) >= 3:  # KWTRACE PHASE overrun N | unavailable
            kwtraces[p[1]] = (int(p[3]) if p[2] == "overrun" and len(p) == 4 else None,
                              os.path.join(os.path.dirname(path), f"kwtrace-{p[1]}.txt.gz"))
        elif p[0] == "LOOPDEV" and len(p) == 4:
            loopdevs[p[1]] = (int(p[2]), p[3])
        elif p[0] == "CAPTURED" and len(p) == 3:
            captured[int(p[1])] = float(p[2])
        elif p[0] == "WRPOLL":
            # WRPOLL WALL_BEFORE NAME WR_SECT ... WALL_AFTER ("-": no vbd read)
            wrpolls.append((float(p[1]), float(p[-1]),
                            {p[k]: None if p[k + 1] == "-" else int(p[k + 1]) * 512
                             for k in range(2, len(p) - 1, 2)}))
        elif p[0] == "EXPECT":
            expect[(p[1], int(p[3]))] = (int(p[5]) * MiB, int(p[4]) * MiB)
        else:
            other.append(line.strip())
    return vbds, threads, domains, other


def parse_xentop(path):
    """The last iteration of `xentop -b -x`: {domain name: [(devid, rsect, wsect)]}."""
    blocks, cur, name = [], {}, None
    for line in open(path):
        if line.strip().startswith("NAME"):
            cur = {}
            blocks.append(cur)
            continue
        m = re.match(r"\s*VBD\s+(\S+)\s+(\d+).*RSECT:\s*(\d+)\s+WSECT:\s*(\d+)", line)
        if m and name is not None:
            cur.setdefault(name, []).append((int(m.group(2)), int(m.group(3)), int(m.group(4))))
            continue
        p = line.split()
        if len(p) > 10 and p[0] not in ("Net", "VBD"):
            name = p[0]
    return blocks[-1] if blocks else {}


def totals(intervals, domid, t_from=None, t_to=None):
    t = dict(guest_rd=0, guest_wr=0, phys_wr=0, double=0, backend_cpu=0, vbd_rd=0, vbd_wr=0,
             backend_series=[],  # (sample time, backend CPU summed up to it)
             disagree=0, vbd_intervals=0, names=set(), layers=set(), guest_cpu=[], n=0)
    for iv in intervals:
        if t_from and iv["time"] < t_from or t_to and iv["time"] > t_to:
            continue
        for d in iv["domains"]:
            if d["domid"] != domid:
                continue
            t["n"] += 1
            t["guest_rd"] += d["guest_rd_bytes"]
            t["guest_wr"] += d["guest_wr_bytes"]
            t["phys_wr"] += d["phys_wr_bytes"]
            t["double"] += d["double_counted_bytes"]
            roles = d.get("dom0_cpu_ns_by_role") or {}
            t["backend_cpu"] += roles.get("backend") or 0
            t["backend_series"].append((epoch(iv["time"]), t["backend_cpu"]))
            t["dm_cpu"] = t.get("dm_cpu", 0) + (roles.get("device_model") or 0)
            t.setdefault("dm_series", []).append((epoch(iv["time"]), t["dm_cpu"]))
            t["loop_cpu"] = t.get("loop_cpu", 0) + (roles.get("loop") or 0)
            if d.get("name"):
                t["names"].add(d["name"])
            t["guest_cpu"].append(d.get("guest_cpu_ns"))
            t["guest_cum"] = t.get("guest_cum", 0) + (d.get("guest_cpu_ns") or 0)
            t.setdefault("guest_series", []).append((epoch(iv["time"]), t["guest_cum"]))
            for l in d["layers"]:
                if l["rd_bytes"] or l["wr_bytes"]:
                    t["layers"].add((l.get("dev") or l.get("file"), l["role"], l["leaf"]))
            for v in d.get("vbd_stats", []):
                t["vbd_intervals"] += 1
                t["vbd_rd"] += v["rd_bytes"]
                t["vbd_wr"] += v["wr_bytes"]
                if v["disagree"]:
                    t["disagree"] += 1
                    print(f"     disagree at {iv['time']}: domid {domid} blkback rd {mib(v['rd_bytes'])}"
                          f" wr {mib(v['wr_bytes'])}, xiotop rd {mib(v.get('xiotop_rd_bytes') or 0)}"
                          f" wr {mib(v.get('xiotop_wr_bytes') or 0)}")
    return t


def check_runtime_series(tag, what, series, reads, truth_desc, slack_ns=0):
    """xiotop's CPU figure `what` (its backend CPU, a QEMU's device-model CPU) summed up
    to each of its sample instants that falls inside the reads of `truth_desc` (the blkback
    threads' schedstat runtime, the QEMU's utime+stime), against the read just before and
    just after that instant: within 5 % of that bracket at every such instant. The sum up
    to an instant, not the total: blkback threads keep running while idle (a wake every
    100 ms), a QEMU until its domain is destroyed, so a total holds runtime no read saw.
    `slack_ns`: a read in whole ticks is up to one below the runtime."""
    got = []
    for at, cum in series:
        before = [r for r in reads if r[1] <= at]
        after = [r for r in reads if r[0] >= at]
        if not before or not after:
            continue
        lo, hi = max(r[2] for r in before), min(r[2] for r in after) + slack_ns
        gap_ms = (min(r[0] for r in after) - max(r[1] for r in before)) * 1e3
        truth = min(max(cum, lo), hi)  # the runtime in [lo, hi] nearest xiotop's figure
        got.append((cum, lo, hi, gap_ms, truth, truth > 0 and within(cum, truth, 5)))
    figures = ", ".join(f"{c / 1e6:.2f} vs {lo / 1e6:.2f}" + (f"-{hi / 1e6:.2f}" if hi != lo else "")
                        + f" ms ({100 * c / tr if tr else 0:.1f} %, read {gap:.0f} ms apart)"
                        for c, lo, hi, gap, tr, _ in got)
    check(bool(got) and all(ok for *_, ok in got),
          f"{tag}: {what} summed up to each of xiotop's {len(got)} sample instants inside"
          f" the runtime reads vs {truth_desc} read around it (within 5 %):"
          f" {figures or 'no instant to compare'}")


def check_loop_cpu(tag, phase, t):
    """xiotop's loop-role CPU for the one domain doing I/O on a loop device in the phase
    against the runtime the kernel's trace of the kworkers gives that device (kwtrace.py):
    at least what its work items ran, at most what the workers ran from its items' starts
    until their next items (what the kernel names a worker by, "kworker/u4:2-loop2" while
    idle after a loop2 item, and xiotop's rule: docs/DESIGN.md)."""
    dev = loopdevs.get(phase, (None, None))[1]
    lost, path = kwtraces.get(phase, (None, ""))
    if dev is None or lost is None or not os.path.exists(path):
        check(False, f"{tag}: loop CPU: no trace of the kworkers around the phase (kwtrace)")
        return
    per_queue, total, count = loop_runtime(path)
    items, owned = per_queue.get(dev, (0, 0))
    got = t.get("loop_cpu", 0)
    lo, hi = items * KWT_LO - KWT_NS, owned * KWT_HI + KWT_NS
    check(lost == 0 and count > 0 and items > 0 and lo <= got <= hi,
          f"{tag}: loop CPU {got / 1e6:.2f} ms vs the kworkers' traced runtime in {dev}'s work"
          f" items {items / 1e6:.2f} ms, from its items' starts to the next items' {owned / 1e6:.2f} ms"
          f" ({100 * got / items if items else 0:.1f} % .. {100 * got / owned if owned else 0:.1f} %;"
          f" all kworkers {total / 1e6:.2f} ms in {count} runtime events, {lost} events lost):"
          f" within {lo / 1e6:.2f} .. {hi / 1e6:.2f} ms")


def check_domain(phase, domid, name, vbds, threads, intervals, xentop, window=(None, None)):
    t = totals(intervals, domid, *window)
    xt = xentop.get(name)
    qdisk = (phase, domid) in expect  # no blkback: libxenstat's counters (xentop's)
    bb_rd = sum(v["rd"] for v in vbds)
    bb_wr = sum(v["wr"] for v in vbds)
    truth = "blkback wr_sect*512"
    if qdisk and xt:
        bb_rd, bb_wr = sum(r for _, r, _ in xt) * 512, sum(w for _, _, w in xt) * 512
        truth = "libxenstat (xentop) WSECT*512"
    elif qdisk and guest_stat.get(name):
        bb_rd, bb_wr = guest_stat[name][-1]
        truth = "the guest's own /sys/block/xvda/stat (libxenstat lists no qdisk vbd) wr_sect*512"
        print(f"     [{phase}] {name}: libxenstat lists no vbd for a qdisk domain (xentop VBDS 0;"
              " its vbd counters come from blkback's sysfs only): judged against the guest's own"
              " /sys/block/xvda/stat instead; vbd_stats and xentop cannot be compared")
    elif qdisk:
        # domu_init.sh prints the stat line on every guest's console: without it the
        # guest's own count is lost (the console log), which the test must not pass over
        bb_rd, bb_wr = expect[(phase, domid)]
        truth = "the guest's O_DIRECT dd (no guest stat line; libxenstat lists no qdisk vbd) wr"
        check(False, f"[{phase}] {name}: no vbd counter for the qdisk domain anywhere and no"
              " stat line on the guest's console: guest bytes checked against the guest's dd only")
    tag = f"[{phase}] {name} (domid {domid})"
    check(t["n"] > 0, f"{tag}: xiotop listed it in {t['n']} intervals")
    check(t["names"] == {name}, f"{tag}: name from xenstore: {sorted(t['names'])}")
    check(within(t["guest_wr"], bb_wr, 2),
          f"{tag}: guest_wr_bytes {mib(t['guest_wr'])} vs {truth} {mib(bb_wr)}")
    check(within(t["guest_rd"], bb_rd, 2),
          f"{tag}: guest_rd_bytes {mib(t['guest_rd'])} vs {truth.replace('W', 'R').replace('wr', 'rd')} {mib(bb_rd)}")
    # a qdisk's counters: xiotop asks its QEMU (query-blockstats) itself, a question in
    # flight per domain, its answer taken at the sample it comes in however late
    # (sources/xen/qdisk_stats.h), so they are judged as blkback's are: exactly against
    # xentop's, within 2 % against the guest's stat line (read in the guest, a moment apart
    # from QEMU's count); how its questions went is printed from its stderr
    exact = not (qdisk and not xt)
    same = (t["vbd_wr"] == bb_wr and t["vbd_rd"] == bb_rd) if exact else \
        (within(t["vbd_wr"], bb_wr, 2) and within(t["vbd_rd"], bb_rd, 2))
    check(t["vbd_intervals"] > 0 and same,
          f"{tag}: vbd_stats present in {t['vbd_intervals']} intervals, sum wr {mib(t['vbd_wr'])}"
          f" rd {mib(t['vbd_rd'])} = {'blkback' if not qdisk else truth}'s"
          f" {mib(bb_wr)} / {mib(bb_rd)}{'' if exact else ' (within 2 %)'}")
    if qdisk:
        for line in XIOTOP_ERR:
            if f"qdisk counters of domain {domid} over" in line:
                print(f"     {tag}: {line.removeprefix('xiotop: ')}")
    check(t["disagree"] == 0, f"{tag}: vbd_stats disagree true in {t['disagree']} intervals")
    gc = [g for g in t["guest_cpu"] if g is not None]
    check(len(gc) > 0 and all(isinstance(g, int) for g in gc),
          f"{tag}: guest_cpu_ns a number in {len(gc)} of {len(t['guest_cpu'])} intervals"
          f" (sum {sum(gc) / 1e6:.1f} ms)")
    # the hypervisor's own count: a domain is made paused (0 s) and xiotop counts its first
    # interval whole, so its sum up to a sample instant is the vCPU time then. xl list's
    # Time(s) (0.1 s) is read at the snapshot and 2.5 s later: the sum up to xiotop's first
    # instant after the first read is at least that read's, the sum up to its last instant
    # before the second at most that one's (0.05 s each for xl's rounding; 0.1 s more
    # above: libxenstat is read just after the instant). The domain's tail (idle until its
    # destroy, seconds under a loaded TCG) is in no read and not judged. A wrong unit, a
    # lost interval or one counted twice falls outside
    xc = xlcpu.get((phase, domid), {})
    series = t.get("guest_series", [])
    start, end = xc.get("start"), xc.get("end")
    after = [c for at, c in series if start and at >= start[2]]
    before = [c for at, c in series if end and at <= end[1]]
    lo_ok = bool(after) and after[0] / 1e9 >= start[0] - 0.05
    hi_ok = bool(before) and before[-1] / 1e9 <= end[0] + 0.15
    check(lo_ok and hi_ok,
          f"{tag}: guest vCPU summed over xiotop's intervals up to its first instant after xl list's"
          f" read at the snapshot {after[0] / 1e9 if after else float('nan'):.2f} s >= its Time(s)"
          f" {start[0] if start else None} s - 0.05, up to its last instant before the read 2.5 s later"
          f" {before[-1] / 1e9 if before else float('nan'):.2f} s <= {end[0] if end else None} s + 0.15"
          f" (in all, with the idle tail until destroy, {sum(gc) / 1e9:.2f} s)")
    if qdisk:
        # the QEMU serves this domain alone: its utime+stime (all its threads, 10 ms
        # ticks) read every 50 ms is the truth for xiotop's device-model CPU summed up to
        # each of xiotop's instants inside those reads; not its total, which holds the
        # QEMU's run until the domain is destroyed (seconds under a loaded TCG) no read saw
        check_runtime_series(tag, "device-model CPU", t.get("dm_series", []),
                             dmruns.get((phase, domid), []), "its QEMU's utime+stime",
                             slack_ns=10_000_000)
    else:
        check(t["backend_cpu"] > 0, f"{tag}: backend CPU {t['backend_cpu'] / 1e6:.2f} ms > 0")
    if phase in loopdevs:
        check_loop_cpu(tag, phase, t)
    if not qdisk:
        check_runtime_series(tag, "backend CPU", t["backend_series"],
                             runtimes.get((phase, domid), []),
                             "blkback threads " + (",".join(x["comm"] for x in threads) or "(none)")
                             + " schedstat runtime")
    if xt is None and qdisk:
        pass
    elif xt is None:
        check(False, f"{tag}: xentop shows no VBD line for it")
    else:
        ws = sum(w for _, _, w in xt) * 512
        rs = sum(r for _, r, _ in xt) * 512
        check(ws == t["vbd_wr"] and rs == t["vbd_rd"],
              f"{tag}: xentop VBD_WSECT*512 {mib(ws)}, VBD_RSECT*512 {mib(rs)} = xiotop vbd_stats"
              f" wr {mib(t['vbd_wr'])}, rd {mib(t['vbd_rd'])}")
    return t


def main():
    res, qdisk_status = sys.argv[1], sys.argv[2]
    # which boot this was (scenarios.sh): "main" (phases A-D, the console), "stacks" or "hvm"
    pp = os.path.join(res, "phases")
    phases = open(pp).read().strip() if os.path.exists(pp) else "main"
    intervals = load_intervals(os.path.join(res, "xiotop.json"))
    vbds, threads, domains, other = load_snapshots(os.path.join(res, "snapshots.txt"))
    load_guest_stats(res)
    err = open(os.path.join(res, "xiotop.err")).read().strip().splitlines()
    XIOTOP_ERR.extend(err)
    print("dom0 kernel: " + open(os.path.join(res, "dom0-kernel.txt")).read().strip())
    for line in err[:4]:
        print("xiotop stderr: " + line)
    hooks = [l for l in err if "tracing with" in l]
    check(any("topology from live xenstore" in l for l in err), "xiotop found Xen live by itself (no dump)")
    check(len(intervals) > 10, f"xiotop wrote {len(intervals)} JSON intervals")
    claims = [l for l in err if "is claimed by domains" in l]
    check(not claims, "no device claimed by two domains through the churn"
          + (f": {claims[0]} ({len(claims)} times)" if claims else ""))
    print("hooks: " + (hooks[0] if hooks else "(no hooks line)"))
    # dom0 CPU per domain needs the task iterator; threads ending between two passes need
    # sched_process_free (both need BTF-typed programs and task storage: kernel >= 5.11)
    hook_words = hooks[0].split() if hooks else []
    check("iter/task" in hook_words and "sched_process_free" in hook_words,
          "the CPU hooks iter/task and sched_process_free are attached in this dom0")
    # one dom0 vCPU (run.sh: dom0_max_vcpus=1), else a tracepoint's attach or one of the
    # kernel's own static keys rewrites code another vCPU may run, and multi-threaded TCG
    # can hang or oops there (flip.sh)
    vp = os.path.join(res, "dom0-vcpus.txt")
    vcpus = open(vp).read().strip() if os.path.exists(vp) else "not written"
    check(vcpus == "1", f"the dom0 ran on one vCPU ({vcpus})")
    # --latency: a dm device completes through bio_endio, loop through its requests
    attached = hook_words[:hook_words.index("without:")] if "without:" in hook_words else hook_words
    # an on-demand hook is listed with when it runs: "block_bio_complete(while ...)"
    attached = [w.split("(", 1)[0] for w in attached]
    timed = "block_bio_complete" in attached and "block_rq_complete" in attached
    check(timed, "the latency completion hooks block_bio_complete and block_rq_complete are attached"
          + ("" if timed else " (why not: xiotop's stderr above)"))
    # a guest's counts are read once it says it is done: one that was not done by then
    # (scenarios.sh wait_done gave up) is judged on a half-written run, so it is said as such
    unfinished = sorted(k[:-len(" did not finish")] for k in marks if k.endswith(" did not finish"))
    check(not unfinished, "every guest said it was done before its counts were read"
          + (f": not {', '.join(unfinished)} (wait_done's limit ran out; its checks below"
             " compare a run still writing)" if unfinished else ""))
    # scenarios.sh's xiotop_past: counts read before xiotop sampled after them
    late = sorted(k for k in marks if k.startswith("xiotop no interval after "))
    check(not late, "xiotop sampled after each snapshot's counts (xiotop_past)"
          + (f": not {', '.join(late)} in 60 s" if late else ""))
    if phases == "stacks":
        check_stacks(res, intervals, check)  # md RAID, the console's keys
        return summary()
    xentops = {}
    for phase in sorted({p for p, _ in domains}):
        path = os.path.join(res, f"xentop-{phase}.txt")
        xentops[phase] = parse_xentop(path) if os.path.exists(path) else {}
    if phases == "hvm":  # the HVM guest (check_hvm.py) and its PV twin, judged as any
        pv = None
        for (phase, domid), name in sorted(domains.items()):
            pv = check_domain(phase, domid, name, vbds.get((phase, domid), []),
                              threads.get((phase, domid), []), intervals, xentops.get(phase, {}))
            pv["domid"] = domid
        if timed:
            check_latencies(domains, vbds, intervals, ("H",))
        check_hvm(res, intervals, check, report, dmruns, pv)
        return summary()
    got = {}
    by_name = {}
    for (phase, domid), name in sorted(domains.items()):
        window = (None, None)
        if phase == "D1":
            window = (None, marks.get("D1 end"))
        if phase == "D2":
            window = (marks.get("D2 restore"), None)
        got[(phase, domid)] = check_domain(phase, domid, name, vbds.get((phase, domid), []),
                                           threads.get((phase, domid), []), intervals,
                                           xentops.get(phase, {}), window)
        by_name.setdefault(name, got[(phase, domid)])
    # double counting: the file-backed domains' writes reach the disk twice, the LV's once
    for name in ("file-nodio", "file-dio"):
        if name in by_name:
            t = by_name[name]
            check(within(t["double"], t["guest_wr"], 5),
                  f"{name}: double_counted_bytes {mib(t['double'])} ≈ guest writes {mib(t['guest_wr'])}")
    check_loop_modes(res)
    if "lvm" in by_name:
        t = by_name["lvm"]
        check(t["double"] <= t["guest_wr"] * 0.02,
              f"lvm: double_counted_bytes {mib(t['double'])} ≈ 0 (guest writes {mib(t['guest_wr'])})")
        devs = {l[0]: l for l in t["layers"]}
        dm = [d for d in devs if d and d.startswith("dm-")]
        leaf = [d for d, l in devs.items() if l[2]]
        check(bool(dm) and "ram1" in leaf,
              f"lvm: layers name the dm device and its leaf: {sorted(t['layers'])}")
        check(within(t["phys_wr"], t["guest_wr"], 2),
              f"lvm: phys_wr_bytes {mib(t['phys_wr'])} = guest writes {mib(t['guest_wr'])} (counted once)")
    # churn: every incarnation's counts are its own
    churn = sorted((p, d) for p, d in domains if p.startswith("C"))
    ids = [d for p, d in churn if p in ("C1", "C2")]
    check(len(ids) == 2 and ids[0] != ids[1], f"churn: the same name twice got domids {ids}")
    if len(churn) >= 2:
        sums = [got[k]["guest_wr"] for k in churn]
        bbs = [sum(v["wr"] for v in vbds.get(k, [])) for k in churn]
        check(all(within(s, b, 2) for s, b in zip(sums, bbs)),
              "churn: per incarnation xiotop " + ", ".join(f"{k[0]} domid {k[1]} {mib(s)}" for k, s in zip(churn, sums))
              + " vs blkback " + ", ".join(mib(b) for b in bbs) + " (never merged)")
    if timed:
        check_latencies(domains, vbds, intervals, ("A", "B"))
    else:
        print("     latency per domain not checked: no completion hook is timing (the FAIL above)")
    check_reuse(got, vbds, domains, other)
    check_console(res)
    # qdisk
    status = open(qdisk_status).read().strip() if os.path.exists(qdisk_status) else "unknown"
    qfail = [l for l in other if l.startswith("QDISK-FAILED")]
    if status != "ok":
        skip("qdisk", status)
    elif qfail:
        skip("qdisk", f"xl create with backendtype=qdisk failed: {qfail[0][13:]}")
    return summary()


def summary():
    print(f"{len(failures)} failures, {len(skipped)} scenarios skipped"
          + (f" ({', '.join(skipped)})" if skipped else "") + f", {len(notes)} notes")
    return 1 if failures else 0


def check_latencies(domains, vbds, intervals, phases):
    """--latency for the blkback domains of phases (A: three; H: the HVM guest's PV twin)
    and the qdisk one (B, its device model's syscalls): check_latency.py says what is
    compared and why it holds."""
    for (phase, domid), name in sorted(domains.items()):
        if phase not in phases:
            continue
        qdisk = (phase, domid) in expect
        v = vbds.get((phase, domid), [])
        truth = None if qdisk else {"read": sum(x["rd_req"] for x in v),
                                    "write": sum(x["wr_req"] for x in v)}
        guest = guest_reqs.get(name, [None])[-1]
        check_latency(check, report, f"latency [{phase}] {name} (domid {domid})", domid,
                      (None, None), intervals, truth, guest, devstats.get((phase, domid)))


def check_loop_modes(res):
    """`xiotop topology` in phase A: each file domain's loop device in the mode scenarios.sh
    gave it with losetup --direct-io (the kernel's loop/dio, read by xiotop)."""
    path = os.path.join(res, "topology-A.json")
    topo = json.load(open(path)) if os.path.exists(path) else {"domains": []}
    for name, loop, dio in (("file-nodio", "loop0", False), ("file-dio", "loop1", True)):
        got = [l.get("direct_io") for d in topo["domains"] if d.get("name") == name
               for b in d["backends"] for l in b["stack"] if l.get("dev") == loop]
        check(got == [dio], f"topology: {name}'s {loop} direct_io {got} (losetup --direct-io="
              f"{'on' if dio else 'off'})")


def check_reuse(got, vbds, domains, other):
    """Phase D: the same domid twice (xl save -D, xl restore): each incarnation's bytes
    are its own, equal to its own blkback statistics (which start at zero again)."""
    failed = [l for l in other if l.startswith("REUSE-FAILED")]
    reuse = [l.split() for l in other if l.startswith("REUSE ")]
    if failed or not reuse:
        why = failed[0][13:] if failed else "the reuse domain did not finish its first part"
        skip("reused_domid", f"{why}; covered by the unit tests (test_xen_churn,"
             " test_live_rules) only")
        return
    first, second = int(reuse[0][1]), int(reuse[0][2])
    check(first == second, f"reuse: xl restore made the domain again on domid {second}"
          f" (saved from {first})")
    keys = [("D1", first), ("D2", second)]
    if not all(k in got for k in keys):
        check(False, f"reuse: both incarnations snapshotted: {sorted(k for k in keys if k in got)}")
        return
    sums = [got[k]["guest_wr"] for k in keys]
    bbs = [sum(v["wr"] for v in vbds.get(k, [])) for k in keys]
    check(all(within(s_, b, 2) for s_, b in zip(sums, bbs)),
          "reuse: per incarnation on domid %d xiotop %s vs blkback %s (never merged)"
          % (first, ", ".join(mib(x) for x in sums), ", ".join(mib(x) for x in bbs)))


PHASE_A = ("file-nodio", "file-dio", "lvm")


def writing_truth():
    """Per phase A domain from blkback's wr_sect read every 0.2 s through phase A
    (WRPOLL lines, the first before the unpause): (a0, a, b, b1, stalls): it wrote
    nothing before a0, had begun by a, was still writing at b (more came after) and wrote
    nothing after b1. dd writes back-to-back, so it writes throughout [a, b] but in its
    stalls: the spans between two reads of one value after a (no write landed between the
    first's end and the second's start). A stall is dom0's doing: the loop device with
    direct I/O off waits while dom0 writes its page cache back (a loaded boot's file-nodio
    stood still 1.5-2.1 s, its console showing 0.0 rightly)."""
    out = {}
    for name in PHASE_A:
        seq = [(t0, t1, w[name]) for t0, t1, w in wrpolls if w.get(name) is not None]
        if len(seq) < 2:
            continue
        w0, wf = seq[0][2], seq[-1][2]
        if wf == w0:
            out[name] = None  # never wrote while polled
            continue
        # each read lies between the clock before and after it: the bounds taken each way
        a0 = max(t0 for t0, _, w in seq if w == w0)
        a = min(t1 for _, t1, w in seq if w > w0)
        b = max((t0 for t0, _, w in seq if w < wf), default=a)
        b1 = min(t1 for _, t1, w in seq if w == wf)
        stalls = [(p1, n0) for (_, p1, pw), (n0, _, nw) in zip(seq, seq[1:])
                  if pw == nw and w0 < pw < wf and n0 > p1]
        out[name] = (a0, a, b, b1, stalls)
    return out


def console_time(lines, near):
    """The end of the interval a console capture shows: its header's clock (HH:MM:SS, the
    dom0's UTC), as the epoch second nearest `near`; None without one."""
    for l in lines[:3]:
        m = re.search(r"xiotop live\s+(\d\d):(\d\d):(\d\d)", l)
        if m:
            day = near - near % 86400
            sec = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
            return min((day + k * 86400 + sec for k in (-1, 0, 1)), key=lambda t: abs(t - near))
    return None


def check_console(res):
    """The console xiotop inside tmux beside the batch one: it ran, showed the phase A
    domains, and showed writing (GWR_MiB/s > 0) the domains blkback says wrote. A capture
    shows the interval ending at its header's clock T (to the second), so in [T, E), E the
    earlier of T + 1 and the wall clock just after the capture, and starting at or after
    the clock P of the last capture before it with an earlier one (the console's -d 1
    interval lasts up to 7 s under a loaded TCG); it must show writing each domain that
    wrote throughout [T - 0.1, E] (its wr_sect grew before T - 0.1 and after E, and no
    stall of it meets [T - 0.1, E]: the interval holds at least 0.1 s of its writes: 0.4 MB
    at the slowest rate seen, 4 MB/s, which over the longest interval seen, 7 s, the console
    shows as 0.1), and none that wrote nothing in [P, E]. A capture that a later one shows
    the same clock of is left to that one: the console may have been drawing that
    interval's frame (a boot's console-111 held its new header above two rows of the frame
    before, which console-112 of the same clock showed whole)."""
    err_path = os.path.join(res, "console-live.err")  # as it was before tmux was ended
    err = open(err_path).read().strip().splitlines() if os.path.exists(err_path) else []
    for line in err:
        print("console stderr: " + line)
    caps = sorted((f for f in os.listdir(res) if re.match(r"console-\d+\.txt$", f)),
                  key=lambda f: int(re.findall(r"\d+", f)[0]))
    truth = writing_truth()
    near = wrpolls[0][0] if wrpolls else 0
    best, best_n, best_truth, shown_max, judged, must_seen, wrong = None, 0, "", 0, 0, 0, []
    clocks = []  # the headers' clocks so far, in capture order
    texts = {f: open(os.path.join(res, f), errors="replace").read().splitlines() for f in caps}
    shown_at = [console_time(texts[f], near) for f in caps]
    partial = 0
    for i, f in enumerate(caps):
        lines = texts[f]
        rows = [l.split() for l in lines if l.split()[:1] in [[n] for n in PHASE_A]]
        shown_max = max(shown_max, len(rows))
        showing = {r[0] for r in rows if len(r) > 4 and re.match(r"[\d.]+$", r[4]) and float(r[4]) > 0}
        t = console_time(lines, near)
        earlier = [c for c in clocks if t is not None and c < t]
        if t is not None:
            clocks.append(t)
        if t is None or not rows or len(truth) < len(PHASE_A):
            continue
        if t in shown_at[i + 1:]:
            partial += 1  # maybe not a whole frame: its clock's is judged in a later capture
            continue
        start = max(earlier) if earlier else float("-inf")
        n = int(re.findall(r"\d+", f)[0])
        end = min(t + 1, captured[n]) if n in captured else t + 1
        must = {n for n, s in truth.items() if s and s[1] <= t - 0.1 and s[2] >= end
                and not any(s0 < end and s1 > t - 0.1 for s0, s1 in s[4])}
        may = {n for n, s in truth.items() if s and s[3] > start and s[0] < end}
        judged += 1
        must_seen = max(must_seen, len(must))
        if not must <= showing <= may:
            wrong.append(f"{f}: shows {sorted(showing)}; blkback: must {sorted(must)}, may {sorted(may)}")
        if len(showing) > best_n or best is None:
            best, best_n, best_truth = f, len(showing), f"{len(must)} .. {len(may)}"
    exited = [l for l in err if l.startswith("xiotop console exit")]
    check(bool(caps) and shown_max == 3 and not exited,
          f"console: {len(caps)} tmux captures show the 3 phase A domains"
          f"{'; ' + exited[0] if exited else ''}")
    spans = ", ".join(f"{n} {s[1] - near:.1f} .. {s[2] - near:.1f} s" if s else f"{n} none"
                      for n, s in truth.items())
    # Something shown writing must be judged: a capture that must show a domain writing,
    # or failing that one that shows some (each judged against blkback's `may`). Whether
    # any capture falls wholly inside a guest's ~2 s of writes depends on when a loaded
    # TCG redraws (every 1-7 s): a CI boot had none, and its capture showing 2 of the 3
    # that may have written was right. A console showing none writing still fails.
    check(judged > 0 and (must_seen > 0 or best_n > 0) and not wrong,
          f"console: {best or 'no capture'} shows {best_n} domains writing at once (GWR_MiB/s > 0),"
          f" blkback's wr_sect says {best_truth}; in all {judged} captures the domains shown writing"
          f" are those blkback's wr_sect says wrote (writing from the unpause: {spans};"
          f" the most a capture must show: {must_seen}; {partial} left to a later capture of their clock)"
          + (f": {len(wrong)} wrong, {wrong[:2]}" if wrong else ""))


marks = {}
if __name__ == "__main__":
    ev = os.path.join(sys.argv[1], "events.log")
    for line in open(ev) if os.path.exists(ev) else []:
        m = re.match(r"\S+ wall=(\S+) (.*)", line.strip())
        if m:
            marks[m.group(2)] = m.group(1)
    sys.exit(main())
