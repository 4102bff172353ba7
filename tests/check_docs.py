#!/usr/bin/env python3
"""The man page and the bash completion against the one option and command table.

`xiotop --help` lists the commands and every `xiotop CMD --help` the options of one
command, both generated from monitor/cli/options.c; this holds docs/xiotop.8 (its
SYNOPSIS, COMMANDS and OPTIONS) and dist/xiotop.bash-completion (its commands and options
as bash offers them, and the options whose value it completes) to them, both ways: an option or command added
to the table without its documentation fails here, and so does documentation of one
the table no longer has; and the --format values the completion offers after each
command to those its --help names, and the man page's macro lines to roff's quoting (no
stray quote rendered). Prints each difference and exits 1 if there is any.

    check_docs.py XIOTOP_BINARY TOP
"""
import os
import re
import subprocess
import sys

# what main.c answers before the table is read
OUTSIDE_TABLE = {"version"}
LONG = re.compile(r"--([a-z0-9]+(?:-[a-z0-9]+)*)")
MAN_LONG = re.compile(r"\\-\\-([a-z0-9]+(?:\\-[a-z0-9]+)*)")


def help_text(binary, *args):
    run = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"check_docs: {binary} {' '.join(args)} --help exited {run.returncode}")
    return run.stdout


def table_commands(text):
    """The commands `xiotop --help` lists (its "commands" section)."""
    after = text.split("\ncommands (each has --help):\n", 1)
    if len(after) != 2:
        sys.exit("check_docs: xiotop --help lists no commands")
    return {m.group(1) for m in re.finditer(r"^  xiotop ([a-z]+)\b", after[1], re.M)}


def table_options(text):
    """The options of one --help: its lines "  -c, --name ARG   help" before the columns."""
    options = set()
    for line in text.splitlines()[1:]:
        if not line.startswith("  -") and not line.startswith("      --"):
            break
        m = LONG.search(line)
        if m:
            options.add(m.group(1))
    return options


def man_sections(path):
    sections, name = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(".SH "):
                name = line[4:].strip('"')
                sections[name] = []
            elif name:
                sections[name].append(line)
    return sections


def man_docs(path):
    """(commands, options) the man page documents."""
    sec = man_sections(path)
    commands = set()
    for line in sec.get("SYNOPSIS", []):
        m = re.match(r"\.B xiotop ([a-z]+)$", line)
        if m:
            commands.add(m.group(1))
    listed = set()
    lines = sec.get("COMMANDS", [])
    for prev, line in zip(lines, lines[1:]):
        m = re.match(r"\.B ([a-z]+)$", line)
        if prev == ".TP" and m and m.group(1) != "xiotop":
            listed.add(m.group(1))
    options = set()
    lines = sec.get("OPTIONS", [])
    for prev, line in zip(lines, lines[1:]):
        if prev == ".TP":
            options |= {n.replace("\\-", "-") for n in MAN_LONG.findall(line)}
    return commands, listed, options


def completion_words(path, binary, words):
    """What the completion offers after `xiotop WORDS...` (the last word being completed),
    with the built binary first on PATH."""
    script = (f'source "{path}"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _xiotop; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    env = {"PATH": os.path.dirname(os.path.abspath(binary)) + ":" + os.environ.get("PATH", "")}
    run = subprocess.run(["bash", "-c", script, "complete", "xiotop", *words],
                         capture_output=True, text=True, env=env, check=False)
    return {w for w in run.stdout.split() if w}


def completion_valued(path):
    """The options whose value the completion completes (its `case $prev` patterns)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    valued = set()
    for m in re.finditer(r"^\t(-[^)]*)\)", text, re.M):
        valued |= set(LONG.findall(m.group(1)))
    return valued


def accepted_hidden(binary, commands, names):
    """Of names, the flags some command takes though its --help does not list them (hidden
    options: the man page may still say what they do). `CMD --NAME --help` exits 0 only
    when CMD takes NAME as a flag."""
    taken = set()
    for name in names:
        for c in [""] + sorted(commands):
            run = subprocess.run([binary, *([c] if c else []), f"--{name}", "--help"],
                                 capture_output=True, text=True, check=False)
            if run.returncode == 0:
                taken.add(name)
                break
    return taken


def command_formats(text):
    """The --format values one --help names ("--format F   text, csv or json"); None when
    the command takes no --format."""
    m = re.search(r"^ +--format F +(.*)$", text, re.M)
    return set(re.split(r", | or ", m.group(1).strip())) if m else None


def man_quote_problems(path):
    """Macro lines of the man page whose quoted argument is closed by a quote with more text
    right after it ('.BR \\-\\-from " MARK", " ...'): roff takes that quote as text and
    prints it ("--to MARK|TIME\""). Inside a quoted argument "" is one quote."""
    problems = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if not line.startswith(".") or line.startswith('.\\"'):
                continue
            i, n, text = 0, len(line.rstrip("\n")), line.rstrip("\n")
            while i < n:
                if text[i] == " ":
                    i += 1
                    continue
                if text[i] != '"':  # an unquoted argument: to the next blank
                    while i < n and text[i] != " ":
                        i += 1
                    continue
                i += 1
                while i < n:
                    if text[i] == '"' and i + 1 < n and text[i + 1] == '"':
                        i += 2
                    elif text[i] == '"':
                        break
                    else:
                        i += 1
                if i + 1 < n and text[i + 1] != " ":
                    problems.append(f"docs/xiotop.8:{no}: a quote closes an argument with "
                                    f"text right after it (rendered as a stray quote): {text}")
                    break
                i += 1
    return problems


def differ(what, documented, table):
    problems = []
    for name in sorted(table - documented):
        problems.append(f"{what}: lacks {name}")
    for name in sorted(documented - table):
        problems.append(f"{what}: has {name}, which the table has not")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    binary, top = sys.argv[1], sys.argv[2]
    live = help_text(binary)
    commands = table_commands(live)
    per_command = {c: table_options(help_text(binary, c)) for c in commands}
    options = table_options(live).union(*per_command.values())
    valued = {o for c in [""] + sorted(commands)
              for o in re.findall(r"--([a-z0-9-]+) [A-Z]", help_text(binary, *([c] if c else [])))}

    problems = []
    synopsis, listed, man_options = man_docs(f"{top}/docs/xiotop.8")
    problems += differ("docs/xiotop.8 SYNOPSIS commands", synopsis, commands)
    problems += differ("docs/xiotop.8 COMMANDS", listed, commands)
    hidden = accepted_hidden(binary, commands, man_options - options - OUTSIDE_TABLE)
    problems += differ("docs/xiotop.8 OPTIONS", man_options, options | OUTSIDE_TABLE | hidden)
    completion = f"{top}/dist/xiotop.bash-completion"
    problems += differ("dist/xiotop.bash-completion commands",
                       completion_words(completion, binary, [""]), commands)
    for c in [""] + sorted(commands):
        offered = {w[2:] for w in completion_words(completion, binary, ([c] if c else []) + ["--"])}
        mine = per_command.get(c, table_options(live))
        problems += differ(f"dist/xiotop.bash-completion options of '{c or 'xiotop'}'", offered, mine)
    for c in [""] + sorted(commands):
        want = command_formats(help_text(binary, *([c] if c else [])))
        if want is None:
            continue
        offered = completion_words(completion, binary, ([c, "x"] if c else ["-b"]) + ["--format", ""])
        problems += differ(f"dist/xiotop.bash-completion --format values of '{c or 'xiotop'}'",
                           offered, want)
    problems += man_quote_problems(f"{top}/docs/xiotop.8")
    completed = completion_valued(completion)
    for name in sorted(completed - valued):
        problems.append(f"dist/xiotop.bash-completion: completes a value of --{name}, "
                        "which takes none in the table")
    for p in problems:
        print(p)
    print(f"check_docs: {len(commands)} commands, {len(options)} options; "
          f"{len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
