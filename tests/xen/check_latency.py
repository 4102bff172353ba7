"""check_latency.py - check.py's part for --latency: each domain's io_latency histograms
in the real dom0 against counts and times kept apart from xiotop.

Per domain and op, over all of its intervals:
  - counts: the requests xiotop timed equal blkback's own statistics/{rd,wr}_req (a
    blkback domain: each request it takes from the ring, here at most 32 segments of
    4 KiB, becomes one bio queued to the backend device, the bio rule 1 stamps) and the
    guest's own completed requests (/sys/block/xvda/stat fields 1 and 5, printed on its
    console); for the device model (qdisk) the syscalls timed equal xiotop's own count
    of them (guest_*_ios);
  - the histogram holds itself together: its buckets add up to its count, its sum lies
    between the sum of the buckets' lower and upper bounds;
  - an upper bound from the guest: its ticks (fields 4 and 8: the summed time of its
    reads, writes from allocation to completion, in whole ms rounded down) contain
    every time xiotop took: the guest starts a request before blkfront puts it on the
    ring, so before blkback (or the device model) takes it and queues its bio (makes
    its syscall), and ends it after the response, which follows the bio's completion
    (the syscall's return). With one timed I/O per guest request (equal counts),
    xiotop's sum is at most the guest's: mean <= (ticks + 1 ms) / requests. And since
    fewer than half of the requests take over twice their mean (Markov), the median is
    at most twice xiotop's mean, so p50's bucket starts at or below twice the guest's
    mean. Each side measures with its own monotonic clock, both run from Xen's system
    time (no NTP in either domain here);
  - both ways, for a loop backend (file-nodio, file-dio): the loop device's own request
    time in dom0 (/sys/block/loopN/stat fields 4 and 8, ns summed per request from its
    allocation to its end): xiotop's bio time is a part of it, all of it but the
    microseconds before the request's allocation and blkback's completion work (grant
    unmap, response) before the request's end, so xiotop's sum lies within
    LOOP_LAT_LO .. 1 + LOOP_LAT_SLACK of it (check_loop_time says how these were set);
  - printed beside, not judged: dm's own request time (lvm): dm counts whole jiffies
    (4 ms), so it bounds nothing of a bio that takes well under one; the lvm and qdisk
    domains' times have the guest's upper bounds only.
Counts are checks: a lost event is a count missed. A NOTE only where no truth exists: a
device model's syscalls per guest request are its own (qemu may split or merge them), so
the guest's time bounds a qdisk domain's only when the counts happen to be equal."""

OPS = ("read", "write")


def bucket_index(low):
    """A JSON bucket's lower bound (0, 2, 4, 8 ns ...) as its index (bucket i: [2^i, 2^(i+1)))."""
    return 0 if low < 2 else low.bit_length() - 1


TOP_BUCKET = 31  # XIOTOP_LAT_BUCKETS - 1: everything from 2^31 ns (2.1 s) up, no upper bound


def bucket_high(i):
    """A bucket's upper bound: none for the top one (a loaded boot's lvm write took over
    4.3 s, 2^32 ns, and its interval's sum was wrongly judged outside its buckets)."""
    return float("inf") if i >= TOP_BUCKET else 2 << i


def quantile_ns(buckets, q):
    """xiotop's own rule (core/latency.c, as Prometheus' histogram_quantile): the bucket
    the rank q * count falls in, interpolated linearly. None when empty."""
    total = sum(buckets.values())
    if not total:
        return None, None
    rank, below = q * total, 0
    for i in sorted(buckets):
        n = buckets[i]
        if below + n < rank:
            below += n
            continue
        low = 0 if i == 0 else 1 << i
        if i >= TOP_BUCKET:
            return low, i  # as core/latency.c: no upper bound to interpolate to
        return low + (bucket_high(i) - low) * ((rank - below) / n), i
    return None, None


def summed(intervals, domid, window):
    """Per op: ios, sum_ns, {bucket index: ios} over the domain's intervals; with the
    attribution's own request counts, the lost events and per-interval defects."""
    t_from, t_to = window
    out = {op: dict(ios=0, sum_ns=0, buckets={}, guest_ios=0, intervals=0) for op in OPS}
    lost, defects, seen, keyed = 0, [], 0, 0
    for iv in intervals:
        if t_from and iv["time"] < t_from or t_to and iv["time"] > t_to:
            continue
        mine = [d for d in iv["domains"] if d["domid"] == domid]
        if not mine:
            continue
        seen += 1
        lost += iv["lost_events"]
        d = mine[0]
        for op in OPS:
            out[op]["guest_ios"] += d["guest_rd_ios" if op == "read" else "guest_wr_ios"]
        lat = d.get("io_latency")
        if lat is None:
            continue
        keyed += 1
        for op in OPS:
            h, o = lat[op], out[op]
            n = sum(c for _, c in h["buckets"])
            lo = sum(low * c for low, c in h["buckets"])
            hi = sum(bucket_high(bucket_index(low)) * c for low, c in h["buckets"])
            if n != h["ios"] or not lo <= h["sum_ns"] <= hi or (h["ios"] == 0) != (h["p50_ns"] is None):
                defects.append(f"{iv['time']} {op}: ios {h['ios']}, buckets add to {n}, sum"
                               f" {h['sum_ns']} ns outside [{lo}, {hi}] or p50 {h['p50_ns']}")
            o["ios"] += h["ios"]
            o["sum_ns"] += h["sum_ns"]
            o["intervals"] += h["ios"] > 0
            for low, c in h["buckets"]:
                i = bucket_index(low)
                o["buckets"][i] = o["buckets"].get(i, 0) + c
    return out, lost, defects, seen, keyed


def ms(ns):
    return f"{ns / 1e6:.3f} ms"


# a loop backend's own request time (check_loop_time): xiotop's sum at least LOOP_LAT_LO of
# it; at most all of it, plus LOOP_LAT_SLACK of it and a ms for the gaps at the start
LOOP_LAT_LO, LOOP_LAT_SLACK = 0.7, 0.02


def check_loop_time(check, tag, op, g, devstat, lost):
    """A loop backend: its own request time in dom0 (/sys/block/loopN/stat, fields 4 and
    8: per request from its allocation to its end, in ns summed, shown in whole ms) holds
    xiotop's time from both sides, request by request. From above: the bio enters loop
    (xiotop's start, block_bio_queue) just before its request is allocated (microseconds:
    the slack), and xiotop's end (block_rq_complete) comes before the request's end,
    which follows its bios' completion work. From below: what the request's time holds
    beyond the bio's is that completion work, blkback's grant unmap and response for
    one request: measured 0-18.5 % of the request's time (xiotop's sum 81.5-100.0 % of the
    loop's over 8 boots' file-nodio and file-dio, reads and writes), so xiotop's sum is
    held to at least LOOP_LAT_LO of it: half of it fails, as twice does the upper bound. One bio per request: the counts must agree
    (blkback's own count is checked against xiotop's above)."""
    dev, st = devstat
    n, ticks = st[op]
    if n != g["ios"] and not 0 < n - g["ios"] <= lost:
        check(False, f"{tag} {op}: {dev} completed {n} requests, xiotop timed {g['ios']} bios:"
              " one request per bio expected (merged in loop's queue?), its time bounds nothing")
        return
    # requests xiotop said it lost (counted in lost_events) are not in its sum: the sum is
    # taken over all n at the mean of those it timed
    total = g["sum_ns"] * n / g["ios"]
    part = f"; {g['ios']} timed, the rest said lost" if n != g["ios"] else ""
    lo, hi = LOOP_LAT_LO * ticks * 1e6, (ticks + 1) * 1e6 * (1 + LOOP_LAT_SLACK)
    check(lo <= total <= hi,
          f"{tag} {op}: mean {ms(total / n)} vs {dev}'s own request time in dom0"
          f" {ms(ticks * 1e6 / n)} mean over {n} requests ({100 * total / (ticks * 1e6) if ticks else 0:.1f} %;"
          f" {ticks} ms in all, rounded down{part}):"
          f" within {LOOP_LAT_LO:.2f} .. 1 + {LOOP_LAT_SLACK:.2f} of it")


def check_latency(check, report, tag, domid, window, intervals, truth, guest, devstat):
    """One domain. truth: {op: count} blkback's requests, or None for a device model (its
    syscalls are compared with xiotop's own count); guest: {op: (ios, ticks_ms)} from the
    guest's stat line, or None; devstat: (dev, {op: (ios, ticks_ms)}) in dom0, or None."""
    got, lost, defects, seen, keyed = summed(intervals, domid, window)
    check(seen > 0 and keyed == seen,
          f"{tag}: io_latency present in {keyed} of its {seen} intervals (--latency)")
    check(not defects, f"{tag}: every interval's histogram adds up (buckets = ios, sum inside"
          f" the buckets' bounds, p50 null only when idle)" + (f": {defects[:3]}" if defects else ""))
    for op in OPS:
        g = got[op]
        ios = g["ios"]
        want = truth[op] if truth else g["guest_ios"]
        short = "rd" if op == "read" else "wr"
        whose = (f"blkback's statistics/{short}_req" if truth
                 else f"xiotop's own guest_{short}_ios (the syscalls it counted)")
        gio = guest[op][0] if guest else None
        line = (f"{tag} {op}: xiotop timed {ios} requests in {g['intervals']} intervals, {whose}"
                f" {want}, the guest's own {gio if gio is not None else '(no stat line)'}"
                f"; xiotop's guest_*_ios {g['guest_ios']}; lost events meanwhile {lost}")
        # as the live test's rule: timed + said lost covers the truth. A request xiotop did
        # not time but counted in lost_events (a stamp displaced, a completion program the
        # kernel did not run) is not a silent loss; one it did not count is
        said_lost = 0 < want - ios <= lost
        check(ios == want or said_lost,
              line + ("" if ios == want else f" ({want - ios} not timed, within the lost events xiotop said)"
                      if said_lost else " (xiotop missed what it should have timed, beyond the lost events it said)"))
        if not ios:
            continue
        p50, b = quantile_ns(g["buckets"], 0.5)
        low = 0 if b == 0 else 1 << b
        mean = g["sum_ns"] / ios
        hist = {(0 if i == 0 else 1 << i): g["buckets"][i] for i in sorted(g["buckets"])}
        print(f"     {tag} {op} histogram {hist}")
        info = f"p50 {ms(p50)} (bucket [{ms(low)}, {ms(bucket_high(b))}))"
        if devstat and devstat[1][op][0] and devstat[0].startswith("loop"):
            check_loop_time(check, tag, op, g, devstat, lost)
        elif devstat and devstat[1][op][0]:
            dev, st = devstat
            info += (f"; {dev}'s own request time in dom0 {ms(st[op][1] * 1e6 / st[op][0])} mean"
                     f" over {st[op][0]} requests (beside, not a bound: dm counts whole jiffies)")
        # domu_init.sh prints the stat line on every guest's console: its absence is a
        # failure of the run, not a figure that cannot be had
        if not guest or not guest[op][0]:
            check(False, f"{tag} {op}: mean {ms(mean)}, {info}; no guest stat line (or no"
                  f" {op} in it): the guest's own time is missing")
            continue
        gios, gticks = guest[op]
        if gios != ios and truth is None:
            report(False, f"{tag} {op}: mean {ms(mean)}, {info}; the guest completed {gios}"
                   f" requests, the device model made {ios} syscalls: not one per guest"
                   " request, so the guest's time bounds nothing")
            continue
        # blkback takes one ring request per guest request; those xiotop said lost are
        # not in its sum, which stays an upper bound's subject (a part of the guest's time)
        if gios != ios and not 0 < gios - ios <= lost:
            check(False, f"{tag} {op}: the guest completed {gios} requests, xiotop timed {ios}"
                  " (blkback's own count is checked above): one per guest request expected")
            continue
        gmean_hi = (gticks + 1) * 1e6 / gios  # the guest's ticks are whole ms, rounded down
        check(g["sum_ns"] <= (gticks + 1) * 1e6,
              f"{tag} {op}: mean {ms(mean)} <= the guest's own mean {ms(gticks * 1e6 / gios)}"
              f" (< {ms(gmean_hi)}: {gticks} ms over {gios} requests, rounded down); {info}")
        check(low <= 2 * gmean_hi,
              f"{tag} {op}: p50 {ms(p50)} in the bucket from {ms(low)} <= twice the guest's"
              f" mean {ms(2 * gmean_hi)} (the median is at most twice the mean)")
