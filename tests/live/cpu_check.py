#!/usr/bin/env python3
"""Live dom0 CPU check: emulated domains against the kernel's own per-thread accounting.

In one emulated world (loop direct-io on or off, given by the world's env):
- blkback-like threads doing small synchronous writes (16 KiB O_DIRECT) to the
  loop-backed domain 1, then reads of it after dom0's page cache was dropped, then writes
  to the zram domain 3: each domain's `backend` CPU vs its threads' own utime+stime
  (/proc/<pid>/task/<tid>/stat, read by each thread as it ends), within 3 % + 10 ms;
- with --qemu, a qemu-like multi-threaded device model (domain 7) writing 16 KiB
  O_DIRECT into its image: its `device_model` CPU vs the process's utime+stime;
- loop CPU of the loop-backed domain against its loop device's kworkers' runtime while it
  did I/O: their schedstat runtime sampled every 20 ms with their comm, which names the
  workqueue ("loopN") of the work item a worker runs or ran last (kworker_sampler.py):
  at least the growth with "loopN" at both ends of a sample period (- 10 % - 10 ms, see
  LOOP_LOW_PCT), at most the growth with it at either end and every kworker's (+ 3 % +
  10 ms); of the zram domain zero;
- over the run: attributed + unattributed CPU between /proc/stat's tick-sampled busy time
  and its elapsed-minus-idle time (3 %), see the check.
"""
import json
import os
import signal
import subprocess
import sys
import time

from livelib import (MiB, KworkerSampler, Xiotop, check, failures, finish_writer, iv_end, read_env,
                     run_device_model, run_writer, workqueue_runtime)

PCT, SLACK_NS = 3, 10e6  # the tolerance: 3 % + 10 ms
TRUNC_NS = 2 * 10e6  # what utime and stime lose to whole ticks at most (see close_to)
IDENTITY_PCT = 3  # attributed + unattributed vs /proc/stat busy
# xiotop gives a kworker's runtime to its tracked item until its next item starts, and
# the sampler's lower bound misses the periods a kworker began or ended in another queue:
# beside make test-load's load the loop CPU came to 100.7-103.3 % of the sampled lower
# bound in 6 worlds of 6, each within the upper; once, the lower itself fell to 72 % of the
# upper (kworkers alternating between loop and other queues faster than the samples), and
# xiotop's figure was 142.6 % of it (docs/DESIGN.md, CPU accounting).
LOOP_LOW_PCT = 10


def proc_stat():
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:9]]


def busy_bounds(a, b, wall):
    """(tick-sampled busy, elapsed - idle - iowait - steal) in ns over `wall` seconds."""
    d = [y - x for x, y in zip(a, b)]
    tick = 1e9 / os.sysconf("SC_CLK_TCK")
    user, nice, system, idle, iowait, irq, softirq, steal = d
    ticks_busy = (user + nice + system + irq + softirq) * tick
    not_idle = os.cpu_count() * wall * 1e9 - (idle + iowait + steal) * tick
    return ticks_busy, not_idle


def role_sum(intervals, domid, role):
    total = 0
    for iv in intervals:
        for d in iv["domains"]:
            if d["domid"] == domid and d["dom0_cpu_ns_by_role"]:
                total += d["dom0_cpu_ns_by_role"][role]
    return total


def close_to(got, want):
    # `want` is utime + stime in clock ticks, each field cut down to whole 10 ms ticks:
    # the true runtime is up to 2 ticks above it, never below.
    return -(want * PCT / 100 + SLACK_NS) <= got - want <= want * PCT / 100 + SLACK_NS + TRUNC_NS


def ticks_ns(summary):
    return (summary["utime_ticks"] + summary["stime_ticks"]) * 1e9 / summary["clk_tck"]


def kworker_runtimes():
    """Every kworker's runtime (schedstat's first field: se.sum_exec_runtime, ns), keyed by
    (pid, start time) so that a reused pid is another kworker."""
    seen = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if not f.read().startswith("kworker/"):
                    continue
            with open(f"/proc/{pid}/stat") as f:
                start = f.read().rsplit(")", 1)[1].split()[19]
            with open(f"/proc/{pid}/schedstat") as f:
                seen[(pid, start)] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return seen


def kworker_growth_ns(before, after):
    """Σ of the kworkers' runtime growth between two snapshots: those born meanwhile count
    from zero; those gone meanwhile (idle kworkers exit) are lost to the bound."""
    return sum(r - before.get(k, 0) for k, r in after.items())


def small_io(emu, domid, target, secs, reads=False):
    """16 KiB O_DIRECT random writes (or reads), one at a time, for `secs` seconds."""
    mib = (0, 64) if reads else (64, 0)
    w = run_writer(emu, domid, target, *mib, ["--bs", "16384", "--pattern", "rand", "--repeat"])
    time.sleep(secs)
    w.send_signal(signal.SIGINT)
    return finish_writer(w)


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def qemu_direct(emu, xt, image):
    """Domain 7's device model, its writes from when xiotop lists it (run_device_model)."""
    out = run_device_model(emu, xt, ["-xen-domid", "7", "--image", image, "--name", "cpuguest",
                                     "--direct-mib", "96", "--bs", "16384"],
                           lambda d: d["domid"] == 7, "domain 7 (the device model)")
    return json.loads(out.strip().splitlines()[-1])


def main():
    env_path, binary, emu, out_path = sys.argv[1:5]
    with_qemu = "--qemu" in sys.argv[5:]
    env = read_env(env_path)
    dio = env.get("DIO", "?")
    image = os.path.join(env["HOSTFS"], "dom7.img")
    if with_qemu:
        with open(image, "wb") as f:
            f.truncate(128 * MiB)
    xt = Xiotop(binary, os.path.join(os.path.dirname(env_path), "xenstore.dump"), out_path)
    cpus = sorted(os.sched_getaffinity(0))  # test_cpu.sh's pinned world: the writers on CPU 0
    pinned = f", writers pinned to CPU {cpus}" if len(cpus) < os.cpu_count() else ""
    print(f"# loop direct-io {dio}{pinned}")
    xt.wait_next(1)
    t0, stat0 = time.time(), proc_stat()
    kw0 = kworker_runtimes()
    sampler = KworkerSampler(os.path.join(os.path.dirname(out_path), "kworkers-" + os.path.basename(out_path)))
    w1 = small_io(emu, 1, env["DOM1_DEV"], 4)
    # reads of an image not in dom0's page cache: with direct-io off each loop work item
    # waits for its read, so the item sleeps and ends in a later run
    drop_caches()
    r1 = small_io(emu, 1, env["DOM1_DEV"], 3, reads=True)
    kw1 = kworker_runtimes()
    sampled = sampler.stop()
    w3 = small_io(emu, 3, env["DOM3_DEV"], 3)
    q = qemu_direct(emu, xt, image) if with_qemu else None
    subprocess.run(["sync"], check=True)
    xt.wait_next(2)
    t1, stat1 = time.time(), proc_stat()
    xt.stop()
    ivs = xt.intervals()

    for domid, what, threads in ((1, f"loop dio {dio}", (w1, r1)), (3, "zram", (w3,))):
        got, want = role_sum(ivs, domid, "backend"), sum(ticks_ns(t) for t in threads)
        writes, reads = sum(t["wr_ios"] for t in threads), sum(t["rd_ios"] for t in threads)
        check(close_to(got, want),
              f"dom{domid} ({what}) backend CPU {got / 1e6:.0f} ms vs its threads' utime+stime "
              f"{want / 1e6:.0f} ms ({writes} writes, {reads} reads of 16 KiB; {PCT} % + 10 ms)")
    if q:
        got, want = role_sum(ivs, 7, "device_model"), ticks_ns(q)
        check(close_to(got, want),
              f"dom7 (qemu-like, 2 threads) device_model CPU {got / 1e6:.0f} ms vs the process's "
              f"utime+stime {want / 1e6:.0f} ms ({q['image_wr_ios']} writes; {PCT} % + 10 ms)")
    loop1, wb1 = role_sum(ivs, 1, "loop"), role_sum(ivs, 1, "writeback")
    kw = kworker_growth_ns(kw0, kw1)
    lo, hi = workqueue_runtime(sampled, env["DOM1_LOOP"])
    # The loop device's kworkers' own runtime while only domain 1 did I/O, told by the
    # workqueue their comm names (kworker_sampler.py): from below the growth sampled with
    # its workqueue at both ends of a period, from above with it at either end and every
    # kworker's growth (the loop work is most of it; the rest vmstat, flusher and other
    # background work).
    check(lo * (1 - LOOP_LOW_PCT / 100) - SLACK_NS <= loop1 <= min(hi, kw) * (1 + PCT / 100) + SLACK_NS,
          f"dom1 (loop-backed) loop CPU {loop1 / 1e6:.1f} ms in [{lo / 1e6:.1f}, {hi / 1e6:.1f}] ms: the "
          f"runtime of {env['DOM1_LOOP']}'s kworkers during its I/O ({sampled['samples']} samples of their comm "
          f"and schedstat; every kworker's {kw / 1e6:.1f} ms; {LOOP_LOW_PCT} % below, {PCT} % above, + 10 ms) "
          f"({loop1 / max(lo, 1) * 100:.1f} % of the lower; writeback {wb1 / 1e6:.1f} ms)")
    loop3 = role_sum(ivs, 3, "loop")
    check(loop3 == 0, f"dom3 (zram) loop CPU {loop3 / 1e6:.1f} ms == 0")

    # xiotop's intervals do not begin and end at the test's two reads of /proc/stat: the
    # intervals inside [t0, t1] hold at most what the host ran between them, those that
    # overlap it at least. (With every interval ending within 0.5 s of the window, a build
    # keeping both CPUs busy beside the test gave 31.9 s against 30.0 s not-idle.)
    def cpu_sum(win):
        return (sum(d["dom0_cpu_ns"] for iv in win for d in iv["domains"]),
                sum(iv["unattributed_cpu_ns"] for iv in win))

    def start(iv):
        return iv_end(iv) - iv["interval_s"]

    inner = cpu_sum([iv for iv in ivs if start(iv) >= t0 and iv_end(iv) <= t1])
    outer = cpu_sum([iv for iv in ivs if iv_end(iv) > t0 and start(iv) < t1])
    # Two host figures from /proc/stat bound the kernel's per-task runtime that xiotop sums:
    # tick-sampled user+system+irq+softirq undercounts short sleep/wake bursts (measured
    # 3-4 % below the threads' own schedstat sums on an idle machine), while elapsed time
    # less the (exact, nohz) idle time also holds what no task is charged (switches,
    # interrupts while idle). The sum must lie between them, within 3 %.
    ticks_busy, not_idle = busy_bounds(stat0, stat1, t1 - t0)
    lower, upper = ticks_busy * (1 - IDENTITY_PCT / 100), not_idle * (1 + IDENTITY_PCT / 100)
    for (attributed, unattr), what, held, truth in (
            (outer, "overlapping", lambda t: t >= lower, f"at least /proc/stat busy {ticks_busy / 1e9:.2f} s"),
            (inner, "inside", lambda t: t <= upper, f"at most /proc/stat not-idle {not_idle / 1e9:.2f} s")):
        total = attributed + unattr
        check(held(total), f"intervals {what} the run: attributed {attributed / 1e9:.2f} s + unattributed "
              f"{unattr / 1e9:.2f} s = {total / 1e9:.2f} s, {truth} ({IDENTITY_PCT} %)")
    print(f"{len(failures) and 'FAILED' or 'PASSED'}: cpu, loop direct-io {dio}{pinned}, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
