#!/usr/bin/env python3
"""The tree's structural rules (docs/DESIGN.md "Layers"), checked on every test run:
 1. a folder is a layer; a file includes project headers only by layer path
    ("core/sample.h") and only from its own layer or a lower one;
 2. no file over 600 lines and no function over 80 lines outside tests/.
Prints each violation as FILE:LINE: what, and exits 1 if there is any.

    check_layers.py [TOP]     (TOP: the top of the tree, default this file's ..)
"""
import os
import re
import sys

# rank of each layer: a file may include from ranks <= its own (its own: same folder)
RANK = {"bpf": 0, "core": 1, "sources": 2, "record": 3, "explain": 4, "import": 4, "export": 4, "ui": 4, "cli": 5}
MAX_LINES = 600
MAX_FUNCTION = 80
# bare names allowed: generated or BPF-side headers; xiotop.h bare only inside bpf/
BARE_ANYWHERE = re.compile(r"^(vmlinux\.h|.*\.skel\.h|.*\.bpf\.h)$")

INCLUDE = re.compile(r'^#include "')
SIGNATURE = re.compile(r"^[a-zA-Z].*\)$")
SIGNATURE_OPEN = re.compile(r"^[a-zA-Z].*\) *\{$")


def layer_files(top):
    files = []
    for layer in RANK:
        for root, _dirs, names in os.walk(os.path.join(top, layer)):
            for n in names:
                if n.endswith((".c", ".h")):
                    files.append(os.path.relpath(os.path.join(root, n), top))
    return sorted(files)


def include_problems(path, layer, lines):
    mine = RANK[layer]
    for no, text in enumerate(lines, 1):
        if not INCLUDE.match(text):
            continue
        inc = text[text.index('"') + 1 : text.rindex('"')]
        target = inc.split("/", 1)[0]
        if target == inc:
            if BARE_ANYWHERE.match(inc) or (inc == "xiotop.h" and layer == "bpf"):
                continue
            yield f'{path}:{no}: includes "{inc}" by bare name: use its layer path'
        elif target not in RANK:
            yield f'{path}:{no}: includes "{inc}" from {target}/, which is not a layer'
        elif RANK[target] > mine or (RANK[target] == mine and target != layer):
            yield f'{path}:{no}: {layer}/ includes "{inc}" of {target}/, a layer above or beside it'


def long_functions(path, lines):
    """From a line that opens a function body at column 0 to its "}"."""
    sig = start = 0
    name = ""
    inbody = False
    for no, text in enumerate(lines, 1):
        opens = SIGNATURE_OPEN.match(text) is not None
        if SIGNATURE.match(text) or opens:
            sig, name = no, text
        if (text.startswith("{") or opens) and sig:
            start, inbody = no, True
        if text.startswith("}") and inbody:
            body = no - start - 1
            if body > MAX_FUNCTION:
                yield f"{path}:{sig}: function of {body} lines (at most {MAX_FUNCTION}): {name}"
            inbody, sig = False, 0


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    files = layer_files(top)
    problems = []
    texts = {}
    for path in files:
        with open(os.path.join(top, path), encoding="utf-8", errors="replace") as f:
            texts[path] = f.read().split("\n")
        if texts[path] and texts[path][-1] == "":
            texts[path].pop()  # the final newline ends the last line
        problems += include_problems(path, path.split("/", 1)[0], texts[path])
        if len(texts[path]) > MAX_LINES:
            problems.append(f"{path}: {len(texts[path])} lines (at most {MAX_LINES})")
    for path in files:
        if path.endswith(".c"):
            problems += long_functions(path, texts[path])
    for p in problems:
        print(p)
    if problems:
        print("check_layers: FAILED")
        return 1
    print(f"check_layers: {len(files)} files, layers and sizes as the design says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
