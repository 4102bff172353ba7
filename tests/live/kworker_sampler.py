#!/usr/bin/env python3
"""kworker_sampler.py OUT.json [PERIOD_S] - every kworker's runtime, told apart by the work
it runs, sampled until SIGINT or SIGTERM; the totals are written to OUT.json then.

The kernel's own figures, nothing of xiotop's: each sample reads, for every kworker, its
runtime (/proc/PID/schedstat's first field, se.sum_exec_runtime, ns) and its comm. The
comm of a workqueue worker (/proc/PID/comm, wq_worker_comm() in kernel/workqueue.c) ends
with "+NAME" while it runs a work item and "-NAME" after, NAME the workqueue of its latest
item (or what the item set with set_worker_desc(): "flush-MAJ:MIN" for writeback). A loop
device's work runs on the workqueue "loopN" (drivers/block/loop.c), so "+loop0"/"-loop0"
names loop0's worker.

It prints "ready" once its baseline is taken (start the work to sample then), and samples
every PERIOD_S (0.02 s; a walk of /proc for new kworkers every RESCAN_S). A kworker's
runtime growth between two samples is charged to NAME:
- "sure": both samples show NAME;
- "entered": the first sample shows it not running an item ("-OTHER" or born meanwhile)
  and the second shows NAME: it ran NAME's work last, maybe another item before it;
- "mixed": it was running OTHER's item at the first sample and NAME at the second;
- "left": the first sample shows NAME and the second OTHER (kept under NAME, the first).
"sure" counts another workqueue's work only when a worker ran it between two items of
NAME's within one period; all four hold every growth with NAME at either end: NAME's
work is missed only where a worker ran OTHER, NAME and OTHER again within one period.
A kworker gone meanwhile (idle ones exit) loses its last growth. `total` is every
kworker's growth, whatever it ran."""
import json
import os
import signal
import sys
import time

stop = False
RESCAN_S = 0.2  # a kworker born meanwhile counts from its birth (runtime 0) when found


def on_stop(_sig, _frame):
    global stop
    stop = True


def read(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 256).decode()
    finally:
        os.close(fd)


def kworkers():
    """The pids of the kworkers now (a walk of /proc: done every RESCAN_S only)."""
    pids = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and read(f"/proc/{pid}/comm").startswith("kworker/"):
                pids.append(pid)
        except OSError:
            continue
    return pids


def snapshot(pids):
    seen = {}
    for pid in pids:
        try:
            comm = read(f"/proc/{pid}/comm").strip()
            if comm.startswith("kworker/"):
                seen[pid] = (comm, int(read(f"/proc/{pid}/schedstat").split()[0]))
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return seen


def work_of(comm):
    """(running?, workqueue name) of a worker's comm, e.g. (True, "loop0") of
    "kworker/u8:3+loop0"; (False, "") before its first item."""
    for i, ch in enumerate(comm):
        if ch in "+-" and i > len("kworker/"):
            return ch == "+", comm[i + 1:]
    return False, ""


def main():
    out = sys.argv[1]
    period = float(sys.argv[2]) if len(sys.argv) > 2 else 0.02
    signal.signal(signal.SIGINT, on_stop)
    signal.signal(signal.SIGTERM, on_stop)
    totals = {"sure": {}, "entered": {}, "mixed": {}, "left": {}}
    total, samples = 0, 0
    pids, scanned = kworkers(), time.monotonic()
    prev = snapshot(pids)
    t0 = time.time()
    print("ready", flush=True)  # the baseline is taken: the work to sample may begin
    while not stop:
        time.sleep(period)
        if time.monotonic() - scanned >= RESCAN_S:
            pids, scanned = kworkers(), time.monotonic()
        cur = snapshot(pids)
        samples += 1
        for pid, (comm, rt) in cur.items():
            c0, r0 = prev.get(pid, ("", 0))
            if pid in prev and rt < r0:  # a reused pid: another kworker
                c0, r0 = "", 0
            grow = rt - r0
            if grow <= 0:
                continue
            total += grow
            run0, w0 = work_of(c0)
            _, w1 = work_of(comm)
            kind = "sure" if w0 == w1 else ("mixed" if run0 else "entered")
            totals[kind][w1] = totals[kind].get(w1, 0) + grow
            if w0 != w1 and w0:
                totals["left"][w0] = totals["left"].get(w0, 0) + grow
        prev = cur
    totals.update(total=total, samples=samples, period_s=period, elapsed_s=time.time() - t0)
    with open(out, "w") as f:
        json.dump(totals, f)


if __name__ == "__main__":
    main()
