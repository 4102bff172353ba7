#!/usr/bin/env python3
"""Live check of the device-model path and the dirty backlog.

A qemu-like process (-xen-domid 7, found in /proc) writes 256 MiB buffered and 64 MiB
O_DIRECT into its image and 50 MiB through a pipe, with dom0 writeback held off; then
`sync`. A KVM-style qemu (no -xen-domid) must show up as a named domain.
"""
import os
import subprocess
import sys
import time

from livelib import (MiB, Xiotop, check, diskstat_wr_bytes, failures, iv_end, read_env,
                     run_device_model, within)


def dom(iv, domid):
    for d in iv["domains"]:
        if d["domid"] == domid:
            return d
    return None


def main():
    env_path, binary, emu, out_path = sys.argv[1:5]
    env = read_env(env_path)
    image = os.path.join(env["HOSTFS"], "dom7.img")
    with open(image, "wb") as f:  # a real device model opens an existing image
        f.truncate(400 * MiB)
    subprocess.run(["sync"], check=True)
    xt = Xiotop(binary, os.path.join(os.path.dirname(env_path), "xenstore.dump"), out_path)

    leaf0 = diskstat_wr_bytes(env["HOST_ZRAM"])
    t0 = time.time()
    run_device_model(emu, xt, ["-xen-domid", "7", "--image", image, "--name", "qguest",
                               "--buffered-mib", "256", "--direct-mib", "64", "--pipe-mib", "50"],
                     lambda d: d["domid"] == 7, "domain 7 (qguest's device model)")
    ivs = xt.wait_next(2)
    held = [d["dirty_backlog_bytes"] for iv in ivs if (d := dom(iv, 7))]
    t_sync = time.time()
    subprocess.run(["sync"], check=True)
    t_synced = time.time()
    leaf1 = diskstat_wr_bytes(env["HOST_ZRAM"])

    kvm_image = os.path.join(env["HOSTFS"], "kvm.img")
    with open(kvm_image, "wb") as f:
        f.truncate(64 * MiB)
    run_device_model(emu, xt, ["--image", kvm_image, "--name", "kvmguest", "--buffered-mib", "32"],
                     lambda d: d["name"] == "kvmguest", "KVM-style domain kvmguest")
    ivs = xt.wait_next(2)
    xt.stop()
    ivs = xt.intervals()

    g_wr = sum(d["guest_wr_bytes"] for iv in ivs if (d := dom(iv, 7)))
    check(within(g_wr, 320 * MiB, 2),
          f"qemu dom7 guest_wr_bytes {g_wr / MiB:.1f} MiB vs 320 MiB written to its image (2 %); 50 MiB of pipe not counted")
    ph = sum(d["phys_wr_bytes"] for iv in ivs if (d := dom(iv, 7)) and iv_end(iv) <= t_synced + 1.5)
    check(within(ph, leaf1 - leaf0, 5),
          f"qemu dom7 phys_wr_bytes {ph / MiB:.1f} MiB vs leaf {env['HOST_ZRAM']} diskstats {(leaf1 - leaf0) / MiB:.1f} MiB after sync (5 %)")
    peak = max(held) if held else 0
    check(peak >= 250 * MiB, f"dirty_backlog_bytes rose to {peak / MiB:.1f} MiB with writeback held off (256 MiB buffered)")
    after = [d["dirty_backlog_bytes"] for iv in ivs if (d := dom(iv, 7)) and iv_end(iv) > t_synced]
    first_after = after[0] if after else None
    check(first_after is not None and first_after <= 3 * MiB,
          f"dirty_backlog_bytes {first_after and first_after / MiB:.2f} MiB in the first interval after sync (~0)")
    all_backlog = [d["dirty_backlog_bytes"] for iv in ivs if (d := dom(iv, 7))]
    check(all(0 <= b < 1 << 40 for b in all_backlog), "dirty_backlog_bytes never negative")
    dirtied = sum(d["dirtied_bytes"] for iv in ivs if (d := dom(iv, 7)))
    wb = sum(d["written_back_bytes"] for iv in ivs if (d := dom(iv, 7)))
    print(f"     dirtied {dirtied / MiB:.1f} MiB, written back {wb / MiB:.1f} MiB, sync took {t_synced - t_sync:.2f} s")

    kvm = [d for iv in ivs for d in iv["domains"] if d["name"] == "kvmguest"]
    check(bool(kvm) and kvm[0]["domid"] >= 1000000,
          f"KVM-style qemu (no xenstore) listed as domain {kvm[0]['domid'] if kvm else None} named kvmguest")
    k_wr = sum(d["guest_wr_bytes"] for d in kvm)
    check(within(k_wr, 32 * MiB, 2), f"kvmguest guest_wr_bytes {k_wr / MiB:.1f} MiB vs 32 MiB")
    print(f"{len(failures) and 'FAILED' or 'PASSED'}: qemu path, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
