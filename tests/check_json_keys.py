#!/usr/bin/env python3
"""explain's JSON contract: docs/explaining.md's section "The JSON" against what explain
can write, both ways.

What can be written is read from the one place each key is named: the JSON writers
(monitor/explain/report/*.c: every "\\"key\\":" they print, and report_claims.c's table of a
claim's settings), the verdict table
(verdicts/verdict_table.c: each verdict's name, the "id" of a verdict and of a not-given
entry), the figure table (verdicts/verdict_keys.c: a verdict's "figures") and the names a
not-given entry may have that are no verdict (verdicts/verdicts_import.c ex_not_given).
Every one of them must be in the section (in `backticks`), and every backticked name there
that looks like a key must be one of them. Prints each difference and exits 1 if any.

    check_json_keys.py TOP
"""
import os
import re
import sys

KEY = re.compile(r"^[a-z_][a-z0-9_.]*$")


def read(top, path):
    with open(f"{top}/{path}", encoding="utf-8") as f:
        return f.read()


def written(top):
    keys = set()
    report = f"{top}/monitor/explain/report"
    for name in sorted(os.listdir(report)):  # the JSON writers: report_json.c, report_claims.c
        if name.endswith(".c"):
            text = read(top, f"monitor/explain/report/{name}")
            keys |= set(re.findall(r'\\"([a-z_][a-z0-9_.]*)\\":', text))
            # a table of keys printed by name ("%s": report_claims.c's settings)
            table = re.search(r"\} settings\[\] = \{(.*?)\n\};", text, re.S)
            if table:
                keys |= set(re.findall(r'\{"([a-z_]+)",', table.group(1)))
    absent = re.search(r"names\[\] = \{([^}]*)\}", read(top, "monitor/explain/report/report_json.c"))
    if absent:
        keys |= set(re.findall(r'"([a-z_]+)"', absent.group(1)))
    table = read(top, "monitor/explain/verdicts/verdict_table.c")
    keys |= set(re.findall(r'=\s*\{"([a-z0-9_]+)",', table))
    figs = read(top, "monitor/explain/verdicts/verdict_keys.c")
    keys |= set(re.findall(r'\]\s*=\s*"([a-z0-9_]+)",', figs))
    imp = read(top, "monitor/explain/verdicts/verdicts_import.c")
    keys |= set(re.findall(r'ex_not_given\(ex, "([a-z0-9_]+)"', imp))
    return keys


def documented(top):
    doc = read(top, "docs/explaining.md")
    m = re.search(r"^## The JSON.*?$(.*?)(?=^## |\Z)", doc, re.M | re.S)
    if not m:
        sys.exit("check_json_keys: docs/explaining.md has no section \"## The JSON\"")
    words = set()
    for tick in re.findall(r"`([^`]+)`", m.group(1)):
        if KEY.match(tick):  # one name a tick; "file via loop" is a value
            words.add(tick)
    return words


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    top = sys.argv[1]
    code, doc = written(top), documented(top)
    # values the section also names in backticks (a path's name, a drain rule, a
    # direction's source, a mark's origin, a verdict's figure values): not keys
    values = {"wrap", "domains", "write", "read", "phy", "qemu", "dom0", "null", "-",
              # a placement's sureness and evidence (explain/path.c)
              "sure", "likely", "guest_marks", "dom0_marks", "clock", "bytes", "duration",
              "order", "taken",
              # where a claim says a setting (report_claims.c from_key)
              "output"}
    problems = [f"docs/explaining.md \"The JSON\": lacks `{k}`, which explain writes" for k in sorted(code - doc)]
    problems += [f"docs/explaining.md \"The JSON\": names `{k}`, which explain does not write"
                 for k in sorted(doc - code - values)]
    for p in problems:
        print(p)
    print(f"check_json_keys: {len(code)} keys; {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
