"""xenfig.py - the units, comparisons and trace lines the Xen test's checks share (check.py,
check_stacks.py, kwtrace.py, qd_truth.py): one definition, so a tolerance means the same in
every check."""
import datetime
import re

MiB = 1 << 20


def within(value, expected, pct):
    """value within pct per cent of expected; an expected 0 wants exactly 0."""
    if expected == 0:
        return value == 0
    return abs(value - expected) <= expected * pct / 100.0


def mib(b):
    return f"{b / MiB:.2f} MiB"


def epoch(iso):
    """An interval's JSON time (UTC, ms, "Z") as seconds since the epoch."""
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


# a trace instance's line (tracefs "trace"): "<task>-<pid> [cpu] flags  123.456789: event: payload"
TRACE_LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+(\d+\.\d+): (\w+): (.*)$")


def trace_events(lines):
    """[(seconds, pid, event, payload)] of a trace instance's lines, in their order; its
    comment lines and any other skipped."""
    out = []
    for line in lines:
        m = TRACE_LINE.match(line.rstrip("\n"))
        if m:
            out.append((float(m.group(3)), int(m.group(2)), m.group(4), m.group(5)))
    return out
