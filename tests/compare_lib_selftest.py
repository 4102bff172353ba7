#!/usr/bin/env python3
"""bench/compare_lib.py's reading of issue 47's IOPS bar: the interval said for a median of
rounds covers it with the stated probability (order statistics, checked against the
binomial counts by hand), and a report of rounds made here says the bar met only when the
whole interval is above it, not met when below, and not decided when the bar is inside."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import compare_lib  # noqa: E402

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


# n = 10: the 2nd and 9th cover the median with 1 - 2 * 11/1024; the 3rd and 8th only 0.89
check("10 rounds", compare_lib.median_interval(list(range(10, 0, -1))), (2, 9, 1 - 22 / 1024))
# n = 6: the extremes, 1 - 2/64; n = 5: even the extremes cover less than 0.95
check("6 rounds", compare_lib.median_interval([3, 1, 2, 6, 5, 4]), (1, 6, 1 - 2 / 64))
check("5 rounds", compare_lib.median_interval([1, 2, 3, 4, 5]), None)


def report(ratios):
    """compare_lib's report of one world's rand4k rounds whose xiotop/none IOPS ratios are
    `ratios`, with the run stats off (no events)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "results")
        with open(path, "w") as f:
            for rnd, ratio in enumerate(ratios, 1):
                for peer, iops in (("none", 100000.0), ("xiotop", 100000.0 * ratio)):
                    f.write(json.dumps({"round": rnd, "peer": peer, "wl": "rand4k bio",
                                        "ios": int(iops * 4), "iops": iops, "busy_ticks": 400,
                                        "secs": 4.0, "rss_kib": 8000, "tool_ns": 0,
                                        "progs": {}}) + "\n")
        out = subprocess.run([sys.executable, os.path.join(HERE, "..", "bench", "compare_lib.py"),
                              "report", path], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line.startswith("- bio:")]


check("above the bar", report([0.975 + i / 1000 for i in range(10)]),
      ["- bio: the median within 0.976-0.983 at 98 %: met"])
check("below the bar", report([0.950 + i / 1000 for i in range(10)]),
      ["- bio: the median within 0.951-0.958 at 98 %: not met"])
check("the bar inside", report([0.950 + i / 200 for i in range(10)]),
      ["- bio: the median within 0.955-0.990 at 98 %: not decided by this run (0.97 is inside)"])
check("too few rounds", report([0.99] * 4), ["- bio: 4 rounds are too few to place the median"])

for f in failures:
    print("FAIL", f)
print("compare_lib_selftest:", "FAIL" if failures else "ok")
sys.exit(1 if failures else 0)
