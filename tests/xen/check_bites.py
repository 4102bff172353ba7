#!/usr/bin/env python3
"""check_bites.py RESULTS QDISK_STATUS - do check.py's checks fail when a figure is wrong?

A check with a tolerance no wrong figure breaks proves nothing. After check.py passed on
a run's RESULTS, this copies them, makes one of xiotop's figures wrong the way a real bug
would (a few per cent too many bytes, an interval counted twice, a unit off, a request
lost from a histogram), runs check.py on the copy and wants it to fail on that figure's
check. Each mutation names the FAIL line it must cause; a mutation that leaves check.py
green is a check that does not bite, and fails this script. Only xiotop's output
(xiotop.json, and the console's screens console-*.txt) is changed, never the kernel's or
the guests' counts it is checked against."""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def scale_domains(key, factor, pick=lambda d: True):
    def mutate(iv):
        for d in iv["domains"]:
            if pick(d) and isinstance(d.get(key), int):
                d[key] = int(d[key] * factor)
    return mutate


def scale_role(role, factor):
    def mutate(iv):
        for d in iv["domains"]:
            roles = d.get("dom0_cpu_ns_by_role") or {}
            if isinstance(roles.get(role), int):
                roles[role] = int(roles[role] * factor)
    return mutate


def vbd_one_request_more(iv):
    # one 4 KiB request more in every vbd figure: the kind of off-by-one a reappearing
    # counter makes; xentop's VBD_WSECT is exact, so an exact check must see it
    for d in iv["domains"]:
        for v in d.get("vbd_stats") or []:
            v["wr_bytes"] += 4096


def latency_times(factor):
    def mutate(iv):
        for d in iv["domains"]:
            for h in (d.get("io_latency") or {}).values():
                if not isinstance(h, dict) or not h.get("ios"):
                    continue
                h["buckets"] = [[int(low * factor), c] for low, c in h["buckets"]]
                h["sum_ns"] = int(h["sum_ns"] * factor)
                h["p50_ns"] = h["p50_ns"] * factor if h.get("p50_ns") is not None else None
                if h.get("p99_ns") is not None:
                    h["p99_ns"] *= factor
    return mutate


def latency_one_lost(state):
    # the first interval with a timed write loses one request, consistently: buckets, ios
    # and sum still add up, only the count against blkback's is wrong; and silently: no
    # interval says a lost event (check_latency takes requests within the lost events
    # xiotop said as said, not missed)
    def mutate(iv):
        if "lost_events" in iv:
            iv["lost_events"] = 0
        if state.get("done"):
            return
        for d in iv["domains"]:
            h = (d.get("io_latency") or {}).get("write")
            if isinstance(h, dict) and h.get("ios", 0) > 1:
                for b in h["buckets"]:
                    if b[1] > 0:
                        b[1] -= 1
                        h["ios"] -= 1
                        h["sum_ns"] -= b[0]
                        state["done"] = True
                        return
    return mutate


def guest_cpu_twice(state):
    # one interval counted twice: the domain's largest interval's vCPU time doubled
    def mutate_all(intervals):
        best = {}
        for i, iv in enumerate(intervals):
            for j, d in enumerate(iv["domains"]):
                g = d.get("guest_cpu_ns")
                if isinstance(g, int) and d["domid"] != 0 and g > best.get(d["domid"], (0, 0, 0))[0]:
                    best[d["domid"]] = (g, i, j)
        for g, i, j in best.values():
            intervals[i]["domains"][j]["guest_cpu_ns"] = 2 * g
    return mutate_all


def console_gwr(value):
    """The console captures (console-*.txt, xiotop's own screen) made wrong: each phase A
    row's GWR_MiB/s replaced by value(old text), in place, its width kept."""
    def mutate_files(work):
        for f in os.listdir(work):
            if not re.match(r"console-\d+\.txt$", f):
                continue
            path = os.path.join(work, f)
            out = []
            for line in open(path, errors="replace").read().splitlines():
                m = re.match(r"((?:file-nodio|file-dio|lvm)(?:\s+\S+){3}\s+)(\S+)(.*)$", line)
                if m:
                    new = value(m.group(2))
                    line = m.group(1) + new.rjust(len(m.group(2))) + m.group(3)
                out.append(line)
            with open(path, "w") as fh:
                fh.write("\n".join(out) + "\n")
    return mutate_files


def shown_writing(old):
    return "1.0" if old in ("-", "0.0") else old


def per_interval(f):
    def mutate_all(intervals):
        for iv in intervals:
            f(iv)
    return mutate_all


def not_dom0(d):
    return d["domid"] != 0


# name, how xiotop's figure is made wrong, the FAIL line check.py must print; the stacks
# boot (md RAID, file-r) checks the first four of these figures only, the hvm boot those
# of HVM (its HVM guest and the PV twin)
STACKS = 4
HVM = ("guest writes 3 % high", "guest reads 3 % high", "guest vCPU: one interval counted twice",
       "backend CPU 10 % high", "device-model CPU 10 % high", "vbd_stats one request more",
       "latency: one request lost", "latency: times 8x (three buckets up)")
MUTATIONS = [
    ("guest writes 3 % high", lambda s: per_interval(scale_domains("guest_wr_bytes", 1.03, not_dom0)),
     r"guest[_ ]?wr.* vs blkback"),
    ("guest reads 3 % high", lambda s: per_interval(scale_domains("guest_rd_bytes", 1.03, not_dom0)),
     r"rd .* vs blkback|rd_sect"),
    ("double-counted bytes dropped", lambda s: per_interval(scale_domains("double_counted_bytes", 0, not_dom0)),
     r"double_counted"),
    ("physical writes halved", lambda s: per_interval(scale_domains("phys_wr_bytes", 0.5, not_dom0)),
     r"phys_wr_bytes|phys"),
    ("guest vCPU: one interval counted twice", guest_cpu_twice, r"guest vCPU"),
    ("guest vCPU in the wrong unit (us as ns)", lambda s: per_interval(scale_domains("guest_cpu_ns", 1e-3, not_dom0)),
     r"guest vCPU"),
    ("backend CPU 10 % high", lambda s: per_interval(scale_role("backend", 1.10)), r"blkback threads|backend CPU"),
    ("device-model CPU 10 % high", lambda s: per_interval(scale_role("device_model", 1.10)), r"device-model CPU"),
    ("vbd_stats one request more", lambda s: per_interval(vbd_one_request_more), r"vbd_stats|VBD"),
    ("latency: one request lost", lambda s: per_interval(latency_one_lost(s)), r"latency .*timed"),
    ("latency: times 8x (three buckets up)", lambda s: per_interval(latency_times(8)), r"latency .*(mean|p50)"),
    ("latency: times 2x", lambda s: per_interval(latency_times(2)), r"latency .*loop\d's own request time"),
    ("latency: times 0.5x", lambda s: per_interval(latency_times(0.5)), r"latency .*loop\d's own request time"),
    ("loop CPU halved", lambda s: per_interval(scale_role("loop", 0.5)), r"loop CPU"),
    ("loop CPU 2x", lambda s: per_interval(scale_role("loop", 2.0)), r"loop CPU"),
    ("loop CPU 10 % high", lambda s: per_interval(scale_role("loop", 1.1)), r"loop CPU"),
    ("console: no domain shown writing", lambda s: per_interval(lambda iv: None), r"console: .*writing",
     console_gwr(lambda old: "0.0" if re.match(r"[\d.]+$", old) else old)),
    ("console: idle domains shown writing", lambda s: per_interval(lambda iv: None), r"console: .*writing",
     console_gwr(shown_writing)),
]


def run_check(res, qdisk_status):
    p = subprocess.run([sys.executable, "-B", os.path.join(HERE, "check.py"), res, qdisk_status],
                       capture_output=True, text=True)
    fails = [l[5:] for l in p.stdout.splitlines() if l.startswith("FAIL ")]
    return p.returncode, fails


def load(path):
    out = []
    for line in open(path):
        line = line.strip()
        if line:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # the last line may be cut by the kill at the end, as check.py says
    return out


def main():
    res, qdisk_status = sys.argv[1], sys.argv[2]
    intervals = load(os.path.join(res, "xiotop.json"))
    pp = os.path.join(res, "phases")
    phases = open(pp).read().strip() if os.path.exists(pp) else "main"
    mutations = {"stacks": MUTATIONS[:STACKS], "hvm": [m for m in MUTATIONS if m[0] in HVM]}.get(phases, MUTATIONS)
    rc, base_fails = run_check(res, qdisk_status)
    if rc != 0:
        print(f"check_bites: check.py fails on the run itself ({len(base_fails)} FAIL): nothing to mutate")
        return 1
    bad = 0
    with tempfile.TemporaryDirectory(prefix="xiotop-bites.") as tmp:
        work = os.path.join(tmp, "res")
        for name, make, want, *files in mutations:
            if os.path.exists(work):
                shutil.rmtree(work)
            shutil.copytree(res, work)  # afresh: a mutation of other files stays its own
            wrong = copy.deepcopy(intervals)
            make({})(wrong)
            with open(os.path.join(work, "xiotop.json"), "w") as f:
                for iv in wrong:
                    f.write(json.dumps(iv) + "\n")
            for mutate_files in files:  # xiotop's other output (the console's screens)
                mutate_files(work)
            rc, fails = run_check(work, qdisk_status)
            hit = [f for f in fails if re.search(want, f)]
            ok = rc != 0 and bool(hit)
            bad += not ok
            print(("ok   " if ok else "FAIL ") + f"bites: {name}: check.py "
                  + (f"fails ({len(fails)} FAIL), e.g. \"{hit[0][:150]}\"" if hit else
                     f"exit {rc}, no FAIL line matching /{want}/ (" + "; ".join(f[:80] for f in fails[:3]) + ")"),
                  flush=True)
    print(f"check_bites: {len(mutations) - bad} of {len(mutations)} wrong figures caught")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
