"""check_hvm.py - phase H (hvm.sh), checked by check.py's main: an HVM guest whose disk
qemu emulates in dom0 (seed 004), and a PV twin writing the same bytes through blkback.

Truth kept apart from xiotop: the HVM guest's own counts (hvm_disk.S: sectors it wrote and
read back, its commands, each sector's stamp checked, every command timed with the TSC at
the rate Xen gives), printed on its serial (hvm-serial.log) and on Xen's debug port
(hvm-xl-dmesg.txt); the image file's allocated blocks before and after (HVMIMG lines);
its QEMU's utime+stime every 50 ms, the wall clock around each read (DMRUN H lines); for
the twin, what check.py's check_domain judges (blkback's statistics, its threads'
runtime, its guest's stat line). xiotop's side: its batch JSON intervals, and `xiotop
explain` on the recording of the phase (h-explain.json)."""
import datetime
import json
import os
import re

from check_latency import check_latency
from xenfig import MiB, epoch, mib, within

GIB = 1 << 30
TICK_NS = 10_000_000  # /proc/PID/stat's clock ticks (USER_HZ 100): a read is up to one short


def guest_done(res):
    """The guest's done line as {field: int} (its fields are hex), from its serial or
    else Xen's debug port; None without one. And its failure line, if it printed one."""
    fail = None
    for name in ("hvm-serial.log", "hvm-xl-dmesg.txt"):
        p = os.path.join(res, name)
        for line in open(p, errors="replace") if os.path.exists(p) else []:
            if "XIOTOP-HVM: failed" in line:
                fail = fail or line.strip()
            m = re.search(r"XIOTOP-HVM: done((?: \w+ [0-9a-f]+)+)", line)
            if m:
                w = m.group(1).split()
                return {k: int(v, 16) for k, v in zip(w[::2], w[1::2])}, fail
    return None, fail


def snapshot_lines(res):
    """HVM-START, HVM-DONE, HVMIMG and HVM-FAILED lines of snapshots.txt."""
    out = dict(img={}, failed=[])
    for line in open(os.path.join(res, "snapshots.txt")):
        p = line.split()
        if not p:
            continue
        if p[0] == "HVM-START":
            out.update(t0=float(p[1]), t1=float(p[2]), domid=int(p[3]), pid=p[4])
        elif p[0] == "HVM-DONE":
            out["done"] = float(p[1])
        elif p[0] == "DMEND":  # DMEND H DOMID WALL_BEFORE WALL_AFTER TICKS
            out["dm_end"] = int(p[5]) * TICK_NS
        elif p[0] == "HVMIMG":
            out["img"][p[1]] = (float(p[2]), int(p[3]) * 512, int(p[4]))
        elif p[0].startswith("HVM-") and p[0].endswith("FAILED"):
            out["failed"].append(line.strip())
    return out


def xiotop_sum(intervals, domid, t_from, t_to):
    """xiotop's figures for domid over its intervals ending in (t_from, t_to + 1.2]: the
    guest was made paused at t_from; the one ending just after t_to holds the last bytes."""
    t = dict(n=0, guest_rd=0, guest_wr=0, rd_ios=0, wr_ios=0, dm_cpu=0, cpu=0, names=set(),
             layers={}, dm_series=[])
    for iv in intervals:
        at = epoch(iv["time"])
        if at <= t_from or at > t_to + 1.2:
            continue
        for d in iv["domains"]:
            if d["domid"] != domid:
                continue
            t["n"] += 1
            t["guest_rd"] += d["guest_rd_bytes"] or 0
            t["guest_wr"] += d["guest_wr_bytes"] or 0
            t["rd_ios"] += d.get("guest_rd_ios") or 0
            t["wr_ios"] += d.get("guest_wr_ios") or 0
            roles = d.get("dom0_cpu_ns_by_role") or {}
            t["dm_cpu"] += roles.get("device_model") or 0
            t["cpu"] += sum(v or 0 for v in roles.values())
            t["dm_series"].append((at, t["dm_cpu"]))
            if d.get("name"):
                t["names"].add(d["name"])
            for layer in d["layers"]:
                key = (layer.get("dev") or layer.get("file"), layer["role"], layer["leaf"])
                rd, wr = t["layers"].get(key, (0, 0))
                t["layers"][key] = (rd + layer["rd_bytes"], wr + layer["wr_bytes"])
    return t


def iso(t):
    """An epoch second in the JSON intervals' own time format (UTC, ms, "Z")."""
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def per_gib(cpu_ns, nbytes):
    return cpu_ns / 1e9 / (nbytes / GIB) if nbytes else 0.0


def bracket(reads, at):
    """The QEMU's utime+stime at instant `at` as (lo, hi): the read ending before it and
    the read starting after it (a read in whole ticks is up to one below); None if `at` is
    not inside the reads."""
    before = [r[2] for r in reads if r[1] <= at]
    after = [r[2] for r in reads if r[0] >= at]
    return (max(before), min(after) + TICK_NS) if before and after else None


def check_dm_cpu(check, tag, series, reads):
    """xiotop's device-model CPU grown from its first sample instant inside the reads to
    each later one, against the QEMU's utime+stime (all its threads, those ended too)
    grown between the reads around those instants: within 5 % at every instant. Grown, not
    summed from the QEMU's start: the runtime its threads had when xiotop first charged
    them (of the QEMU's start, before xiotop's topology knew its pid) is said beside."""
    inside = [(at, c) for at, c in series if bracket(reads, at)]
    if len(inside) < 2:
        check(False, f"{tag}: device-model CPU: {len(inside)} of xiotop's sample instants inside the"
              f" {len(reads)} reads of its QEMU's utime+stime (two wanted)")
        return
    (a0, c0), got = inside[0], []
    lo0, hi0 = bracket(reads, a0)
    for at, c in inside[1:]:
        lo, hi = bracket(reads, at)
        grow_lo, grow_hi = lo - hi0, hi - lo0
        truth = min(max(c - c0, grow_lo), grow_hi)
        got.append((c - c0, grow_lo, grow_hi, truth > 0 and within(c - c0, truth, 5)))
    figures = ", ".join(f"{x / 1e6:.0f} vs {lo / 1e6:.0f}-{hi / 1e6:.0f}" for x, lo, hi, _ in got[:: max(1, len(got) // 8)])
    check(all(ok for *_, ok in got),
          f"{tag}: device-model CPU grown from xiotop's first sample instant inside the reads to each"
          f" of the {len(got)} later ones vs its QEMU's utime+stime grown between the reads around them"
          f" (within 5 %), ms: {figures} (every {max(1, len(got) // 8)}th); at the first instant xiotop's"
          f" sum since the QEMU started was {c0 / 1e6:.0f} ms, its utime+stime {lo0 / 1e6:.0f}-{hi0 / 1e6:.0f} ms")


def check_hvm(res, intervals, check, report, dmruns, pv):
    """pv: check_domain's figures for the twin (None when it did not run)."""
    s = snapshot_lines(res)
    for line in s["failed"]:
        print("     " + line)
    if "t0" in s:
        print(f"     [H] xl create of the HVM guest took {s['t1'] - s['t0']:.1f} s"
              + (f"; unpaused to done {s['done'] - s['t1']:.1f} s" if "done" in s else ""))
    g, fail = guest_done(res)
    check(g is not None and not s["failed"],
          "[H] the HVM guest ran to its end and said so"
          + (f": {fail}" if fail else f": {s['failed'][0]}" if s["failed"] else ""))
    if g is None or "t0" not in s:
        return
    domid, khz = s["domid"], g["tsc_khz"]
    wr, rd = g["wr_sect"] * 512, g["rd_sect"] * 512
    check(g["good"] == g["rd_sect"] and g["bad"] == 0 and g["wr_cmds"] * g["chunk"] == g["wr_sect"]
          and g["rd_cmds"] * g["chunk"] == g["rd_sect"] and wr > 0,
          f"[H] the guest wrote {mib(wr)} in {g['wr_cmds']} commands of {g['chunk'] // 2} KiB and read"
          f" {mib(rd)} back in {g['rd_cmds']}, every sector's stamp its own ({g['good']} good,"
          f" {g['bad']} bad); the disk interrupted {g['disk_irqs']} times, looked at {g['polls']}")
    if khz:
        el = g["elapsed_tsc"] / khz / 1e3
        wall = s["done"] - s["t1"]
        print(f"     [H] the guest's TSC ({khz / 1e3:.0f} MHz): writes {g['wr_tsc'] / khz:.0f} ms,"
              f" reads {g['rd_tsc'] / khz:.0f} ms, its I/O loop {el:.1f} s (dom0's wall clock from"
              f" the unpause to done: {wall:.1f} s); one port access qemu serves"
              f" {g['probe32_qemu'] / khz / 32:.2f} ms, one Xen serves {g['probe32_xen'] / khz / 32:.3f} ms")
    # from the create (its QEMU's CPU counts from its start) and from the unpause (its
    # I/O: QEMU reads its image once while it starts, before the guest runs)
    whole = xiotop_sum(intervals, domid, s["t0"], s.get("done", s["t1"]))
    t = xiotop_sum(intervals, domid, s["t1"], s.get("done", s["t1"]))
    check(whole["n"] > 0 and whole["names"] == {"hvm"},
          f"[H] hvm (domid {domid}): xiotop listed it in {whole['n']} intervals, named {sorted(whole['names'])}")
    check(within(t["guest_wr"], wr, 2) and within(t["guest_rd"], rd, 2),
          f"[H] hvm (domid {domid}): guest wr {mib(t['guest_wr'])} rd {mib(t['guest_rd'])} (the device"
          f" model's syscalls on its image, from the unpause) vs the guest's own count wr {mib(wr)}"
          f" rd {mib(rd)}; before the unpause (QEMU starting) rd {whole['guest_rd'] - t['guest_rd']} B"
          f" wr {whole['guest_wr'] - t['guest_wr']} B")
    img = s["img"]
    if "start" in img and "end" in img:
        grew = img["end"][1] - img["start"][1]
        check(grew == wr and within(t["guest_wr"], grew, 2),
              f"[H] hvm: the image file's allocated bytes grew {mib(grew)} (st_blocks, a sparse file"
              f" the guest wrote once) = the guest's count {mib(wr)}; xiotop's guest wr {mib(t['guest_wr'])}")
    else:
        check(False, "[H] hvm: the image file's st_blocks read before and after (HVMIMG)")
    print("     [H] hvm layers: " + ", ".join(
        f"{n} {role}{' leaf' if leaf else ''} wr {mib(w)} rd {mib(r)}"
        for (n, role, leaf), (r, w) in sorted(t["layers"].items(), key=lambda x: str(x[0]))))
    check_dm_cpu(check, f"[H] hvm (domid {domid})", whole["dm_series"], dmruns.get(("H", domid), []))
    # the guest's commands hold the device model's syscalls for them (check_latency says
    # how): its TSC time per op, in whole ms rounded down as a stat line's ticks are
    guest = {"write": (g["wr_cmds"], g["wr_tsc"] // khz), "read": (g["rd_cmds"], g["rd_tsc"] // khz)} if khz else None
    check_latency(check, report, f"latency [H] hvm (domid {domid})", domid, (iso(s["t1"]), None),
                  intervals, None, guest, None)
    side_by_side(res, intervals, check, whole, wr + rd, domid, pv, s.get("dm_end"))


def side_by_side(res, intervals, check, t, moved, domid, pv, dm_end):
    """dom0's CPU per GiB of the two paths in this boot, every role xiotop gives each (the
    device model's and blkback's checked above against their threads' own runtime), and
    explain's verdict on them."""
    if not pv:
        check(False, "[H] the PV twin ran (its figures beside the HVM guest's)")
        return
    p = xiotop_sum(intervals, pv["domid"], 0, float("inf"))
    pv_moved = pv["guest_wr"] + pv["guest_rd"]
    hvm_gib, pv_gib = per_gib(t["cpu"], moved), per_gib(p["cpu"], pv_moved)
    # the physics, before any run: each 128 KiB command costs qemu a dozen ioreq round
    # trips (the controller's registers), each a wake-up, an ioctl and a hypercall in
    # dom0, then a syscall on the image; blkback takes the same request off a ring with
    # one event, and loop's worker copies it into the page cache
    check(hvm_gib > pv_gib > 0,
          f"[H] dom0 CPU per GiB: hvm (qemu's emulated IDE) {hvm_gib:.1f} s/GiB ({t['cpu'] / 1e9:.2f} s,"
          f" device model {t['dm_cpu'] / 1e9:.2f} s, for {mib(moved)}) > hvm-pv (blkback on loop)"
          f" {pv_gib:.1f} s/GiB ({p['cpu'] / 1e9:.2f} s, backend {pv['backend_cpu'] / 1e9:.2f} s, loop"
          f" {pv.get('loop_cpu', 0) / 1e9:.2f} s, for {mib(pv_moved)}): {hvm_gib / pv_gib if pv_gib else 0:.1f}x")
    check_explain(res, check, domid, pv, dm_end)


def check_explain(res, check, domid, pv, dm_end):
    """explain on the phase's recording names the device model's CPU per GiB against
    blkback's of the twin (its dom0_cpu_cost verdict on the HVM guest); its device-model
    seconds are the QEMU's utime+stime read the moment before the domain's destroy (what
    xiotop could not see of the QEMU's start, check_dm_cpu's lag, is in that read)."""
    p = os.path.join(res, "h-explain.json")
    try:
        ex = json.load(open(p))
    except (OSError, ValueError) as e:
        check(False, f"[H] explain on the recording: h-explain.json unreadable ({e})")
        return
    verdicts = [v for v in ex.get("verdicts", []) if v.get("id") == "dom0_cpu_cost"]
    for v in verdicts:
        print(f"     [H] explain, domid {v.get('domid')}: {v.get('text', '')[:500]}")
    mine = [v for v in verdicts if v.get("domid") == domid]
    fig = mine[0].get("figures", {}) if mine else {}
    twin = pv.get("domid") if pv else None
    dm_s = fig.get("device_model_s_per_gib", 0) * fig.get("guest_gib", 0)
    check(dm_end is not None and within(dm_s * 1e9, dm_end, 5),
          f"[H] explain's device-model CPU for hvm {dm_s:.2f} s (its s/GiB x GiB) vs its QEMU's"
          f" utime+stime read just before the destroy {(dm_end or 0) / 1e9:.2f} s (within 5 %)")
    check(bool(mine) and fig.get("device_model_s_per_gib", 0) > 0
          and fig.get("cheapest_domid") == twin and fig.get("ratio_to_cheapest", 0) > 1,
          f"[H] explain names the device model's CPU per GiB {fig.get('device_model_s_per_gib')} s"
          f" against the cheapest path's, domid {fig.get('cheapest_domid')} (the twin: {twin}),"
          f" {fig.get('cheapest_s_per_gib')} s: {fig.get('ratio_to_cheapest')}x")
