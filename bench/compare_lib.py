#!/usr/bin/env python3
"""Helpers of bench/compare.sh: bpf program ids and run stats (from `bpftool prog show -j`
on stdin), one result line per (round, peer, workload), and the report.

  compare_lib.py ids                      ids of the loaded programs
  compare_lib.py stats "ID ID ..."        {name#id: [run_time_ns, run_cnt]} of the others
  compare_lib.py record FIO_JSON R PEER WL BUSY_TICKS T0 T1 RSS_KIB STATS0 STATS1 TOOL_NS
  compare_lib.py unsteady RESULTS WL      rounds whose no-tracer IOPS of WL ("rand4k dio-on")
                                          moved more than 10 % from its neighbours'
  compare_lib.py take RESULTS R WORLD     round R's lines of WORLD out of RESULTS, printed
  compare_lib.py report RESULTS REPLACED STEADY_WL   the tables (markdown)
"""
import json
import math
import os
import statistics
import sys

TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")


def cmd_ids():
    print(" ".join(str(p["id"]) for p in json.load(sys.stdin)))


def cmd_stats(before):
    skip = set(before.split())
    out = {}
    for p in json.load(sys.stdin):
        if str(p["id"]) not in skip:
            out["%s#%d" % (p.get("name", "?"), p["id"])] = [p.get("run_time_ns", 0), p.get("run_cnt", 0)]
    print(json.dumps(out))


def cmd_record(fio_json, r, peer, wl, ticks, t0, t1, rss, s0, s1, tool_ns="0"):
    with open(fio_json) as f:
        job = json.load(f)["jobs"][0]["write"]
    s0, s1 = json.loads(s0), json.loads(s1)
    progs = {k: [v[0] - s0.get(k, [0, 0])[0], v[1] - s0.get(k, [0, 0])[1]] for k, v in s1.items()}
    print(json.dumps({"round": int(r), "peer": peer, "wl": wl, "ios": job["total_ios"],
                      "iops": job["iops"], "busy_ticks": int(ticks), "secs": float(t1) - float(t0),
                      "rss_kib": int(rss or 0), "tool_ns": int(tool_ns or 0), "progs": progs}))


STATS_OFF = "/stats-off"  # a workload's label when compare.sh ran it with the run stats off (BPF_STATS=both)
UNSTEADY = 0.10  # a no-tracer round this far from its neighbours' median is run again
NEIGHBOURS = 2  # rounds on each side it is judged against
IOPS_BAR = 0.97  # issue 47: xiotop's median IOPS ratio to no tracer, in each world
MEDIAN_CONFIDENCE = 0.95  # the least coverage of the interval said for a median


def load(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def none_iops(rows, wl):
    return {r["round"]: r["iops"] for r in rows if r["peer"] == "none" and r["wl"] == wl}


def unsteady_rounds(iops):
    """Rounds whose IOPS moved more than UNSTEADY from the median of their neighbours (up
    to NEIGHBOURS on each side): one slow round does not make its neighbours look fast."""
    out = []
    for r, v in sorted(iops.items()):
        near = [iops[q] for q in range(r - NEIGHBOURS, r + NEIGHBOURS + 1) if q != r and q in iops]
        if near and v and abs(v / statistics.median(near) - 1) > UNSTEADY:
            out.append(r)
    return out


def cmd_unsteady(path, wl):
    print(" ".join(str(r) for r in unsteady_rounds(none_iops(load(path), wl))))


def cmd_take(path, r, world):
    """Round r's lines of world out of the results file (printed, for the report)."""
    keep, took = [], []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            mine = row["round"] == int(r) and row["wl"].split(" ", 1)[1:] == [world]
            (took if mine else keep).append(line)
    with open(path, "w") as f:
        f.writelines(keep)
    sys.stdout.writelines(took)


def med_range(xs, fmt):
    if not xs:
        return "-"
    return f"{fmt % statistics.median(xs)} ({fmt % min(xs)}–{fmt % max(xs)})"


def floor_ns(rows, wl):
    """ns per event of the `floor` peer's empty programs: what the kernel's run stats
    (two sched_clock reads around each program) and a call cost per event, whatever the
    program does. None without that peer."""
    mine = [r for r in rows if r["peer"] == "floor" and r["wl"] == wl]
    ns = sum(v[0] for r in mine for v in r["progs"].values())
    cnt = sum(v[1] for r in mine for v in r["progs"].values())
    return ns / cnt if cnt else None


def report_workload(rows, replaced, wl, peers):
    base = {r["round"]: r for r in rows if r["peer"] == "none" and r["wl"] == wl}
    floor = floor_ns(rows, wl)
    print(f"\n### {wl}\n")
    spread(rows, replaced, wl)
    if floor is not None:
        print(f"Run-stats floor (empty programs, `floor` peer): {floor:.0f} ns per event. "
              "Less floor = BPF ns/I/O minus that floor times events/I/O.\n")
    print("| peer | busy CPU µs/I/O | added µs/I/O | BPF ns/I/O | less floor | events/I/O | IOPS ratio | "
          "tool CPU ms/s | RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    per_prog = {}
    for peer in peers:
        mine = [r for r in rows if r["peer"] == peer and r["wl"] == wl and r["ios"]]
        if not mine:
            continue
        busy = [r["busy_ticks"] * TICK_NS / 1e3 / r["ios"] for r in mine]
        added = [b - base[r["round"]]["busy_ticks"] * TICK_NS / 1e3 / base[r["round"]]["ios"]
                 for b, r in zip(busy, mine) if r["round"] in base and base[r["round"]]["ios"]]
        ratio = [r["iops"] / base[r["round"]]["iops"] for r in mine
                 if r["round"] in base and base[r["round"]]["iops"]]
        ios = sum(r["ios"] for r in mine)
        ns = sum(v[0] for r in mine for v in r["progs"].values())
        cnt = sum(v[1] for r in mine for v in r["progs"].values())
        for r in mine:
            for k, v in r["progs"].items():
                t = per_prog.setdefault((peer, k.split("#")[0]), [0, 0])
                t[0] += v[0]
                t[1] += v[1]
        rss = max(r["rss_kib"] for r in mine) / 1024
        counted = peer != "none" and cnt  # no events: the run stats were off (BPF_STATS=0)
        bpf = f"{ns / ios:.0f}" if counted else "-"
        net = f"{(ns - floor * cnt) / ios:.0f}" if counted and floor is not None else "-"
        ev = f"{cnt / ios:.1f}" if counted else "-"
        add = med_range(added, "%+.1f") if peer != "none" else "-"
        rat = med_range(ratio, "%.3f") if peer != "none" else "1"
        rs = f"{rss:.0f}" if peer != "none" else "-"
        # the tool's own threads (not its programs), per second of the run; older results: -
        tool = [r["tool_ns"] / 1e6 / r["secs"] for r in mine if "tool_ns" in r and r["secs"]]
        tc = med_range(tool, "%.1f") if peer != "none" and tool else "-"
        print(f"| {peer} | {statistics.median(busy):.1f} | {add} | {bpf} | {net} | {ev} | {rat} | {tc} | {rs} |")
    print("\n| peer | program | ns/event | events/I/O |")
    print("|---|---|---|---|")
    ios_of = {p: sum(r["ios"] for r in rows if r["peer"] == p and r["wl"] == wl) for p in peers}
    for (peer, name), (ns, cnt) in sorted(per_prog.items()):
        if cnt:
            print(f"| {peer} | {name} | {ns / cnt:.0f} | {cnt / max(ios_of[peer], 1):.2f} |")


def spread(rows, replaced, wl):
    """The no-tracer rounds' IOPS: median (min-max), the spread, and the rounds run again."""
    iops = none_iops(rows, wl)
    if not iops:
        return
    xs = list(iops.values())
    med = statistics.median(xs)
    line = (f"No-tracer IOPS over {len(xs)} rounds: {med:,.0f} ({min(xs):,.0f}–{max(xs):,.0f}), "
            f"spread {(max(xs) - min(xs)) / med * 100:.0f} % of the median")
    gone = none_iops(replaced, wl)
    if gone:
        line += "; run again: " + ", ".join(f"round {r} ({v:,.0f} → {iops.get(r, 0):,.0f})"
                                            for r, v in sorted(gone.items()))
    print(line + ".\n")


def per_io(rows, peer, wl):
    """(BPF ns per I/O, events per I/O) of a peer, totals over its rounds; None without."""
    mine = [r for r in rows if r["peer"] == peer and r["wl"] == wl and r["ios"]]
    ios = sum(r["ios"] for r in mine)
    if not ios:
        return None
    ns = sum(v[0] for r in mine for v in r["progs"].values())
    cnt = sum(v[1] for r in mine for v in r["progs"].values())
    return (ns / ios, cnt / ios) if cnt else None  # no events: the run stats were off


def iops_ratios(rows, peer, wl):
    base = none_iops(rows, wl)
    return [r["iops"] / base[r["round"]] for r in rows
            if r["peer"] == peer and r["wl"] == wl and base.get(r["round"])]


def median_interval(xs):
    """Where the median of the rounds' population lies, from the rounds alone (no
    distribution assumed): the k-th smallest and k-th largest of n values cover it with
    probability 1 - 2 P(Binomial(n, 1/2) < k); the narrowest such interval covering at least
    MEDIAN_CONFIDENCE, as (low, high, coverage), or None when n is too small for any."""
    xs, n, best = sorted(xs), len(xs), None
    for k in range(1, n // 2 + 1):
        coverage = 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2**n
        if coverage < MEDIAN_CONFIDENCE:
            break
        best = (xs[k - 1], xs[n - k], coverage)
    return best


def bar_decided(xs):
    """Whether a run's median IOPS ratio decides IOPS_BAR: a sentence."""
    iv = median_interval(xs)
    if not iv:
        return f"{len(xs)} rounds are too few to place the median"
    lo, hi, coverage = iv
    where = ("met" if lo >= IOPS_BAR else "not met" if hi < IOPS_BAR
             else f"not decided by this run ({IOPS_BAR} is inside)")
    return f"the median within {lo:.3f}-{hi:.3f} at {coverage * 100:.0f} %: {where}"


def cell(p):
    """BPF ns per I/O (events per I/O)."""
    return f"{p[0]:,.0f} ({p[1]:.1f})" if p else "-"


def ratio(x, p):
    return f"{x[0] / p[0]:.2f}" if x and p and p[0] else "-"


def summary(rows, steady_wl, wls):
    """Issue 47's figures per world: xiotop's BPF time per I/O against the latency one-liner
    (bt_hist) and the same figures done by bpftrace (bt_same), events per I/O, IOPS ratio;
    for the other workloads xiotop against bt_same per I/O."""
    mine = [w for w in wls if w.split(" ")[0] == steady_wl]
    if not mine:
        return
    off = {w.split(" ", 1)[1]: w for w in wls if w.split(" ")[0] == steady_wl + STATS_OFF}
    print(f"\n### Per world: {steady_wl}, xiotop (every figure, latency on)\n")
    print("| world | xiotop BPF ns/I/O (events) | bt_hist | xiotop / bt_hist | bt_same | "
          "xiotop / bt_same | xiotop IOPS ratio, median (min–max) |"
          + (" the same, run stats off | bt_hist's, stats on; off |" if off else ""))
    print("|---|---|---|---|---|---|---|" + ("---|---|" if off else ""))
    # A median of 10 rounds moves by about the whole bar between runs of the same code
    # (docs/performance.md): said under the table, whether this run's rounds decide it at all.
    decided = []
    for wl in mine:
        world = wl.split(" ", 1)[1]
        x, h, s = (per_io(rows, p, wl) for p in ("xiotop", "bt_hist", "bt_same"))
        rat = iops_ratios(rows, "xiotop", wl)
        rat_off = iops_ratios(rows, "xiotop", off.get(world, ""))
        judged = rat_off if world in off else rat
        if judged:
            decided.append(f"- {world}: {bar_decided(judged)}")
        if not rat:
            continue
        line = (f"| {world} | {cell(x)} | {cell(h)} | {ratio(x, h)} | {cell(s)} | {ratio(x, s)} | "
                f"{med_range(rat, '%.3f')} |")
        if off:
            hist = [f"{statistics.median(x):.3f}" if x else "-"
                    for x in (iops_ratios(rows, "bt_hist", w) for w in (wl, off.get(world, "")))]
            line += f" {med_range(rat_off, '%.3f')} | {'; '.join(hist)} |"
        print(line)
    print(f"\nxiotop's IOPS ratio against {IOPS_BAR}, run stats {'off' if off else 'on'}:")
    for line in decided:
        print(line)
    rest = [w for w in wls if w not in mine and w not in off.values()]
    if rest:
        print("\n| workload | xiotop BPF ns/I/O (events) | bt_same | xiotop / bt_same |")
        print("|---|---|---|---|")
        for wl in rest:
            x, s = per_io(rows, "xiotop", wl), per_io(rows, "bt_same", wl)
            if x:
                print(f"| {wl} | {cell(x)} | {cell(s)} | {ratio(x, s)} |")


def cmd_report(path, replaced_path=None, steady_wl="rand4k"):
    rows = load(path)
    replaced = load(replaced_path) if replaced_path else []
    peers, wls = [], []
    for r in rows:
        if r["peer"] not in peers:
            peers.append(r["peer"])
        if r["wl"] not in wls:
            wls.append(r["wl"])
    rounds = len({r["round"] for r in rows})
    print(f"{rounds} rounds; busy CPU per I/O and IOPS ratio: median (min–max) over rounds; "
          "BPF ns and events per I/O: totals over all rounds")
    for wl in wls:
        report_workload(rows, replaced, wl, peers)
    summary(rows, steady_wl, wls)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {"ids": cmd_ids, "stats": cmd_stats, "record": cmd_record, "unsteady": cmd_unsteady,
     "take": cmd_take, "report": cmd_report}[cmd](*args)


if __name__ == "__main__":
    main()
