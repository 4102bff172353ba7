#!/usr/bin/env python3
"""bite_xiotop.py - xiotop with one figure made wrong, to see a live check fail on it.

A check with a tolerance no wrong figure breaks proves nothing. The live checkers that
drive their own writers and read the kernel's counts while xiotop runs (attribution_check,
cpu_check, latency_check, test_real_guest's) cannot be run again on a kept work dir:
their truth is read once, at the moment. So this stands in for xiotop (as XIOTOP_BIN):
it runs the real one and makes a figure wrong in each JSON interval it prints, the way a
real bug would, and the test is run once with it; the figure's own check must print
FAIL. Nothing in xiotop changes: only the lines the checker reads. Any other output
(text, stderr, exit status) passes through, so the test's other steps run as they do
with xiotop itself.

    XIOTOP_BITE_REAL=build/xiotop XIOTOP_BITE=MUTATION[,MUTATION...] \\
        XIOTOP_BIN=tests/live/bite_xiotop.py bash tests/live/test_NAME.sh

MUTATIONS below lists each one with the check it must break; docs/DESIGN.md ("Checks
that bite") says which test each is run under and what it gave."""
import json
import os
import signal
import subprocess
import sys


def scale_key(key, factor):
    def mutate(iv):
        for d in iv.get("domains", []):
            if isinstance(d.get(key), int):
                d[key] = int(d[key] * factor)
    return mutate


def scale_role(role, factor):
    def mutate(iv):
        for d in iv.get("domains", []):
            roles = d.get("dom0_cpu_ns_by_role") or {}
            if isinstance(roles.get(role), int):
                roles[role] = int(roles[role] * factor)
    return mutate


def latency_times(op, factor):
    """Every timed request of OP factor times too long (or short): each bucket moves by
    log2(factor), the sum and the quantiles with it; the counts stay right."""
    def mutate(iv):
        for d in iv.get("domains", []):
            h = (d.get("io_latency") or {}).get(op)
            if not isinstance(h, dict) or not h.get("ios"):
                continue
            h["buckets"] = [[max(int(low * factor), 0), c] for low, c in h["buckets"]]
            h["sum_ns"] = int(h["sum_ns"] * factor)
            for q in ("p50_ns", "p99_ns"):
                if h.get(q) is not None:
                    h[q] = int(h[q] * factor)
    return mutate


def latency_zero_when_untimed(iv):
    """Latency not timed (--no-latency, or no completion hook attached) shown as 0
    requests timed instead of not given."""
    for d in iv.get("domains", []):
        if "io_latency" not in d:
            d["io_latency"] = {op: {"ios": 0, "sum_ns": 0, "p50_ns": None, "p99_ns": None,
                                    "buckets": []} for op in ("read", "write")}


def untimed_latency_as_zero(iv):
    """A domain whose latency was not timed (a kind of its backends timed by a hook not
    attached: io_latency's op null) shown as 0 requests timed instead."""
    for d in iv.get("domains", []):
        lat = d.get("io_latency") or {}
        for op in ("read", "write"):
            if op in lat and lat[op] is None:
                lat[op] = {"ios": 0, "sum_ns": 0, "p50_ns": None, "p99_ns": None,
                           "buckets": []}


# name: (mutation, the check it must break)
def scale_interval_key(key, factor):
    def mutate(iv):
        if isinstance(iv.get(key), int):
            iv[key] = int(iv[key] * factor)
    return mutate


def lost_plus(n):
    """n events lost that xiotop never said it lost (the first interval's count)."""
    done = []

    def mutate(iv):
        if not done and isinstance(iv.get("lost_events"), int):
            iv["lost_events"] += n
            done.append(True)
    return mutate


MUTATIONS = {
    "dirtied_x1.1": (scale_key("dirtied_bytes", 1.10),
                     "attribution_check: dirtied_bytes vs the writer's bytes (1 %)"),
    "written_back_x1.1": (scale_key("written_back_bytes", 1.10),
                          "attribution_check: written_back_bytes vs the leaf's diskstats (5 %)"),
    "loop_cpu_x1.25": (scale_role("loop", 1.25),
                       "cpu_check: loop CPU at most its loop kworkers' sampled runtime (+3 % + 10 ms)"),
    "loop_cpu_x0.5": (scale_role("loop", 0.5),
                      "cpu_check: loop CPU at least its loop kworkers' sampled runtime (-10 % - 10 ms)"),
    "guest_wr_x1.03": (scale_key("guest_wr_bytes", 1.03),
                       "test_real_guest: guest_wr_bytes vs the guest's own stat (2 %)"),
    "guest_rd_x0.97": (scale_key("guest_rd_bytes", 0.97),
                       "test_real_guest: guest_rd_bytes vs the guest's own stat (2 %)"),
    "write_latency_x8": (latency_times("write", 8),
                         "latency_check: write p50 and p99 at most the writer's bucket"),
    "read_latency_div8": (latency_times("read", 1 / 8),
                          "latency_check: read p50 at least one bucket below the writer's less its own part"),
    "write_latency_x4": (latency_times("write", 4),
                         "latency_check: write p50 at most the writer's bucket (4K too)"),
    "read_latency_div4": (latency_times("read", 1 / 4),
                          "latency_check: read p50 at least one bucket below the writer's less its own part (4K too)"),
    "unattributed_cpu_x1.2": (scale_interval_key("unattributed_cpu_ns", 1.2),
                              "cpu_check: intervals inside the run at most /proc/stat not-idle (3 %)"),
    "unattributed_cpu_x0.8": (scale_interval_key("unattributed_cpu_ns", 0.8),
                              "cpu_check: intervals overlapping the run at least /proc/stat busy (3 %)"),
    "lost_events_plus_1": (lost_plus(1),
                           "attribution_check: lost_events = the kinds xiotop names as it ends"),
    "latency_zero_when_untimed": (latency_zero_when_untimed,
                                  "test_latency: no io_latency key when nothing is timed"),
    "untimed_latency_as_zero": (untimed_latency_as_zero,
                                "test_latency (untimed_check): a loop domain's io_latency null "
                                "with block_rq_complete refused"),
}


def main():
    real = os.environ.get("XIOTOP_BITE_REAL")
    names = [n for n in os.environ.get("XIOTOP_BITE", "").split(",") if n]
    unknown = [n for n in names if n not in MUTATIONS]
    if not real or unknown:
        sys.exit("bite_xiotop: set XIOTOP_BITE_REAL (the real xiotop) and XIOTOP_BITE to some of "
                 + ", ".join(MUTATIONS) + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    args = sys.argv[1:]
    if "json" not in args:  # not a JSON batch run: xiotop itself, untouched
        os.execv(real, [real] + args)
    proc = subprocess.Popen([real] + args, stdout=subprocess.PIPE, text=True)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: proc.send_signal(s))
    for line in proc.stdout:  # until xiotop ends: the signal above reaches it
        try:
            iv = json.loads(line)
        except json.JSONDecodeError:
            sys.stdout.write(line)
            continue
        for n in names:
            MUTATIONS[n][0](iv)
        sys.stdout.write(json.dumps(iv) + "\n")
        sys.stdout.flush()
    sys.exit(proc.wait())


if __name__ == "__main__":
    main()
