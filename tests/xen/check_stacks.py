"""check_stacks.py - the storage-stack phases of stacks.sh, checked by check.py's main:
md RAID1 and RAID10 under an LV (R), the RAID1 degraded (RD) and recovering (RS), the
console as an administrator drives it (adm-* screens).

Truth is the kernel's own count, read in dom0 around each phase: blkback's
statistics/{rd,wr}_sect x 512 (SVBD lines), each md member's and ram disk's
/proc/diskstats sectors (DISKSTAT), /proc/vmstat pgpgout (VMSTAT), md's sync_action and
component_size (MDSYNC), the guest's own /sys/block/<disk>/stat. xiotop's side is the
sum of its JSON intervals ending inside the phase's window (the guests are idle at both
ends of it)."""
import os
import re

from xenfig import epoch, mib, within


class Truth:
    """What stacks.sh wrote to snapshots.txt."""

    def __init__(self, path):
        self.disk = {}  # (tag, dev): (time, rd bytes, wr bytes)
        self.vmstat = {}  # tag: (time, pgpgin bytes, pgpgout bytes)
        self.vbd = {}  # (tag, name): dict(domid, rd, wr, rd_req, wr_req)
        self.failed = []
        self.mdsync = None
        for line in open(path):
            p = line.split()
            if not p:
                continue
            if p[0] == "DISKSTAT" and len(p) >= 13:
                self.disk[(p[1], p[5])] = (float(p[2]), int(p[8]) * 512, int(p[12]) * 512)
            elif p[0] == "VMSTAT":
                self.vmstat[p[1]] = (float(p[2]), int(p[3]) * 1024, int(p[4]) * 1024)
            elif p[0] == "SVBD":
                self.vbd[(p[1], p[2])] = dict(domid=int(p[3]), rd=int(p[4]) * 512, wr=int(p[5]) * 512,
                                              rd_req=int(p[6]), wr_req=int(p[7]))
            elif p[0] == "STACK-FAILED":
                self.failed.append(line.strip())
            elif p[0] == "MDSYNC":
                self.mdsync = dict(action=p[2], component_kib=int(p[3]), degraded=int(p[4]))

    def delta(self, phase, devs):
        """The devices' (rd, wr) bytes from PHASE-start to PHASE-end."""
        rd = wr = 0
        for dev in devs:
            a, b = self.disk.get((phase + "-start", dev)), self.disk.get((phase + "-end", dev))
            if a and b:
                rd += b[1] - a[1]
                wr += b[2] - a[2]
        return rd, wr

    def window(self, phase):
        a = self.vmstat.get(phase + "-start")
        b = self.vmstat.get(phase + "-end")
        return (a[0], b[0]) if a and b else None


def _sum(intervals, window, domid):
    """xiotop's figures for domid over the intervals ending inside the window (the one
    ending just after its end too: the last bytes before the end count there)."""
    t = dict(guest_rd=0, guest_wr=0, phys_rd=0, phys_wr=0, double=0, copies=0, layers={}, dm_cpu=0,
             unattr_rd=0, unattr_wr=0, n=0, series=[])
    lo, hi = window
    for iv in intervals:
        at = epoch(iv["time"])
        if at <= lo or at > hi + 1.2:
            continue
        un = iv.get("unattributed") or {}
        t["unattr_rd"] += un.get("rd_bytes") or 0
        t["unattr_wr"] += un.get("wr_bytes") or 0
        for d in iv["domains"]:
            if d["domid"] != domid:
                continue
            t["n"] += 1
            for k in ("guest_rd", "guest_wr", "phys_rd", "phys_wr"):
                t[k] += d[k + "_bytes"] or 0
            t["double"] += d["double_counted_bytes"] or 0
            t["copies"] += d.get("copy_wr_bytes") or 0
            roles = d.get("dom0_cpu_ns_by_role") or {}
            t["dm_cpu"] += roles.get("device_model") or 0
            t["series"].append((at, t["dm_cpu"]))
            for layer in d["layers"]:
                key = (layer.get("dev") or layer.get("file"), layer["role"], layer["leaf"])
                rd, wr = t["layers"].get(key, (0, 0))
                t["layers"][key] = (rd + layer["rd_bytes"], wr + layer["wr_bytes"])
    return t


def _layer_text(layers):
    return ", ".join(f"{n} {role}{' leaf' if leaf else ''} wr {mib(w)}"
                     for (n, role, leaf), (_, w) in sorted(layers.items(), key=lambda x: str(x[0])))


def check_stacks(res, intervals, check):
    path = os.path.join(res, "snapshots.txt")
    truth = Truth(path)
    for line in truth.failed:
        print("     " + line)
    stack_failed = [f for f in truth.failed if f.startswith("STACK-FAILED")]
    if stack_failed:
        check(False, f"md RAID stacks: set up in dom0 ({stack_failed[0][13:]})")
    else:
        _check_raid(res, truth, intervals, check)
    _check_console(res, check)


def _guest(truth, intervals, phase, name, check):
    """A guest's bytes against blkback's; its xiotop figures over the phase's window."""
    v = truth.vbd.get((phase, name))
    win = truth.window(phase)
    if not v or not win:
        check(False, f"[{phase}] {name}: blkback statistics and the phase's counts were read"
              f" ({'no SVBD line' if not v else 'no window'})")
        return None, None
    t = _sum(intervals, win, v["domid"])
    tag = f"[{phase}] {name} (domid {v['domid']})"
    check(within2(t["guest_wr"], v["wr"]) and within2(t["guest_rd"], v["rd"]),
          f"{tag}: guest wr {mib(t['guest_wr'])} rd {mib(t['guest_rd'])} vs blkback"
          f" wr_sect*512 {mib(v['wr'])} rd_sect*512 {mib(v['rd'])} (within 2 %)")
    return v, t


def within2(a, b):
    return within(a, b, 2)


def _members_leaf_bytes(t, members):
    rd = sum(r for (n, _, leaf), (r, _) in t["layers"].items() if leaf and n in members)
    wr = sum(w for (n, _, leaf), (_, w) in t["layers"].items() if leaf and n in members)
    return rd, wr


def _check_stack_layers(tag, t, md, members, check):
    """The layers LV -> md -> members: the dm device as the backend, md stacked, each
    member a leaf with bytes written."""
    names = {n: (role, leaf) for (n, role, leaf), (_, w) in t["layers"].items() if w}
    dm = [n for n, (role, _) in names.items() if n and n.startswith("dm-") and role == "backend"]
    ok = (bool(dm) and names.get(md, ("", True))[0] == "stacked" and not names[md][1]
          and all(names.get(m, ("", False))[1] for m in members))
    check(ok, f"{tag}: layers LV -> {md} -> {'+'.join(members)}: {_layer_text(t['layers'])}")


def _check_raid(res, truth, intervals, check):
    arrays = {"raid1": ("md0", ["zram0", "zram1"]), "raid10": ("md1", ["zram2", "zram3", "zram4", "zram5"])}
    # phase R: both arrays and a file-backed guest at once
    for name, (md, members) in arrays.items():
        v, t = _guest(truth, intervals, "R", name, check)
        if not v:
            continue
        tag = f"[R] {name}"
        mrd, mwr = truth.delta("R", members)
        xrd, xwr = _members_leaf_bytes(t, members)
        check(within2(mwr, 2 * v["wr"]),
              f"{tag}: members' own diskstats wr {mib(mwr)} = twice blkback's {mib(v['wr'])} (a mirror)")
        check(within2(t["phys_wr"], mwr) and within2(xwr, mwr),
              f"{tag}: phys_wr_bytes {mib(t['phys_wr'])} (at the members {mib(xwr)}) vs the members'"
              f" diskstats {mib(mwr)}")
        check(within2(t["phys_rd"], mrd) and within2(mrd, v["rd"]),
              f"{tag}: phys_rd_bytes {mib(t['phys_rd'])} vs the members' diskstats rd {mib(mrd)}"
              f" (blkback rd {mib(v['rd'])}: a mirror reads each byte once)")
        check(t["double"] <= 0.02 * v["wr"],
              f"{tag}: double_counted_bytes {mib(t['double'])} = 0: vmstat counts the guest's bio"
              " once, md's member bios (submit_bio_noacct) not at all")
        # a mirror's copies (raid1: the second member; raid10, near 2: one of each pair) are
        # their own figure: what the members took beyond what md took (its own diskstats)
        _, awr = truth.delta("R", [md])
        check(within2(t["copies"], mwr - awr) and within2(t["copies"], v["wr"]),
              f"{tag}: copy_wr_bytes {mib(t['copies'])} vs the members' diskstats less {md}'s"
              f" {mib(mwr - awr)} vs blkback's {mib(v['wr'])} (each byte copied once)")
        _check_stack_layers(tag, t, md, members, check)
    fv, ft = _guest(truth, intervals, "R", "file-r", check)
    if fv:
        check(within(ft["double"], fv["wr"], 5),
              f"[R] file-r: double_counted_bytes {mib(ft['double'])} ≈ its writes {mib(fv['wr'])}"
              " (loop direct I/O: loop4 and ram0 both counted)")
        check(ft["copies"] == 0, f"[R] file-r: copy_wr_bytes {mib(ft['copies'])} = 0 (no array under it)")
    win = truth.window("R")
    r1, r10 = truth.vbd.get(("R", "raid1")), truth.vbd.get(("R", "raid10"))
    if win and r1 and r10 and fv:
        bo = truth.vmstat["R-end"][2] - truth.vmstat["R-start"][2]
        un = _sum(intervals, win, -1)["unattr_wr"]
        want = r1["wr"] + r10["wr"] + 2 * fv["wr"]
        check(within(bo, want + un, 2),
              f"[R] vmstat pgpgout {mib(bo)} = the kernel's count: raid1 {mib(r1['wr'])} + raid10"
              f" {mib(r10['wr'])} once, file-r twice {mib(2 * fv['wr'])}, + unattributed {mib(un)}"
              " (a mirror's second copy is in no vmstat figure)")
    # phase RD: md0 without zram1
    v, t = _guest(truth, intervals, "RD", "raid1-deg", check)
    if v:
        mrd, mwr = truth.delta("RD", ["zram0"])
        grd, gwr = truth.delta("RD", ["zram1"])
        xrd, xwr = _members_leaf_bytes(t, ["zram1"])
        check(gwr == 0 and grd == 0 and xwr == 0 and xrd == 0,
              f"[RD] the failed member zram1: diskstats rd {mib(grd)} wr {mib(gwr)}, xiotop's layer"
              f" rd {mib(xrd)} wr {mib(xwr)}: nothing")
        check(within2(mwr, v["wr"]) and within2(t["phys_wr"], mwr),
              f"[RD] raid1-deg: phys_wr_bytes {mib(t['phys_wr'])} vs zram0's diskstats {mib(mwr)} vs"
              f" blkback {mib(v['wr'])} (degraded: one copy)")
        check(t["double"] <= 0.02 * v["wr"], f"[RD] raid1-deg: double_counted_bytes {mib(t['double'])} = 0")
        check(t["copies"] <= 0.02 * v["wr"],
              f"[RD] raid1-deg: copy_wr_bytes {mib(t['copies'])} = 0 (degraded: one member, no copy)")
        _check_stack_layers("[RD] raid1-deg", t, "md0", ["zram0"], check)
    # phase RS: zram1 added back, md recovers it while a guest writes
    v, t = _guest(truth, intervals, "RS", "raid1-rs", check)
    ms = truth.mdsync
    check(bool(ms) and ms["action"] == "idle" and ms["degraded"] == 0,
          f"[RS] md0's recovery finished: sync_action {ms and ms['action']}, degraded {ms and ms['degraded']}")
    if v and ms:
        mrd, mwr = truth.delta("RS", ["zram0", "zram1"])
        xrd, xwr = _members_leaf_bytes(t, ["zram0", "zram1"])
        un_rd, un_wr = t["unattr_rd"], t["unattr_wr"]
        size = ms["component_kib"] * 1024
        print(f"     [RS] members' diskstats rd {mib(mrd)} wr {mib(mwr)}; raid1-rs at the members rd"
              f" {mib(xrd)} wr {mib(xwr)}; unattributed rd {mib(un_rd)} wr {mib(un_wr)};"
              f" md0 component {mib(size)}; blkback wr {mib(v['wr'])}")
        check(xwr <= 2 * v["wr"] * 1.02 and xrd <= v["rd"] * 1.02,
              f"[RS] raid1-rs: its member bytes wr {mib(xwr)} rd {mib(xrd)} hold only its own I/O (at"
              f" most two copies of blkback's wr {mib(v['wr'])}, one of rd {mib(v['rd'])}), no recovery")
        check(within2(un_wr, mwr - xwr) and within2(un_rd, mrd - xrd),
              f"[RS] the recovery as md's own bytes, charged to no guest: unattributed wr {mib(un_wr)}"
              f" rd {mib(un_rd)} vs the members' diskstats less the guest's: wr {mib(mwr - xwr)}"
              f" rd {mib(mrd - xrd)}")
        check(un_wr >= 0.95 * size,
              f"[RS] md rebuilt the member: unattributed wr {mib(un_wr)} >= 95 % of its {mib(size)}")


def _screen(res, name):
    for f in sorted(os.listdir(res)):
        m = re.match(r"adm-(\d+)-(.+)\.txt$", f)
        if m and m.group(2) == name:
            text = open(os.path.join(res, f), errors="replace").read()
            mode_path = os.path.join(res, f[:-4] + ".mode")
            mode = open(mode_path).read().split() if os.path.exists(mode_path) else []
            return text, mode
    return None, []


def _sort_of(text):
    m = re.search(r"sort (\S+) (asc|desc)", text or "")
    return (m.group(1), m.group(2)) if m else (None, None)


def _check_console(res, check):
    """The console driven by keys (stacks.sh console_session): each screen checked."""
    start, mode = _screen(res, "start")
    if start is None:
        check(False, "console session: no screen captured (tmux?)")
        return
    rows = lambda t: {l.split()[0] for l in t.splitlines() if l.split()}
    check({"raid1", "raid10", "file-r"} <= rows(start) and mode[:2] == ["1", "0"],
          f"console: the screen lists raid1, raid10 and file-r once made (alternate"
          f" screen {mode[:1]}, cursor hidden {mode[1:2]})")
    s1, s2, s3 = _sort_of(start), _sort_of(_screen(res, "sort-next")[0]), _sort_of(_screen(res, "reverse")[0])
    check(s1[0] is not None and s2[0] is not None and s1[0] != s2[0],
          f"console: '>' sorts by the next column: sort {s1[0]} -> {s2[0]}")
    check(s2[0] == s3[0] and s2[1] != s3[1] and s3[1] is not None,
          f"console: 'r' reverses it: {s2[0]} {s2[1]} -> {s3[0]} {s3[1]}")
    filt, _ = _screen(res, "filter-raid1")
    fr = rows(filt or "") & {"raid1", "raid10", "file-r", "Domain-0", "(unattributed)"}
    check(bool(filt) and 'filter "raid1"' in filt and fr == {"raid1", "raid10"},
          f"console: filter \"raid1\" shows only {sorted(fr)}")
    drill, _ = _screen(res, "drill-raid1")
    _check_drill(check, drill, "an md-backed guest",
                 {"raid1": ["md0", "zram0", "zram1"], "raid10": ["md1", "zram2", "zram3", "zram4", "zram5"]})
    drill, _ = _screen(res, "drill-file")
    _check_drill(check, drill, "the file-backed guest", {"file-r": ["loop4", "ram0"]})
    unf, _ = _screen(res, "unfiltered")
    check(bool(unf) and "filter" not in unf.splitlines()[0] and {"raid1", "raid10", "file-r"} <= rows(unf),
          "console: the filter emptied, every row back")
    mark, _ = _screen(res, "mark")
    check(bool(mark) and "mark 1 kept on screen only" in mark and "adm-mark" in mark and "marks 1 " in mark,
          "console: 'm' adds mark 1 \"adm-mark\" (no recorder: kept on screen only; header marks 1)")
    helps, _ = _screen(res, "help")
    closed, _ = _screen(res, "help-closed")
    check(bool(helps) and "xiotop keys" in helps and "quit" in helps and bool(closed)
          and "xiotop keys" not in closed, "console: 'h' shows the keys, any key closes them")
    narrow, mode = _screen(res, "narrow")
    lines = (narrow or "").splitlines()
    widest = max((len(l.rstrip()) for l in lines), default=0)
    check(bool(narrow) and mode[2:3] == ["60"] and widest <= 60 and lines[0].startswith("xiotop")
          and {"raid1", "raid10"} <= rows(narrow),
          f"console: resized to {mode[2:3]} columns: widest line {widest}, header and rows kept")
    quit_, mode = _screen(res, "quit")
    err_path = os.path.join(res, "adm.err")
    err = open(err_path).read() if os.path.exists(err_path) else ""
    check("xiotop console exit 0" in err and mode[:2] == ["0", "1"] and "xiotop" not in (quit_ or "x"),
          f"console: 'q' quits (status: {err.strip().splitlines()[-1:] or 'none'}), the terminal"
          f" restored: alternate screen {mode[:1]}, cursor shown {mode[1:2]}, no xiotop on it")
    # the header's disks figure while the guests write: ram0 (brd) keeps no diskstats
    # (vmstat bo above 1 MiB/s: something was written in that interval)
    zero, seen = [], []
    for name in ("start", "sort-next", "reverse", "filter-raid1", "drill-raid1", "drill-file"):
        text, _ = _screen(res, name)
        m = re.search(r"disks rd +(\S+) +wr +(\S+) +vmstat bo +([\d.]+)", text or "")
        if m and float(m.group(3)) > 1:
            seen.append(f"{name}: wr {m.group(2)}, bo {m.group(3)}")
            if m.group(2) == "0.0":
                zero.append(name)
    check(bool(seen) and not zero, "console: the header's disks wr never reads 0.0 while vmstat bo"
          f" moves (ram0, brd, keeps no diskstats: \"-\"): {'; '.join(seen) or 'no such screen'}")


def _check_drill(check, text, what, stacks):
    """A drill-down screen: the domain, and its layers in stack order with their roles."""
    if not text:
        check(False, f"console: drill-down into {what} captured")
        return
    names, leaf_wr = [], []  # leaf_wr: each leaf's WR_MiB/s
    for line in text.splitlines():
        m = re.match(r"\s*(\S+)\s+(backend|stacked|file|leaf)\s+([\d.]+)\s+([\d.]+)", line.replace("`- ", ""))
        if m:
            names.append((m.group(1), m.group(2)))
            if m.group(2) == "leaf":
                leaf_wr.append(float(m.group(4)))
    title = re.search(r"^(\S+)  domain \d+", text, re.M)  # the drilled domain's line
    dom = title.group(1) if title and title.group(1) in stacks else None
    want = stacks.get(dom, [])
    got = [n for n, _ in names]
    in_order = [n for n in got if n in want]
    ok = dom is not None and bool(names) and names[0][1] == "backend" and all(w in got for w in want) \
        and in_order[0] == want[0] and [r for n, r in names if n in want[1:]] == ["leaf"] * (len(want) - 1) \
        and (not want[0].startswith("md") or dict(names)[want[0]] == "stacked")
    ok = ok and bool(leaf_wr) and all(w > 0 for w in leaf_wr)
    check(ok, f"console: drill-down into {what} ({dom}) shows its layers {names}, the leaves"
          f" writing {leaf_wr} MiB/s")
