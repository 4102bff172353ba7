#!/usr/bin/env python3
"""check_layers.py judged on small trees made here: it must fail on what it promises to
find (a long function however its signature is laid out, an upward include, a folder in
monitor/ that is no layer, two files calling each other) and pass a clean tree."""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layers.py")


def run(files):
    with tempfile.TemporaryDirectory() as top:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(top, path)), exist_ok=True)
            with open(os.path.join(top, path), "w") as f:
                f.write(text)
        r = subprocess.run([sys.executable, CHECK, top], capture_output=True, text=True)
        return r.returncode, r.stdout


def function(body_lines, signature):
    body = "".join(f"\tx += {i};\n" for i in range(body_lines - 2))
    return f"{signature}\n{{\n\tint x = 0;\n{body}\treturn x;\n}}\n"


THREE_LINE = "static int long_one(const struct a *first,\n                    const struct b *second,\n                    struct c *out)"
CASES = [
    ("81 lines, three-line signature", {"monitor/core/f.c": function(81, THREE_LINE)}, 1, "function of 81 lines"),
    ("80 lines, three-line signature", {"monitor/core/f.c": function(80, THREE_LINE)}, 0, ""),
    ("81 lines, one-line signature", {"ui/f.c": function(81, "int f(void)")}, 1, "function of 81 lines"),
    ("81 lines, brace on the signature line",
     {"monitor/cli/f.c": function(81, "int f(int a,\n      int b)").replace(")\n{", ") {")}, 1, "function of 81 lines"),
    ("81 lines, a header's static inline, return type on its own line",
     {"bpf/f.bpf.h": function(81, "static inline int\nf(const struct a *first,\n  struct c *out)")}, 1,
     "function of 81 lines"),
    ("80 lines, a header's static inline", {"monitor/core/f.h": function(80, "static inline int f(void)")}, 0, ""),
    ("a long initializer is no function",
     {"monitor/core/t.c": "static const int t[] = {\n" + "\t1,\n" * 120 + "};\n"}, 0, ""),
    ("braces in comments and strings",
     {"monitor/core/s.c": function(60, "int f(void)").replace("\tint x = 0;", "\tint x = 0; /* { */ const char *s = \"}}\";")}, 0, ""),
    ("core includes ui", {"monitor/core/a.c": '#include "ui/console.h"\n'}, 1, "a layer above or beside it"),
    ("ui includes record", {"ui/a.c": '#include "record/record.h"\n'}, 0, ""),
    ("explain's claims include its verdicts",
     {"monitor/explain/claims/a.c": '#include "explain/verdicts/v.h"\n'}, 1, "a folder above it"),
    ("explain's top includes its report", {"monitor/explain/w.c": '#include "explain/report/r.h"\n'}, 1,
     "a folder above it"),
    ("explain's report includes its verdicts, top and claims",
     {"monitor/explain/report/r.c": '#include "explain/verdicts/v.h"\n#include "explain/w.h"\n'
      '#include "explain/claims/c.h"\n'}, 0, ""),
    ("a folder of monitor/ that is no layer", {"monitor/misc/a.c": "int a;\n"}, 1, "not a layer"),
    ("two files calling each other",
     {"monitor/core/a.c": "int b(void);\nint a(void)\n{\n\treturn b();\n}\n",
      "monitor/core/b.c": "int a(void);\nstatic int (*p)(void) = a;\nint b(void)\n{\n\treturn p != 0;\n}\n"},
     1, "calls monitor/core/b.c (b) and is called by it (a)"),
    ("one way only, a third file shared",
     {"monitor/core/a.c": "int b(void);\nint c(void);\nint a(void)\n{\n\treturn b() + c();\n}\n",
      "monitor/core/b.c": "int c(void);\nint b(void)\n{\n\treturn c();\n}\n",
      "monitor/core/c.c": "int c(void)\n{\n\treturn 0;\n}\n"}, 0, ""),
    ("a member, a tag or a static of the same name is no call",
     {"monitor/core/a.c": "struct b;\nstruct s;\nint a(struct b *x, struct s *y)\n{\n\treturn x != 0 && y->b;\n}\n",
      "monitor/core/b.c": "static int a(void)\n{\n\treturn 1;\n}\nint b(void)\n{\n\treturn a();\n}\n"},
     0, ""),
]


def main():
    failed = 0
    for name, files, want_rc, want_text in CASES:
        rc, out = run(files)
        ok = rc == want_rc and want_text in out
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {rc}" + ("" if ok else f"\n{out}"))
    print(f"check_layers self-test: {len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
