"""xenfig.py - the units and comparisons the Xen test's checks share (check.py,
check_stacks.py): one definition, so a tolerance means the same in every check."""
import datetime

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
