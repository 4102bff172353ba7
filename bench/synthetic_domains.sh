#!/usr/bin/env bash
# Issue 17: 1,000 synthetic domains at -d 1 must cost the collector + model + batch JSON
# at most 1 % of a core and 64 MiB RSS. Runs `xiotop -b --format json -d 1 --synthetic N`
# and prints its steady-state CPU (the kernel's runtime of all its threads, from
# /proc/<pid>/task/*/schedstat, between the first and the last of COUNT more intervals)
# and peak RSS (VmHWM), against those limits. Start-up is printed apart.
# Usage: bench/synthetic_domains.sh [BUILD_DIR [XIOTOP_OPTION...]]   (N=1000 COUNT=30 by
# default; no root; e.g. --no-latency for domains without latency histograms)
set -euo pipefail
build=${1:-build}
n=${N:-1000}
count=${COUNT:-30}
[ -x "$build/xiotop" ] || { echo "bench: $build/xiotop not built (make build)" >&2; exit 2; }
python3 - "$build/xiotop" "$n" "$count" "${@:2}" <<'PY'
import glob, subprocess, sys, time
binary, n, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def cpu_ns(pid):
    total = 0
    for f in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        with open(f) as fh:
            total += int(fh.read().split()[0])
    return total

def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0

t_start = time.monotonic()
p = subprocess.Popen([binary, "-b", "--format", "json", "-d", "1", "--synthetic", str(n)] + sys.argv[4:],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
line = p.stdout.readline()
if not line:
    sys.exit(f"bench: xiotop printed nothing: {p.stderr.read().decode().strip()[:200]}")
t0, c0 = time.monotonic(), cpu_ns(p.pid)
size = len(line)
for _ in range(count):
    size = max(size, len(p.stdout.readline()))
t1, c1 = time.monotonic(), cpu_ns(p.pid)
hwm = status_kib(p.pid, "VmHWM") / 1024
p.stdout.close()  # a blocked write must not keep it from seeing SIGTERM
p.terminate()
p.wait()
pct = 100 * (c1 - c0) / 1e9 / (t1 - t0)
print(f"{n} synthetic domains at -d 1, {count} intervals ({size / 1024:.0f} KiB of JSON each): "
      f"CPU {(c1 - c0) / 1e6:.0f} ms over {t1 - t0:.1f} s = {pct:.2f} % of a core (limit 1 %), "
      f"peak RSS {hwm:.1f} MiB (limit 64 MiB); start-up to the first interval "
      f"{c0 / 1e6:.0f} ms CPU")
sys.exit(0 if pct <= 1 and hwm <= 64 else 1)
PY
