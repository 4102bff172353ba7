#!/usr/bin/env python3
"""A loop domain whose direct I/O is switched off while xiotop runs (`losetup
--direct-io=off`, as an administrator may at any time): its writes then go through dom0's
page cache, and a flush from the guest makes the loop worker write them back itself. The
guest's flush returns once its file's dirty pages are on the leaf, so after it the
domain's dirty backlog is ~0, whatever xiotop saw of the mode before.

Expected from the physics, before the run: the guest writes 64 MiB and flushes; dom0's
nr_dirtied grows by >= 64 MiB (the mode really is buffered now), the leaf's diskstats by
>= 64 MiB (the flush wrote them), xiotop's dirtied_bytes ~ 64 MiB, written_back_bytes ~
its dirtied_bytes, dirty backlog after the flush <= 1 MiB. Before the fix the programs
kept the work item's direct-I/O mode from the attach: the loop worker's flush was not
taken off the backlog, which stayed at ~64 MiB."""
import os
import subprocess
import sys
import time

from livelib import (MiB, Xiotop, check, diskstat_wr_bytes, dom_sum, failures, finish_writer, iv_end,
                     read_env, run_writer, vmstat_pages, within)

WRITE_MIB = 64


def loop_dio(loop):
    with open(f"/sys/block/{loop}/loop/dio") as f:
        return f.read().strip()


def main():
    env_path, binary, emu, out_path = sys.argv[1:5]
    env = read_env(env_path)
    dump = os.path.join(os.path.dirname(env_path), "xenstore.dump")
    loop = env["DOM1_LOOP"]
    if loop_dio(loop) != "1":
        raise SystemExit(f"{loop} should start with direct I/O on (loop/dio {loop_dio(loop)})")
    xt = Xiotop(binary, dump, out_path)
    # a work item of the loop device seen while it does direct I/O: the mode xiotop caches
    finish_writer(run_writer(emu, 1, env["DOM1_DEV"], 4, 0))
    subprocess.run(["losetup", "--direct-io=off", f"/dev/{loop}"], check=True)
    check(loop_dio(loop) == "0", f"{loop} switched to buffered I/O while xiotop runs (loop/dio {loop_dio(loop)})")
    xt.wait_next(2)  # the topology is looked at each interval
    t0 = time.time()
    dirtied0, = vmstat_pages("nr_dirtied")
    leaf0 = diskstat_wr_bytes(env["HOST_ZRAM"])
    w = finish_writer(run_writer(emu, 1, env["DOM1_DEV"], WRITE_MIB, 0, ["--fsync"]))
    leaf1 = diskstat_wr_bytes(env["HOST_ZRAM"])
    dirtied1, = vmstat_pages("nr_dirtied")
    t1 = time.time()
    ivs = xt.wait_past(t1)
    xt.stop()
    page = os.sysconf("SC_PAGE_SIZE")
    vm_dirtied = (dirtied1 - dirtied0) * page
    check(vm_dirtied >= w["wr_bytes"],
          f"the guest's {w['wr_bytes'] / MiB:.0f} MiB went through dom0's page cache: nr_dirtied grew "
          f"{vm_dirtied / MiB:.1f} MiB")
    check(leaf1 - leaf0 >= w["wr_bytes"],
          f"its flush wrote them to the leaf: {env['HOST_ZRAM']} diskstats grew {(leaf1 - leaf0) / MiB:.1f} MiB")
    dirtied = dom_sum(ivs, 1, "dirtied_bytes", t0 - 0.5)
    back = dom_sum(ivs, 1, "written_back_bytes", t0 - 0.5)
    check(within(dirtied, w["wr_bytes"], 1) and dirtied <= vm_dirtied + page,
          f"dom1 dirtied_bytes {dirtied / MiB:.1f} MiB vs written {w['wr_bytes'] / MiB:.1f} MiB (1 %), "
          f"at most nr_dirtied's growth")
    check(within(back, dirtied, 1),
          f"dom1 written_back_bytes {back / MiB:.1f} MiB of {dirtied / MiB:.1f} MiB dirtied (1 %): the loop "
          f"worker's flush taken off the backlog")
    last = [d for iv in ivs if iv_end(iv) > t1 for d in iv["domains"] if d["domid"] == 1]
    backlog = last[0]["dirty_backlog_bytes"] if last else None
    check(backlog is not None and backlog <= MiB,
          f"dom1 dirty backlog after the guest's flush {(backlog or 0) / MiB:.2f} MiB ~ 0")
    print(f"{len(failures) and 'FAILED' or 'PASSED'}: direct I/O switched off, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
