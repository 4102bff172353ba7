#!/usr/bin/env python3
"""Live check: a blk-mq backend's layer read from /proc/diskstats is the bios the guest
issued, not the requests the block layer made of them (sources/dev_counts.h).

Runs inside an emulated world (tests/emu/emu.sh; its env file is given), with the loop
devices' max_sectors_kb at 64 so that every 1 MiB bio is split into 16 requests. Each
domain's writes and reads are the writer's own count (dd's bios, O_DIRECT):
  domain 1 (a loop device): 32 writes of 1 MiB, 100 of 4 KiB with an fsync at the end (an
    empty flush: a write of no data that diskstats counts), 4 MiB of write-zeroes
    (blkdiscard -z: no data the programs count), then 8 reads of 1 MiB;
  domain 2 (a partition of a loop device): 16 writes of 1 MiB.
Expected, exactly: guest writes 132 requests of 32.39 MiB for domain 1, 16 of 16 MiB for
domain 2; reads 8 of 8 MiB (after `udevadm settle`: a device closed after a write is read
by udev's blkid, which is I/O of the domain's device too, so the reads are taken after it).
Run twice: as xiotop runs by default (the loop devices from diskstats, block_split taking
the splits off) and with block_split refused (XIOTOP_FAIL_HOOKS: the programs count them
bio by bio), which must give the same figures.
usage: split_check.py ENV XIOTOP_BIN OUT_PREFIX
"""
import os
import shutil
import subprocess
import sys
import time

from livelib import MiB, Xiotop, check, dom_sum, failures, read_env

KiB = 1024


def dd(*args):
    subprocess.run(["dd", *args, "status=none"], check=True)


def settle():
    if shutil.which("udevadm"):
        subprocess.run(["udevadm", "settle", "--timeout=30"], check=False)


def sums(ivs, domid, t0, t1):
    return {f: dom_sum(ivs, domid, f, t0, t1)
            for f in ("guest_wr_ios", "guest_wr_bytes", "guest_rd_ios", "guest_rd_bytes")}


def one_run(env, binary, out, fail_hooks):
    d1, d2 = env["DOM1_DEV"], env["DOM2_DEV"]
    if fail_hooks:
        os.environ["XIOTOP_FAIL_HOOKS"] = fail_hooks
    try:
        with open(out + ".err", "w") as err:
            xt = Xiotop(binary, env["XENSTORE_DUMP"], out, stderr=err)
    finally:
        os.environ.pop("XIOTOP_FAIL_HOOKS", None)
    how = "block_split refused" if fail_hooks else "as by default"
    try:
        settle()
        t0 = time.time()
        xt.wait_past(t0)
        dd("if=/dev/zero", f"of={d1}", "bs=1M", "count=32", "oflag=direct")
        dd("if=/dev/zero", f"of={d1}", "bs=4k", "count=100", "seek=9000", "oflag=direct",
           "conv=fsync")
        subprocess.run(["blkdiscard", "-z", "-o", str(48 * MiB), "-l", str(4 * MiB), d1],
                       check=True)
        dd("if=/dev/zero", f"of={d2}", "bs=1M", "count=16", "oflag=direct")
        settle()
        t1 = time.time()
        ivs = xt.wait_past(t1)
        w1, w2 = sums(ivs, 1, t0, None), sums(ivs, 2, t0, None)
        t2 = time.time()
        xt.wait_past(t2)
        dd(f"if={d1}", "of=/dev/null", "bs=1M", "count=8", "iflag=direct")
        t3 = time.time()
        ivs = xt.wait_past(t3)
        r1 = sums(ivs, 1, t2, None)
    finally:
        xt.stop()
    want_bytes = 32 * MiB + 100 * 4 * KiB
    check(w1["guest_wr_ios"] == 132,
          f"{how}: domain 1 (loop) write requests {w1['guest_wr_ios']} = dd's 32 + 100 "
          f"(its 1 MiB writes split in 16 requests each; the fsync's empty flush and the "
          f"write-zeroes not counted)")
    check(w1["guest_wr_bytes"] == want_bytes,
          f"{how}: domain 1 write bytes {w1['guest_wr_bytes']} = dd's {want_bytes}")
    check(w2["guest_wr_ios"] == 16 and w2["guest_wr_bytes"] == 16 * MiB,
          f"{how}: domain 2 (a partition) writes {w2['guest_wr_ios']} of "
          f"{w2['guest_wr_bytes']} bytes = dd's 16 of {16 * MiB}")
    check(r1["guest_rd_ios"] == 8 and r1["guest_rd_bytes"] == 8 * MiB,
          f"{how}: domain 1 reads {r1['guest_rd_ios']} of {r1['guest_rd_bytes']} bytes = "
          f"dd's 8 of {8 * MiB} (split in 16 requests each)")
    with open(out + ".err") as f:
        said = f.read()
    if fail_hooks:
        check("block_split" in said,
              f"{how}: xiotop says block_split is not active ({said.strip()[:200]!r})")


def main():
    env_path, binary, prefix = sys.argv[1:4]
    env = read_env(env_path)
    limits = [f"/sys/block/{env[k]}/queue/max_sectors_kb" for k in ("DOM1_LOOP", "DOM2_LOOP")]
    saved = []
    for p in limits:
        with open(p) as f:
            saved.append(f.read().strip())
        with open(p, "w") as f:
            f.write("64")
    try:
        one_run(env, binary, prefix + "-default.json", None)
        one_run(env, binary, prefix + "-nosplit.json", "block_split")
    finally:
        for p, v in zip(limits, saved):
            with open(p, "w") as f:
                f.write(v)
    print(f"{len(failures)} check(s) failed" if failures else "all checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
