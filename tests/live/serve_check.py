"""The checks of test_serve.sh against a running `xiotop serve` and a real Prometheus
scraping it every second (both on 127.0.0.1): emulated writers, then PromQL through
Prometheus's HTTP API, promtool, the README's queries, a hostile domain name, 100
concurrent scrapes with xiotop's RSS, and clients that connect and send nothing.

usage: serve_check.py WORLD_ENV XIOTOP_EMU XIOTOP_PORT XIOTOP_PID PROM_PORT README
                      HOSTILE_NAME_HEX PROBE_PORT
PROBE_PORT: Prometheus's second target, served here, only to see the Accept it sends.
"""
import http.client
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from livelib import MiB, check, failures, finish_writer, read_env, run_writer, within  # noqa: E402
from latency_check import WRITER_OWN_NS, bucket_of  # noqa: E402

env_path, emu, xport, xpid, pport, readme, hostile_hex, aport = sys.argv[1:9]
xport, xpid, pport, aport = int(xport), int(xpid), int(pport), int(aport)
hostile = bytes.fromhex(hostile_hex).decode()
env = read_env(env_path)
OM = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
TEXT = "text/plain;version=0.0.4"
SAMPLE = re.compile(rb'^xiotop_[a-z0-9_]+(\{[a-z_]+="([^"\\\n]|\\.)*"(,[a-z_]+="([^"\\\n]|\\.)*")*\})? [0-9]+(\.[0-9]+)?$')


def scrape(accept=OM, path="/metrics", timeout=5):
    c = http.client.HTTPConnection("127.0.0.1", xport, timeout=timeout)
    c.request("GET", path, headers={"Accept": accept})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, dict(r.getheaders()), body


def well_formed(status, headers, body, om):
    """None if the response is complete and well-formed, else what is wrong."""
    if status != 200:
        return f"status {status}"
    if int(headers.get("Content-Length", -1)) != len(body):
        return f"Content-Length {headers.get('Content-Length')} != {len(body)} bytes"
    want = "application/openmetrics-text" if om else "text/plain; version=0.0.4"
    if not headers.get("Content-Type", "").startswith(want):
        return f"Content-Type {headers.get('Content-Type')}"
    if om != body.endswith(b"\n# EOF\n"):
        return "# EOF missing" if om else "# EOF in 0.0.4"
    for line in body.rstrip(b"\n").split(b"\n"):
        if line.startswith(b"# ") and (om or line != b"# EOF"):
            continue
        if not SAMPLE.match(line):
            return f"malformed line {line[:120]!r}"
    return None


def promql(query):
    url = f"http://127.0.0.1:{pport}/api/v1/query?" + urllib.parse.urlencode({"query": query})
    with urllib.request.urlopen(url, timeout=10) as r:
        reply = json.load(r)
    if reply.get("status") != "success":
        raise SystemExit(f"PromQL {query}: {reply}")
    return reply["data"]["result"]


def counter_total(family):
    """A label-free counter of xiotop's exposition, scraped now."""
    _, _, body = scrape(TEXT)
    return int(re.search(rb"^" + family.encode() + rb"_total (\d+)$", body, re.M).group(1))


def intervals():
    return counter_total("xiotop_intervals")


def wait_intervals(n):
    until = time.time() + 60
    while intervals() < n:
        if time.time() > until:
            raise SystemExit(f"xiotop serve made no {n} intervals in 60 s")
        time.sleep(0.2)


def rss_kib():
    with open(f"/proc/{xpid}/status") as f:
        return int(re.search(r"^VmRSS:\s+(\d+)", f.read(), re.M).group(1))


def targets_up():
    with urllib.request.urlopen(f"http://127.0.0.1:{pport}/api/v1/targets", timeout=10) as r:
        t = [x for x in json.load(r)["data"]["activeTargets"] if x["labels"]["job"] == "xiotop"]
    return t and all(x["health"] == "up" and not x["lastError"] for x in t), t


accepts = []


class Probe(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        accepts.append(self.headers.get("Accept"))
        body = b"# TYPE probe gauge\nprobe 1\n# EOF\n"
        self.send_response(200)
        self.send_header("Content-Type", "application/openmetrics-text; version=1.0.0")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


probe = http.server.HTTPServer(("127.0.0.1", aport), Probe)
threading.Thread(target=probe.serve_forever, daemon=True).start()


# --- 1. Prometheus scrapes; the emulated domains write ---
until = time.time() + 60
while not targets_up()[0] and time.time() < until:
    time.sleep(0.5)
up, t = targets_up()
check(up, f"Prometheus scrapes xiotop serve: {[(x['health'], x['lastError']) for x in t]}")
while not accepts and time.time() < until:
    time.sleep(0.2)
prom_accept = accepts[-1] if accepts else ""
status, headers, _ = scrape(prom_accept)
check(headers.get("Content-Type", "").startswith("application/openmetrics-text"),
      f"Prometheus asks Accept: {prom_accept}; xiotop answers {headers.get('Content-Type')}")
writers = [run_writer(emu, 1, env["DOM1_DEV"], 96, 0), run_writer(emu, 3, env["DOM3_DEV"], 64, 0)]
summaries = list(map(finish_writer, writers))
written = {s["domid"]: s["wr_bytes"] for s in summaries}
write_ios = {s["domid"]: s["wr_ios"] for s in summaries}
own_p50 = {s["domid"]: s["wr_lat"]["p50_ns"] for s in summaries}  # the writer's own clock
subprocess.run(["sync"], check=True)  # loop dio off: the host leaf sees them at writeback
wait_intervals(intervals() + 3)
# until Prometheus has scraped an exposition that holds them (its own count of xiotop's
# intervals at least this one's), not a fixed wait: a loaded dom0 scrapes late
held, until = intervals(), time.time() + 60
while not any(float(r["value"][1]) >= held for r in promql("xiotop_intervals_total")):
    if time.time() > until:
        raise SystemExit(f"Prometheus scraped no exposition of {held} intervals in 60 s")
    time.sleep(0.2)

# --- 2. PromQL: guest write bytes per domain within 2 % of the writers' bytes ---
got = {int(r["metric"]["domid"]): float(r["value"][1])
       for r in promql('xiotop_domain_written_bytes_total{layer="guest"}')}
for domid, wr in sorted(written.items()):
    v = got.get(domid, -1)
    check(within(v, wr, 2), f"dom{domid} PromQL guest written {v / MiB:.2f} MiB, the emulated "
          f"backend wrote {wr / MiB:.2f} MiB ({(v - wr) / wr * 100:+.2f} %, 2 % allowed)")
check(got.get(2, -1) == 0, f"dom2 (idle) guest written {got.get(2)} bytes")
rates = {int(r["metric"]["domid"]): float(r["value"][1])
         for r in promql("rate(xiotop_domain_double_counted_bytes_total[1m])")}
check(rates.get(1, 0) > 0 and all(v == 0 for d, v in rates.items() if d != 1),
      "rate(double counted) non-zero only for the loop domain: " +
      ", ".join(f"dom{d} {v / MiB:.2f} MiB/s" for d, v in sorted(rates.items())))

# --- 2b. the latency histogram (--latency): every write timed, a median from the buckets ---
# as the live rule: a request xiotop did not time is one it said lost (a stamp displaced,
# a completion program the kernel skipped as nested), so timed + said lost covers them all
counts = {int(r["metric"]["domid"]): float(r["value"][1])
          for r in promql('xiotop_domain_io_latency_seconds_count{op="write"}')}
lost = counter_total("xiotop_lost_events")
for domid, ios in sorted(write_ios.items()):
    n = counts.get(domid)
    check(n is not None and n <= ios and n + lost >= ios,
          f"dom{domid} PromQL latency _count (write) {n}, the emulated backend made {ios} writes;"
          f" xiotop said {lost} events lost since it started")
check(counts.get(2) == 0, f"dom2 (idle) latency _count {counts.get(2)}")
p50 = {int(r["metric"]["domid"]): float(r["value"][1]) for r in promql(
    'histogram_quantile(0.5, sum by (domid, le) (xiotop_domain_io_latency_seconds_bucket{op="write"}))')}
for domid in sorted(write_ios):
    # histogram_quantile interpolates inside the bucket the median falls in, (2^b, 2^(b+1)]
    # ns (le is a bucket's upper bound): that bucket must be at most the writer's own p50's
    # (each request xiotop times lies inside the writer's clock reads around it) and at
    # least one below that of the writer's p50 less its own part of a request, as in
    # latency_check.py (p50_agrees)
    v, own = p50.get(domid), own_p50[domid]
    lo, hi = bucket_of(max(own - WRITER_OWN_NS, 0)) - 1, bucket_of(own)
    check(v is not None and 2 ** lo < v * 1e9 <= 2 ** (hi + 1) * (1 + 1e-9),
          f"dom{domid} histogram_quantile(0.5) of the writes "
          f"{'none' if v is None else f'{v * 1e6:.1f} us'}, the "
          f"emulated backend's own p50 {own / 1000:.1f} us: in (2^{lo}, 2^{hi + 1}] ns (at most "
          f"the writer's bucket, at least one below its p50 less {WRITER_OWN_NS / 1000:.0f} us)")

# --- 3. the hostile name, as Prometheus decoded it ---
names = {int(r["metric"]["domid"]): r["metric"]["domain"]
         for r in promql('xiotop_domain_written_bytes_total{layer="guest"}')}
want = hostile.replace("\x1b", "\\x1b")  # ESC is shown as the text \x1b; the rest is kept
check(names.get(2) == want, f"dom2's hostile name scraped and decoded intact: {names.get(2)!r}")
status, headers, body = scrape(OM)
check(well_formed(status, headers, body, True) is None,
      f"OpenMetrics exposition with the hostile name well-formed ({len(body)} bytes): "
      f"{well_formed(status, headers, body, True)}")
up, t = targets_up()
check(up, f"Prometheus's last scrape had no error: {[x['lastError'] for x in t]}")
status, headers, body = scrape(TEXT)
pt = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
check(pt.returncode == 0 and well_formed(status, headers, body, False) is None,
      f"promtool check metrics on the 0.0.4 exposition: exit {pt.returncode} "
      f"{pt.stdout.decode().strip()}{pt.stderr.decode().strip()}")

# --- 4. the README's PromQL queries ---
text = open(readme).read()
queries = re.findall(r"```promql\n(.*?)\n```", text, re.S)
check(len(queries) >= 2, f"README has {len(queries)} PromQL queries")
for q in queries:
    r = promql(q)
    check(len(r) > 0, f"README query returns {len(r)} series: {' '.join(q.split())[:70]}... "
          f"-> {[(x['metric'].get('domain', ''), round(float(x['value'][1]), 4)) for x in r][:4]}")

# --- 5. 100 concurrent scrapes for 10 s; idle clients hold a slot, never a thread ---
idle = []
for i in range(5):
    s = socket.create_connection(("127.0.0.1", xport))
    if i == 4:
        s.sendall(b"GET /metr")  # a request that never ends
    idle.append(s)
idle_since = time.time()
t0 = time.time()
status, headers, body = scrape(OM, timeout=3)
check(status == 200 and time.time() - t0 < 1,
      f"with 5 idle clients connected, a scrape answers in {(time.time() - t0) * 1000:.0f} ms")

results = {"ok": 0, "bad": 0, "first_bad": None}
lock = threading.Lock()
stop_at = time.time() + 11


def scraper(n):
    while time.time() < stop_at:
        om = n % 2 == 0
        try:
            bad = well_formed(*scrape(OM if om else TEXT, timeout=10), om)
        except Exception as e:  # a refused or cut connection is a failure too
            bad = repr(e)
        with lock:
            results["ok" if bad is None else "bad"] += 1
            if bad and not results["first_bad"]:
                results["first_bad"] = bad


threads = [threading.Thread(target=scraper, args=(n,)) for n in range(100)]
for th in threads:
    th.start()
time.sleep(1)  # warmed up: every thread has connected at least once
rss = [rss_kib()]
while time.time() < stop_at:
    time.sleep(1)
    rss.append(rss_kib())
for th in threads:
    th.join()
n = results["ok"] + results["bad"]
check(results["bad"] == 0 and n > 100,
      f"100 concurrent scrapers for 10 s: {n} responses, {results['ok']} complete and "
      f"well-formed, {results['bad']} not ({results['first_bad']})")
check(rss[-1] <= rss[0] + 2048, f"xiotop RSS flat under load: first {rss[0]} KiB, last "
      f"{rss[-1]} KiB, max {max(rss)} KiB (2 MiB allowed)")
t0 = time.time()
status, headers, body = scrape(OM, timeout=3)
check(status == 200 and time.time() - t0 < 1,
      f"after the load, idle clients still connected: a scrape answers in "
      f"{(time.time() - t0) * 1000:.0f} ms")
closed = 0
for s in idle:
    s.settimeout(max(1, idle_since + 14 - time.time()))
    try:
        closed += s.recv(1) == b""
    except (socket.timeout, ConnectionError):
        pass
    s.close()
check(closed == 5, f"the server closed {closed} of 5 idle clients after its idle timeout")
status, _, body = scrape(OM, path="/")
check(status == 200 and b'href="/metrics"' in body, f"/ is a page linking /metrics ({status})")
status, _, _ = scrape(OM, path="/nope")
check(status == 404, f"another path: {status}")
print(f"serve_check: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
