"""kwtrace.py - the unbound kworkers' runtime given to a loop device by the kernel's own trace
of their work (scenarios.sh's kwtrace): the truth for xiotop's loop-role CPU of the one domain
doing I/O on that device in a phase.

The trace holds, for every unbound kworker, each work item it ran (workqueue_execute_start and
_end, the item's work struct), the workqueue each loop item was queued on
(workqueue_queue_work, "loop2"), its runs (sched_switch) and every runtime delta the scheduler
charged it (sched_stat_runtime: what se.sum_exec_runtime grows by, the figure xiotop reads). A
runtime delta covers the worker's time on the CPU since the scheduler's last update of it (its
previous delta, or the run's start); where a work item starts or ends inside that time, the
delta is split by the wall time on each side.

Two figures, per loop device:
- "items": runtime inside the device's work items, from each item's start to its end;
- "owned": runtime from each of the device's items' start until the worker's next item starts
  (or, when the worker slept before that item, from the start of the run the item started in),
  the worker's idle return and wakeups between items included: what the kernel shows as the
  worker's workqueue ("kworker/u4:2-loop2" while idle after a loop2 item).
"""
import gzip
import re

from xenfig import trace_events

WORK = re.compile(r"work struct[= ]([0-9a-fx]+)")
FIELD = re.compile(r"(\w+)=(\S+)")


class Worker:
    def __init__(self):
        self.running = False
        self.slept = True  # before its first switch-in: its state is unknown, take it as asleep
        self.owner = None  # the workqueue of its current or last item (None: not a loop queue)
        self.item = None  # the workqueue of the item it is running now (None: between items)
        self.seg = 0.0  # wall time the current piece began
        self.pieces = []  # [(wall seconds, owner, item)] since the scheduler's last update


def read_trace(path):
    """[(wall s, pid, event, rest)] in the trace's order."""
    with gzip.open(path, "rt", errors="replace") as f:
        return trace_events(f)


def loop_runtime(path):
    """{workqueue: (items ns, owned ns)} for the loop workqueues in the trace, with the total
    runtime of every unbound kworker in it: (per queue, all ns, runtime events)."""
    events = read_trace(path)
    queue_of = {}  # work struct: workqueue it was queued on
    workers = {}
    items, owned = {}, {}
    total = 0
    count = 0

    def close(w, ts):
        if w.running and ts > w.seg:
            w.pieces.append((ts - w.seg, w.owner, w.item))
        w.seg = ts

    for ts, pid, ev, rest in events:
        if ev == "workqueue_queue_work":
            f = dict(FIELD.findall(rest))
            m = WORK.search(rest)
            if m and "workqueue" in f:
                queue_of[m.group(1)] = f["workqueue"]
            continue
        if ev == "sched_switch":
            f = dict(FIELD.findall(rest))
            prev, nxt = int(f.get("prev_pid", -1)), int(f.get("next_pid", -1))
            if prev in workers or f.get("prev_comm", "").startswith("kworker/u"):
                w = workers.setdefault(prev, Worker())
                close(w, ts)
                w.running = False
                w.slept = not f.get("prev_state", "R").startswith("R")
            if f.get("next_comm", "").startswith("kworker/u"):
                w = workers.setdefault(nxt, Worker())
                w.running, w.seg, w.pieces = True, ts, []
            continue
        if ev == "sched_stat_runtime":
            f = dict(FIELD.findall(rest))
            wpid = int(f.get("pid", pid))
            w = workers.setdefault(wpid, Worker())
            close(w, ts)
            ns = int(f.get("runtime", "0"))
            total += ns
            count += 1
            wall = sum(p[0] for p in w.pieces)
            shares = w.pieces if wall > 0 else [(1.0, w.owner, w.item)]
            wall = wall if wall > 0 else 1.0
            for secs, own, item in shares:
                part = ns * secs / wall
                if own:
                    owned[own] = owned.get(own, 0) + part
                if item:
                    items[item] = items.get(item, 0) + part
            w.pieces = []
            continue
        if ev not in ("workqueue_execute_start", "workqueue_execute_end"):
            continue
        w = workers.setdefault(pid, Worker())
        close(w, ts)
        m = WORK.search(rest)
        queue = queue_of.get(m.group(1)) if m else None
        if ev == "workqueue_execute_end":
            w.item = None
            continue
        if w.slept:  # a run that began asleep is the new item's from its start
            w.pieces = [(s, queue, i) for s, _, i in w.pieces]
        w.owner, w.item, w.slept = queue, queue, False
    per_queue = {q: (items.get(q, 0), owned.get(q, 0)) for q in set(items) | set(owned)}
    return per_queue, total, count
