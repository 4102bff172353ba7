#!/usr/bin/env bash
# Live import round trip (issue 14): emulated domains recorded live by `xiotop record`
# (guest1 file-backed on a loop device, guest2 a partition of a loop device, guest3 a
# zram device standing in for an LV, qguest a qemu-like device model writing its image),
# the recording written out by tests/tools/rec2logs as xentop -b -x, vmstat and
# iostat -dx logs, `xiotop import`ed into a new recording; over the whole run the two
# recordings' `xiotop export --format json` give the same
#  - per domain (by name): guest read/write bytes and requests (xentop's VBD columns),
#    and the imported -x VBD lines add up to them;
#  - host: vmstat's bytes in and out, each leaf disk's read and written bytes (iostat).
# Tolerance: 0 for every figure but guest bytes. Guest bytes cross xentop as sectors of
# the cumulative counter (bytes / 512, cut down), so a count that is not whole sectors
# loses < 512 bytes per domain and direction over the whole run (the cut is taken at the
# first and the last sample only). vmstat's whole KiB/s and iostat's kB/s, r/s, w/s with
# two decimals are exact at -d 1: rec2logs divides by the interval the import is told
# (not by the measured one, as the tools do), and disk bytes are whole 512-byte sectors.
# Exit 77 (skipped) without root, zram or kernel BTF; a tracer that fails to load fails.
set -euo pipefail
: "${XIOTOP_BIN:?}" "${XIOTOP_EMU:?}" "${XIOTOP_REC2LOGS:?}" "${XIOTOP_SRC:?}"
# shellcheck source=livelib.sh
. "$XIOTOP_SRC/tests/live/livelib.sh"
live_require_root "recording live domains needs root (BPF, loop devices, zram, mounts)"
live_require_zram "the emulated domains need zram"
live_require_cmd sqlite3 "no sqlite3 command-line tool (apt-get install sqlite3)"
[ -e /sys/kernel/btf/vmlinux ] ||
	live_skip "no kernel BTF (/sys/kernel/btf/vmlinux): the tracer cannot load"
live_workdir roundtrip
pids=()
before_cleanup() { # the recorder, the writers, the device model
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
}
X=$XIOTOP_BIN
wait_samples() { # wait_samples FILE N: until FILE holds N samples (90 s at most: the
	# first waits for the tracer's start, slow beside other work)
	local until=$((SECONDS + 90))
	until [ "$(live_rec_samples "$1")" -ge "$2" ]; do
		[ $SECONDS -lt $until ] || return 1
		sleep 0.2
	done
}

live_world_up off
truncate -s 64M "$HOSTFS/dom7.img" # a device model opens an existing image
sync

rec=$work/live.xiotop
# each sample committed as it is taken (the default groups 10 s of them): the test reads it
"$X" record -o "$rec" -d 1 --commit-every 1 --xenstore-dump "$XENSTORE_DUMP" 2>"$work/record.err" &
rec_pid=$!
pids+=("$rec_pid")
# a tracer that does not load is a failure: root and kernel BTF were checked above
wait_samples "$rec" 2 || fail "no recording started: $(cat "$work/record.err")"
# writes and reads spread over several intervals (throttled), on every backend at once
writers=()
for d in 1 2 3; do
	dev_var=DOM${d}_DEV
	"$XIOTOP_EMU" blkback --domid "$d" --target "${!dev_var}" --write-mib $((16 * d)) \
		--read-mib $((8 * d)) --bs $((d * 65536)) --rate-mib-s 12 >"$work/writer$d.json" &
	writers+=($!)
done
# the device model writes once the recorder has listed it, and stays until the recording
# ends (--hold-until a file never made: SIGTERM ends it)
"$XIOTOP_EMU" qemu -xen-domid 7 --image "$HOSTFS/dom7.img" --name qguest --buffered-mib 24 \
	--direct-mib 8 --wait-for "$work/qemu.go" --hold-until "$work/qemu.never" \
	>"$work/qemu.out" 2>"$work/qemu.err" &
qemu_pid=$!
pids+=("${writers[@]}" "$qemu_pid")
live_wait 30 "the recorder listing the device model's domain 7" live_rec_has_domain "$rec" 7
touch "$work/qemu.go"
wait "${writers[@]}" || fail "an emulated blkback writer failed"
live_wait 60 "the device model's workload done" grep -q "workload done" "$work/qemu.err"
sync
n=$(live_rec_samples "$rec")
wait_samples "$rec" $((n + 2)) || fail "the recorder stopped sampling"
kill -INT "$rec_pid"
wait "$rec_pid" || fail "the recorder did not stop cleanly: $(cat "$work/record.err")"
kill -TERM "$qemu_pid" # held open until the recording ended: it never left the domain list
wait "$qemu_pid" || true

mkdir "$work/logs"
where=$("$XIOTOP_REC2LOGS" "$rec" "$work/logs") || fail "rec2logs failed"
# shellcheck disable=SC2086 # the options rec2logs printed: --interval S --start TIME
"$X" import -o "$work/imported.xiotop" --xentop "$work/logs/xentop.log" \
	--vmstat "$work/logs/vmstat.log" --iostat "$work/logs/iostat.log" $where \
	2>"$work/import.err" || fail "import: $(cat "$work/import.err")"
sed 's/^/     import: /' "$work/import.err"
"$X" export "$rec" --format json >"$work/live.json" || fail "export of the live recording"
"$X" export "$work/imported.xiotop" --format json >"$work/imported.json" ||
	fail "export of the imported recording"

python3 - "$work/live.json" "$work/imported.json" <<'EOF'
import json, sys
SECTOR = 512

def totals(path):
    ivs = [json.loads(line) for line in open(path)]
    doms, host, disks, vbds = {}, {"vmstat_pgpgin_bytes": 0, "vmstat_pgpgout_bytes": 0}, {}, {}
    for iv in ivs:
        for k in host:
            host[k] += iv["host"][k]
        for d in iv["host"]["disks"]:
            t = disks.setdefault(d["dev"], [0, 0])
            t[0] += d["rd_bytes"]
            t[1] += d["wr_bytes"]
        for d in iv["domains"]:
            if d["domid"] == 0 or d.get("name") is None:
                continue
            t = doms.setdefault(d["name"], {})
            for k in ("guest_rd_bytes", "guest_wr_bytes", "guest_rd_ios", "guest_wr_ios"):
                t[k] = t.get(k, 0) + (d[k] or 0)
            v = vbds.setdefault(d["name"], {})
            for s in d.get("vbd_stats") or []:
                for k in ("rd_bytes", "wr_bytes", "rd_req", "wr_req"):
                    v[k] = v.get(k, 0) + s[k]
    return len(ivs), doms, host, disks, vbds

n_live, live, live_host, live_disks, _ = totals(sys.argv[1])
n_imp, imp, imp_host, imp_disks, imp_vbds = totals(sys.argv[2])
bad = 0
def check(ok, text):
    global bad
    print(f"{'ok  ' if ok else 'FAIL'} {text}")
    bad += not ok

MiB = 2**20
check(n_live == n_imp, f"{n_live} intervals live, {n_imp} imported")
for name in ("guest1", "guest2", "guest3", "qguest"):
    check(name in live and live[name]["guest_wr_bytes"] > 0, f"{name} wrote in the live recording")
for name, t in sorted(live.items()):
    u = imp.get(name, {})
    for k in ("guest_rd_bytes", "guest_wr_bytes"):
        x, y = t[k], u.get(k, 0)
        check(0 <= x - y < SECTOR, f"{name} {k}: live {x} ({x / MiB:.2f} MiB), imported {y}, diff {x - y} (< 512: sectors)")
    for k in ("guest_rd_ios", "guest_wr_ios"):
        check(t[k] == u.get(k), f"{name} {k}: live {t[k]}, imported {u.get(k)} (exact)")
    # a domain without a vbd (a qemu with no drive beside the world) has no VBD lines:
    # xentop's VBD columns are the sums over none, 0
    v = imp_vbds.get(name, {})
    check(v.get("rd_bytes", 0) == u.get("guest_rd_bytes") and v.get("wr_bytes", 0) == u.get("guest_wr_bytes")
          and v.get("rd_req", 0) == u.get("guest_rd_ios") and v.get("wr_req", 0) == u.get("guest_wr_ios"),
          f"{name} imported VBD lines add up to its VBD columns ({v or 'no VBD line'})")
for k, x in live_host.items():
    y = imp_host[k]
    check(x == y, f"host {k}: live {x} ({x / MiB:.2f} MiB), imported {y}, diff {x - y} (exact)")
check(set(live_disks) == set(imp_disks), f"leaf disks live {sorted(live_disks)}, imported {sorted(imp_disks)}")
for dev, (rd, wr) in sorted(live_disks.items()):
    r2, w2 = imp_disks.get(dev, (None, None))
    check(rd == r2 and wr == w2, f"disk {dev}: live rd {rd} wr {wr} ({wr / MiB:.2f} MiB), imported rd {r2} wr {w2} (exact)")
sys.exit(1 if bad else 0)
EOF
echo "import round trip: passed"
