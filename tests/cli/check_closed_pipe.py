#!/usr/bin/env python3
"""A reader that stopped reading is not a failure: each command that prints a report or
intervals, its stdout a pipe whose reader is gone (`| head` once it has its lines), exits
0 and says nothing, as other Unix tools do on EPIPE; `xiotop explain ... | head` exited 1
with "writing stdout failed". A full disk (/dev/full) still fails, said. The reader is
gone before the command writes (the pipe's read end closed first), so the write fails
every run, not only when the reader wins a race.

    check_closed_pipe.py   (XIOTOP_BIN, XIOTOP_RECORD_BENCH in the environment)
"""
import os
import subprocess
import sys
import tempfile

COMMANDS = [  # (name, arguments), REC the recording
    ("explain", ["explain", "REC"]),
    ("explain-json", ["explain", "REC", "--format", "json"]),
    ("explain-html", ["explain", "REC", "--format", "html"]),
    ("explain-compare", ["explain", "REC", "REC"]),
    ("export", ["export", "REC"]),
    ("export-csv", ["export", "REC", "--format", "csv"]),
    ("replay-b", ["replay", "REC", "-b"]),
    ("from-file", ["-b", "--from-file", "REC"]),
]


def run(binary, args, stdout):
    return subprocess.run([binary, *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                          timeout=60, check=False)


def main():
    binary, bench = os.environ["XIOTOP_BIN"], os.environ["XIOTOP_RECORD_BENCH"]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="xiotop-pipe.") as work:
        rec = os.path.join(work, "r.xiotop")
        subprocess.run([bench, rec, "3", "30"], stdout=subprocess.DEVNULL, check=True)
        for name, args in COMMANDS:
            args = [rec if a == "REC" else a for a in args]
            read_end, write_end = os.pipe()
            os.close(read_end)
            gone = run(binary, args, write_end)
            os.close(write_end)
            ok = gone.returncode == 0 and gone.stderr == ""
            print(f"{'ok' if ok else 'FAIL'}: {name} into a pipe nobody reads: exit "
                  f"{gone.returncode}, stderr {gone.stderr.strip()!r} (want 0 and nothing)")
            failed += not ok
            with open("/dev/full", "w") as full:
                disk = run(binary, args, full)
            ok = disk.returncode != 0 and disk.stderr.strip() != ""
            print(f"{'ok' if ok else 'FAIL'}: {name} into a full disk: exit {disk.returncode}, "
                  f"stderr {disk.stderr.strip()!r} (want a failure, said)")
            failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
