#!/usr/bin/env python3
"""Helpers of bench/compare.sh: bpf program ids and run stats (from `bpftool prog show -j`
on stdin), one result line per (round, peer, workload), and the report.

  compare_lib.py ids                      ids of the loaded programs
  compare_lib.py stats "ID ID ..."        {name#id: [run_time_ns, run_cnt]} of the others
  compare_lib.py record FIO_JSON R PEER WL BUSY_TICKS T0 T1 RSS_KIB STATS0 STATS1
  compare_lib.py report RESULTS           the tables (markdown)
"""
import json
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


def cmd_record(fio_json, r, peer, wl, ticks, t0, t1, rss, s0, s1):
    with open(fio_json) as f:
        job = json.load(f)["jobs"][0]["write"]
    s0, s1 = json.loads(s0), json.loads(s1)
    progs = {k: [v[0] - s0.get(k, [0, 0])[0], v[1] - s0.get(k, [0, 0])[1]] for k, v in s1.items()}
    print(json.dumps({"round": int(r), "peer": peer, "wl": wl, "ios": job["total_ios"],
                      "iops": job["iops"], "busy_ticks": int(ticks), "secs": float(t1) - float(t0),
                      "rss_kib": int(rss or 0), "progs": progs}))


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


def report_workload(rows, wl, peers):
    base = {r["round"]: r for r in rows if r["peer"] == "none" and r["wl"] == wl}
    floor = floor_ns(rows, wl)
    print(f"\n### {wl}\n")
    if floor is not None:
        print(f"Run-stats floor (empty programs, `floor` peer): {floor:.0f} ns per event. "
              "Less floor = BPF ns/I/O minus that floor times events/I/O.\n")
    print("| peer | busy CPU µs/I/O | added µs/I/O | BPF ns/I/O | less floor | events/I/O | IOPS ratio | RSS MiB |")
    print("|---|---|---|---|---|---|---|---|")
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
        bpf = f"{ns / ios:.0f}" if peer != "none" else "-"
        net = f"{(ns - floor * cnt) / ios:.0f}" if peer != "none" and floor is not None else "-"
        ev = f"{cnt / ios:.1f}" if peer != "none" else "-"
        add = med_range(added, "%+.1f") if peer != "none" else "-"
        rat = med_range(ratio, "%.3f") if peer != "none" else "1"
        rs = f"{rss:.0f}" if peer != "none" else "-"
        print(f"| {peer} | {statistics.median(busy):.1f} | {add} | {bpf} | {net} | {ev} | {rat} | {rs} |")
    print("\n| peer | program | ns/event | events/I/O |")
    print("|---|---|---|---|")
    ios_of = {p: sum(r["ios"] for r in rows if r["peer"] == p and r["wl"] == wl) for p in peers}
    for (peer, name), (ns, cnt) in sorted(per_prog.items()):
        if cnt:
            print(f"| {peer} | {name} | {ns / cnt:.0f} | {cnt / max(ios_of[peer], 1):.2f} |")


def cmd_report(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
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
        report_workload(rows, wl, peers)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {"ids": cmd_ids, "stats": cmd_stats, "record": cmd_record, "report": cmd_report}[cmd](*args)


if __name__ == "__main__":
    main()
