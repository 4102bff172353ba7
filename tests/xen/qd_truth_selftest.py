#!/usr/bin/env python3
"""qd_truth.py judged on traces written here in the format Linux 6.1's tracefs prints
(include/trace/events/block.h's TP_printk lines, a trace_marker's tracing_mark_write):
a loop device's reads timed from block_getrq (and block_rq_issue) to block_rq_complete
over the reads completed between the marks only, a write and another device ignored, a
partial completion timed at its last part; a dm device's bios from block_bio_queue to
block_bio_complete; a ring that lost events, a read without its start, marks missing
and no read each make the figure unknown, never smaller; fio's clat in each unit."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qd_truth  # noqa: E402

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def ev(t, name, payload, task="blkback.1.xvda-123"):
    return f"      {task} [000] d..1.  {t:.6f}: {name}: {payload}\n"


def mark(t, text):
    return ev(t, "tracing_mark_write", text, task="bash-200")


def rq_read(t, sector, lat_ms, issue_ms=0.1, dev="7,0"):
    """a 4 KiB read of a blk-mq device: made at t, issued issue_ms later, completed lat_ms
    after it was made"""
    return [ev(t, "block_getrq", f"{dev} R {sector} + 8 [blkback.1.xvda]"),
            ev(t + issue_ms / 1e3, "block_rq_issue", f"{dev} R 4096 () {sector} + 8 [kworker/0:1H]"),
            ev(t + lat_ms / 1e3, "block_rq_complete", f"{dev} R () {sector} + 8 [0]")]


def bio_read(t, sector, lat_ms, dev="254,0"):
    return [ev(t, "block_bio_queue", f"{dev} R {sector} + 8 [blkback.2.xvda]"),
            ev(t + lat_ms / 1e3, "block_bio_complete", f"{dev} R {sector} + 8 [0]")]


INFO = "dev loop0 7:0\ndev dm-0 254:0\nstats cpu0 entries: 40\nstats cpu0 overrun: {lost}\n" \
       "stats cpu0 commit overrun: 0\nstats cpu0 dropped events: 0\n"


def lines_of_loop():
    out = rq_read(99.0, 64, 5)  # before the window: not counted
    out += [mark(100.0, "XMARK x-file start fio")]
    out += rq_read(100.5, 800, 2)
    out += rq_read(101.0, 808, 4)
    # a write between them, and the other device's read: not loop0's reads
    out += [ev(101.2, "block_getrq", "7,0 WS 4000 + 8 [blkback.1.xvda]"),
            ev(101.3, "block_rq_complete", "7,0 WS () 4000 + 8 [0]")]
    out += bio_read(101.4, 16, 1)
    # a partial completion: 4 of 8 sectors at 1 ms, the rest at 3 ms: one read of 3 ms
    out += [ev(102.0, "block_getrq", "7,0 R 900 + 8 [blkback.1.xvda]"),
            ev(102.0001, "block_rq_issue", "7,0 R 4096 () 900 + 8 [kworker/0:1H]"),
            ev(102.001, "block_rq_complete", "7,0 R () 900 + 4 [0]"),
            ev(102.003, "block_rq_complete", "7,0 R () 904 + 4 [0]")]
    out += [mark(103.0, "XMARK x-file end fio")]
    out += rq_read(103.5, 64, 50)  # after the window
    return out


def run(trace, info, name, dev, nth=0):
    with tempfile.TemporaryDirectory() as d:
        if trace is not None:
            with open(os.path.join(d, "x-trace.txt"), "w") as f:
                f.write("# tracer: nop\n#\n" + "".join(trace))
            with open(os.path.join(d, "x-trace-info.txt"), "w") as f:
                f.write(info)
        return qd_truth.trace_read_latency(d, name, "start fio", "end fio", nth, dev)


def main():
    r = run(lines_of_loop(), INFO.format(lost=0), "x-file", "loop0")
    check(r["kind"] == "rq" and r["reads"] == 3 and abs(r["mean_us"] - 3000) < 1 and r["why"] is None,
          f"loop0: 3 reads in the window, 2, 4 and 3 ms: mean 3000 us ({r})")
    check(abs(r["issue_mean_us"] - 2900) < 1, f"loop0 from issue: 2900 us ({r['issue_mean_us']})")
    dm = bio_read(10.0, 8, 9) + [mark(11.0, "XMARK x-lv start fio")]
    dm += bio_read(11.5, 100, 0.1) + bio_read(12.0, 108, 0.3)
    dm += [ev(12.1, "block_bio_queue", "254,0 W 500 + 8 [blkback.2.xvda]")]
    dm += [mark(13.0, "XMARK x-lv end fio")]
    r = run(dm, INFO.format(lost=0), "x-lv", "dm-0")
    check(r["kind"] == "bio" and r["reads"] == 2 and abs(r["mean_us"] - 200) < 1 and r["issue_mean_us"] is None,
          f"dm-0: 2 bios of 100 and 300 us: mean 200 us, no issue time ({r})")
    # the second landing of the marks (x-file's fio write first, its random reads second)
    two = [mark(1.0, "XMARK x-file start fio")] + rq_read(1.5, 8, 20) + [mark(2.0, "XMARK x-file end fio")]
    r = run(two + lines_of_loop(), INFO.format(lost=0), "x-file", "loop0", nth=1)
    check(r["reads"] == 3 and abs(r["mean_us"] - 3000) < 1, f"the second landing's window: 3000 us ({r})")
    r = run(lines_of_loop(), INFO.format(lost=7), "x-file", "loop0")
    check(r["mean_us"] is None and "lost" in r["why"], f"a ring that lost 7 events: unknown ({r['why']})")
    r = run(lines_of_loop(), "dev loop0 7:0\n", "x-file", "loop0")
    check(r["mean_us"] is None and r["why"], f"no ring stats kept: unknown ({r['why']})")
    orphan = [mark(100.0, "XMARK x-file start fio"), ev(100.5, "block_rq_complete", "7,0 R () 8 + 8 [0]")]
    orphan += rq_read(101.0, 16, 1) + [mark(103.0, "XMARK x-file end fio")]
    r = run(orphan, INFO.format(lost=0), "x-file", "loop0")
    check(r["mean_us"] is None and r["unmatched"] == 1, f"a read completed without its start: unknown ({r['why']})")
    r = run(lines_of_loop()[:3], INFO.format(lost=0), "x-file", "loop0")
    check(r["mean_us"] is None and "marks" in r["why"], f"marks missing: unknown ({r['why']})")
    r = run([mark(1.0, "XMARK x-file start fio"), mark(2.0, "XMARK x-file end fio")], INFO.format(lost=0),
            "x-file", "loop0")
    check(r["mean_us"] is None and "no read" in r["why"], f"no read: unknown ({r['why']})")
    r = run(lines_of_loop(), INFO.format(lost=0), "x-file", "loop1")
    check(r["mean_us"] is None and "not traced" in r["why"], f"a device not traced: unknown ({r['why']})")
    r = run(None, "", "x-file", "loop0")
    check(r["mean_us"] is None and "no trace" in r["why"], f"no trace kept: unknown ({r['why']})")
    with tempfile.TemporaryDirectory() as d:
        for unit, avg, want in (("usec", "10193.19", 10193.19), ("msec", "10.5", 10500.0), ("nsec", "98000", 98.0)):
            p = os.path.join(d, unit)
            with open(p, "w") as f:
                f.write(f"  read: IOPS=90\n    slat (nsec): min=1, max=2, avg=5.0\n"
                        f"    clat ({unit}): min=1, max=65140, avg={avg}, stdev=1.0\n     lat (usec): avg=1\n")
            got = qd_truth.fio_clat_us(p)
            check(got is not None and abs(got - want) < 1e-6, f"fio clat in {unit}: {got} us, want {want}")
        check(qd_truth.fio_clat_us(os.path.join(d, "none")) is None, "no fio output: None")
    print(f"qd_truth_selftest: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
