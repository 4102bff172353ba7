#!/usr/bin/env python3
"""skip_report.py BUILD_DIR ALLOW_FILE - after ctest (`make test`): every skip of the run,
with its reason, and a failure for each one tests/skips.allow does not name.

A green run means every check ran, so a skip is a failure unless it is allow-listed with
the reason it may happen on the machines CI runs on. What counts as a skip:
  - a test ctest did not run to the end: exit 77 (SKIP_RETURN_CODE), or not run at all (a
    fixture it needs failed); named by its ctest name. Its reason is the last
    "SKIPPED: REASON" line of its output (tests print one before exit 77);
  - a named part of a test that ran (a scenario that cannot run here): a line
    "SKIPPED PART: REASON" in its output, named TEST/PART (e.g. xen_dom0/reused_domid).

ctest's statuses come from its JUnit file (BUILD_DIR/Testing/Temporary/junit.xml, ctest
--output-junit; LastTest.log says "Test Passed." for a skipped test too), the outputs
from LastTest.log (the JUnit file keeps only the first KiB of a passed test's output).

ALLOW_FILE: one entry a line, "NAME REASON" (the reason is required), # comments.
Prints a table of the skips, then as its last line
    skips: N allowed, M not allowed
with ": FAILED" appended when M > 0. Exit 0 when every skip is allowed, 1 when one is not,
2 on bad input (a missing or unreadable file, an allow-list line without a reason).
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

PART = re.compile(r"^SKIPPED ([A-Za-z0-9_.-]+): (.*)$")
WHOLE = re.compile(r"^SKIPPED: (.*)$")


class BadInput(Exception):
    pass


def read_allow(path):
    """{name: reason} from the allow-list."""
    allow = {}
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        raise BadInput(f"{path}: cannot read the allow-list: {e.strerror}")
    for n, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, reason = (line.split(None, 1) + [""])[:2]
        if not reason.strip():
            raise BadInput(f"{path}:{n}: {name} has no reason (each entry: NAME REASON)")
        if name in allow:
            raise BadInput(f"{path}:{n}: {name} is listed twice")
        allow[name] = reason.strip()
    return allow


def read_statuses(path):
    """[(test name, skip message or None)] in ctest's order, from its JUnit file."""
    try:
        root = ET.parse(path).getroot()
    except OSError as e:
        raise BadInput(f"{path}: cannot read ctest's JUnit file ({e.strerror}): did ctest run"
                       " with --output-junit?")
    except ET.ParseError as e:
        raise BadInput(f"{path}: not a JUnit file: {e}")
    out = []
    for case in root.iter("testcase"):
        skipped = case.find("skipped")
        out.append((case.get("name"), None if skipped is None else skipped.get("message") or ""))
    return out


def read_outputs(path):
    """{test name: its output lines} from ctest's LastTest.log."""
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError as e:
        raise BadInput(f"{path}: cannot read ctest's log: {e.strerror}")
    outputs, name, body = {}, None, None
    for line in lines:
        m = re.match(r"^\d+/\d+ Test: (.*)$", line)
        if m:
            name, body = m.group(1), None
        elif name is not None and body is None and line == "Output:":
            body = []
        elif body is not None and line == "<end of output>":
            outputs[name], name, body = body, None, None
        elif body is not None:
            body.append(line)
    # the first line of each output is ctest's dashes
    return {k: [x for x in v if not re.match(r"^-+$", x)] for k, v in outputs.items()}


def find_skips(statuses, outputs):
    """[(name, reason)]: the skipped tests, then the skipped parts of tests."""
    skips = []
    for name, message in statuses:
        lines = outputs.get(name, [])
        if message is not None:
            said = [m.group(1) for m in map(WHOLE.match, lines) if m]
            if said:
                reason = "SKIPPED: " + said[-1]
            elif message.startswith("SKIP_RETURN_CODE"):
                reason = f"exit {message.split('=')[-1]} without a SKIPPED: line"
            else:
                reason = f"not run: {message}"
            skips.append((name, reason))
            continue
        for m in filter(None, map(PART.match, lines)):
            skips.append((f"{name}/{m.group(1)}", f"SKIPPED {m.group(1)}: {m.group(2)}"))
        said = [m.group(1) for m in map(WHOLE.match, lines) if m]
        if said:  # a test that said it skipped but exited as passed
            skips.append((name, f"SKIPPED: {said[-1]} (yet it exited 0)"))
    return skips


def main(argv):
    if len(argv) != 3:
        print("usage: skip_report.py BUILD_DIR ALLOW_FILE", file=sys.stderr)
        return 2
    build, allow_path = argv[1], argv[2]
    tmp = os.path.join(build, "Testing", "Temporary")
    try:
        allow = read_allow(allow_path)
        statuses = read_statuses(os.path.join(tmp, "junit.xml"))
        outputs = read_outputs(os.path.join(tmp, "LastTest.log"))
    except BadInput as e:
        print(f"skip_report: {e}", file=sys.stderr)
        return 2
    skips = find_skips(statuses, outputs)
    bad = [name for name, _ in skips if name not in allow]
    if skips:
        width = max(len(name) for name, _ in skips)
        print(f"skipped (of {len(statuses)} tests; allowed skips: {allow_path}):")
        print(f"  {'TEST':<{width}}  ALLOWED  REASON")
        for name, reason in skips:
            print(f"  {name:<{width}}  {'yes' if name in allow else 'NO ':<7}  {reason}")
            if name in allow:
                print(f"  {'':<{width}}           allowed: {allow[name]}")
    else:
        print(f"skipped: none of {len(statuses)} tests, no part of one")
    if bad:
        print(f"FAIL: {len(bad)} skip(s) not on {allow_path}: {', '.join(bad)}")
    print(f"skips: {len(skips) - len(bad)} allowed, {len(bad)} not allowed"
          + (": FAILED" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
