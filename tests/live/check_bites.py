#!/usr/bin/env python3
"""check_bites.py KEPT_DIR - do the live file checkers fail when a figure is wrong?

A check with a tolerance no wrong figure breaks proves nothing. KEPT_DIR is what a live
test wrote, kept by XIOTOP_LIVE_KEEP (tests/live/livelib.sh):

    XIOTOP_LIVE_KEEP=DIR ctest -R '^live_test_record$'
    python3 -B tests/live/check_bites.py DIR

It finds which test wrote it (test_record: export.json; test_explain: file.json), runs
that test's checkers on it as they are (they must pass), then once per mutation on a copy
where one of xiotop's figures is made wrong the way a real bug would (a request more or
lost, a few per cent off, a drain seconds late) and wants the checker to fail on that
figure's own check: each mutation names the FAIL line it must cause. Only xiotop's output
(the export or explain JSON) is changed, never the writers' or the kernel's counts it is
checked against. Exit 1 when a mutation leaves its check green. Wrong figures a check
is known to let through (WEAK) are run too and printed as "weak", with why. The checkers
that read the kernel while xiotop runs cannot be run again like this: bite_xiotop.py.
Like tests/xen/check_bites.py for the Xen boots."""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MiB = 1 << 20


def read_env(path):
    env = {}
    for line in open(path):
        if "=" in line and not line.startswith("#"):
            k, v = line.strip().split("=", 1)
            env[k] = v.strip("\"'")
    return env


# --- mutations of an export (JSON lines: one interval a line) ---

def lines_add(domid, key, delta):
    """One request more (or lost): DELTA bytes on the domain's first interval holding any."""
    def mutate(ivs):
        for iv in ivs:
            for d in iv["domains"]:
                if d["domid"] == domid and d.get(key):
                    d[key] += delta
                    return
    return mutate


def lines_scale(key, factor):
    def mutate(ivs):
        for iv in ivs:
            for d in iv["domains"]:
                if isinstance(d.get(key), int):
                    d[key] = int(d[key] * factor)
    return mutate


# --- mutations of an explain report (one JSON document) ---

def dom_scale(domid, key, factor):
    def mutate(ex):
        for d in ex["domains"]:
            if d["domid"] == domid and d.get(key) is not None:
                d[key] = type(d[key])(d[key] * factor)
    return mutate


def dom_add(domid, key, delta):
    def mutate(ex):
        for d in ex["domains"]:
            if d["domid"] == domid and d.get(key) is not None:
                d[key] += delta
    return mutate


def verdict_scale(vid, domid, key, factor):
    def mutate(ex):
        for v in ex["verdicts"]:
            if v["id"] == vid and v["domid"] == domid:
                v["figures"][key] *= factor
    return mutate


def record_checkers(work, env):
    return [[sys.executable, "-B", os.path.join(HERE, "record_check.py"), f"{work}/live.json",
             f"{work}/export.json", work, env["HOST_ZRAM"], env["DOM3_ZRAM"], env["DOM1_LOOP"],
             env["DOM2_LOOP"]]]


def explain_checkers(work, env):
    return [[sys.executable, "-B", os.path.join(HERE, "explain_check.py"), work, env["HOST_ZRAM"],
             env["DOM1_LOOP"], env["DOM3_ZRAM"]],
            [sys.executable, "-B", os.path.join(HERE, "explain_cpu_check.py"), work]]


# test: (the file that tells it, its checkers, [(name, file, JSON lines?, mutation, FAIL line)])
TESTS = {
    "test_record": ("export.json", record_checkers, [
        ("recorded guest writes: one 4 KiB request more (dom1)", "export.json", True,
         lines_add(1, "guest_wr_bytes", 4096), r"dom1 recorded guest_wr_bytes =="),
        ("recorded guest reads: one 4 KiB request lost (dom2)", "export.json", True,
         lines_add(2, "guest_rd_bytes", -4096), r"dom2 recorded guest_rd_bytes =="),
        ("recorded physical writes 10 % low", "export.json", True,
         lines_scale("phys_wr_bytes", 0.9), r"recorded phys_wr_bytes .* diskstats"),
        ("recorded double-counted bytes 5 % high", "export.json", True,
         lines_scale("double_counted_bytes", 1.05), r"recorded double_counted_bytes .* diskstats"),
    ]),
    "test_explain": ("file.json", explain_checkers, [
        ("seed 001 loop guest writes 2 % high", "file.json", False,
         dom_scale(1, "guest_wr_bytes", 1.02), r"loop domain guest_wr_bytes vs the writer"),
        # the loop domain's window holds no physical write (all in dom0's cache): the
        # bug would be bytes charged there that the leaf never took
        ("seed 001 loop physical writes: 16 MiB the leaf did not take", "file.json", False,
         dom_add(1, "phys_wr_bytes", 16 * MiB), r"loop domain phys_wr_bytes vs"),
        ("seed 001 double-counted bytes 10 % low", "file.json", False,
         verdict_scale("double_counting", 1, "double_counted_bytes", 0.9),
         r"double_counting's double_counted_bytes \(window and drain\) vs"),
        # the old rule's figure: vmstat less the disks, the loop's own first count
        ("seed 001 double-counted bytes in the window: the first count's 256 MiB", "file.json", False,
         dom_add(1, "double_counted_bytes", 256 * MiB), r"loop domain double_counted_bytes in the window vs"),
        # a verdict built on a drain the recording cut short (the rule before it)
        ("seed 001 cut recording: page_cache_inflation given", "cut.json", False,
         lambda ex: ex["verdicts"].append({"id": "page_cache_inflation", "domid": 1, "share": 0.5,
                                           "figures": {}, "evidence": [], "text": ""}),
         r"drain cut short: no page_cache_inflation"),
        ("seed 001 dirty backlog at the end 10 % low", "file.json", False,
         dom_scale(1, "dirty_backlog_end_bytes", 0.9), r"backlog at the end vs /proc/vmstat"),
        ("seed 001 drain 3 s late", "file.json", False,
         dom_add(1, "drain_seconds", 3.0), r"^drain .* vs the leaf"),
        ("seed 001 inflation factor 1.5x", "file.json", False,
         verdict_scale("page_cache_inflation", 1, "inflation_factor", 1.5), r"inflation factor .* in \["),
        ("seed 001 zram guest writes 2 % high", "lv.json", False,
         dom_scale(3, "guest_wr_bytes", 1.02), r"zram domain guest_wr_bytes vs the writer"),
        ("seed 001 zram physical writes 10 % high", "lv.json", False,
         dom_scale(3, "phys_wr_bytes", 1.1), r"zram domain phys_wr_bytes vs"),
        ("seed 002 zram dom0 CPU 30 % high", "cpu.json", False,
         dom_scale(3, "dom0_cpu_s", 1.3), r"dom3: dom0 CPU"),
        ("seed 002 loop dom0 CPU 30 % high", "cpu.json", False,
         dom_scale(1, "dom0_cpu_s", 1.3), r"dom1: dom0 CPU"),
        # the zram writer's runtime is read in ns by the thread itself (it was whole
        # 10 ms ticks: 10 % high passed), the loop domain's bounded from below by its
        # loop device's kworkers' sampled runtime (it was by the writer's 0.01 s alone)
        ("seed 002 zram dom0 CPU 10 % high", "cpu.json", False,
         dom_scale(3, "dom0_cpu_s", 1.1), r"dom3: dom0 CPU"),
        ("seed 002 loop dom0 CPU halved", "cpu.json", False,
         dom_scale(1, "dom0_cpu_s", 0.5), r"dom1: dom0 CPU"),
        ("seed 002 zram guest bytes 2 % high", "cpu.json", False,
         dom_scale(3, "guest_wr_bytes", 1.02), r"dom3: guest bytes"),
    ]),
}

# Wrong figures the checks are known to let through, run to say so (a "weak" line, not a
# failure of this script; "now caught" if one starts to bite): test: [(name, file, JSON
# lines?, mutation, the FAIL line it would need, why it passes)]
WEAK = {}


def run(checkers):
    fails, rc = [], 0
    for cmd in checkers:
        p = subprocess.run(cmd, capture_output=True, text=True)
        rc |= p.returncode
        fails += [l[5:].strip() for l in p.stdout.splitlines() if l.startswith("FAIL")]
    return rc, fails


def load(path, lines):
    if lines:
        return [json.loads(l) for l in open(path) if l.strip()]
    return json.load(open(path))


def save(path, doc, lines):
    with open(path, "w") as f:
        if lines:
            f.writelines(json.dumps(iv) + "\n" for iv in doc)
        else:
            json.dump(doc, f)


def main():
    kept = sys.argv[1]
    env = read_env(os.path.join(kept, "world", "env"))
    test = next((t for t, (marker, _, _) in TESTS.items() if os.path.exists(os.path.join(kept, marker))), None)
    if test is None:
        print(f"check_bites: {kept} holds no kept work dir of " + " or ".join(TESTS))
        return 2
    _, checkers, mutations = TESTS[test]
    rc, fails = run(checkers(kept, env))
    if rc != 0:
        print(f"check_bites: {test}'s checkers fail on the run itself ({len(fails)} FAIL: "
              + "; ".join(f[:80] for f in fails[:3]) + "): nothing to mutate")
        return 1
    bad = 0
    with tempfile.TemporaryDirectory(prefix="xiotop-live-bites.") as tmp:
        work = os.path.join(tmp, "work")
        shutil.copytree(kept, work, ignore=shutil.ignore_patterns("*.xiotop*", "tsdb"))
        for name, rel, lines, mutate, want in mutations:
            right = load(os.path.join(kept, rel), lines)
            wrong = copy.deepcopy(right)
            mutate(wrong)
            save(os.path.join(work, rel), wrong, lines)
            rc, fails = run(checkers(work, env))
            save(os.path.join(work, rel), right, lines)
            hit = [f for f in fails if re.search(want, f)]
            ok = rc != 0 and bool(hit) and wrong != right
            bad += not ok
            print(("ok   " if ok else "FAIL ") + f"bites: {name}: "
                  + (f"fails ({len(fails)} FAIL), e.g. \"{hit[0][:160]}\"" if ok else
                     f"exit {rc}, no FAIL line matching /{want}/"
                     + (" (the mutation changed nothing)" if wrong == right else "")
                     + (": " + "; ".join(f[:80] for f in fails[:3]) if fails else "")), flush=True)
        for name, rel, lines, mutate, want, why in WEAK.get(test, []):
            right = load(os.path.join(kept, rel), lines)
            wrong = copy.deepcopy(right)
            mutate(wrong)
            save(os.path.join(work, rel), wrong, lines)
            rc, fails = run(checkers(work, env))
            save(os.path.join(work, rel), right, lines)
            caught = rc != 0 and any(re.search(want, f) for f in fails)
            print(("now caught " if caught else "weak ") + f"bites: {name}: "
                  + ("its check fails now: take it into the bites" if caught else f"passes ({why})"),
                  flush=True)
    print(f"check_bites: {test}: {len(mutations) - bad} of {len(mutations)} wrong figures caught"
          + (f", {len(WEAK[test])} known to pass listed as weak" if WEAK.get(test) else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
