#!/usr/bin/env python3
"""skip_report.py judged on real ctest runs of small projects made here (ctest's own
JUnit file and LastTest.log, as `make test` leaves them): a skip not allow-listed fails
with its reason in the table, an allowed one passes, a named part of a passing test is
a skip, an allow-list line without a reason or a run without a JUnit file is bad input."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "skip_report.py")

TESTS = {
    "passes": "echo fine",
    "skips": "echo before; echo 'SKIPPED: no widget here (the widget module)'; exit 77",
    "silent_skip": "exit 77",
    "part_skips": "seq 1 2000; echo 'SKIPPED reuse: xl cannot reuse a domid'; echo done",
    "says_skipped": "echo 'SKIPPED: nothing to do'",
}


def ctest_run(top, names):
    """A project of the named TESTS, configured and run by ctest as `make test` runs it."""
    src, build = os.path.join(top, "src"), os.path.join(top, "build")
    os.makedirs(src)
    with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.16)\nproject(p NONE)\nenable_testing()\n")
        for n in names:
            f.write(f'add_test(NAME {n} COMMAND sh -c "{TESTS[n]}")\n'
                    f"set_tests_properties({n} PROPERTIES SKIP_RETURN_CODE 77)\n")
    subprocess.run(["cmake", "-S", src, "-B", build], check=True, capture_output=True)
    subprocess.run(["ctest", "--output-junit", "Testing/Temporary/junit.xml"], cwd=build,
                   capture_output=True)
    return build


def report(top, build, allow):
    path = os.path.join(top, "skips.allow")
    with open(path, "w") as f:
        f.write(allow)
    r = subprocess.run([sys.executable, REPORT, build, path], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


# (what, tests, allow-list text, exit status, text the output must hold, ...)
CASES = [
    ("nothing skipped", ["passes"], "", 0, "skips: 0 allowed, 0 not allowed"),
    ("a skip not allowed", ["passes", "skips"], "# none\n", 1,
     "skips  NO       SKIPPED: no widget here (the widget module)",
     "skips: 0 allowed, 1 not allowed: FAILED"),
    ("an allowed skip", ["skips"], "skips the widget is absent on CI\n", 0,
     "allowed: the widget is absent on CI", "skips: 1 allowed, 0 not allowed"),
    ("exit 77 without a reason", ["silent_skip"], "", 1, "exit 77 without a SKIPPED: line"),
    ("a named part of a passing test, after 2000 lines", ["part_skips"], "", 1,
     "part_skips/reuse  NO       SKIPPED reuse: xl cannot reuse a domid"),
    ("the part allowed, not the whole test", ["part_skips"], "part_skips/reuse xl 4.17\n", 0,
     "skips: 1 allowed, 0 not allowed"),
    ("SKIPPED: from a test that passed", ["says_skipped"], "", 1, "(yet it exited 0)"),
    ("an allow-list entry without a reason", ["passes"], "skips\n", 2,
     "skips.allow:1: skips has no reason"),
]


def main():
    bad = 0
    for what, names, allow, want_rc, *texts in CASES:
        with tempfile.TemporaryDirectory() as top:
            rc, out = report(top, ctest_run(top, names), allow)
        ok = rc == want_rc and all(t in out for t in texts)
        print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {rc} (want {want_rc})")
        if not ok:
            print("     " + out.replace("\n", "\n     "))
            bad += 1
    with tempfile.TemporaryDirectory() as top:  # ctest never ran: no JUnit file
        rc, out = report(top, top, "")
    ok = rc == 2 and "cannot read ctest's JUnit file" in out and out.count("\n") == 1
    print(f"{'ok  ' if ok else 'FAIL'} no JUnit file: exit {rc}, one line: {out.strip()}")
    bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
