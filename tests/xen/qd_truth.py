"""qd_truth.py - the truths check 15 (check_explain.py) sets xiotop's queue-depth-1
latency against, none of them an output of xiotop:

- the backend device's mean read latency from the kernel's own trace (explain.sh's trace
  instance, x-trace.txt): what xiotop claims to measure (docs/DESIGN.md "I/O latency"),
  timed by tracefs instead of xiotop's BPF. A blk-mq device's request from block_getrq (its
  creation: Linux 6.1 stamps rq->start_time_ns in blk_mq_rq_ctx_init, just before) to its
  last block_rq_complete (the one that ends the request; partial ones move its sector on),
  from block_rq_issue too (printed); a bio-based device's bio from block_bio_queue to
  block_bio_complete. Over the reads completed between the guest's marks (written into
  the trace as they landed, "XMARK NAME LABEL"), as /proc/diskstats counts them. A ring
  that lost events (its overrun or dropped events), a read completed without its start,
  or no read makes the figure unknown (None, with why), never smaller;
- fio's own completion latency in the guest (clat's avg), the whole round trip.

/proc/diskstats' read ticks / reads (check_explain.py's Truth) are not this quantity on a
blk-mq device: blk_mq_end_request runs blk_update_request (block_rq_complete, then each
bio's end_io: blkback's end_block_io_op, its grant unmap, response and notify) before
__blk_mq_end_request counts the time in blk_account_io_done (block/blk-mq.c).
"""
import os
import re

from xenfig import trace_events

# "7,0 R 1234 + 8 [fio]", "7,0 R 4096 () 1234 + 8 [kworker]", "7,0 R () 1234 + 8 [0]"
IO = re.compile(r"^(\d+),(\d+) (\S+) (?:.*? )?(\d+) \+ (\d+)")
START = {"block_getrq": "rq", "block_bio_queue": "bio"}
END = {"block_rq_complete": "rq", "block_bio_complete": "bio"}
# a ring's stats lines that count events it lost (per_cpu/cpuN/stats)
LOST = ("overrun:", "commit overrun:", "dropped events:")


def parse_trace(lines):
    """(events, marks): events (t, event, "MAJ:MIN", rwbs, sector, sectors) of the block
    events, marks (t, name, label) of the marker lines, both in the trace's order."""
    events, marks = [], []
    for t, _, ev, rest in trace_events(lines):
        if ev == "tracing_mark_write":
            w = rest.split(None, 2)
            if len(w) == 3 and w[0] == "XMARK":
                marks.append((t, w[1], w[2].strip()))
            continue
        io = IO.match(rest)
        if io:
            events.append((t, ev, f"{io.group(1)}:{io.group(2)}", io.group(3), int(io.group(4)), int(io.group(5))))
    return events, marks


def parse_info(lines):
    """(devices {name: "MAJ:MIN"}, lost events: the ring's overruns and dropped events
    summed over its CPUs; None when no CPU's stats were kept)."""
    devs, lost = {}, None
    for line in lines:
        w = line.split()
        if len(w) == 3 and w[0] == "dev":
            devs[w[1]] = w[2]
        elif len(w) >= 4 and w[0] == "stats" and " ".join(w[2:-1]) in LOST and w[-1].isdigit():
            lost = (lost or 0) + int(w[-1])
    return devs, lost


def landing(marks, name, label, nth):
    """The time of the nth landing of a guest's mark; None when it did not land."""
    ts = [t for t, n, lb in marks if n == name and lb == label]
    return ts[nth] if -len(ts) <= nth < len(ts) else None


def read_latency(events, dev, t0, t1):
    """The mean read latency (us) of dev's reads completed in [t0, t1]: dict(kind, reads,
    mean_us, issue_mean_us, unmatched)."""
    kind = "rq" if any(e[1] == "block_rq_complete" and e[2] == dev for e in events) else "bio"
    starts, issues = {}, {}
    done, issued, unmatched = [], [], 0
    for t, ev, d, rwbs, sector, n in events:
        if d != dev or not rwbs.startswith("R"):
            continue
        if START.get(ev) == kind:
            starts[sector] = (t, n)
        elif ev == "block_rq_issue" and kind == "rq":
            issues[sector] = t
        elif END.get(ev) == kind:
            s, i = starts.pop(sector, None), issues.pop(sector, None)
            if s and n < s[1]:  # a partial completion: the rest goes on from sector + n
                starts[sector + n] = (s[0], s[1] - n)
                if i is not None:
                    issues[sector + n] = i
                continue
            if not t0 <= t <= t1:
                continue
            if s is None:
                unmatched += 1
                continue
            done.append(t - s[0])
            if i is not None:
                issued.append(t - i)
    # to 0.1 us: the trace's clock counts whole microseconds
    mean = round(1e6 * sum(done) / len(done), 1) if done else None
    issue_mean = round(1e6 * sum(issued) / len(issued), 1) if issued and len(issued) == len(done) else None
    return dict(kind=kind, reads=len(done), mean_us=mean, issue_mean_us=issue_mean, unmatched=unmatched)


def trace_read_latency(res, name, first, last, nth, dev_name):
    """The backend dev_name's mean read latency between the nth landing of the guest's marks
    first and last, from RES/x-trace.txt and x-trace-info.txt: read_latency's dict with
    lost (the ring's lost events) and why (None when mean_us is known; else mean_us None)."""
    out = dict(kind=None, reads=0, mean_us=None, issue_mean_us=None, unmatched=0, lost=None, why=None)
    tp, ip = os.path.join(res, "x-trace.txt"), os.path.join(res, "x-trace-info.txt")
    if not os.path.exists(tp) or not os.path.exists(ip):
        out["why"] = "no trace kept (x-trace.txt, x-trace-info.txt)"
        return out
    with open(ip, errors="replace") as f:
        devs, out["lost"] = parse_info(f)
    with open(tp, errors="replace") as f:
        events, marks = parse_trace(f)
    t0, t1 = landing(marks, name, first, nth), landing(marks, name, last, nth)
    if dev_name not in devs:
        out["why"] = f"{dev_name} was not traced"
    elif t0 is None or t1 is None:
        out["why"] = f"the marks '{first}' and '{last}' (landing {nth}) are not in the trace"
    else:
        out.update(read_latency(events, devs[dev_name], t0, t1))
        if out["lost"] is None:
            out["why"] = "the ring's stats were not kept: what it lost is not known"
        elif out["lost"] > 0:
            out["why"] = f"the ring lost {out['lost']} events"
        elif out["unmatched"]:
            out["why"] = f"{out['unmatched']} reads completed without their start in the trace"
        elif not out["reads"]:
            out["why"] = "no read completed between the marks"
    if out["why"]:
        out["mean_us"] = out["issue_mean_us"] = None
    return out


def fio_clat_us(path):
    """fio's mean completion latency of its reads in us (its text output's "clat (usec):
    ... avg=" line, in whatever unit it printed); None when the file holds none."""
    scale = {"nsec": 1e-3, "usec": 1.0, "msec": 1e3}
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        m = re.search(r"^\s*clat \((nsec|usec|msec)\):.*?avg=\s*([\d.]+)", f.read(), re.M)
    return float(m.group(2)) * scale[m.group(1)] if m else None
