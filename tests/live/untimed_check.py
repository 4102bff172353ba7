#!/usr/bin/env python3
"""Live check: a domain whose backend's completion hook is refused shows its latency as
not given (null), never as 0 requests, while the other kinds are still timed and right.

Run with XIOTOP_FAIL_HOOKS=block_rq_complete in the environment (given to xiotop): the
loop domain (guest1, blk-mq: timed only at block_rq_complete) and the partition of a loop
(guest2) are not timed; the zram domain (guest3, bio-based: block_bio_complete) is.
Each writes and reads with its own timing (the emulated backend, O_DIRECT, native AIO),
one after the other. Checked, per interval: guest1's and guest2's `io_latency` holds
`read` and `write` as null (the key present: latency is timed, but not theirs) in every
interval, also those in which they did I/O (their guest requests > 0, the writer's own
count); guest3's histogram holds as many requests as its writer made (less the lost
events xiotop said) and its p50 is in the writer's bucket rule (latency_check.p50_agrees).
A recorder runs beside it (`record --print json`, the same refused hook): `-b --from-file`
of its recording prints the very lines it printed live, in which guest1 and guest2 are
null too and guest3 holds its writer's requests.
Args: ENV XIOTOP EMU OUT.json.
"""
import atexit
import json
import os
import signal
import subprocess
import sys
import time

from latency_check import bucket_of, histogram, lost_events, p50_agrees, p50_bucket
from livelib import Xiotop, check, failures, finish_writer, iv_end, read_env, run_writer

WRITE_MIB, READ_MIB = 8, 4
UNTIMED = {1: "loop", 2: "partition of a loop"}
TIMED = {3: "zram"}


def stop_recorder(recorder, printed, end):
    """The recorder's printed lines, once one ends after `end` (the last writer's end), and
    it stopped on SIGINT."""
    deadline = time.time() + 15
    while time.time() < deadline:
        with open(printed) as f:
            lines = [l for l in f if l.endswith("\n")]
        if lines and iv_end(json.loads(lines[-1])) > end:
            break
        time.sleep(0.1)
    else:
        raise SystemExit(f"the recorder printed no interval ending after {end:.3f} in 15 s")
    recorder.send_signal(signal.SIGINT)
    check(recorder.wait(timeout=20) == 0, "recorder stopped on SIGINT")
    with open(printed) as f:
        return f.read()


def replayed(binary, rec, recorded, written):
    """The recording read back prints what the recorder printed live, null where live."""
    back = subprocess.run([binary, "-b", "--format", "json", "--from-file", rec],
                          capture_output=True, text=True).stdout
    check(back == recorded and recorded.count("\n") >= 3,
          f"-b --from-file: the {recorded.count(chr(10))} lines the recorder printed, "
          f"byte for byte ({back.count(chr(10))} lines)")
    ivs = [json.loads(l) for l in back.splitlines()]
    for domid, what in UNTIMED.items():
        lats = [d.get("io_latency", "absent") for iv in ivs for d in iv["domains"]
                if d["domid"] == domid]
        ios = sum(d["guest_wr_ios"] + d["guest_rd_ios"] for iv in ivs
                  for d in iv["domains"] if d["domid"] == domid)
        check(lats and all(l == {"read": None, "write": None} for l in lats) and ios > 0,
              f"replayed dom{domid} ({what}): io_latency null in all {len(lats)} intervals "
              f"(guest requests {ios})")
    for domid, what in TIMED.items():
        _, w, _ = written[domid]
        lost = sum(iv["lost_events"] for iv in ivs)
        for op, key in (("write", "wr_ios"), ("read", "rd_ios")):
            count = sum(d["io_latency"][op]["ios"] for iv in ivs for d in iv["domains"]
                        if d["domid"] == domid and d.get("io_latency") and d["io_latency"][op])
            check(count <= w[key] and count + lost >= w[key],
                  f"replayed dom{domid} ({what}) {op}: {count} requests timed, the backend "
                  f"made {w[key]} (lost events {lost})")


def main():
    env_path, binary, emu, out_path = sys.argv[1:5]
    env = read_env(env_path)
    refused = os.environ.get("XIOTOP_FAIL_HOOKS", "")
    print(f"# XIOTOP_FAIL_HOOKS={refused}: {WRITE_MIB} MiB written and {READ_MIB} MiB "
          f"read per domain, 64K")
    err_path = out_path + ".err"
    dump = os.path.join(os.path.dirname(env_path), "xenstore.dump")
    rec, printed = out_path + ".xiotop", out_path + ".printed"
    with open(printed, "w") as out:
        recorder = subprocess.Popen([binary, "record", "-o", rec, "-d", "1", "--xenstore-dump",
                                     dump, "--print", "json"], stdout=out,
                                    stderr=subprocess.DEVNULL)
    atexit.register(lambda: recorder.poll() is None and recorder.kill())
    with open(err_path, "w") as err:
        xt = Xiotop(binary, dump, out_path, stderr=err)
        deadline = time.time() + 15  # the recorder attached too: its first interval printed
        while time.time() < deadline and not open(printed).read().count("\n"):
            time.sleep(0.1)
        if not open(printed).read().count("\n"):
            raise SystemExit("the recorder printed no interval in 15 s")
        start = iv_end(xt.intervals()[-1])
        written = {}
        for domid in (*UNTIMED, *TIMED):
            first = iv_end(xt.intervals()[-1])
            w = finish_writer(run_writer(emu, domid, env[f"DOM{domid}_DEV"], WRITE_MIB,
                                         READ_MIB, ["--bs", "64K", "--aio"]))
            written[domid] = (first, w, xt.wait_past(w["end"]))
        xt.stop()
    recorded = stop_recorder(recorder, printed, max(w["end"] for _, w, _ in written.values()))
    ivs = [iv for iv in xt.intervals() if iv_end(iv) > start]
    said = open(err_path).read()
    check(f"hook {refused} not active (forced by XIOTOP_FAIL_HOOKS)" in said,
          f"{refused} refused and said on stderr")
    for domid, what in UNTIMED.items():
        lats = [d.get("io_latency", "absent") for iv in ivs for d in iv["domains"]
                if d["domid"] == domid]
        given = [lat for lat in lats if lat != {"read": None, "write": None}]
        ios = sum(d["guest_wr_ios"] + d["guest_rd_ios"] for iv in ivs
                  for d in iv["domains"] if d["domid"] == domid)
        _, w, _ = written[domid]
        check(lats and not given and ios >= w["wr_ios"] + w["rd_ios"],
              f"dom{domid} ({what}): io_latency {{read: null, write: null}} in all "
              f"{len(lats)} intervals while it made {w['wr_ios']} writes and {w['rd_ios']} "
              f"reads (xiotop's guest requests {ios}); given instead: {given[:2]}")
    for domid, what in TIMED.items():
        first, w, seen = written[domid]
        for op, key in (("write", "wr_lat"), ("read", "rd_lat")):
            hist = histogram(seen, domid, op, first)
            mine, count = p50_bucket(hist)
            made = w["wr_ios" if op == "write" else "rd_ios"]
            lost = lost_events(seen, first)
            check(count <= made and count + lost >= made,
                  f"dom{domid} ({what}) {op}: still timed, {count} requests, the backend "
                  f"made {made} (lost events meanwhile {lost})")
            own = w[key]["p50_ns"]
            check(p50_agrees(mine, own),
                  f"dom{domid} ({what}) {op} p50: backend's own {own / 1000:.1f} us (bucket "
                  f"2^{bucket_of(own)} ns), xiotop's bucket 2^{mine} ns")
    replayed(binary, rec, recorded, written)
    if failures:
        print(f"FAILED: {len(failures)} untimed-latency check(s)")
        sys.exit(1)


if __name__ == "__main__":
    main()
