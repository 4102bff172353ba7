#!/usr/bin/env python3
"""dom0_load.py DIR SRC - a realistic dom0 background load, until SIGTERM or SIGINT.

A dom0 is never idle: `make test-load` (tests/load/with_load.sh) runs the whole suite beside
this, and each live test holds under it or says why a figure cannot (docs/testing.md,
"The suite under a background load"). Three parts, each its own process, named by its
comm (none looks like a blkback thread, "N.xvda-0" or "blkback.N.xvda", or a device
model: xiotop sees dom0 work, not a domain):
  - load-build: xiotop's own build from SRC (cmake, the C compiler, the BPF objects and
    skeletons) in DIR/build, again and again from clean, one job (-j1): CPU, and the
    object files' writes on DIR's file system;
  - load-writer: buffered 1 MiB writes to DIR/written.bin, cycling over LOAD_FILE_MIB
    (1 GiB: a page is written back before it is dirtied again, the kernel's expiry being
    30 s) at XIOTOP_LOAD_WRITE_MIB_S (default 16): dom0's page cache, its writeback;
  - load-reader: 1 MiB O_DIRECT reads at random offsets of DIR/read.bin (256 MiB, written
    first: its data on the disk) at XIOTOP_LOAD_READ_MIB_S (default 16): the disk, never the
    page cache (dom0 may not open the disk itself: the device is read through a file).
DIR must be on a block device that is not zram or a loop device (the emulated worlds'
kinds: tests/emu/emu.sh): anything else is refused (exit 2) before any load starts.

Prints one line naming the parts once each is started, then on SIGTERM/SIGINT stops them and
prints one line per part: what it did (build rounds and their CPU seconds, MiB written,
MiB read) and whether it ran to the end; exit 1 when a part ended before it was stopped
(a load that died is no load: the run beside it was not a run under load).
"""
import ctypes
import mmap
import os
import random
import signal
import subprocess
import sys
import time

MiB = 1 << 20
LOAD_FILE_MIB = 1024
READ_FILE_MIB = 256
STOP = False


def on_stop(_sig, _frame):
    global STOP
    STOP = True


def stop_with_parent():
    """SIGTERM when the parent ends, however it ends (with_load.sh killed hard): a load left
    running on a shared machine would load every run after it."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def name_self(comm):
    with open("/proc/self/comm", "w") as f:
        f.write(comm)


def block_device_of(path):
    """The name of the block device holding path, or exit 2 saying why not."""
    st = os.stat(path)
    dev = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    sysdir = f"/sys/dev/block/{dev}"
    if not os.path.exists(sysdir):
        sys.exit(f"dom0_load: {path} is on no block device ({dev}): give a directory on a disk "
                 "(XIOTOP_LOAD_DIR)")
    name = os.path.basename(os.path.realpath(sysdir))
    if name.startswith(("zram", "loop")):
        sys.exit(f"dom0_load: {path} is on {name}, a kind of device the emulated worlds use: "
                 "give a directory on another disk (XIOTOP_LOAD_DIR)")
    return name


def paced(rate_mib_s, step):
    """step() (1 MiB of work each) rate_mib_s times a second until STOP; MiB done."""
    done, t0 = 0, time.monotonic()
    while not STOP:
        step(done)
        done += 1
        ahead = t0 + done / rate_mib_s - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
    return done


def writer(path, rate, report):
    name_self("load-writer")
    chunk = os.urandom(MiB)  # not zeros: nothing below may take a shortcut on them
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    report("started")
    n = paced(rate, lambda i: os.pwrite(fd, chunk, (i % LOAD_FILE_MIB) * MiB))
    os.close(fd)
    report(f"load-writer: {n} MiB buffered into {path} at {rate} MiB/s")


def reader(path, rate, report):
    name_self("load-reader")
    buf = mmap.mmap(-1, MiB)  # page-aligned, as O_DIRECT wants
    buf.write(os.urandom(MiB))
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_DIRECT, 0o600)
    for i in range(READ_FILE_MIB):  # its data on the disk (a hole reads without I/O)
        os.pwritev(fd, [buf], i * MiB)
    os.fsync(fd)
    rnd = random.Random(42)
    report("started")
    n = paced(rate, lambda _i: os.preadv(fd, [buf], rnd.randrange(READ_FILE_MIB) * MiB))
    os.close(fd)
    report(f"load-reader: {n} MiB read O_DIRECT from {path} at {rate} MiB/s")


def builder(src, build, report):
    name_self("load-build")
    rounds, cpu, log = 0, 0.0, open(os.path.join(os.path.dirname(build), "build.log"), "w")
    subprocess.run(["cmake", "-S", src, "-B", build, "-DXIOTOP_TESTS=OFF"], stdout=log,
                   stderr=subprocess.STDOUT, check=True)
    report("started")
    while not STOP:
        t = os.times()
        proc = subprocess.Popen(["cmake", "--build", build, "-j1", "--clean-first"], stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        while proc.poll() is None:
            if STOP:  # the compiler under make under cmake too: the whole group
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait()
            time.sleep(0.2)
        u = os.times()
        cpu += (u.children_user - t.children_user) + (u.children_system - t.children_system)
        if proc.returncode == 0:
            rounds += 1
        elif not STOP:
            raise SystemExit(f"load-build: the build failed ({proc.returncode}), see {log.name}")
    report(f"load-build: {rounds} whole builds of xiotop (-j1), {cpu:.0f} s of CPU")


def part(fn, *args):
    """fn in a child of its own, reporting through a pipe; its pid and the pipe's end."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        stop_with_parent()
        os.close(r)
        code = 0
        try:
            fn(*args, lambda line: os.write(w, (line + "\n").encode()))
        except BaseException as e:  # one sentence for the report, then the child's end
            os.write(w, f"{fn.__name__}: {e}\n".encode())
            code = 1
        os._exit(code if STOP else 1)  # ended before it was stopped: a failure
    os.close(w)
    return pid, os.fdopen(r, "r")


def main():
    global STOP
    if len(sys.argv) != 3:
        sys.exit("usage: dom0_load.py DIR SRC")
    work, src = sys.argv[1:3]
    dev = block_device_of(work)
    signal.signal(signal.SIGTERM, on_stop)
    stop_with_parent()
    signal.signal(signal.SIGINT, on_stop)
    wr = float(os.environ.get("XIOTOP_LOAD_WRITE_MIB_S", "16"))
    rd = float(os.environ.get("XIOTOP_LOAD_READ_MIB_S", "16"))
    parts = [part(builder, src, os.path.join(work, "build")),
             part(writer, os.path.join(work, "written.bin"), wr),
             part(reader, os.path.join(work, "read.bin"), rd)]
    for _, said in parts:  # each says "started" once its work begins, or why not (or EOF)
        first = said.readline().strip()
        if first != "started":
            STOP = True
            print(f"FAIL load: a part did not start: {first or 'it ended'}", flush=True)
            break
    else:
        print(f"load: a build (-j1), a buffered writer ({wr:g} MiB/s) and an O_DIRECT reader "
              f"({rd:g} MiB/s) in {work} on {dev}", flush=True)
    while not STOP:
        if any(os.waitpid(pid, os.WNOHANG)[0] for pid, _ in parts):
            break  # one ended before it was stopped
        time.sleep(0.5)
    early = not STOP
    for pid, _ in parts:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    rc = 0
    for pid, r in parts:
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:  # reaped above
            status = 1 << 8
        line = r.read().strip() or "a load part said nothing"
        ok = os.waitstatus_to_exitcode(status) == 0
        print(("" if ok else "FAIL ") + line, flush=True)
        rc |= not ok
    if early:
        print("FAIL load: a part ended before the load was stopped", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
