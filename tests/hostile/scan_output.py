#!/usr/bin/env python3
"""scan_output.py FILE... - fail (exit 1) when an output holds a byte that must never
reach a terminal (issue 15): a C0 control other than newline and tab, DEL, a C1 control
(U+0080-U+009F, or a raw 0x80-0x9f byte outside UTF-8), an invalid UTF-8 byte, or a
bidi/invisible format control (U+061C, U+200B-200F, U+2028-202E, U+2060-206F, U+FEFF,
U+FFF9-FFFB). Prints FILE:offset: what for each (at most 5 per file)."""
import sys


def is_format(cp):
    return (cp == 0x061C or 0x200B <= cp <= 0x200F or 0x2028 <= cp <= 0x202E
            or 0x2060 <= cp <= 0x206F or cp == 0xFEFF or 0xFFF9 <= cp <= 0xFFFB)


def problems(data):
    i = 0
    while i < len(data):
        b = data[i]
        if b < 0x80:
            if (b < 0x20 and b not in (0x0A, 0x09)) or b == 0x7F:
                yield i, "control byte 0x%02x" % b
            i += 1
            continue
        n = 2 if b & 0xE0 == 0xC0 else 3 if b & 0xF0 == 0xE0 else 4 if b & 0xF8 == 0xF0 else 0
        try:
            ch = data[i:i + n].decode("utf-8") if n else None
        except UnicodeDecodeError:
            ch = None
        if ch is None or len(ch) != 1:
            yield i, "invalid UTF-8 byte 0x%02x" % b
            i += 1
            continue
        cp = ord(ch)
        if 0x80 <= cp <= 0x9F:
            yield i, "C1 control U+%04X" % cp
        elif is_format(cp):
            yield i, "bidi/format control U+%04X" % cp
        i += n


def main():
    bad = 0
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            data = f.read()
        for k, (off, what) in enumerate(problems(data)):
            if k < 5:
                ctx = data[max(0, off - 20):off + 8]
                print("%s:%d: %s (near %r)" % (path, off, what, ctx))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
