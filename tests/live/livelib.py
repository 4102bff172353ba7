"""Helpers shared by the live checks: xiotop in the background, emulated writers,
ground truth from /proc, and a check() that prints every figure it compares."""
import atexit
import calendar
import json
import os
import signal
import subprocess
import sys
import time

MiB = 1 << 20
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def within(value, expected, pct):
    if expected == 0:
        return value == 0
    return abs(value - expected) <= expected * pct / 100.0


def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                env[k] = v.strip().strip('"').strip("'")
    return env


def diskstat_wr_bytes(name):
    with open("/proc/diskstats") as f:
        for line in f:
            p = line.split()
            if p[2] == name:
                return int(p[9]) * 512
    raise SystemExit(f"device {name} not in /proc/diskstats")


def vmstat_pages(*names):
    """/proc/vmstat counters (pages) by name, the CPUs' pending deltas folded in first.
    /proc/vmstat shows the global totals, which each CPU updates only once its own delta
    passes a threshold (or once a second): read without the fold, nr_dirtied trailed a
    guest's 64.0 MiB through dom0's page cache by 0.1 MiB (a fresh clone's
    live_test_topology_edges). Writing vm.stat_refresh folds them (root only: without it,
    the totals as they are)."""
    try:
        with open("/proc/sys/vm/stat_refresh", "w") as f:
            f.write("1")
    except OSError:
        pass
    want, got = set(names), {}
    with open("/proc/vmstat") as f:
        for line in f:
            k, v = line.split()
            if k in want:
                got[k] = int(v)
    return [got[n] for n in names]


def run_writer(emu, domid, target, write_mib, read_mib, extra=()):
    cmd = [emu, "blkback", "--domid", str(domid), "--vdev", "xvda", "--target", target,
           "--write-mib", str(write_mib), "--read-mib", str(read_mib), *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)


def finish_writer(proc):
    out, _ = proc.communicate(timeout=300)
    if proc.returncode != 0:
        raise SystemExit(f"emulated writer failed ({proc.returncode}): {out}")
    summary = json.loads(out.strip().splitlines()[-1])
    summary["end"] = time.time()
    return summary


class Xiotop:
    """xiotop -b --format json in the background; intervals as parsed dicts."""

    def __init__(self, binary, dump, out_path, extra=(), stderr=None):
        self.out_path = out_path
        self.out = open(out_path, "w")
        self.proc = subprocess.Popen([binary, "-b", "-d", "1", "--format", "json",
                                      "--xenstore-dump", dump, *extra], stdout=self.out,
                                     stderr=stderr)
        # a checker that dies on an exception must not leave xiotop running: its programs
        # would stay attached beside the next test's, and it holds ctest's output pipe
        # open until the test's timeout (a traceback in latency_check ran one into 600 s)
        atexit.register(self._kill)
        deadline = time.time() + 15
        while time.time() < deadline and not self.intervals():
            time.sleep(0.2)
        if not self.intervals():
            raise SystemExit("xiotop printed no interval in 15 s")

    def intervals(self):
        # complete lines only: a line still being written (bite_xiotop.py's long lines
        # come in pieces) is not an interval yet
        with open(self.out_path) as f:
            return [json.loads(l) for l in f if l.endswith("\n") and l.strip()]

    def wait_next(self, n=1):
        """Wait until n more complete intervals exist; return all intervals."""
        have = len(self.intervals())
        deadline = time.time() + 10 + 2 * n
        while len(self.intervals()) < have + n and time.time() < deadline:
            time.sleep(0.1)
        return self.intervals()

    def wait_past(self, t):
        """Wait until an interval ends after wall-clock time t (time.time()); return all
        intervals. xiotop stamps a sample's instant before it reads the tracer's maps
        (collector_sample), so that interval holds everything the kernel counted by t:
        the requests of a writer that had ended by t, its completions included."""
        deadline = time.time() + 12
        while time.time() < deadline:
            ivs = self.intervals()
            if ivs and iv_end(ivs[-1]) > t:
                return ivs
            time.sleep(0.05)
        raise SystemExit(f"xiotop printed no interval ending after {t:.3f} in 12 s")

    def wait_domain(self, listed, what):
        """Wait until an interval lists a domain for which listed(domain dict) holds (30 s,
        else fail naming what); return all intervals. xiotop lists a device model once its
        topology holds the process: its I/O is charged to it from then on."""
        deadline = time.time() + 30
        while time.time() < deadline:
            ivs = self.intervals()
            if any(listed(d) for iv in ivs for d in iv["domains"]):
                return ivs
            time.sleep(0.05)
        raise SystemExit(f"xiotop listed no {what} in 30 s")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.out.close()

    def _kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def run_device_model(emu, xt, args, listed, what):
    """xiotop-emu qemu ARGS to its end, its I/O held (--wait-for) until xiotop (xt) lists
    its domain (listed, what: Xiotop.wait_domain's); its stdout. Never a fixed wait: a
    loaded dom0 samples late, and a device model's I/O before xiotop found it is no
    domain's."""
    go = f"{xt.out_path}.go-{len(xt.intervals())}-{time.monotonic_ns()}"
    proc = subprocess.Popen([emu, "qemu", *args, "--wait-for", go], stdout=subprocess.PIPE,
                            text=True)
    try:
        xt.wait_domain(listed, what)
    except SystemExit:
        proc.kill()
        proc.wait()
        raise
    with open(go, "w"):
        pass
    out, _ = proc.communicate(timeout=300)
    os.unlink(go)
    if proc.returncode != 0:
        raise SystemExit(f"xiotop-emu qemu failed ({proc.returncode}): {out}")
    return out


def iv_end(iv):
    t = time.strptime(iv["time"][:19], "%Y-%m-%dT%H:%M:%S")
    return calendar.timegm(t) + int(iv["time"][20:23]) / 1000.0


def dom_sum(intervals, domid, field, t0=None, t1=None):
    total = 0
    for iv in intervals:
        end = iv_end(iv)
        if t0 is not None and end <= t0:
            continue
        if t1 is not None and end > t1:
            continue
        for d in iv["domains"]:
            if d["domid"] == domid:
                total += d[field]
    return total




class KworkerSampler:
    """kworker_sampler.py in the background: every kworker's runtime by the workqueue it
    ran (the kernel's own runtime and worker comm), from start() (its baseline taken)
    until stop(), which returns its totals (see that script)."""

    def __init__(self, out_path):
        self.out_path = out_path
        here = os.path.dirname(os.path.abspath(__file__))
        self.proc = subprocess.Popen([sys.executable, os.path.join(here, "kworker_sampler.py"),
                                      out_path], stdout=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            raise SystemExit("kworker_sampler.py did not start")

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        self.proc.communicate(timeout=30)
        with open(self.out_path) as f:
            return json.load(f)


def workqueue_runtime(sampled, name):
    """(lower, upper) bound in ns of the kworkers' runtime on workqueue NAME's work from
    kworker_sampler's totals: lower the growth with NAME at both ends of a period, upper
    every growth with NAME at either end."""
    sure = sampled["sure"].get(name, 0)
    return sure, sure + sum(sampled[k].get(name, 0) for k in ("entered", "mixed", "left"))
