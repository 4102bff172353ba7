#!/usr/bin/env python3
"""The tree's structural rules (docs/DESIGN.md "Layers"), checked on every test run:
 1. a folder is a layer: the engine's layers are the folders of monitor/, and ui/ and
    bpf/ stand beside it; a file includes project headers only by layer path
    ("core/sample.h", whatever the folder it lives in) and only from its own layer or a
    lower one; inside a layer with folders of its own (SUBRANK: explain's claims/, top,
    verdicts/, report/), from its own folder or a lower one;
 2. no file over 600 lines and no function over 80 lines outside tests/;
 3. no two files that call each other both ways: where two files share work, the shared
    part is a third file both call. A file "calls" another when it names a function the
    other defines with external linkage (called, or taken as a pointer).
Prints each violation as FILE:LINE: what, and exits 1 if there is any.

    check_layers.py [TOP]     (TOP: the top of the tree, default this file's ..)
"""
import os
import re
import sys

# rank of each layer: a file may include from ranks <= its own (its own: same folder)
RANK = {"bpf": 0, "core": 1, "sources": 2, "record": 3, "explain": 4, "import": 4, "export": 4, "ui": 4, "cli": 5}
# a layer's own folders, lowest first: a file includes from its own folder or a lower one
# (the layer's top folder is named ""); a folder not named here is the layer's top
SUBRANK = {"explain": {"claims": 0, "": 1, "verdicts": 2, "report": 3}}
# where each layer's folder is, from the top of the tree
FOLDER = {layer: layer if layer in ("bpf", "ui") else "monitor/" + layer for layer in RANK}
MAX_LINES = 600
MAX_FUNCTION = 80
# bare names allowed: generated or BPF-side headers; xiotop.h bare only inside bpf/
BARE_ANYWHERE = re.compile(r"^(vmlinux\.h|.*\.skel\.h|.*\.bpf\.h)$")

INCLUDE = re.compile(r'^#include "')
# comments, string and character literals: blanked before braces are counted
NOT_CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def layer_files(top):
    """(path, layer) of every C file of every layer, and of anything else in monitor/."""
    files = []
    for layer, folder in FOLDER.items():
        for root, _dirs, names in os.walk(os.path.join(top, folder)):
            for n in names:
                if n.endswith((".c", ".h")):
                    files.append((os.path.relpath(os.path.join(root, n), top), layer))
    return sorted(files)


def stray_files(top):
    """Files in monitor/ outside every layer's folder: a layer nobody ranked."""
    mon = os.path.join(top, "monitor")
    for n in sorted(os.listdir(mon)) if os.path.isdir(mon) else []:
        if ("monitor/" + n) not in FOLDER.values():
            yield f"monitor/{n}: not a layer (tests/check_layers.py RANK names the layers)"


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
        elif target == layer and layer in SUBRANK:
            own, theirs = sub_folder(path, layer), sub_folder(inc, layer, FOLDER_OF_INCLUDE)
            if SUBRANK[layer][theirs] > SUBRANK[layer][own]:
                yield (f'{path}:{no}: {layer}/{own or "(top)"} includes "{inc}" of '
                       f'{layer}/{theirs}, a folder above it')


FOLDER_OF_INCLUDE = "include"


def sub_folder(path, layer, kind="path"):
    """The folder of LAYER that PATH (a tree path, or an include "layer/sub/x.h") is in:
    one SUBRANK names, else "" (the layer's top)."""
    rest = path[len(FOLDER[layer]) + 1 :] if kind == "path" else path.split("/", 1)[1]
    sub = rest.split("/", 1)[0] if "/" in rest else ""
    return sub if sub in SUBRANK[layer] else ""


def blank_non_code(text):
    """The text with comments and literals blanked, newlines kept (line numbers hold)."""
    return NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


IDENT = re.compile(r"[A-Za-z_]\w*")


def file_scope_blocks(code):
    """(head, head_line, is_function) of every file-scope brace block of blanked code (a
    list of lines), and the block's closing line: a function's head (the code since the
    previous file-scope ";", "}" or preprocessor line) ends with its parameter list and
    has no "="."""
    depth = 0
    head, head_line = "", 0
    for no, text in enumerate(code, 1):
        if depth == 0 and text.lstrip().startswith("#"):
            head, head_line = "", 0
            continue
        for ch in text:
            if depth == 0:
                if ch == "{":
                    # a function's head ends with its parameter list; an
                    # initializer has "=", a struct, enum or union none of these
                    is_function = "=" not in head and re.search(r"\)\s*$", head) is not None
                    depth = 1
                    opened = (head, head_line, is_function, no)
                elif ch == ";":
                    head, head_line = "", 0
                else:
                    if not head.strip() and not ch.isspace():
                        head_line = no
                    head += ch
            else:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        yield opened + (no,)
                        head, head_line = "", 0
        if depth == 0 and head:
            head += " "


def defined_functions(code):
    """(name, external) of every function a file defines (external: not static)."""
    for head, _line, is_function, _open, _close in file_scope_blocks(code):
        words = IDENT.findall(head.split("(", 1)[0])
        if is_function and words:
            yield words[-1], "static" not in words


NOT_A_FUNCTION = re.compile(r"(\.|->|\bstruct|\bunion|\benum)\s*$")


def named_identifiers(code):
    """Every identifier a file's code names, but members (after "." or "->") and tags
    (after struct, union or enum)."""
    text = "\n".join(code)
    return {m.group(0) for m in IDENT.finditer(text) if not NOT_A_FUNCTION.search(text[max(0, m.start() - 8) : m.start()])}


def calls_both_ways(c_files):
    """Pairs of .c files each naming a function the other defines. c_files: path -> lines."""
    code = {path: blank_non_code("\n".join(lines)).split("\n") for path, lines in c_files.items()}
    defined_in = {}
    for path, lines in code.items():
        for name, external in defined_functions(lines):
            if external:
                defined_in.setdefault(name, path)
    calls = {}
    for path, lines in code.items():
        mine = {name for name, _external in defined_functions(lines)}  # a static shadows
        calls[path] = {}
        for name in named_identifiers(lines) - mine:
            other = defined_in.get(name)
            if other and other != path:
                calls[path].setdefault(other, name)
    for a in sorted(calls):
        for b, name in sorted(calls[a].items()):
            if a < b and a in calls.get(b, {}):
                yield f"{a}: calls {b} ({name}) and is called by it ({calls[b][a]}): move the shared part to a third file"


def long_functions(path, lines):
    """Every file-scope function body, however its signature is laid out, longer than
    MAX_FUNCTION lines between its braces."""
    code = blank_non_code("\n".join(lines)).split("\n")
    for _head, head_line, is_function, opened, closed in file_scope_blocks(code):
        body = closed - opened - 1
        if is_function and body > MAX_FUNCTION:
            name = lines[head_line - 1].strip() if head_line else "?"
            yield f"{path}:{head_line}: function of {body} lines (at most {MAX_FUNCTION}): {name}"


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    files = layer_files(top)
    problems = list(stray_files(top))
    texts = {}
    for path, layer in files:
        with open(os.path.join(top, path), encoding="utf-8", errors="replace") as f:
            texts[path] = f.read().split("\n")
        if texts[path] and texts[path][-1] == "":
            texts[path].pop()  # the final newline ends the last line
        problems += include_problems(path, layer, texts[path])
        if len(texts[path]) > MAX_LINES:
            problems.append(f"{path}: {len(texts[path])} lines (at most {MAX_LINES})")
    for path, _layer in files:  # a header's static inline functions too
        problems += long_functions(path, texts[path])
    problems += calls_both_ways({path: texts[path] for path, _layer in files if path.endswith(".c")})
    for p in problems:
        print(p)
    if problems:
        print("check_layers: FAILED")
        return 1
    print(f"check_layers: {len(files)} files, layers and sizes as the design says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
