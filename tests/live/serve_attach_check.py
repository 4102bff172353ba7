"""The checks of test_serve_attach.sh: counters count from the tracer's attach (issue 30).

Each round starts `xiotop serve`, waits for its first 200 on /metrics (before the tracer is
attached it answers 503), then at once two emulated domains write 64 MiB each (guest1 on a
loop device, guest3 on zram), a sync, and a scrape once two more intervals have ended. The
guest layer must hold exactly the writers' own bytes, and the zram backend's host disk
counter exactly /proc/diskstats' growth from the first 200 to the scrape. Rounds stop at
the first failure: a test that must hold N times in a row.

usage: serve_attach_check.py WORLD_ENV XIOTOP_BIN XIOTOP_EMU ROUNDS WORKDIR
"""
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from livelib import MiB, check, failures, finish_writer, read_env, run_writer  # noqa: E402

env_path, xiotop, emu, rounds, workdir = sys.argv[1:6]
rounds = int(rounds)
env = read_env(env_path)
WRITE_MIB = 64
METRIC = re.compile(r'^(xiotop_[a-z_]+)(\{[^}]*\})? ([0-9.e+]+)$')


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def scrape(port):
    """(status, text) of /metrics in the 0.0.4 text format; status 0: no answer."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics",
                                 headers={"Accept": "text/plain;version=0.0.4"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return 0, ""


def series(text, name):
    """{labels text: value} of one metric."""
    out = {}
    for line in text.splitlines():
        m = METRIC.match(line)
        if m and m.group(1) == name:
            out[m.group(2) or ""] = int(float(m.group(3)))
    return out


def guest_written(text, domid):
    for labels, v in series(text, "xiotop_domain_written_bytes_total").items():
        if f'domid="{domid}"' in labels and 'layer="guest"' in labels:
            return v
    return None


def disk_written(text, dev):
    return series(text, "xiotop_host_disk_written_bytes_total").get(f'{{device="{dev}"}}')


def diskstats_wr(dev):
    with open("/proc/diskstats") as f:
        for line in f:
            p = line.split()
            if p[2] == dev:
                return int(p[9]) * 512
    raise SystemExit(f"{dev} not in /proc/diskstats")


def intervals(port):
    status, text = scrape(port)
    v = series(text, "xiotop_intervals_total").get("") if status == 200 else None
    return -1 if v is None else v


def one_round(n):
    port = free_port()
    err = open(os.path.join(workdir, f"serve-{n}.err"), "w")
    serve = subprocess.Popen([xiotop, "serve", "--listen", f"127.0.0.1:{port}", "-d", "1",
                              "--xenstore-dump", env["XENSTORE_DUMP"]], stderr=err)
    try:
        started = time.time()
        not_ready = 0
        while time.time() - started < 60:
            status, _ = scrape(port)
            if status == 200:
                break
            not_ready += status == 503
            if serve.poll() is not None:
                raise SystemExit(f"round {n}: xiotop serve exited {serve.returncode}")
            time.sleep(0.05)
        else:
            raise SystemExit(f"round {n}: no 200 from /metrics in 60 s")
        ready_s = time.time() - started
        zram = os.path.basename(env["DOM3_DEV"])
        zram_before = diskstats_wr(zram)
        writers = [run_writer(emu, 1, env["DOM1_DEV"], WRITE_MIB, 0),
                   run_writer(emu, 3, env["DOM3_DEV"], WRITE_MIB, 0)]
        written = {s["domid"]: s["wr_bytes"] for s in map(finish_writer, writers)}
        subprocess.run(["sync"], check=True)
        zram_truth = diskstats_wr(zram) - zram_before
        target = intervals(port) + 2
        until = time.time() + 30
        while intervals(port) < target and time.time() < until:
            time.sleep(0.1)
        status, text = scrape(port)
        got = {d: guest_written(text, d) for d in written}
        zram_got = disk_written(text, zram)
        ok = (status == 200 and all(got[d] == written[d] for d in written)
              and zram_got == zram_truth)
        check(ok, f"round {n}: ready after {ready_s:.2f} s ({not_ready} answers 503 before),"
              f" {series(text, 'xiotop_intervals_total').get('')} intervals; guest layer "
              + ", ".join(f"dom{d} {got[d]} bytes (writer {written[d]})" for d in sorted(written))
              + f"; host disk {zram} {zram_got} bytes (/proc/diskstats {zram_truth})")
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=10)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()
        err.close()
    check(serve.returncode == 0, f"round {n}: xiotop serve exit {serve.returncode} on SIGTERM")


for n in range(1, rounds + 1):
    one_round(n)
    if failures:
        break
held = 0 if failures else rounds
print(f"held {held} of {rounds} rounds in a row" if not failures else
      f"failed in round {n} of {rounds}")
sys.exit(1 if failures else 0)
