#!/usr/bin/env python3
"""A loop domain whose backing file was deleted while attached (the loop still holds the
inode): the topology marks it, and its writeback is still charged to it."""
import json
import os
import subprocess
import sys

from livelib import MiB, Xiotop, check, diskstat_wr_bytes, dom_sum, failures, finish_writer, read_env, run_writer, within


def main():
    env_path, binary, emu, out_path = sys.argv[1:5]
    env = read_env(env_path)
    dump = os.path.join(os.path.dirname(env_path), "xenstore.dump")
    os.unlink(env["DOM1_IMG"])
    topo = json.loads(subprocess.run([binary, "topology", "--format", "json", "--xenstore-dump", dump],
                                     check=True, capture_output=True, text=True).stdout)
    dom1 = next(d for d in topo["domains"] if d["domid"] == 1)
    backend = dom1["backends"][0]
    files = [l for l in backend["stack"] if l.get("file")]
    check("deleted" in (backend.get("error") or ""), f"topology marks the deleted backing file: {backend.get('error')!r}")
    check(bool(files) and files[0].get("ino"), f"the loop device still names its inode: {files[0].get('ino') if files else None}")

    xt = Xiotop(binary, dump, out_path)
    leaf0 = diskstat_wr_bytes(env["HOST_ZRAM"])
    finish_writer(run_writer(emu, 1, env["DOM1_DEV"], 64, 0))
    subprocess.run(["sync"], check=True)
    leaf1 = diskstat_wr_bytes(env["HOST_ZRAM"])
    xt.wait_next(2)
    xt.stop()
    ivs = xt.intervals()
    phys = dom_sum(ivs, 1, "phys_wr_bytes")
    check(within(phys, leaf1 - leaf0, 5),
          f"dom1 phys_wr_bytes {phys / MiB:.1f} MiB vs leaf {(leaf1 - leaf0) / MiB:.1f} MiB after its file was deleted (5 %)")
    print(f"{len(failures) and 'FAILED' or 'PASSED'}: deleted backing file, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
