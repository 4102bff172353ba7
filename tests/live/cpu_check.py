#!/usr/bin/env python3
"""Live dom0 CPU check: emulated domains against /proc ground truth.

- a blkback-like writer on zram: its domain's `backend` CPU vs the thread's own
  utime+stime (from /proc/<pid>/task/<tid>/stat, read by the thread as it ends);
- a loop-backed domain: `loop` CPU is non-zero; the zram domain's is zero;
- over the whole run: sum of attributed + unattributed CPU vs /proc/stat busy time.
"""
import os
import signal
import subprocess
import sys
import time

from livelib import MiB, Xiotop, check, failures, finish_writer, read_env, run_writer, within


def role_sum(intervals, domid, role, t0=None):
    from livelib import iv_end
    total = 0
    for iv in intervals:
        if t0 is not None and iv_end(iv) <= t0:
            continue
        for d in iv["domains"]:
            if d["domid"] == domid and d["dom0_cpu_ns_by_role"]:
                total += d["dom0_cpu_ns_by_role"][role]
    return total


def main():
    env_path, binary, emu, out_path = sys.argv[1:5]
    env = read_env(env_path)
    dio = env.get("DIO", "?")
    xt = Xiotop(binary, os.path.join(os.path.dirname(env_path), "xenstore.dump"), out_path)
    print(f"# loop direct-io {dio}")

    # 1. backend CPU of a busy blkback-like thread (zram compresses in its context)
    xt.wait_next(1)
    start = time.time()
    w = run_writer(emu, 3, env["DOM3_DEV"], 256, 0, ["--repeat"])
    time.sleep(4)
    w.send_signal(signal.SIGINT)
    w3 = finish_writer(w)
    # loop work of domain 1 (and its writeback after sync)
    w1 = finish_writer(run_writer(emu, 1, env["DOM1_DEV"], 256, 64))
    subprocess.run(["sync"], check=True)
    ivs = xt.wait_next(2)
    xt.stop()
    ivs = xt.intervals()

    thread_ns = (w3["utime_ticks"] + w3["stime_ticks"]) * 1e9 / w3["clk_tck"]
    backend = role_sum(ivs, 3, "backend", start - 1)
    check(within(backend, thread_ns, 5),
          f"dom3 backend CPU {backend / 1e9:.3f} s vs thread utime+stime {thread_ns / 1e9:.3f} s (5 %)")
    loop1 = role_sum(ivs, 1, "loop")
    wb1 = role_sum(ivs, 1, "writeback")
    check(loop1 > 0, f"dom1 (loop-backed) loop CPU {loop1 / 1e6:.1f} ms > 0 (writeback {wb1 / 1e6:.1f} ms)")
    loop3 = role_sum(ivs, 3, "loop")
    check(loop3 == 0, f"dom3 (zram) loop CPU {loop3 / 1e6:.1f} ms == 0")

    attributed = sum(d["dom0_cpu_ns"] for iv in ivs for d in iv["domains"])
    unattr = sum(iv["unattributed_cpu_ns"] for iv in ivs)
    busy = sum(iv["host"]["dom0_cpu_busy_ns"] for iv in ivs)
    check(within(attributed + unattr, busy, 5),
          f"attributed {attributed / 1e9:.2f} s + unattributed {unattr / 1e9:.2f} s vs /proc/stat busy {busy / 1e9:.2f} s (5 %)")
    print(f"{len(failures) and 'FAILED' or 'PASSED'}: cpu, loop direct-io {dio}, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
