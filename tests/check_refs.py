#!/usr/bin/env python3
"""What the comments and documents name exists.

A header's contract, a comment or a document that names a file, a symbol in a file, a
family of identifiers, a section of a document or a rule of docs/DESIGN.md points a reader
somewhere; when the thing moves or is renamed the pointer goes stale silently (claim.h
named claim_locate.h and ui/sanitize.h, error.h "cli/commands.h cli_fail", figures.h
XS_ABSENT_*, xiotop.h numbered the attribution rules 4 and 5 where DESIGN.md numbers them
0-4). This checks, over the tracked files:

  - files named in C comments (every comment of a header and of monitor/, ui/ and bpf/
    sources; the leading comment of the tests' sources, whose other comments name the
    files they write): "core/error.h", "tests/live/test_record.sh", "SCHEMA.md";
  - "FILE.h symbol" in C comments: the symbol is in that file ("cli/fail.h cli_fail");
  - "PREFIX_*" in comments: some identifier of the tree starts with PREFIX_;
  - a document's section named in quotes after it (README "JSON and CSV output",
    docs/testing.md, "The tests"), in C, Python, shell, Makefile and Markdown text;
  - Markdown links (a file, and its heading for an #anchor);
  - bpf/xiotop.h: each `enum xiotop_via` "rule N" is a rule of docs/DESIGN.md's
    "Attribution rules" that names that kind.

Names outside this repository (the kernel's, Xen's, QEMU's, libraries') are listed in
OUTSIDE. Prints each stale reference and exits 1 if there is any.

    check_refs.py TOP
"""
import os
import re
import subprocess
import sys

# files of other projects comments point at: the kernel's tree, Xen's, QEMU's, libraries'
OUTSIDE_PREFIXES = ("block/", "drivers/", "include/", "fs/", "mm/", "kernel/", "linux/",
                    "tools/", "hw/")
OUTSIDE = {"xenstat.h", "xenstat_qmp.c", "blkback.c"}
# where a relative name in a comment may start: as written, under monitor/ (layer paths:
# core/sample.h), beside the file, under tests/ or bpf/; else in an enclosing folder
ROOTS = ("", "monitor/", None, "tests/", "bpf/")

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
FILE = re.compile(r"(?<![\w/.$@-])((?:[\w.-]+/)*[A-Za-z_][\w-]*\.(?:h|c|md|py|sh|cmake|sql|8))\b")
FILE_SYMBOL = re.compile(r"(?<![\w/.$@-])((?:[\w.-]+/)*[\w-]+\.[hc])\s+"
                         r"([a-z_][a-z0-9_]*_[a-z0-9_]*|[a-z_][a-z0-9_]*\(\))")
GLOB = re.compile(r"\b([A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*)\*")
SECTION = re.compile(r"((?:[\w./-]+/)?(?:README(?:\.md)?|[\w-]+\.md))[,:]?\s+\"([^\"\n]+)\"")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def tracked(top):
    """The tree's files: git's list, or outside a checkout every file but builds'."""
    run = subprocess.run(["git", "-C", top, "ls-files"], capture_output=True, text=True,
                         check=False)
    if run.returncode == 0:
        return [f for f in run.stdout.split() if os.path.exists(os.path.join(top, f))]
    files = []
    for d, dirs, names in os.walk(top):
        dirs[:] = [x for x in dirs if x != ".git" and not x.startswith("build")]
        files += [os.path.relpath(os.path.join(d, n), top) for n in names]
    return files


def read(top, path):
    with open(os.path.join(top, path), encoding="utf-8", errors="replace") as f:
        return f.read()


class Tree:
    def __init__(self, top):
        self.top = top
        self.files = tracked(top)
        self.paths = set(self.files)
        self.basenames = {}  # a bare name: the files of that name, wherever they are
        for f in sorted(self.files):
            self.basenames.setdefault(os.path.basename(f), []).append(f)
        self.problems = []
        self._headings = {}
        idents = set()
        for f in self.files:
            if f.endswith((".h", ".c", ".py", ".sh")):
                idents.update(re.findall(r"\b[A-Z][A-Z0-9_]+\b", read(top, f)))
        self.idents = idents

    def resolve(self, name, at):
        """The tracked file a name in `at` points at, or None."""
        for root in ROOTS:
            path = os.path.normpath(os.path.join(os.path.dirname(at), name) if root is None
                                    else root + name)
            if path in self.paths:
                return path
        folder = os.path.dirname(os.path.dirname(at))
        while folder:  # from an enclosing folder (explain's report/ naming verdicts/x.c)
            path = os.path.normpath(os.path.join(folder, name))
            if path in self.paths:
                return path
            folder = os.path.dirname(folder)
        if "/" not in name and name in self.basenames:
            return self.basenames[name][0]  # a bare name: a file of that name in the tree
        return None

    def outside(self, name):
        return name in OUTSIDE or name.startswith(OUTSIDE_PREFIXES)

    def headings(self, path):
        if path not in self._headings:
            self._headings[path] = [re.sub(r"^#+\s*", "", line).strip()
                                    for line in read(self.top, path).splitlines()
                                    if line.startswith("#")]
        return self._headings[path]

    def say(self, where, what):
        self.problems.append(f"{where}: {what}")


def c_comments(tree, path):
    """The comments of a C file this check reads: all of them, but for the tests' sources
    their leading one (the others name the files a test writes)."""
    comments = [m.group(0) for m in COMMENT.finditer(read(tree.top, path))]
    if path.startswith("tests/") and path.endswith(".c"):
        return comments[:1]
    return comments


def check_c(tree, path):
    for text in c_comments(tree, path):
        for name in FILE.findall(text):
            if not tree.outside(name) and not tree.resolve(name, path):
                tree.say(path, f"names {name}, which is not in the tree")
        for name, symbol in FILE_SYMBOL.findall(text):
            target = tree.resolve(name, path)
            symbol = symbol.rstrip("()")
            if target and not re.search(rf"\b{re.escape(symbol)}\b", read(tree.top, target)):
                tree.say(path, f"names {name} {symbol}, which {target} does not hold")


def check_text(tree, path):
    """Identifier families and document sections named anywhere in the file."""
    text = read(tree.top, path)
    for prefix in set(GLOB.findall(text)):
        if not any(i.startswith(prefix) and i != prefix for i in tree.idents):
            tree.say(path, f"names {prefix}*, and no identifier starts with {prefix}")
    for doc, section in SECTION.findall(text):
        target = "README.md" if doc in ("README", "README.md") else tree.resolve(doc, path)
        if not target:
            tree.say(path, f"names {doc} \"{section}\": no such document")
            continue
        want = section.lower()
        if not any(want in h.lower() for h in tree.headings(target)):
            tree.say(path, f"names {doc} \"{section}\": {target} has no such section")


def slug(heading):
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def check_links(tree, path):
    for link in LINK.findall(read(tree.top, path)):
        if re.match(r"[a-z]+:", link):
            continue
        target, _, anchor = link.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
        if target not in tree.paths and not os.path.isdir(os.path.join(tree.top, target)):
            tree.say(path, f"links {link}: no {target}")
        elif anchor and target.endswith(".md") and anchor not in map(slug, tree.headings(target)):
            tree.say(path, f"links {link}: {target} has no heading #{anchor}")


def design_rules(tree):
    """docs/DESIGN.md's attribution rules: {number: its text}."""
    text = read(tree.top, "docs/DESIGN.md")
    part = text.split("## Attribution rules", 1)[1].split("\n## ", 1)[0]
    rules, current = {}, None
    for line in part.splitlines():
        m = re.match(r"(\d+)\. (.*)", line)
        if m:
            current = int(m.group(1))
            rules[current] = m.group(2)
        elif current is not None and line.startswith("   "):
            rules[current] += " " + line.strip()
        elif not line.strip():
            current = None
    return rules


def check_via_rules(tree):
    """Each `enum xiotop_via` kind's "rule N" is DESIGN.md's rule N, which names the kind."""
    rules = design_rules(tree)
    for line in read(tree.top, "bpf/xiotop.h").splitlines():
        m = re.match(r"\s*XIOTOP_VIA_(\w+)\b.*?/\*(.*)\*/", line)
        if not m:
            continue
        kind = m.group(1).lower()
        word = "unattributed" if kind == "none" else f"`{kind}`"
        for number in re.findall(r"\brules? (\d+(?:/\d+)*)", m.group(2)):
            for n in map(int, number.split("/")):
                if n not in rules:
                    tree.say("bpf/xiotop.h", f"XIOTOP_VIA_{m.group(1)}: rule {n}, which "
                             f"docs/DESIGN.md does not have (rules {min(rules)}-{max(rules)})")
                elif word not in rules[n]:
                    tree.say("bpf/xiotop.h", f"XIOTOP_VIA_{m.group(1)}: rule {n} of "
                             f"docs/DESIGN.md does not name {word}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    tree = Tree(sys.argv[1])
    for path in tree.files:
        if path == "tests/check_refs.py":
            continue  # its own text quotes stale references as examples
        if path.endswith((".h", ".c")):
            check_c(tree, path)
        if path.endswith((".h", ".c", ".py", ".sh", ".md")) or os.path.basename(path) == "Makefile":
            check_text(tree, path)
        if path.endswith(".md"):
            check_links(tree, path)
    check_via_rules(tree)
    for p in tree.problems:
        print(p)
    print(f"check_refs: {len(tree.files)} files; {len(tree.problems)} stale references")
    return 1 if tree.problems else 0


if __name__ == "__main__":
    sys.exit(main())
