#!/usr/bin/env python3
"""No xenstore, no dump: a blkback thread's name says which domain it serves; the loop
device it writes to is learned as that domain's backend, so the later writeback of the
loop's backing file is charged to the domain too."""
import subprocess
import sys
import time

from livelib import MiB, check, diskstat_wr_bytes, dom_sum, failures, finish_writer, read_env, run_writer, within
import livelib


class XiotopNoDump(livelib.Xiotop):
    def __init__(self, binary, out_path):
        self.out_path = out_path
        self.out = open(out_path, "w")
        self.proc = subprocess.Popen([binary, "-b", "-d", "1", "--format", "json"], stdout=self.out)
        deadline = time.time() + 15
        while time.time() < deadline and not self.intervals():
            time.sleep(0.2)
        if not self.intervals():  # the tracer attaches before the first interval
            self.proc.kill()
            raise SystemExit("xiotop printed no interval in 15 s")


def main():
    env_path, binary, emu, out_path = sys.argv[1:5]
    env = read_env(env_path)
    xt = XiotopNoDump(binary, out_path)
    leaf0 = diskstat_wr_bytes(env["HOST_ZRAM"])
    finish_writer(run_writer(emu, 1, env["DOM1_DEV"], 64, 0))
    xt.wait_next(2)  # the loop device is learned from the first interval's bios
    subprocess.run(["sync"], check=True)
    leaf1 = diskstat_wr_bytes(env["HOST_ZRAM"])
    xt.wait_next(2)
    xt.stop()
    ivs = xt.intervals()
    guest = dom_sum(ivs, 1, "guest_wr_bytes")
    phys = dom_sum(ivs, 1, "phys_wr_bytes")
    dbl = dom_sum(ivs, 1, "double_counted_bytes")
    check(within(guest, 64 * MiB, 2), f"no dump: dom1 guest_wr_bytes {guest / MiB:.1f} MiB vs 64 MiB")
    check(within(phys, leaf1 - leaf0, 5),
          f"no dump: dom1 phys_wr_bytes {phys / MiB:.1f} MiB vs leaf {(leaf1 - leaf0) / MiB:.1f} MiB (writeback after sync)")
    check(within(dbl, 64 * MiB, 5), f"no dump: dom1 double_counted_bytes {dbl / MiB:.1f} MiB ~ 64 MiB")
    print(f"{len(failures) and 'FAILED' or 'PASSED'}: backend learned without a dump, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
